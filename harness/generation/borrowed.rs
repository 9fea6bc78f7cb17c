//! Seeds for a target that no system test called: its parameters take the
//! values carved for other targets that fit their types (a `Version` carved
//! as an argument of one target seeds another that takes a `Version`), or
//! else the simplest value of their traced type. Generation then mines its
//! grammar from these seeds as from carved calls (the dictionary of its
//! reach joins as always). A target that has calls of its own takes, for
//! its text-form parameters, the texts carved for the others too ([`kin`]).
//!
//! ```
//! use carve::generation::borrowed::seeds;
//! use carve::value::tracer::trace;
//! use carve::value::types::ParamTypes;
//! use carve::value::Value;
//!
//! let mut types = ParamTypes::default();
//! types.param("n", trace::<u8>());
//! let donor = Value::Struct("args", vec![("big", Value::U64(300)), ("small", Value::U64(7))]);
//! // 300 is no `u8`: only 7 seeds `n`.
//! let seeds = seeds(&types, &[donor]).unwrap();
//! assert_eq!(seeds.len(), 1);
//! ```

use std::collections::BTreeSet;

use crate::value::text::UNNAMED;
use crate::value::types::{ParamType, ParamTypes, Ty};
use crate::value::Value;

/// At most this many values seed one parameter: enough to hold the
/// different forms the carve shows, few enough that the grammar is not
/// drowned in values of unrelated targets.
pub const PER_PARAM: usize = 16;

