//! What the attributes register: targets and system tests, found with `inventory`.
//!
//! The attribute macros emit one static [`Target`] or [`SystemTest`] per item
//! and submit a reference to it; [`Registry::collect`] gathers them and sorts
//! them by name, because link order (and so registration order) is not stable.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::AtomicU32;

use crate::call::{ArgsInput, ReplayResult};
use crate::value::types::ParamTypes;

/// A function whose calls are carved, registered by `#[carve::target]`.
#[derive(Debug)]
pub struct Target {
    /// `module_path!()` where the attribute was expanded (`mycrate::decode`).
    pub module_path: &'static str,
    /// The function name, or `Type::method` for methods.
    pub fn_name: &'static str,
    /// The signature as written, shown in stale-carve errors.
    pub signature: &'static str,
    /// Source file of the function.
    pub file: &'static str,
    /// Source line of the function.
    pub line: u32,
    /// Its branch outcomes.
    pub sites: &'static Sites,
    /// Deserializes arguments (carved RON text or a generated value), calls
    /// the function, and observes its outcome.
    pub replay: fn(ArgsInput<'_>) -> ReplayResult,
    /// Traces the types of its parameters into the given
    /// [`ParamTypes`], for generation to make values of those types only.
    pub trace: fn(&mut ParamTypes),
    /// Why the target is left out (``returns `Parse`, which has neither
    /// serde, `Display` nor `Debug` ``),
    /// for a method of an impl block with no method marked whose parameter
    /// or return type carve cannot store: such a method is skipped, not a
    /// compile error. `None` for every other target.
    pub uncarvable: fn() -> Option<String>,
}

impl Target {
    /// The traced types of its parameters.
    pub fn param_types(&self) -> ParamTypes {
        let mut types = ParamTypes::default();
        (self.trace)(&mut types);
        types
    }

    /// The target's path inside its crate: `decode::cgi_decode`,
    /// `Account::withdraw`. This names its carve file and its tests.
    pub fn name(&self) -> String {
        path_in_crate(self.module_path, self.fn_name)
    }
}

/// `item` inside the crate `module_path!()` names: the crate is dropped
/// (`mycrate::decode` + `cgi_decode` → `decode::cgi_decode`).
pub fn path_in_crate(module_path: &str, item: &str) -> String {
    match module_path.split_once("::") {
        Some((_crate, module)) => format!("{module}::{item}"),
        None => item.to_owned(),
    }
}

/// A system test, registered by `#[carve::system_test]`.
#[derive(Debug)]
pub struct SystemTest {
    /// `module_path!()` where the test was defined.
    pub module_path: &'static str,
    /// The test function's name.
    pub fn_name: &'static str,
    /// Set by `#[ignore]`.
    pub ignored: bool,
    /// Set by `#[should_panic]`: `Some(expected substring)`, `Some("")` for any panic.
    pub should_panic: Option<&'static str>,
    /// Runs the test; `Err` carries the message of a returned error.
    pub run: fn() -> Result<(), String>,
}

impl SystemTest {
    /// The test's path inside its crate, without the `system::` prefix.
    pub fn name(&self) -> String {
        let module = self
            .module_path
            .split_once("::")
            .map(|(_, rest)| rest)
            .unwrap_or("");
        if module.is_empty() {
            self.fn_name.to_owned()
        } else {
            format!("{module}::{}", self.fn_name)
        }
    }
}

/// One branch outcome of an instrumented function.
#[derive(Debug)]
pub struct Branch {
    /// What kind of branch it is an outcome of.
    pub kind: BranchKind,
    /// The condition, pattern or loop as written.
    pub condition: &'static str,
    /// Which of the branch's outcomes it is.
    pub side: Side,
    /// Line of the condition (from 1; 0 when unknown).
    pub line: u32,
    /// Column of the condition (from 1; 0 when unknown).
    pub col: u32,
    /// The branch that must be taken for this one to be reached
    /// (`u32::MAX`: none, reached whenever the function runs).
    pub parent: u32,
}

impl Branch {
    /// The control-dependence parent, if any.
    pub fn parent(&self) -> Option<u32> {
        (self.parent != u32::MAX).then_some(self.parent)
    }
}

/// The kind of branch an outcome belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchKind {
    /// An atomic condition of an `if`, a `while`, a match guard, or an operand
    /// of `&&`/`||`.
    Condition,
    /// The pattern of an `if let`.
    IfLet,
    /// The pattern of a `while let`.
    WhileLet,
    /// The pattern of a `let … else`.
    LetElse,
    /// A `for` loop.
    For,
    /// A `match` arm.
    MatchArm,
}

