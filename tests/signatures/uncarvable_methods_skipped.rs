// Impl blocks with no method marked carve every public method they can; a
// method one of whose parameters or return value's parts has no form carve
// can store is skipped and named in the record run, not a compile error
// (which a user could only get out of by marking every other method). Met on
// url 2.5.8 (`Url::query_pairs -> form_urlencoded::Parse<'_>`,
// `Url::options -> ParseOptions<'a>`, types of other crates or holding a
// `&dyn Fn`) and indexmap 2.14.2 (`with_capacity_and_hasher(n, hash_builder:
// S)` at `S = RandomState`; `pop_if(&mut self, predicate: impl FnOnce(&T) ->
// bool)` in a block carved at `generics(…)`). A method marked by hand keeps
// the compile error (ui `unserializable_self_return`,
// `borrowed_deserialize_param`).
use std::hash::RandomState;
use std::marker::PhantomData;

/// Borrows its query, and has no serde, `Display` or `Debug`.
pub struct Pairs<'a>(&'a str);

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Query {
    text: String,
}

#[carve::target]
impl Query {
    pub fn parse(text: &str) -> Query {
        Query {
            text: text.to_owned(),
        }
    }

    pub fn pairs(&self) -> Pairs<'_> {
        Pairs(&self.text)
    }

    pub fn first(&self) -> Option<(usize, Pairs<'_>)> {
        self.text.find('&').map(|at| (at, Pairs(&self.text[..at])))
    }

    pub fn hashed(&self, hasher: RandomState) -> usize {
        drop(hasher);
        self.text.len()
    }
}

/// shlex 2.0.1's `Shlex`: no serde, `Display` or `Debug`.
pub struct Words(u8);

#[carve::target]
impl Words {
    pub fn new(n: u8) -> Self {
        Words(n)
    }

    pub fn empty() -> Option<Self> {
        None
    }
}

/// roxmltree 0.21.2's `Error`: a `&'static str` field makes it
/// `Deserialize<'static>` only.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Error {
    InvalidString(&'static str, u32),
    NoRootNode,
}

#[carve::target]
impl Error {
    pub fn pos(&self) -> u32 {
        match self {
            Error::InvalidString(_, pos) => *pos,
            Error::NoRootNode => 0,
        }
    }
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Stack<T> {
    items: Vec<T>,
}

#[carve::target(generics(T = u8))]
impl<T> Stack<T> {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn pop_if(&mut self, predicate: impl FnOnce(&T) -> bool) -> Option<T> {
        match self.items.last() {
            Some(last) if predicate(last) => self.items.pop(),
            _ => None,
        }
    }
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Counter<S> {
    count: u32,
    #[serde(skip)]
    hasher: PhantomData<S>,
}

#[carve::target(generics(S = RandomState))]
impl<S> Counter<S> {
    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn with_hasher(count: u32, hash_builder: S) -> Self {
        drop(hash_builder);
        Counter {
            count,
            hasher: PhantomData,
        }
    }
}

pub fn main() {
    let lines = carve::_internals::registry::skipped_lines();
    for expected in [
        "carve: skipped in impl uncarvable_methods_skipped::Counter<RandomState>: with_hasher (parameter `hash_builder`: `RandomState` has neither serde nor `Display + FromStr`) — mark methods with #[carve::target] to choose",
        "carve: skipped in impl uncarvable_methods_skipped::Error: pos (parameter `self`: `Error` is `Serialize` but not `DeserializeOwned` (a borrowed field?)) — mark methods with #[carve::target] to choose",
        "carve: skipped in impl uncarvable_methods_skipped::Query: first (returns `Pairs`, which has neither serde, `Display` nor `Debug`), hashed (parameter `hasher`: `RandomState` has neither serde nor `Display + FromStr`), pairs (returns `Pairs`, which has neither serde, `Display` nor `Debug`) — mark methods with #[carve::target] to choose",
        "carve: skipped in impl uncarvable_methods_skipped::Stack<T>: pop_if (parameter `predicate`) — mark methods with #[carve::target] to choose",
        "carve: skipped in impl uncarvable_methods_skipped::Words: empty, new (returns `Words`, which has neither serde, `Display` nor `Debug`) — mark methods with #[carve::target] to choose",
    ] {
        assert!(lines.iter().any(|l| l == expected), "{expected}\n{lines:#?}");
    }
    let registry = carve::_internals::registry::Registry::collect();
    let targets: Vec<&str> = registry
        .targets()
        .filter_map(|(name, _)| crate::in_module(module_path!(), name))
        .collect();
    assert_eq!(
        targets,
        [
            "Counter<RandomState>::count",
            "Query::parse",
            "Stack<u8>::len"
        ]
    );

    // Calls of skipped methods are not carved; and a skipped method is not
    // worth an instantiation more (indexmap's `with_capacity_and_hasher` at
    // `S = RandomState` was named as called at `V = ()`, as if adding
    // that instantiation would carve it).
    use carve::_internals::carving::record;
    record::start();
    record::record_test("uses_them", || {
        let query = Query::parse("a=1&b=2");
        assert_eq!(query.first().map(|(at, _)| at), Some(3));
        let counter = Counter::<u8>::with_hasher(2, 7);
        assert_eq!(counter.count(), 2);
    });
    let recordings = record::stop();
    let calls: Vec<String> = recordings
        .iter()
        .flat_map(|r| r.calls.iter().map(|c| c.target.name()))
        .filter_map(|name| crate::in_module(module_path!(), &name).map(str::to_owned))
        .collect();
    assert_eq!(calls, ["Query::parse"]);
    let unlisted: Vec<String> = record::take_unlisted()
        .iter()
        .map(|u| u.message())
        .collect();
    assert_eq!(
        unlisted,
        ["carve: not carving calls of `uncarvable_methods_skipped::Counter::count` at `S = u8`, an instantiation its attribute does not list (first seen in system test `uses_them`; 1 call(s)). Add `generics(S = u8)` to its `#[carve::target(…)]` to carve them."]
    );
}