/// Arguments for a target with parameter `types`, from `donors` (argument
/// values carved for other targets, in a stable order): each parameter
/// takes, in the order found, up to [`PER_PARAM`] distinct values of its
/// type found anywhere in the donors (whole arguments first, then their
/// parts), or else its type's simplest value. Seed `i` holds value
/// `i % n` of each parameter with `n` values, so every value is in one.
///
/// A parameter whose type could not be traced takes every distinct carved
/// value as a candidate, and the seeds hold their combinations (at most
/// [`MAX_TRIED`]): the caller keeps the seeds that deserialize.
///
/// Fails, saying why, when a parameter can have no value: a text-form one
/// that no carved text parses into, or one whose type was not traced when
/// nothing was carved.
pub fn seeds(types: &ParamTypes, donors: &[Value]) -> Result<Vec<Value>, String> {
    let values = donated(donors);
    // Per parameter: its values, and whether they are only candidates (a
    // type that could not be traced: which values deserialize into it is
    // known only by trying).
    let mut columns: Vec<(&'static str, Vec<Value>, bool)> = Vec::new();
    for (name, ty) in types.params() {
        let mut seen = BTreeSet::new();
        let mut fitting: Vec<Value> = values
            .iter()
            .filter(|v| match ty {
                ParamType::Typed(ty) => types.fits(ty, v),
                ParamType::Text { parses } => matches!(v, Value::Str(s) if parses(s)),
                ParamType::Untraced(_) => true,
            })
            .filter(|v| seen.insert((**v).clone()))
            .take(PER_PARAM)
            .map(|v| (*v).clone())
            .collect();
        if fitting.is_empty() {
            if let ParamType::Typed(ty) = ty {
                fitting.extend(gathered(types, name, ty, &values));
            }
        }
        if fitting.is_empty() {
            match ty {
                ParamType::Typed(ty) => fitting.extend(types.simplest(ty)),
                ParamType::Text { .. } => {
                    return Err(format!(
                        "no carved text parses into parameter `{name}` (carve a call of a target \
                         that takes its type, or call this one in a system test)"
                    ))
                }
                ParamType::Untraced(why) => {
                    return Err(format!(
                        "the type of parameter `{name}` could not be traced ({why}) and nothing \
                         was carved to try: call it in a system test"
                    ))
                }
            }
        }
        if fitting.is_empty() {
            return Err(format!(
                "parameter `{name}` has no finite value of its type (call it in a system test)"
            ));
        }
        columns.push((name, fitting, matches!(ty, ParamType::Untraced(_))));
    }
    // Candidates are tried in every combination (the caller keeps those
    // that deserialize); values known to fit each land in some seed.
    let tried: usize = columns
        .iter()
        .filter(|(_, _, candidates)| *candidates)
        .map(|(_, c, _)| c.len())
        .product();
    let fitting = columns
        .iter()
        .filter(|(_, _, candidates)| !candidates)
        .map(|(_, c, _)| c.len())
        .max()
        .unwrap_or(1);
    let rows = tried.max(fitting).min(MAX_TRIED);
    Ok((0..rows)
        .map(|i| {
            let mut radix = i;
            let fields = columns
                .iter()
                .map(|(name, column, candidates)| {
                    let at = match candidates {
                        true => {
                            let at = radix % column.len();
                            radix /= column.len();
                            at
                        }
                        false => i % column.len(),
                    };
                    (*name, column[at].clone())
                })
                .collect();
            Value::Struct(UNNAMED, fields)
        })
        .collect())
}

/// For a sequence parameter no carved value fits as a whole: its empty
/// value and one sequence of the carved values that fit its item type (up
/// to [`PER_PARAM`], in the order found), so that the grammar mined from the
/// seeds derives sequences of the items the API was handed, as it would
/// from a carved call. An `aggregate(&Vec<Ipv4Net>)` that no system test
/// called is seeded with the networks carved for the type's other methods,
/// where the empty sequence alone gives the grammar no item to derive (and
/// a text item, generated from nothing, rarely parses). An item that holds
/// a text is kept only if the parameter deserializes with it alone (it
/// parses). Nothing when no carved value fits the item type.
fn gathered(types: &ParamTypes, name: &'static str, ty: &Ty, values: &[&Value]) -> Vec<Value> {
    let Ty::Seq(item) = ty else {
        return Vec::new();
    };
    let admitted = |v: &Value| {
        let alone = Value::Struct(UNNAMED, vec![(name, Value::Seq(vec![v.clone()]))]);
        holds_quietly(|| types.admits(&alone))
    };
    let mut seen = BTreeSet::new();
    let items: Vec<Value> = values
        .iter()
        .filter(|v| types.fits(item, v) && !seen.contains(**v) && admitted(v) && seen.insert((**v).clone()))
        .take(PER_PARAM)
        .map(|v| (*v).clone())
        .collect();
    if items.is_empty() {
        return Vec::new();
    }
    types
        .simplest(ty)
        .into_iter()
        .chain([Value::Seq(items)])
        .collect()
}

/// More seeds for a target that has calls of its own (`own`, its carved
/// arguments): each of its text-form parameters also takes the texts
/// carved for other targets (`donors`, in a stable order) that parse into
/// it and that its own calls do not show, up to [`PER_PARAM`] of them, each
/// in a copy of its first call. A receiver carved once as `en` is then
/// also derived from the `en-Latn-US-x-private` and `zh-hak` that the
/// system tests handed to the type's other methods: parts of a text (a
/// script, a private-use section) that its own calls never showed, and
/// that no token move makes from `en` alone.
///
/// ```
/// use carve::generation::borrowed::kin;
/// use carve::value::types::{ParamType, ParamTypes, Traced};
/// use carve::value::Value;
///
/// let mut types = ParamTypes::default();
/// types.param("self", Traced::plain(ParamType::Text { parses: |s| s.parse::<u16>().is_ok() }));
/// let own = [Value::Struct("args", vec![("self", Value::Str("7".into()))])];
/// let donors = [Value::Struct("args", vec![("n", Value::Str("300".into())), ("s", Value::Str("x".into()))])];
/// let more = kin(&types, &own, &donors);
/// assert_eq!(more, [Value::Struct("args", vec![("self", Value::Str("300".into()))])]);
/// ```
pub fn kin(types: &ParamTypes, own: &[Value], donors: &[Value]) -> Vec<Value> {
    let Some(Value::Struct(name, first)) = own.first() else {
        return Vec::new();
    };
    let values = donated(donors);
    let mut out = Vec::new();
    for (param, ty) in types.params() {
        let ParamType::Text { parses } = ty else {
            continue;
        };
        let text_of = |args: &'_ Value| match args {
            Value::Struct(_, fields) => fields.iter().find_map(|(n, v)| match v {
                Value::Str(text) if *n == param => Some(text.clone()),
                _ => None,
            }),
            _ => None,
        };
        // Only where the first call holds a text there.
        if text_of(&own[0]).is_none() {
            continue;
        }
        let mut seen: BTreeSet<String> = own.iter().filter_map(text_of).collect();
        let texts: Vec<&String> = values
            .iter()
            .filter_map(|v| match v {
                Value::Str(text) => Some(text),
                _ => None,
            })
            .filter(|text| !seen.contains(*text) && holds_quietly(|| parses(text)) && seen.insert((*text).clone()))
            .take(PER_PARAM)
            .collect();
        for text in texts {
            let fields = first
                .iter()
                .map(|(n, v)| match *n == param {
                    true => (*n, Value::Str(text.clone())),
                    false => (*n, v.clone()),
                })
                .collect();
            out.push(Value::Struct(name, fields));
        }
    }
    out
}