impl BranchKind {
    /// The kind as reports write it: `condition`, `if let`, `match arm`, ….
    pub const fn as_str(self) -> &'static str {
        match self {
            BranchKind::Condition => "condition",
            BranchKind::IfLet => "if let",
            BranchKind::WhileLet => "while let",
            BranchKind::LetElse => "let else",
            BranchKind::For => "for",
            BranchKind::MatchArm => "match arm",
        }
    }
}

impl fmt::Display for BranchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Which outcome of its branch a [`Branch`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A condition was true.
    True,
    /// A condition was false.
    False,
    /// A `let` pattern matched.
    Matched,
    /// A `let` pattern did not match.
    NotMatched,
    /// A `for` loop's body was entered.
    Entered,
    /// A `for` loop was left.
    Left,
    /// A `match` arm was taken.
    Taken,
}

impl Side {
    /// The side as reports write it: `true`, `not matched`, `taken`, ….
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::True => "true",
            Side::False => "false",
            Side::Matched => "matched",
            Side::NotMatched => "not matched",
            Side::Entered => "entered",
            Side::Left => "left",
            Side::Taken => "taken",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A call made in an instrumented function: how the callee was written and
/// the outcome under which the call is made. Search follows these into
/// helpers no call has entered yet.
#[derive(Debug)]
pub struct CallSite {
    /// The callee's path as written (`part`, `Self::part`, `triple::part`),
    /// a method of `self` by its name, or a method of another value as
    /// `.name`.
    pub callee: &'static str,
    /// The branch that must be taken for the call to be made (`u32::MAX`:
    /// none, made whenever the function runs).
    pub parent: u32,
}

impl CallSite {
    /// The control-dependence parent, if any.
    pub fn parent(&self) -> Option<u32> {
        (self.parent != u32::MAX).then_some(self.parent)
    }

    /// Whether this call may call `function` (`name`, `Type::method` or
    /// `Type::Trait<A>::method`): the last path segments agree, and a type
    /// written before a call's name (`Version::parse`, `Meters::from`) must
    /// be the function's type.
    pub fn may_call(&self, function: &str) -> bool {
        // A method of a value of unknown type with a name std's types use
        // (`x.get(k)`, `iter.next()`): a map's or an iterator's far more
        // often than the crate's function of that name. Linking every one
        // to it put unreachable helpers in reach (glob's `Paths::next` in
        // `Pattern::matches`', http's `HeaderMap::get` in `StatusCode`'s);
        // a call that does enter the crate's function adds it to the reach
        // as any entered function.
        if let Some(method) = self.callee.strip_prefix('.') {
            if STD_METHODS.binary_search(&method).is_ok() {
                return false;
            }
        }
        let callee = self.callee.trim_start_matches('.');
        let mut call = callee.rsplit("::");
        if call.next() != function.rsplit("::").next() {
            return false;
        }
        // The type is the first segment of a method's name.
        let ty = function.split_once("::").map(|(ty, _)| ty);
        match (call.next(), ty) {
            // A type written before the name: a crate type, or a primitive
            // (`usize::from`, `str::from_utf8`), whose functions are std's
            // unless the crate implements a trait for it.
            (Some(written), ty) if (starts_upper(written) && written != "Self") || is_primitive(written) => {
                ty == Some(written)
            }
            _ => true,
        }
    }

    /// [`CallSite::may_call`], for a call site in `caller`: `self.name()`
    /// and `Self::name()` in a method of a type call that type's methods
    /// (its trait impls' too), not another type's of the same name (bs58's
    /// `DecodeBuilder::into_vec` calls its own `self.onto(…)`, not
    /// `EncodeBuilder::onto`, which put the encoder's functions in the
    /// decoder's reach). A method reached through `Deref` on `self` joins
    /// the reach when a call enters it, as any entered function.
    pub fn may_call_from(&self, caller: &str, function: &str) -> bool {
        if !self.may_call(function) {
            return false;
        }
        let on_self = self.callee.starts_with("Self::")
            || !(self.callee.starts_with('.') || self.callee.contains("::"));
        match (on_self, type_of(caller), type_of(function)) {
            (true, Some(caller), Some(callee)) => caller == callee,
            _ => true,
        }
    }
}

/// The type of a method's name (`Meters` of `Meters::From<u32>::from`,
/// `FixedBitSet` of `&FixedBitSet::BitAnd::bitand`); `None` for a free
/// function's.
fn type_of(function: &str) -> Option<&str> {
    let (ty, _) = function.split_once("::")?;
    let ty = ty.trim_start_matches('&');
    Some(ty.split_once('<').map_or(ty, |(name, _)| name))
}

/// Method names of std's collections, iterators, strings, `Option`,
/// `Result` and common traits, sorted: a call of one on a value of unknown
/// type is not linked to a crate's function of that name
/// ([`CallSite::may_call`]).
const STD_METHODS: [&str; 90] = [
    "all", "and_then", "any", "as_bytes", "as_mut", "as_ref", "as_slice", "as_str", "borrow",
    "borrow_mut", "bytes", "char_indices", "chars", "clear", "clone", "cloned", "cmp", "collect",
    "contains", "contains_key", "copied", "count", "deref", "deref_mut", "drain", "ends_with",
    "entry", "enumerate", "eq", "err", "expect", "extend", "filter", "filter_map", "find",
    "first", "flush", "fmt", "fold", "get", "get_mut", "hash", "insert", "into", "into_iter",
    "is_empty", "is_err", "is_none", "is_ok", "is_some", "iter", "iter_mut", "join", "keys",
    "last", "len", "lock", "map", "map_err", "max", "min", "ne", "next", "next_back", "ok",
    "ok_or", "partial_cmp", "peek", "pop", "position", "push", "push_str", "read", "remove",
    "rev", "skip", "sort", "split", "starts_with", "sum", "take", "to_owned", "to_string",
    "trim", "unwrap", "unwrap_or", "values", "write", "write_fmt", "write_str",
];

/// Whether `name` is a primitive type's (`u8`, `str`, `bool`, …).
fn is_primitive(name: &str) -> bool {
    const PRIMITIVES: [&str; 17] = [
        "bool", "char", "f32", "f64", "i128", "i16", "i32", "i64", "i8", "isize", "str", "u128",
        "u16", "u32", "u64", "u8", "usize",
    ];
    PRIMITIVES.contains(&name)
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    /// Every operator, in the order mutants are listed.
    pub const ALL: [Op; 6] = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];

    /// The operator as written: `<=`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// Whether it orders its operands (`<`, `<=`, `>`, `>=`).
    pub const fn is_relational(self) -> bool {
        matches!(self, Op::Lt | Op::Le | Op::Gt | Op::Ge)
    }

    /// The operator whose value is always the opposite (`<` and `>=`).
    pub const fn complement(self) -> Op {
        match self {
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
            Op::Lt => Op::Ge,
            Op::Le => Op::Gt,
            Op::Gt => Op::Le,
            Op::Ge => Op::Lt,
        }
    }

    /// Its value for operands in this order.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use carve::registry::Op;
    /// assert!(Op::Le.holds(Ordering::Equal));
    /// assert!(!Op::Ne.holds(Ordering::Equal));
    /// ```
    pub fn holds(self, order: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Op::Eq => order == Equal,
            Op::Ne => order != Equal,
            Op::Lt => order == Less,
            Op::Le => order != Greater,
            Op::Gt => order == Greater,
            Op::Ge => order != Less,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A logical operator whose replacement (`&&` ↔ `||`) is a mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Logic {
    And,
    Or,
}

impl Logic {
    /// The operator as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            Logic::And => "&&",
            Logic::Or => "||",
        }
    }

    /// The other one.
    pub const fn swapped(self) -> Logic {
        match self {
            Logic::And => Logic::Or,
            Logic::Or => Logic::And,
        }
    }
}

/// An arithmetic operator whose replacements are mutants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Arith {
    /// The operator as written: `+`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Rem => "%",
        }
    }

    /// The operators it is replaced by, as cargo-mutants replaces them
    /// (`+` by `-` and `*`, `-` by `+` and `/`, `*` by `+` and `/`, `/` by
    /// `%` and `*`, `%` by `/` and `+`); each has its goal slot, in order.
    pub const fn mutants(self) -> [Arith; 2] {
        match self {
            Arith::Add => [Arith::Sub, Arith::Mul],
            Arith::Sub => [Arith::Add, Arith::Div],
            Arith::Mul => [Arith::Add, Arith::Div],
            Arith::Div => [Arith::Rem, Arith::Mul],
            Arith::Rem => [Arith::Div, Arith::Add],
        }
    }
}