/// The named types (as serde names them) of `types`' parameters that only
/// a call of the crate's API may make: a parameter's own type, or its
/// sequence's item type (seeded item by item, [`gathered`]). These are the
/// types a target with no seed asks other targets to return
/// ([`may_return`]).
pub fn wanted(types: &ParamTypes) -> Vec<&'static str> {
    let mut names = Vec::new();
    for (_, ty) in types.params() {
        let name = match ty {
            ParamType::Typed(Ty::Named(name)) => *name,
            ParamType::Typed(Ty::Seq(item)) => match &**item {
                Ty::Named(name) => *name,
                _ => continue,
            },
            _ => continue,
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Whether a function of `signature` (as written: `pub fn hosts(&self) ->
/// Ipv6AddrRange`) may return a value of the type `name`: its return type
/// names it (`Result<Ipv6Subnets, PrefixLenError>`, `Option<Vec<Name>>`), or
/// names `Self` (not `Self::Item`) in an impl of `self_ty` when that is
/// `name`. Only the return type counts: not a parameter's `impl Fn() -> T`,
/// a generic bound's, or a `where` clause.
///
/// ```
/// use carve::generation::borrowed::may_return;
///
/// assert!(may_return("pub fn hosts(&self) -> Ipv6AddrRange", Some("Ipv6Net"), "Ipv6AddrRange"));
/// assert!(may_return("pub fn new(start: Ipv6Addr, end: Ipv6Addr) -> Self", Some("Ipv6AddrRange"), "Ipv6AddrRange"));
/// assert!(!may_return("fn next(&mut self) -> Option<Self::Item>", Some("Ipv6AddrRange"), "Ipv6AddrRange"));
/// assert!(!may_return("fn apply(f: impl Fn(u8) -> Range) -> u8", None, "Range"));
/// ```
pub fn may_return(signature: &str, self_ty: Option<&str>, name: &str) -> bool {
    let Some(returned) = return_type(signature) else {
        return false;
    };
    let mut words = returned.char_indices().peekable();
    while let Some((start, c)) = words.next() {
        if !(c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(at, c)) = words.peek() {
            if !(c.is_alphanumeric() || c == '_') {
                break;
            }
            end = at + c.len_utf8();
            words.next();
        }
        let word = &returned[start..end];
        if word == name {
            return true;
        }
        if word == "Self" && self_ty == Some(name) && !returned[end..].trim_start().starts_with("::") {
            return true;
        }
    }
    false
}

/// The type whose impl holds a target's method, named by its `fn_name`
/// (`Ipv6Net::hosts`, `Ipv6AddrRange::Iterator::next`, `Stack<u8>::pop`),
/// without generic arguments: what its signature's `Self` is. `None` for a
/// free function.
///
/// ```
/// use carve::generation::borrowed::self_type;
///
/// assert_eq!(self_type("Ipv6AddrRange::Iterator::next"), Some("Ipv6AddrRange"));
/// assert_eq!(self_type("Stack<u8>::pop"), Some("Stack"));
/// assert_eq!(self_type("parse"), None);
/// ```
pub fn self_type(fn_name: &str) -> Option<&str> {
    let (ty, _) = fn_name.split_once("::")?;
    Some(ty.split('<').next().unwrap_or(ty).trim())
}

/// The return type of `signature`: what follows its `->` outside any
/// parentheses, brackets or angle brackets, up to a `where` clause.
fn return_type(signature: &str) -> Option<&str> {
    let bytes = signature.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                if depth == 0 {
                    let rest = &signature[i + 2..];
                    let end = rest.find(" where ").unwrap_or(rest.len());
                    return Some(rest[..end].trim());
                }
                i += 1;
            }
            b'(' | b'[' | b'<' => depth += 1,
            b')' | b']' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `check` (a text parses, a value deserializes) holds, a parser
/// that panics saying no: a text found inside another target's value was
/// never read by this type's parser, and the parent process asks.
fn holds_quietly(check: impl FnOnce() -> bool) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::outcome::quietly(check))).unwrap_or(false)
}