impl fmt::Display for Arith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A condition of an instrumented function whose boundaries and mutants
/// are goals beside its branch outcomes ([`crate::coverage::goals`]).
#[derive(Debug)]
pub struct Condition {
    /// The outcome it is located at: an atomic condition's true outcome
    /// (its false outcome is the next id), or for `&&`/`||` the first
    /// outcome of its right operand.
    pub branch: u32,
    /// What it is.
    pub form: Form,
}

/// The form of a [`Condition`].
#[derive(Debug, Clone, Copy)]
pub enum Form {
    /// A comparison `l op r`: the function's `index`-th, which names its
    /// block of goal slots.
    Compare {
        /// The operator as written.
        op: Op,
        /// Its number among the function's comparisons, from 0.
        index: u32,
    },
    /// Any other atomic condition (a method call, a variable, `!x`): its
    /// negation is a mutant.
    Boolean,
    /// `l && r` or `l || r`, whose operator swapped is a mutant: told apart
    /// exactly when both operands run and differ, that is when one of
    /// `kills` (outcomes of `r`) is taken.
    Logic {
        /// The operator as written.
        op: Logic,
        /// The whole expression as written.
        text: &'static str,
        /// `r`'s outcomes that tell the mutant apart: its false exits
        /// under `&&`, its true exits under `||`.
        kills: &'static [u32],
    },
    /// An arithmetic operation `l op r` (`+ - * / %`), whose operator
    /// replaced by each of [`Arith::mutants`] is a mutant. Its condition's
    /// `branch` is the outcome it runs under (`u32::MAX`: the body's top).
    Arith {
        /// The operator as written.
        op: Arith,
        /// Its number among the function's comparisons and operations, from
        /// 0: it names its block of goal slots.
        index: u32,
        /// The operation as written.
        text: &'static str,
        /// Where it is, line and column (from 1).
        at: (u32, u32),
    },
    /// A `match` arm (its `branch` is the arm's outcome) of a `match` whose
    /// last arm catches everything else: the arm deleted is a mutant.
    Arm {
        /// The arm's pattern as written.
        text: &'static str,
    },
}

/// A constant an instrumented comparison or `match` pattern of a function
/// uses (`a == "GMT"`, `"ms" | "msec" =>`, `b'-'`, `x < 60`), or that it
/// passes to a function (`between(s, "Qaaa", "Qabx")`): generation
/// offers it wherever a parameter can hold it, libFuzzer's and AFL's
/// dictionaries from the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Constant {
    /// A string literal.
    Str(&'static str),
    /// A character literal.
    Char(char),
    /// A byte literal (`b'-'`).
    Byte(u8),
    /// An integer literal (negated where written `-3`).
    Int(i128),
}

/// The branch outcomes of one instrumented function.
#[derive(Debug)]
pub struct Sites {
    /// `module_path!()` of the function.
    pub module_path: &'static str,
    /// Function name (`Type::method` for methods).
    pub function: &'static str,
    /// Source file.
    pub file: &'static str,
    /// First and last line of the function.
    pub lines: (u32, u32),
    /// Its outcomes, indexed by id.
    pub branches: &'static [Branch],
    /// The calls it makes.
    pub calls: &'static [CallSite],
    /// Its conditions whose boundaries and mutants are goals.
    pub conditions: &'static [Condition],
    /// The constants its comparisons and patterns use and its calls pass.
    pub constants: &'static [Constant],
    /// The constants in the tables it reads, taken on its first run while
    /// coverage is collected ([`crate::coverage::tables`]).
    pub(crate) tables: std::sync::OnceLock<Vec<Constant>>,
    /// The positions in `conditions` of those inside an `unsafe` block,
    /// whose mutants are not run: a mutated bounds check before pointer
    /// arithmetic (smallvec's `insert`) corrupts memory, and the worker
    /// dies later, outside any call. Their weak mutants still count.
    pub unmutated: &'static [u32],
    /// Why its body was compiled as written, without outcomes (`const fn`,
    /// `async fn`); `None` when it is instrumented.
    pub uninstrumented: Option<&'static str>,
    /// Its first global outcome index while coverage is collected (given by
    /// [`crate::coverage`] on first use).
    pub(crate) base: AtomicU32,
}

/// `base` of a table not yet given its range of global outcome indices.
pub(crate) const UNREGISTERED: u32 = u32::MAX;

impl Sites {
    /// A table (used by generated code).
    pub const fn new(
        module_path: &'static str,
        function: &'static str,
        file: &'static str,
        lines: (u32, u32),
        branches: &'static [Branch],
        calls: &'static [CallSite],
    ) -> Sites {
        Sites {
            module_path,
            function,
            file,
            lines,
            branches,
            calls,
            conditions: &[],
            constants: &[],
            tables: std::sync::OnceLock::new(),
            unmutated: &[],
            uninstrumented: None,
            base: AtomicU32::new(UNREGISTERED),
        }
    }

    /// The table of a function compiled uninstrumented, and why (used by
    /// generated code).
    pub const fn uninstrumented(mut self, why: &'static str) -> Sites {
        self.uninstrumented = Some(why);
        self
    }

    /// The table with its conditions (used by generated code).
    pub const fn with_conditions(mut self, conditions: &'static [Condition]) -> Sites {
        self.conditions = conditions;
        self
    }

    /// The table with the positions of its conditions inside `unsafe`
    /// blocks (used by generated code).
    pub const fn with_unmutated(mut self, unmutated: &'static [u32]) -> Sites {
        self.unmutated = unmutated;
        self
    }

    /// The table with the constants its comparisons and patterns use and
    /// its calls pass (used by generated code).
    pub const fn with_constants(mut self, constants: &'static [Constant]) -> Sites {
        self.constants = constants;
        self
    }

    /// The constants its comparisons, patterns and calls use, then those of
    /// the tables it read (once it ran while coverage was collected).
    pub fn dictionary(&self) -> impl Iterator<Item = Constant> + '_ {
        self.constants.iter().chain(self.tables()).copied()
    }

    /// The constants of the tables it read, once it ran while coverage was
    /// collected ([`crate::coverage::tables`]); none before.
    pub fn tables(&self) -> &[Constant] {
        self.tables.get().map_or(&[], Vec::as_slice)
    }

    /// Keeps the constants `read` gives as those of its tables, unless it
    /// has some already (`read` then does not run).
    pub(crate) fn note_tables(&self, read: impl FnOnce() -> Vec<Constant>) {
        self.tables.get_or_init(read);
    }

    /// How many comparisons and arithmetic operations it has: each has a
    /// block of goal slots.
    pub fn comparisons(&self) -> u32 {
        self.conditions
            .iter()
            .filter(|c| matches!(c.form, Form::Compare { .. } | Form::Arith { .. }))
            .count() as u32
    }

    /// The function's path inside its crate (`cgi::cgi_decode`).
    pub fn name(&self) -> String {
        path_in_crate(self.module_path, self.function)
    }

    /// Where `id` is described, as `file:line:col`.
    pub fn location(&self, id: u32) -> String {
        let b = &self.branches[id as usize];
        format!("{}:{}:{}", self.file, b.line, b.col)
    }

    /// `file:line:col `condition` side` of outcome `id`.
    pub fn describe(&self, id: u32) -> String {
        let b = &self.branches[id as usize];
        format!("{} `{}` {}", self.location(id), b.condition, b.side)
    }

    /// Number of control-dependence levels above branch `id` (0 for a
    /// branch reached whenever the function runs).
    pub fn depth(&self, id: u32) -> u32 {
        let mut depth = 0;
        let mut current = self.branches[id as usize].parent();
        while let Some(p) = current {
            depth += 1;
            current = self.branches[p as usize].parent();
        }
        depth
    }

    /// Approach level of `target` for a call that reached `reached`: the
    /// number of control-dependence levels between the closest reached
    /// ancestor of `target` and `target` itself.
    pub fn approach_level(&self, target: u32, reached: impl Fn(u32) -> bool) -> u32 {
        let mut level = 0;
        let mut current = self.branches[target as usize].parent();
        while let Some(p) = current {
            if reached(p) {
                return level;
            }
            level += 1;
            current = self.branches[p as usize].parent();
        }
        level
    }
}

#[doc(hidden)]
pub struct SitesRef(pub &'static Sites);
inventory::collect!(SitesRef);

/// Every instrumented function linked into this binary, sorted by name.
pub fn all_sites() -> Vec<&'static Sites> {
    let mut all: Vec<&'static Sites> = inventory::iter::<SitesRef>
        .into_iter()
        .map(|s| s.0)
        .collect();
    all.sort_by_key(|s| s.name());
    all
}