/// The values of `donors` (argument structs): whole arguments first, a
/// carved argument being more telling than a part of one, then their parts.
fn donated(donors: &[Value]) -> Vec<&Value> {
    let mut values: Vec<&Value> = Vec::new();
    for donor in donors {
        match donor {
            Value::Struct(_, fields) => values.extend(fields.iter().map(|(_, v)| v)),
            other => values.push(other),
        }
    }
    let mut parts = Vec::new();
    for value in &values {
        parts_of(value, &mut parts, 0);
    }
    values.extend(parts);
    values
}

/// At most this many seeds are made (and tried, where parameters have
/// types that could not be traced).
pub const MAX_TRIED: usize = 256;

/// Every value nested in `value` (not `value` itself), outside in.
fn parts_of<'v>(value: &'v Value, out: &mut Vec<&'v Value>, depth: usize) {
    // Carve writes values at most a few hundred levels deep; seeds need
    // none that deep.
    if depth > 32 {
        return;
    }
    let children: Vec<&Value> = match value {
        Value::Some(v) | Value::NewtypeStruct(_, v) => vec![v],
        Value::NewtypeVariant { value, .. } => vec![value],
        Value::Seq(vs) | Value::Tuple(vs) | Value::TupleStruct(_, vs) => vs.iter().collect(),
        Value::TupleVariant { fields, .. } => fields.iter().collect(),
        Value::Map(entries) => entries.iter().flat_map(|(k, v)| [k, v]).collect(),
        Value::Struct(_, fields) | Value::StructVariant { fields, .. } => {
            fields.iter().map(|(_, v)| v).collect()
        }
        _ => Vec::new(),
    };
    out.extend(children.iter().copied());
    for child in children {
        parts_of(child, out, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tracer::trace;
    use crate::value::types::Traced;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Range {
        low: u32,
        high: Option<u32>,
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    #[allow(dead_code)]
    enum Tree {
        Node(Box<Tree>, Box<Tree>),
        Leaf,
    }

    fn args(fields: Vec<(&'static str, Value)>) -> Value {
        Value::Struct(UNNAMED, fields)
    }

    /// A target with calls of its own takes, for a text-form parameter, the
    /// other targets' texts that parse and its calls do not show (whole
    /// arguments first, then parts of values), in a copy of its first
    /// call; a text its parser panics on is not taken.
    #[test]
    fn a_text_parameter_also_takes_the_texts_carved_for_others() {
        let mut types = ParamTypes::default();
        types.param(
            "self",
            Traced::plain(ParamType::Text {
                parses: |s| {
                    assert_ne!(s, "13", "a parser that panics");
                    s.parse::<u16>().is_ok()
                },
            }),
        );
        types.param("n", trace::<u8>());
        let own = [
            args(vec![("self", Value::Str("7".into())), ("n", Value::U64(1))]),
            args(vec![("self", Value::Str("8".into())), ("n", Value::U64(2))]),
        ];
        let donors = [
            args(vec![("v", Value::Seq(vec![Value::Str("12".into())])), ("s", Value::Str("8".into()))]),
            args(vec![("s", Value::Str("13".into())), ("t", Value::Str("x".into())), ("u", Value::Str("70000".into()))]),
        ];
        let with = |text: &str| args(vec![("self", Value::Str(text.into())), ("n", Value::U64(1))]);
        assert_eq!(kin(&types, &own, &donors), [with("12")]);
        assert!(kin(&types, &[], &donors).is_empty());
    }

    /// A value carved for another target seeds a parameter of its type,
    /// whether it was a whole argument or part of one; values of other
    /// types do not.
    #[test]
    fn carved_values_of_the_type_seed_the_parameter() {
        let mut types = ParamTypes::default();
        types.param("range", trace::<Range>());
        types.param("label", trace::<String>());
        let range = Value::capture(&Range { low: 2, high: Some(9) }).unwrap();
        let donors = [
            args(vec![("r", range.clone()), ("n", Value::U64(4))]),
            args(vec![("rs", Value::Seq(vec![range.clone()])), ("s", Value::Str("x".into()))]),
        ];
        let seeds = seeds(&types, &donors).unwrap();
        // One range (found twice), one string: one seed.
        assert_eq!(
            seeds,
            [args(vec![("range", range), ("label", Value::Str("x".into()))])]
        );
    }

    /// With nothing of its type carved, a parameter takes its type's
    /// simplest value; the other parameters' values each land in a seed.
    #[test]
    fn a_parameter_nothing_fits_takes_its_simplest_value() {
        let mut types = ParamTypes::default();
        types.param("range", trace::<Range>());
        types.param("tree", trace::<Tree>());
        types.param("n", trace::<i8>());
        let donors = [args(vec![("a", Value::U64(1)), ("b", Value::U64(500)), ("c", Value::U64(2))])];
        let seeds = seeds(&types, &donors).unwrap();
        // Only whole values of its type fit `range` (the carved 1 is no
        // `Range`); `tree` is its leaf, not a tree of nodes.
        let leaf = Value::UnitVariant { name: "Tree", index: 1, variant: "Leaf" };
        let simplest = Value::Struct("Range", vec![("low", Value::U64(0)), ("high", Value::None)]);
        assert_eq!(
            seeds,
            [
                args(vec![("range", simplest.clone()), ("tree", leaf.clone()), ("n", Value::U64(1))]),
                args(vec![("range", simplest), ("tree", leaf), ("n", Value::U64(2))]),
            ]
        );
    }

    /// A sequence parameter that no carved value fits as a whole is seeded
    /// with its empty value and a sequence of the carved values of its item
    /// type, whole arguments and parts alike, each once; an item text that
    /// does not parse (an address that is none) is left out.
    #[test]
    fn a_sequence_parameter_gathers_the_carved_values_of_its_items() {
        let mut types = ParamTypes::default();
        types.param("ranges", trace::<Vec<Range>>());
        types.param(
            "addrs",
            trace::<Vec<std::net::Ipv4Addr>>()
                .checked_by(|v| <Vec<std::net::Ipv4Addr> as serde::Deserialize>::deserialize(v).is_ok()),
        );
        let range = Value::capture(&Range { low: 2, high: Some(9) }).unwrap();
        let other = Value::capture(&Range { low: 5, high: None }).unwrap();
        let donors = [
            args(vec![("r", range.clone()), ("a", Value::Str("10.0.0.1".into()))]),
            args(vec![("rs", Value::Some(Box::new(other.clone()))), ("s", Value::Str("x".into()))]),
            args(vec![("r", range.clone()), ("b", Value::Str("10.0.0.2".into()))]),
        ];
        let seeds = seeds(&types, &donors).unwrap();
        let addrs = Value::Seq(vec![Value::Str("10.0.0.1".into()), Value::Str("10.0.0.2".into())]);
        assert_eq!(
            seeds,
            [
                args(vec![("ranges", Value::Seq(vec![])), ("addrs", Value::Seq(vec![]))]),
                args(vec![("ranges", Value::Seq(vec![range, other])), ("addrs", addrs)]),
            ]
        );
        // Nothing of the item type carved: the empty sequence alone.
        let none = [args(vec![("n", Value::U64(3))])];
        assert_eq!(
            seeds_of(&types, &none),
            [args(vec![("ranges", Value::Seq(vec![])), ("addrs", Value::Seq(vec![]))])]
        );
    }

    fn seeds_of(types: &ParamTypes, donors: &[Value]) -> Vec<Value> {
        seeds(types, donors).unwrap()
    }

    /// A text-form parameter takes carved texts that parse, and none else;
    /// with none, the target cannot be seeded, and the reason names it.
    #[test]
    fn a_text_parameter_takes_carved_texts_that_parse() {
        let mut types = ParamTypes::default();
        types.param(
            "self",
            Traced::plain(ParamType::Text {
                parses: |s| s.parse::<u16>().is_ok(),
            }),
        );
        let donors = [args(vec![("s", Value::Str("12".into())), ("t", Value::Str("x".into()))])];
        assert_eq!(
            seeds(&types, &donors).unwrap(),
            [args(vec![("self", Value::Str("12".into()))])]
        );
        let none = [args(vec![("t", Value::Str("x".into()))])];
        // A type that could not be traced tries every carved value, in
        // every combination with the other such parameters.
        let mut untraced = ParamTypes::default();
        untraced.param("a", Traced::plain(ParamType::Untraced("why".into())));
        untraced.param("b", Traced::plain(ParamType::Untraced("why".into())));
        let (x, y) = (Value::Str("x".into()), Value::U64(2));
        let pair = |a: &Value, b: &Value| args(vec![("a", a.clone()), ("b", b.clone())]);
        assert_eq!(
            seeds(&untraced, &[args(vec![("s", x.clone()), ("n", y.clone())])]).unwrap(),
            [pair(&x, &x), pair(&y, &x), pair(&x, &y), pair(&y, &y)]
        );
        insta::assert_snapshot!(seeds(&types, &none).unwrap_err(), @"no carved text parses into parameter `self` (carve a call of a target that takes its type, or call this one in a system test)");
    }
}