/// The methods of one `#[carve::target]` impl block that were left out: no
/// method was marked, so every public one was to be carved, and these cannot
/// be (generic, `const fn`, `async fn`, a parameter carve cannot store).
#[derive(Debug)]
pub struct Skipped {
    /// `module_path!()` of the impl block.
    pub module_path: &'static str,
    /// `Meters`, or `Meters::From<u32>` for a trait impl.
    pub impl_name: &'static str,
    /// Each method left out, with why (`generic`, `const fn`).
    pub methods: &'static [(&'static str, &'static str)],
}

impl Skipped {
    /// `carve: skipped in impl Meters: scale (generic), ZERO (const fn) — …`,
    /// the line the record summary prints.
    pub fn line(&self) -> String {
        let methods: Vec<(String, String)> = self
            .methods
            .iter()
            .map(|(name, why)| ((*name).to_owned(), (*why).to_owned()))
            .collect();
        skip_line(&path_in_crate(self.module_path, self.impl_name), &methods)
    }
}

#[doc(hidden)]
pub struct SkippedRef(pub &'static Skipped);
inventory::collect!(SkippedRef);

/// Every impl block with skipped methods linked into this binary, sorted by name.
pub fn all_skipped() -> Vec<&'static Skipped> {
    let mut all: Vec<&'static Skipped> = inventory::iter::<SkippedRef>
        .into_iter()
        .map(|s| s.0)
        .collect();
    all.sort_by_key(|s| path_in_crate(s.module_path, s.impl_name));
    all
}

/// The record run's lines naming the skipped methods of each impl block:
/// those [`all_skipped`] lists (the attribute saw why from the signature),
/// with the methods whose types turned out to have no form (see
/// [`Target::uncarvable`]) added to their block's line.
pub fn skipped_lines() -> Vec<String> {
    let statics = all_skipped();
    let uncarvable: Vec<&'static Target> = inventory::iter::<TargetRef>
        .into_iter()
        .map(|t| t.0)
        .filter(|t| (t.uncarvable)().is_some())
        .collect();
    skipped_lines_of(&statics, &uncarvable)
}

fn skipped_lines_of(statics: &[&Skipped], uncarvable: &[&Target]) -> Vec<String> {
    // Block name (`url::Url`) -> its methods with why, in order.
    let mut blocks: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for skipped in statics {
        let methods = blocks
            .entry(path_in_crate(skipped.module_path, skipped.impl_name))
            .or_default();
        for (name, why) in skipped.methods {
            methods.push(((*name).to_owned(), (*why).to_owned()));
        }
    }
    let mut late: Vec<(String, String, String)> = uncarvable
        .iter()
        .filter_map(|t| {
            let (block, method) = t.name().rsplit_once("::").map(|(b, m)| (b.to_owned(), m.to_owned()))?;
            Some((block, method, (t.uncarvable)()?))
        })
        .collect();
    late.sort();
    for (block, method, why) in late {
        blocks.entry(block).or_default().push((method, why));
    }
    blocks
        .iter()
        .map(|(block, methods)| skip_line(block, methods))
        .collect()
}

/// `carve: skipped in impl Meters: scale (generic), zero, is_zero (const fn)
/// — …`: methods one after another left out for the same reason share it
/// (lru's forty methods whose `self` has no form).
fn skip_line(block: &str, methods: &[(String, String)]) -> String {
    let mut seen: Vec<(&str, &str)> = Vec::with_capacity(methods.len());
    for (name, why) in methods {
        // A method written twice under `#[cfg]`s (one per platform) is one
        // method to the reader.
        if !seen.contains(&(name.as_str(), why.as_str())) {
            seen.push((name, why));
        }
    }
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for (name, why) in seen {
        match groups.last_mut() {
            Some((names, last)) if *last == why => names.push(name),
            _ => groups.push((vec![name], why)),
        }
    }
    let listed: Vec<String> = groups
        .iter()
        .map(|(names, why)| format!("{} ({why})", names.join(", ")))
        .collect();
    format!(
        "carve: skipped in impl {block}: {} — mark methods with #[carve::target] to choose",
        listed.join(", ")
    )
}

#[doc(hidden)]
pub struct TargetRef(pub &'static Target);
#[doc(hidden)]
pub struct SystemTestRef(pub &'static SystemTest);

inventory::collect!(TargetRef);
inventory::collect!(SystemTestRef);

/// Every target and system test linked into this binary, sorted by name.
#[derive(Debug)]
pub struct Registry {
    targets: Vec<(String, &'static Target)>,
    system_tests: Vec<(String, &'static SystemTest)>,
}

impl Registry {
    /// Gathers what the attributes registered.
    pub fn collect() -> Registry {
        let mut targets: Vec<_> = inventory::iter::<TargetRef>
            .into_iter()
            .filter(|t| (t.0.uncarvable)().is_none())
            .map(|t| (t.0.name(), t.0))
            .collect();
        targets.sort_by(|a, b| a.0.cmp(&b.0));
        let mut system_tests: Vec<_> = inventory::iter::<SystemTestRef>
            .into_iter()
            .map(|t| (t.0.name(), t.0))
            .collect();
        system_tests.sort_by(|a, b| a.0.cmp(&b.0));
        Registry {
            targets,
            system_tests,
        }
    }

    /// A registry of `targets` alone, no system test (for carve's tests).
    #[cfg(test)]
    pub(crate) fn of(targets: &[&'static Target]) -> Registry {
        let mut targets: Vec<_> = targets.iter().map(|t| (t.name(), *t)).collect();
        targets.sort_by(|a, b| a.0.cmp(&b.0));
        Registry {
            targets,
            system_tests: Vec::new(),
        }
    }

    /// Targets with their names, sorted by name.
    pub fn targets(&self) -> impl Iterator<Item = (&str, &'static Target)> + '_ {
        self.targets.iter().map(|(n, t)| (n.as_str(), *t))
    }

    /// System tests with their names, sorted by name.
    pub fn system_tests(&self) -> impl Iterator<Item = (&str, &'static SystemTest)> + '_ {
        self.system_tests.iter().map(|(n, t)| (n.as_str(), *t))
    }

    /// The target called `name`, if one is registered.
    pub fn target(&self, name: &str) -> Option<&'static Target> {
        self.targets
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| self.targets[i].1)
    }

    /// Whether a system test called `name` is registered.
    pub fn has_system_test(&self, name: &str) -> bool {
        self.system_tests
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .is_ok()
    }
}

/// The instrumented functions by their number in
/// [`all_sites`], both ways, made once per process.
pub struct SiteNumbers {
    list: Vec<&'static Sites>,
    numbers: HashMap<usize, u32>,
}

impl SiteNumbers {
    /// Every function this test binary registers.
    pub fn new() -> SiteNumbers {
        SiteNumbers::of(all_sites())
    }

    /// These functions, numbered in this order.
    pub(crate) fn of(list: Vec<&'static Sites>) -> SiteNumbers {
        let numbers = list
            .iter()
            .enumerate()
            .map(|(i, s)| (*s as *const Sites as usize, i as u32))
            .collect();
        SiteNumbers { list, numbers }
    }

    /// The number of `sites`, if registered.
    pub fn number(&self, sites: &Sites) -> Option<u32> {
        self.numbers.get(&(sites as *const Sites as usize)).copied()
    }

    /// The function of `number`, if there is one.
    pub fn sites(&self, number: u32) -> Option<&'static Sites> {
        self.list.get(number as usize).copied()
    }

    /// How many functions are registered.
    pub fn registered(&self) -> usize {
        self.list.len()
    }
}

impl Default for SiteNumbers {
    fn default() -> Self {
        SiteNumbers::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_replay(_: ArgsInput<'_>) -> ReplayResult {
        unreachable!()
    }

    #[test]
    fn target_names_drop_the_crate_and_keep_modules() {
        static SITES: Sites = Sites::new("m", "f", "", (0, 0), &[], &[]);
        let t = |module_path, fn_name| Target {
            module_path,
            fn_name,
            signature: "",
            file: "",
            line: 0,
            sites: &SITES,
            replay: no_replay,
            trace: |_| {},
            uncarvable: || None,
        };
        assert_eq!(t("mycrate", "cgi_decode").name(), "cgi_decode");
        assert_eq!(
            t("mycrate::decode", "cgi_decode").name(),
            "decode::cgi_decode"
        );
        assert_eq!(
            t("mycrate::bank", "Account::withdraw").name(),
            "bank::Account::withdraw"
        );
    }

    #[test]
    fn methods_whose_types_have_no_form_join_their_blocks_skip_line() {
        // url 2.5.8's `impl Url`: skipped from the signature, and for types
        // the attribute could not see through (`form_urlencoded::Parse`).
        static SITES: Sites = Sites::new("m", "f", "", (0, 0), &[], &[]);
        static URL: Skipped = Skipped {
            module_path: "url",
            impl_name: "Url",
            methods: &[("from_file_path", "generic")],
        };
        let target = |fn_name, uncarvable| Target {
            module_path: "url",
            fn_name,
            signature: "",
            file: "",
            line: 0,
            sites: &SITES,
            replay: no_replay,
            trace: |_| {},
            uncarvable,
        };
        let pairs = target("Url::query_pairs", || Some("returns `Parse`".to_owned()));
        let hasher = target("IndexMap<String, u32>::with_hasher", || {
            Some("parameter `hash_builder`".to_owned())
        });
        let pairs_mut = target("Url::query_pairs_mut", || Some("returns `Parse`".to_owned()));
        let carved = target("Url::parse", || None);
        assert_eq!(
            skipped_lines_of(&[&URL], &[&pairs_mut, &pairs, &hasher, &carved]),
            [
                "carve: skipped in impl IndexMap<String, u32>: with_hasher (parameter `hash_builder`) — mark methods with #[carve::target] to choose",
                "carve: skipped in impl Url: from_file_path (generic), query_pairs, query_pairs_mut (returns `Parse`) — mark methods with #[carve::target] to choose",
            ]
        );
    }

    #[test]
    fn calls_find_methods_of_trait_impls_by_their_type() {
        let call = |callee| CallSite { callee, parent: u32::MAX };
        assert!(call("Meters::from").may_call("Meters::From<u32>::from"));
        assert!(call("from").may_call("Meters::From<u32>::from"));
        assert!(call("Self::from").may_call("Meters::From<u32>::from"));
        assert!(!call("Feet::from").may_call("Meters::From<u32>::from"));
        assert!(call("Account::withdraw").may_call("Account::withdraw"));
        assert!(call("bank::withdraw").may_call("withdraw"));
        // A method of another value: by its name, unless std's types have
        // one of that name.
        assert!(call(".matches_with").may_call("Pattern::matches_with"));
        assert!(!call(".next").may_call("Paths::Iterator::next"));
        assert!(!call(".get").may_call("HeaderMap::get"));
        assert!(call("next").may_call("Paths::Iterator::next"), "`self.next()`");
        assert!(STD_METHODS.is_sorted(), "sorted for the binary search");
        // A primitive's function: std's, or the crate's trait impl for it.
        assert!(!call("usize::from").may_call("Cow::From<PercentDecode>::from"));
        assert!(!call("str::from_utf8").may_call("from_utf8"));
        assert!(call("u8::parse_hex").may_call("u8::Hex::parse_hex"));
    }

    #[test]
    fn a_method_of_self_is_one_of_the_callers_type() {
        let call = |callee| CallSite { callee, parent: u32::MAX };
        let caller = "DecodeBuilder::into_vec";
        assert!(call("onto").may_call_from(caller, "DecodeBuilder::onto"));
        assert!(!call("onto").may_call_from(caller, "EncodeBuilder::onto"));
        assert!(!call("Self::onto").may_call_from(caller, "EncodeBuilder::onto"));
        assert!(call("Self::from").may_call_from("Meters::From<Feet>::from", "Meters::From<u32>::from"));
        assert!(call("bitand").may_call_from("&Set::BitAnd::bitand", "Set::BitAnd::bitand"));
        // A free function of that name, a method of another value, a path.
        assert!(call("onto").may_call_from(caller, "onto"));
        assert!(call("onto").may_call_from("decode", "EncodeBuilder::onto"));
        assert!(call(".onto").may_call_from(caller, "EncodeBuilder::onto"));
        assert!(call("EncodeBuilder::onto").may_call_from(caller, "EncodeBuilder::onto"));
    }

    #[test]
    fn skipped_methods_are_named_in_one_line_with_the_way_out() {
        let skipped = Skipped {
            module_path: "mycrate::units",
            impl_name: "Meters",
            methods: &[("scale", "generic"), ("zero", "const fn"), ("scale", "generic")],
        };
        assert_eq!(
            skipped.line(),
            "carve: skipped in impl units::Meters: scale (generic), zero (const fn) — mark methods \
             with #[carve::target] to choose"
        );
    }
}
