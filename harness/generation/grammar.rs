//! Grammars, derivation trees and fuzzers that cover a grammar's expansions
//! systematically, after the chapter "Grammar Coverage" of The Fuzzing Book.
//!
//! A [`Grammar`] maps nonterminals such as `<digit>` to their expansions,
//! written as strings in which `<…>` names a nonterminal and everything else
//! is terminal text. A [`GrammarFuzzer`] derives strings from it and records
//! which expansions it used, as keys `"<symbol> -> expansion"`; its
//! [`Strategy`] decides how hard it steers towards expansions not used yet:
//!
//! - [`Strategy::Random`] chooses uniformly and only tracks coverage;
//! - [`Strategy::Simple`] prefers uncovered expansions of the symbol at hand;
//! - [`Strategy::DeepForesight`] prefers expansions leading to the most
//!   uncovered expansions, looking only as deep as needed to find any;
//! - [`Strategy::ShortestPath`] does the same, preferring the cheapest of
//!   those.
//!
//! [`duplicate_context`] copies the rules below an expansion under fresh
//! names, so that their expansions are covered once per context.
//!
//! ```
//! use carve::generation::grammar::{Grammar, GrammarFuzzer, Strategy};
//!
//! let grammar = Grammar::new(&[
//!     ("<start>", &["<number>"]),
//!     ("<number>", &["<digit>", "<digit><number>"]),
//!     ("<digit>", &["0", "1", "2"]),
//! ]);
//! grammar.check()?;
//!
//! let mut fuzzer = GrammarFuzzer::new(&grammar, Strategy::DeepForesight, 7)?;
//! while !fuzzer.missing_expansion_coverage().is_empty() {
//!     let input = fuzzer.fuzz();
//!     assert!(input.chars().all(|c| "012".contains(c)));
//! }
//! assert!(fuzzer.expansion_coverage().contains("<digit> -> 2"));
//! assert_eq!(fuzzer.expansion_coverage().len(), 6);
//! # Ok::<(), carve::generation::grammar::GrammarError>(())
//! ```

// The fuzzer is complete (every strategy, grammar checks, the book's
// grammars) so that the benches can compare strategies; generation itself
// uses one strategy.
#![cfg_attr(not(any(test, feature = "_internals")), allow(dead_code))]

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::error::Error;
use std::fmt;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The start symbol of a [`Grammar`] unless [`Grammar::with_start`] says
/// otherwise.
pub const START_SYMBOL: &str = "<start>";

/// A context-free grammar: each nonterminal `<…>` with its expansions.
///
/// Rules keep the order they were given in, which makes derived grammars and
/// error reports deterministic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    rules: Vec<(String, Vec<String>)>,
    index: HashMap<String, usize>,
    start: String,
    /// The first symbol given two rules, kept for [`Grammar::check`].
    redefined: Option<String>,
}

impl Grammar {
    /// Builds a grammar from `(nonterminal, expansions)` rules, starting at
    /// [`START_SYMBOL`].
    ///
    /// Nothing is validated here; [`Grammar::check`] does. A nonterminal
    /// given twice keeps its last rule, and `check` reports it.
    ///
    /// ```
    /// # use carve::generation::grammar::Grammar;
    /// let grammar = Grammar::new(&[("<start>", &["a<start>", ""])]);
    /// assert_eq!(grammar.expansions("<start>").unwrap(), ["a<start>", ""]);
    /// ```
    pub fn new(rules: &[(&str, &[&str])]) -> Self {
        let mut grammar = Grammar::empty(START_SYMBOL, None);
        for (symbol, expansions) in rules {
            if grammar.contains(symbol) && grammar.redefined.is_none() {
                grammar.redefined = Some(symbol.to_string());
            }
            let expansions = expansions.iter().map(|e| e.to_string()).collect();
            grammar.insert(symbol, expansions);
        }
        grammar
    }

    fn empty(start: &str, redefined: Option<String>) -> Self {
        Grammar {
            rules: Vec::new(),
            index: HashMap::new(),
            start: start.to_string(),
            redefined,
        }
    }

    /// The same grammar, deriving from `start` instead.
    pub fn with_start(mut self, start: &str) -> Self {
        self.start = start.to_string();
        self
    }

    /// The symbol every derivation starts from.
    pub fn start(&self) -> &str {
        &self.start
    }

    /// The number of nonterminals with a rule.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether the grammar has no rules at all.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether `symbol` has a rule.
    pub fn contains(&self, symbol: &str) -> bool {
        self.index.contains_key(symbol)
    }

    /// The expansions of `symbol`, or `None` if it has no rule.
    pub fn expansions(&self, symbol: &str) -> Option<&[String]> {
        self.index.get(symbol).map(|&i| self.rules[i].1.as_slice())
    }

    /// The rules in the order they were given.
    pub fn rules(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.rules.iter().map(|(s, e)| (s.as_str(), e.as_slice()))
    }

    /// The number of expansions over all rules.
    pub fn expansion_count(&self) -> usize {
        self.rules.iter().map(|(_, e)| e.len()).sum()
    }

    /// Checks that the grammar is valid: rules are named by nonterminals and
    /// given once, every nonterminal used is defined, every rule is reachable
    /// from the start symbol, and every nonterminal has a finite derivation.
    ///
    /// ```
    /// # use carve::generation::grammar::{Grammar, GrammarError};
    /// let grammar = Grammar::new(&[("<start>", &["<digit>"])]);
    /// assert_eq!(
    ///     grammar.check(),
    ///     Err(GrammarError::Undefined("<digit>".to_string()))
    /// );
    /// ```
    pub fn check(&self) -> Result<(), GrammarError> {
        self.check_derivable()?;
        let reachable: HashSet<&str> = self.reachable().into_iter().collect();
        match self
            .rules
            .iter()
            .find(|(s, _)| !reachable.contains(s.as_str()))
        {
            Some((symbol, _)) => Err(GrammarError::Unreachable(symbol.clone())),
            None => Ok(()),
        }
    }

    /// Checks what deriving strings from the start symbol needs, a weaker
    /// [`Grammar::check`]: rules that the start symbol cannot reach are
    /// allowed and ignored, so that a grammar can be fuzzed from any of its
    /// symbols.
    pub fn check_derivable(&self) -> Result<(), GrammarError> {
        if let Some((symbol, _)) = self.rules.iter().find(|(s, _)| !is_nonterminal(s)) {
            return Err(GrammarError::NotANonterminal(symbol.clone()));
        }
        if let Some(symbol) = &self.redefined {
            return Err(GrammarError::Redefined(symbol.clone()));
        }
        let reachable = self.reachable();
        if let Some(symbol) = reachable.iter().find(|s| !self.contains(s)) {
            return Err(GrammarError::Undefined(symbol.to_string()));
        }
        let productive = self.productive();
        match reachable.iter().find(|s| !productive.contains(*s)) {
            Some(symbol) => Err(GrammarError::NonTerminating(symbol.to_string())),
            None => Ok(()),
        }
    }

    /// Symbols reachable from the start symbol, defined or not, breadth
    /// first.
    fn reachable(&self) -> Vec<&str> {
        let mut order = vec![self.start.as_str()];
        let mut seen: HashSet<&str> = order.iter().copied().collect();
        let mut next = 0;
        while let Some(&symbol) = order.get(next) {
            next += 1;
            for expansion in self.expansions(symbol).unwrap_or_default() {
                for nonterminal in nonterminals(expansion) {
                    if seen.insert(nonterminal) {
                        order.push(nonterminal);
                    }
                }
            }
        }
        order
    }

    /// Symbols with at least one finite derivation (a least fixpoint).
    fn productive(&self) -> HashSet<&str> {
        let mut productive = HashSet::new();
        loop {
            let before = productive.len();
            for (symbol, expansions) in &self.rules {
                let terminates = |e: &String| {
                    let mut used = nonterminals(e).into_iter();
                    used.all(|n| productive.contains(n))
                };
                if expansions.iter().any(terminates) {
                    productive.insert(symbol.as_str());
                }
            }
            if productive.len() == before {
                return productive;
            }
        }
    }

    /// Sets the rule of `symbol`, replacing any rule it had.
    fn insert(&mut self, symbol: &str, expansions: Vec<String>) {
        match self.index.get(symbol) {
            Some(&i) => self.rules[i].1 = expansions,
            None => {
                self.index.insert(symbol.to_string(), self.rules.len());
                self.rules.push((symbol.to_string(), expansions));
            }
        }
    }

    /// An unused name derived from `symbol`: `<integer>` → `<integer-1>`,
    /// or `<integer-2>` if that is taken, …
    fn fresh_symbol(&self, symbol: &str) -> String {
        let stem = symbol.strip_suffix('>').unwrap_or(symbol);
        (1..)
            .map(|n| format!("{stem}-{n}>"))
            .find(|name| !self.contains(name))
            .expect("some numbered name is free")
    }

    /// The grammar without the rules its start symbol cannot reach.
    fn without_unreachable(&self) -> Grammar {
        let reachable: HashSet<&str> = self.reachable().into_iter().collect();
        let mut pruned = Grammar::empty(&self.start, self.redefined.clone());
        for (symbol, expansions) in self.rules() {
            if reachable.contains(symbol) {
                pruned.insert(symbol, expansions.to_vec());
            }
        }
        pruned
    }
}

/// Why a [`Grammar`] is invalid; each variant names the offending symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrammarError {
    /// A rule is named by something other than a nonterminal `<…>`.
    NotANonterminal(String),
    /// A nonterminal was given more than one rule.
    Redefined(String),
    /// A nonterminal (possibly the start symbol) is used but has no rule.
    Undefined(String),
    /// A rule cannot be reached from the start symbol.
    Unreachable(String),
    /// A nonterminal has no finite derivation: every expansion recurses.
    NonTerminating(String),
}

impl GrammarError {
    /// The symbol the error is about.
    pub fn symbol(&self) -> &str {
        match self {
            GrammarError::NotANonterminal(s)
            | GrammarError::Redefined(s)
            | GrammarError::Undefined(s)
            | GrammarError::Unreachable(s)
            | GrammarError::NonTerminating(s) => s,
        }
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::NotANonterminal(s) => {
                write!(f, "rule name {s:?} is not a nonterminal <…>")
            }
            GrammarError::Redefined(s) => write!(f, "{s} is defined more than once"),
            GrammarError::Undefined(s) => write!(f, "{s} is used but not defined"),
            GrammarError::Unreachable(s) => {
                write!(f, "{s} is unreachable from the start symbol")
            }
            GrammarError::NonTerminating(s) => {
                write!(
                    f,
                    "{s} never terminates: every derivation of it is infinite"
                )
            }
        }
    }
}

impl Error for GrammarError {}

/// A piece of an expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part<'a> {
    Terminal(&'a str),
    Nonterminal(&'a str),
}

/// Splits an expansion into terminal text and nonterminals. A nonterminal
/// is `<` and `>` around characters other than `<`, `>` and space, so that
/// the `<` of `a < b` stays terminal.
fn parts(expansion: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let (mut text_start, mut search) = (0, 0);
    while let Some(offset) = expansion[search..].find('<') {
        let open = search + offset;
        let name_start = open + 1;
        let Some(len) = expansion[name_start..].find(['<', '>', ' ']) else {
            break;
        };
        let stop = name_start + len;
        if expansion.as_bytes()[stop] != b'>' {
            search = stop;
            continue;
        }
        if text_start < open {
            parts.push(Part::Terminal(&expansion[text_start..open]));
        }
        parts.push(Part::Nonterminal(&expansion[open..=stop]));
        (text_start, search) = (stop + 1, stop + 1);
    }
    if text_start < expansion.len() {
        parts.push(Part::Terminal(&expansion[text_start..]));
    }
    parts
}

/// The nonterminals of an expansion, in order and with repetitions.
///
/// ```
/// # use carve::generation::grammar::nonterminals;
/// assert_eq!(nonterminals("<letter><letters>"), ["<letter>", "<letters>"]);
/// assert_eq!(nonterminals("(<expr>) < 2"), ["<expr>"]);
/// ```
pub fn nonterminals(expansion: &str) -> Vec<&str> {
    let nonterminal = |part| match part {
        Part::Nonterminal(symbol) => Some(symbol),
        Part::Terminal(_) => None,
    };
    parts(expansion)
        .into_iter()
        .filter_map(nonterminal)
        .collect()
}

/// Whether `symbol` is a nonterminal such as `<digit>`.
pub fn is_nonterminal(symbol: &str) -> bool {
    parts(symbol) == [Part::Nonterminal(symbol)]
}

/// The coverage key of an expansion of `symbol`: `"<symbol> -> expansion"`.
pub fn expansion_key(symbol: &str, expansion: &str) -> String {
    format!("{symbol} -> {expansion}")
}

/// A copy of `grammar` in which the given expansion of `symbol` (all of its
/// expansions if `expansion` is `None`) refers to fresh copies of the rules
/// it reaches, so that a coverage fuzzer covers them separately in this
/// context.
///
/// Copies are named after their originals (`<integer>` → `<integer-1>`), and
/// copying follows references recursively, each path reusing the copy it
/// already made of a symbol, so recursion ends. Rules no longer reachable
/// from the start symbol are dropped. If `symbol` has no such expansion, only
/// that pruning happens.
///
/// ```
/// # use carve::generation::grammar::{duplicate_context, Grammar};
/// let grammar = Grammar::new(&[
///     ("<start>", &["<digit>.<digit>"]),
///     ("<digit>", &["0", "1"]),
/// ]);
/// let split = duplicate_context(&grammar, "<start>", None);
/// assert_eq!(split.expansions("<start>").unwrap(), ["<digit-1>.<digit-2>"]);
/// assert_eq!(split.expansions("<digit-2>").unwrap(), ["0", "1"]);
/// assert!(!split.contains("<digit>"));
/// ```
pub fn duplicate_context(grammar: &Grammar, symbol: &str, expansion: Option<&str>) -> Grammar {
    duplicate(grammar, symbol, expansion, None)
}

/// [`duplicate_context`], copying only rules at most `depth` references
/// below the expansion; deeper references keep their original symbols.
pub fn duplicate_context_with_depth(
    grammar: &Grammar,
    symbol: &str,
    expansion: Option<&str>,
    depth: usize,
) -> Grammar {
    duplicate(grammar, symbol, expansion, Some(depth))
}

fn duplicate(
    grammar: &Grammar,
    symbol: &str,
    expansion: Option<&str>,
    depth: Option<usize>,
) -> Grammar {
    let mut duplicated = grammar.clone();
    let copies = HashMap::new();
    duplicate_rule(&mut duplicated, grammar, symbol, expansion, depth, &copies);
    duplicated.without_unreachable()
}

/// Rewrites the matching expansions of `symbol` in `grammar` to refer to
/// copies of the `original` rules; `copies` maps each symbol already copied
/// on the current path to its copy.
fn duplicate_rule(
    grammar: &mut Grammar,
    original: &Grammar,
    symbol: &str,
    only: Option<&str>,
    depth: Option<usize>,
    copies: &HashMap<String, String>,
) {
    let Some(expansions) = grammar.expansions(symbol).map(<[String]>::to_vec) else {
        return;
    };
    let mut rewritten = expansions.clone();
    for (expansion, target) in expansions.iter().zip(&mut rewritten) {
        if only.is_none_or(|only| only == expansion) {
            *target = duplicate_expansion(grammar, original, expansion, depth, copies);
        }
    }
    grammar.insert(symbol, rewritten);
}

fn duplicate_expansion(
    grammar: &mut Grammar,
    original: &Grammar,
    expansion: &str,
    depth: Option<usize>,
    copies: &HashMap<String, String>,
) -> String {
    let mut rewritten = String::new();
    for part in parts(expansion) {
        let name = match part {
            Part::Terminal(text) => text.to_string(),
            Part::Nonterminal(s) => match (copies.get(s), original.expansions(s)) {
                (Some(copy), _) => copy.clone(),
                (None, Some(rule)) if depth != Some(0) => {
                    let copy = grammar.fresh_symbol(s);
                    grammar.insert(&copy, rule.to_vec());
                    let mut inner = copies.clone();
                    inner.insert(s.to_string(), copy.clone());
                    let depth = depth.map(|d| d - 1);
                    duplicate_rule(grammar, original, &copy, None, depth, &inner);
                    copy
                }
                _ => s.to_string(),
            },
        };
        rewritten.push_str(&name);
    }
    rewritten
}

/// A derivation tree: a symbol and, once expanded, the symbols it was
/// expanded into.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivationTree {
    /// A nonterminal such as `<digit>`, or terminal text.
    pub symbol: String,
    /// `None` for a nonterminal not expanded yet; the expansion's symbols
    /// otherwise, none for terminal text.
    pub children: Option<Vec<DerivationTree>>,
}

impl DerivationTree {
    /// A nonterminal not expanded yet.
    pub fn unexpanded(symbol: impl Into<String>) -> Self {
        DerivationTree {
            symbol: symbol.into(),
            children: None,
        }
    }

    /// Terminal text, a leaf.
    pub fn terminal(text: impl Into<String>) -> Self {
        DerivationTree {
            symbol: text.into(),
            children: Some(Vec::new()),
        }
    }

    /// Whether this node still waits for its expansion.
    pub fn is_unexpanded(&self) -> bool {
        self.children.is_none()
    }

    /// Whether some node of the tree still waits for its expansion.
    pub fn has_unexpanded(&self) -> bool {
        match &self.children {
            None => true,
            Some(children) => children.iter().any(DerivationTree::has_unexpanded),
        }
    }

    /// The number of nodes of the tree waiting for their expansion.
    pub fn unexpanded_count(&self) -> usize {
        match &self.children {
            None => 1,
            Some(children) => children.iter().map(DerivationTree::unexpanded_count).sum(),
        }
    }

    /// The expansion this node was expanded by (its children's symbols,
    /// concatenated), or `None` for leaves.
    ///
    /// ```
    /// # use carve::generation::grammar::DerivationTree;
    /// let tree = DerivationTree {
    ///     symbol: "<start>".to_string(),
    ///     children: Some(vec![
    ///         DerivationTree::terminal("-"),
    ///         DerivationTree::unexpanded("<digit>"),
    ///     ]),
    /// };
    /// assert_eq!(tree.expansion().as_deref(), Some("-<digit>"));
    /// assert_eq!(tree.to_string(), "-<digit>");
    /// assert_eq!(tree.unexpanded_count(), 1);
    /// ```
    pub fn expansion(&self) -> Option<String> {
        let children = self.children.as_ref().filter(|c| !c.is_empty())?;
        Some(children.iter().map(|c| c.symbol.as_str()).collect())
    }
}

/// The derived string: the terminals of the tree, with unexpanded
/// nonterminals standing for themselves.
impl fmt::Display for DerivationTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.children {
            Some(children) if !children.is_empty() => children
                .iter()
                .try_for_each(|child| fmt::Display::fmt(child, f)),
            _ => f.write_str(&self.symbol),
        }
    }
}

/// Cost of an expansion that cannot terminate without recursing.
const INFINITE: u64 = u64::MAX;

/// Distance between symbols that do not reach each other.
const UNREACHABLE: usize = usize::MAX;

/// The part of a grammar reachable from its start symbol, with symbols and
/// expansion keys numbered and what the fuzzer consults on every choice
/// precomputed.
#[derive(Debug, Clone)]
struct Compiled {
    /// Symbol names by id; the start symbol is 0.
    names: Vec<String>,
    ids: HashMap<String, usize>,
    alternatives: Vec<Vec<Alternative>>,
    /// Coverage keys by id.
    keys: Vec<String>,
    /// The distinct keys of each symbol's expansions.
    symbol_keys: Vec<Vec<usize>>,
    /// `distances[from][to]`: the fewest expansions that lead from `from` to
    /// `to`, or [`UNREACHABLE`].
    distances: Vec<Vec<usize>>,
}

/// One expansion of a symbol.
#[derive(Debug, Clone)]
struct Alternative {
    pieces: Vec<Piece>,
    /// Symbol ids of `pieces`, with repetitions.
    nonterminals: Vec<usize>,
    key: usize,
    /// Size of the smallest derivation tree below this expansion that does
    /// not use the expanded symbol again; [`INFINITE`] if there is none.
    cost: u64,
}

/// A [`Part`] of a compiled expansion.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Symbol(usize),
}

impl Alternative {
    fn new(expansion: &str, key: usize, ids: &HashMap<String, usize>) -> Self {
        let mut pieces: Vec<Piece> = parts(expansion)
            .into_iter()
            .map(|part| match part {
                Part::Terminal(text) => Piece::Text(text.to_string()),
                Part::Nonterminal(symbol) => Piece::Symbol(ids[symbol]),
            })
            .collect();
        if pieces.is_empty() {
            // An empty expansion still derives one (empty) terminal.
            pieces.push(Piece::Text(String::new()));
        }
        let symbol = |piece: &Piece| match piece {
            Piece::Symbol(id) => Some(*id),
            Piece::Text(_) => None,
        };
        let nonterminals = pieces.iter().filter_map(symbol).collect();
        Alternative {
            pieces,
            nonterminals,
            key,
            cost: INFINITE,
        }
    }
}

impl Compiled {
    fn new(grammar: &Grammar) -> Result<Self, GrammarError> {
        grammar.check_derivable()?;
        let names: Vec<String> = grammar.reachable().into_iter().map(String::from).collect();
        let ids: HashMap<String, usize> = names
            .iter()
            .enumerate()
            .map(|(id, name)| (name.clone(), id))
            .collect();
        let (mut keys, mut symbol_keys, mut alternatives) = (Vec::new(), Vec::new(), Vec::new());
        for name in &names {
            let mut own_keys: Vec<usize> = Vec::new();
            let mut own_alternatives = Vec::new();
            for expansion in grammar.expansions(name).unwrap_or_default() {
                let text = expansion_key(name, expansion);
                // Identical expansions of a symbol share their key.
                let key = match own_keys.iter().find(|&&key| keys[key] == text) {
                    Some(&key) => key,
                    None => {
                        keys.push(text);
                        own_keys.push(keys.len() - 1);
                        keys.len() - 1
                    }
                };
                own_alternatives.push(Alternative::new(expansion, key, &ids));
            }
            symbol_keys.push(own_keys);
            alternatives.push(own_alternatives);
        }
        let mut compiled = Compiled {
            names,
            ids,
            alternatives,
            keys,
            symbol_keys,
            distances: Vec::new(),
        };
        compiled.compute_costs();
        compiled.distances = (0..compiled.len())
            .map(|s| compiled.distances_from(s))
            .collect();
        Ok(compiled)
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    /// Sets the cost of every alternative: 1 for terminal text, infinite if
    /// it names its own symbol, else 1 plus the smallest derivations of its
    /// nonterminals in the grammar without its symbol (which is what the
    /// book's cycle-detecting recursion computes).
    fn compute_costs(&mut self) {
        for symbol in 0..self.len() {
            let refers = self.alternatives[symbol]
                .iter()
                .any(|a| !a.nonterminals.is_empty());
            let without = if refers {
                self.min_costs(Some(symbol))
            } else {
                Vec::new()
            };
            for alternative in &mut self.alternatives[symbol] {
                alternative.cost = if alternative.nonterminals.contains(&symbol) {
                    INFINITE
                } else {
                    sum_costs(&alternative.nonterminals, &without)
                };
            }
        }
    }

    /// The size of each symbol's smallest derivation tree not using
    /// `excluded`: a least fixpoint, which takes at most one pass per symbol
    /// (plus one) since smallest trees repeat no symbol along a path.
    fn min_costs(&self, excluded: Option<usize>) -> Vec<u64> {
        let mut costs = vec![INFINITE; self.len()];
        loop {
            let mut changed = false;
            for symbol in (0..self.len()).filter(|&s| Some(s) != excluded) {
                for alternative in &self.alternatives[symbol] {
                    let cost = sum_costs(&alternative.nonterminals, &costs);
                    if cost < costs[symbol] {
                        costs[symbol] = cost;
                        changed = true;
                    }
                }
            }
            if !changed {
                return costs;
            }
        }
    }

    /// Breadth-first distances from `from` to every symbol.
    fn distances_from(&self, from: usize) -> Vec<usize> {
        let mut distances = vec![UNREACHABLE; self.len()];
        distances[from] = 0;
        let mut queue = VecDeque::from([from]);
        while let Some(symbol) = queue.pop_front() {
            for alternative in &self.alternatives[symbol] {
                for &next in &alternative.nonterminals {
                    if distances[next] == UNREACHABLE {
                        distances[next] = distances[symbol] + 1;
                        queue.push_back(next);
                    }
                }
            }
        }
        distances
    }

    /// The alternatives of `symbol` in `pool` that `phase` allows: all of
    /// them, or those of the highest or the lowest cost.
    fn allowed(&self, symbol: usize, pool: Vec<usize>, phase: Phase) -> Vec<usize> {
        let cost = |alternative: &usize| self.alternatives[symbol][*alternative].cost;
        let wanted = match phase {
            Phase::Random => return pool,
            Phase::MaxCost => pool.iter().map(cost).max(),
            Phase::MinCost => pool.iter().map(cost).min(),
        };
        pool.into_iter()
            .filter(|a| Some(cost(a)) == wanted)
            .collect()
    }
}

/// 1 plus the costs of `symbols`, saturating at [`INFINITE`].
fn sum_costs(symbols: &[usize], costs: &[u64]) -> u64 {
    symbols
        .iter()
        .fold(1, |sum: u64, &s| sum.saturating_add(costs[s]))
}

/// How a [`GrammarFuzzer`] chooses among the expansions of a symbol. Every
/// strategy tracks the expansions it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Uniformly at random: the book's `GrammarFuzzer`, and its
    /// `TrackingGrammarCoverageFuzzer` since coverage is always tracked.
    Random,
    /// Uniformly among the expansions of the symbol at hand that are not
    /// covered yet, if any: the book's `SimpleGrammarCoverageFuzzer`.
    Simple,
    /// Uniformly among the expansions whose subtrees offer the most
    /// uncovered expansions, counted at the smallest lookahead depth at which
    /// any expansion offers some: the book's `GrammarCoverageFuzzer`.
    DeepForesight,
    /// [`Strategy::DeepForesight`], breaking ties towards the cheapest
    /// expansions: the "shortest path selection" of Burkhardt (1967) that
    /// the chapter quotes. It reaches full coverage with less text, at the
    /// price of less varied inputs until then. (Like the other coverage
    /// strategies, it chooses at random where no choice leads to anything
    /// uncovered.)
    ShortestPath,
}

/// The phases of a derivation, each expanding until its limit of
/// unexpanded nonterminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Grow the tree by preferring the costliest (recursive) expansions.
    MaxCost,
    Random,
    /// Close the tree by preferring the cheapest expansions.
    MinCost,
}

/// Derives strings from a [`Grammar`], tracking the expansions it uses and
/// choosing expansions by its [`Strategy`].
///
/// A derivation expands nonterminals, each time one picked at random among
/// those left, in three phases: while fewer than `min_nonterminals` are left
/// unexpanded it prefers the costliest expansions, then until
/// `max_nonterminals` are reached it chooses freely, then it prefers the
/// cheapest expansions to finish. The strategy chooses among the expansions
/// each phase allows. The same grammar, strategy, limits and seed give the
/// same strings.
#[derive(Debug)]
pub struct GrammarFuzzer {
    grammar: Compiled,
    strategy: Strategy,
    min_nonterminals: usize,
    max_nonterminals: usize,
    rng: StdRng,
    covered: Vec<bool>,
    coverage: BTreeSet<String>,
}

impl GrammarFuzzer {
    /// A fuzzer deriving from the grammar's start symbol, with
    /// `min_nonterminals` 0 and `max_nonterminals` 10 as in the book.
    ///
    /// Fails if [`Grammar::check_derivable`] does.
    pub fn new(grammar: &Grammar, strategy: Strategy, seed: u64) -> Result<Self, GrammarError> {
        let grammar = Compiled::new(grammar)?;
        Ok(GrammarFuzzer {
            covered: vec![false; grammar.keys.len()],
            grammar,
            strategy,
            min_nonterminals: 0,
            max_nonterminals: 10,
            rng: StdRng::seed_from_u64(seed),
            coverage: BTreeSet::new(),
        })
    }

    /// Keeps growing the tree until this many nonterminals are unexpanded.
    pub fn with_min_nonterminals(mut self, min_nonterminals: usize) -> Self {
        self.min_nonterminals = min_nonterminals;
        self
    }

    /// Stops choosing freely once this many nonterminals are unexpanded.
    pub fn with_max_nonterminals(mut self, max_nonterminals: usize) -> Self {
        self.max_nonterminals = max_nonterminals;
        self
    }

    /// The strategy choosing expansions.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Derives a string.
    pub fn fuzz(&mut self) -> String {
        self.fuzz_tree().to_string()
    }

    /// Derives a string, returning its fully expanded derivation tree.
    pub fn fuzz_tree(&mut self) -> DerivationTree {
        let mut tree = DerivationTree::unexpanded(self.grammar.names[0].clone());
        let mut unexpanded = 1;
        let phases = [
            (Phase::MaxCost, Some(self.min_nonterminals)),
            (Phase::Random, Some(self.max_nonterminals)),
            (Phase::MinCost, None),
        ];
        for (phase, limit) in phases {
            while unexpanded > 0 && limit.is_none_or(|limit| unexpanded < limit) {
                unexpanded = unexpanded - 1 + self.expand_once(&mut tree, phase);
            }
        }
        debug_assert!(!tree.has_unexpanded());
        tree
    }

    /// The keys (`"<symbol> -> expansion"`) of the expansions used since
    /// creation or the last [`GrammarFuzzer::reset_coverage`].
    pub fn expansion_coverage(&self) -> &BTreeSet<String> {
        &self.coverage
    }

    /// Forgets the expansions used so far.
    pub fn reset_coverage(&mut self) {
        self.covered.fill(false);
        self.coverage.clear();
    }

    /// The keys of the expansions of `symbol` and of the symbols below it,
    /// down to `max_depth` rules deep (`Some(1)`: only those of `symbol`;
    /// `None`: all). Empty for symbols the start symbol does not reach.
    ///
    /// A rule's depth is that of its shortest path from `symbol`, so the
    /// result does not depend on the order the grammar is explored in.
    pub fn max_expansion_coverage(
        &self,
        symbol: &str,
        max_depth: Option<usize>,
    ) -> BTreeSet<String> {
        let Some(&from) = self.grammar.ids.get(symbol) else {
            return BTreeSet::new();
        };
        let within = |&(_, &distance): &(usize, &usize)| {
            distance != UNREACHABLE && max_depth.is_none_or(|depth| distance < depth)
        };
        let distances = self.grammar.distances[from].iter().enumerate();
        let symbols = distances.filter(within).map(|(symbol, _)| symbol);
        let keys = symbols.flat_map(|symbol| &self.grammar.symbol_keys[symbol]);
        keys.map(|&key| self.grammar.keys[key].clone()).collect()
    }

    /// The keys of the expansions reachable from the start symbol that are
    /// not covered yet.
    pub fn missing_expansion_coverage(&self) -> BTreeSet<String> {
        let missing = (0..self.grammar.keys.len()).filter(|&key| !self.covered[key]);
        missing.map(|key| self.grammar.keys[key].clone()).collect()
    }

    /// Expands one unexpanded node of `tree`, descending into a random
    /// child that has one; returns the number of nonterminals it added.
    fn expand_once(&mut self, tree: &mut DerivationTree, phase: Phase) -> usize {
        let DerivationTree { symbol, children } = tree;
        let Some(children) = children else {
            let (expansion, added) = self.expand_symbol(symbol, phase);
            *children = Some(expansion);
            return added;
        };
        let expandable: Vec<usize> = (0..children.len())
            .filter(|&i| children[i].has_unexpanded())
            .collect();
        let next = expandable[self.rng.random_range(0..expandable.len())];
        self.expand_once(&mut children[next], phase)
    }

    /// Chooses and covers an expansion of `symbol`; returns its children
    /// and how many of them are nonterminals.
    fn expand_symbol(&mut self, symbol: &str, phase: Phase) -> (Vec<DerivationTree>, usize) {
        let symbol = self.grammar.ids[symbol];
        let all = (0..self.grammar.alternatives[symbol].len()).collect();
        let candidates = self.grammar.allowed(symbol, all, phase);
        let chosen = self.choose(symbol, candidates);
        let alternative = &self.grammar.alternatives[symbol][chosen];
        let key = alternative.key;
        let children = alternative
            .pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => DerivationTree::terminal(text.as_str()),
                Piece::Symbol(id) => DerivationTree::unexpanded(self.grammar.names[*id].as_str()),
            })
            .collect();
        let added = alternative.nonterminals.len();
        self.cover(key);
        (children, added)
    }

    fn cover(&mut self, key: usize) {
        if !self.covered[key] {
            self.covered[key] = true;
            self.coverage.insert(self.grammar.keys[key].clone());
        }
    }

    /// Picks one of the `candidates` alternatives of `symbol`, at random
    /// among those the strategy prefers.
    fn choose(&mut self, symbol: usize, candidates: Vec<usize>) -> usize {
        let preferred = match self.strategy {
            Strategy::Random => None,
            Strategy::Simple => Some(self.uncovered(symbol, &candidates)).filter(|c| !c.is_empty()),
            Strategy::DeepForesight => self.foresight(symbol, &candidates),
            Strategy::ShortestPath => self
                .foresight(symbol, &candidates)
                .map(|best| self.grammar.allowed(symbol, best, Phase::MinCost)),
        };
        let pool = preferred.unwrap_or(candidates);
        pool[self.rng.random_range(0..pool.len())]
    }

    fn uncovered(&self, symbol: usize, candidates: &[usize]) -> Vec<usize> {
        let alternatives = &self.grammar.alternatives[symbol];
        let uncovered = |&&c: &&usize| !self.covered[alternatives[c].key];
        candidates.iter().filter(uncovered).copied().collect()
    }

    /// The candidates offering the most new coverage at the smallest
    /// lookahead depth at which any offers some, or `None` if none can.
    /// Looking no deeper than needed keeps rules with many expansions deep
    /// down from dominating every choice above them.
    fn foresight(&self, symbol: usize, candidates: &[usize]) -> Option<Vec<usize>> {
        if self.coverage.len() == self.grammar.keys.len() {
            // Nothing left to find; spare the lookahead.
            return None;
        }
        let depths: Vec<Vec<usize>> = candidates
            .iter()
            .map(|&c| self.uncovered_depths(symbol, c))
            .collect();
        let depth = depths.iter().flatten().min().copied()?;
        let gains: Vec<usize> = depths
            .iter()
            .map(|d| d.iter().filter(|&&d| d <= depth).count())
            .collect();
        let best = gains.iter().max().copied()?;
        let with_best = candidates
            .iter()
            .zip(&gains)
            .filter(|(_, &gain)| gain == best);
        Some(with_best.map(|(&c, _)| c).collect())
    }

    /// For each uncovered expansion that choosing `alternative` of `symbol`
    /// can lead to, the lookahead depth that sees it: 0 for `alternative`
    /// itself, `d + 1` for the expansions of a symbol `d` expansions below
    /// its nonterminals.
    fn uncovered_depths(&self, symbol: usize, alternative: usize) -> Vec<usize> {
        let alternative = &self.grammar.alternatives[symbol][alternative];
        let mut depths = Vec::new();
        if !self.covered[alternative.key] {
            depths.push(0);
        }
        for target in 0..self.grammar.len() {
            let to_target = alternative
                .nonterminals
                .iter()
                .map(|&n| self.grammar.distances[n][target]);
            let distance = to_target.min().unwrap_or(UNREACHABLE);
            if distance == UNREACHABLE {
                continue;
            }
            let keys = self.grammar.symbol_keys[target].iter();
            let uncovered = keys.filter(|&&key| !self.covered[key] && key != alternative.key);
            depths.extend(uncovered.map(|_| distance + 1));
        }
        depths
    }
}

/// Grammars of The Fuzzing Book, for examples, tests and benchmarks.
pub mod examples {
    use super::Grammar;

    /// CGI-encoded strings: letters, `+` and `%` escapes of two hex digits.
    pub fn cgi() -> Grammar {
        Grammar::new(&[
            ("<start>", &["<string>"]),
            ("<string>", &["<letter>", "<letter><string>"]),
            ("<letter>", &["<plus>", "<percent>", "<other>"]),
            ("<plus>", &["+"]),
            ("<percent>", &["%<hexdigit><hexdigit>"]),
            (
                "<hexdigit>",
                &[
                    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f",
                ],
            ),
            (
                "<other>",
                &[
                    "0", "1", "2", "3", "4", "5", "a", "b", "c", "d", "e", "-", "_",
                ],
            ),
        ])
    }

    /// Arithmetic expressions over integers and decimals, with `+ - * /`,
    /// parentheses and unary signs.
    pub fn expr() -> Grammar {
        Grammar::new(&[
            ("<start>", &["<expr>"]),
            ("<expr>", &["<term> + <expr>", "<term> - <expr>", "<term>"]),
            (
                "<term>",
                &["<factor> * <term>", "<factor> / <term>", "<factor>"],
            ),
            (
                "<factor>",
                &[
                    "+<factor>",
                    "-<factor>",
                    "(<expr>)",
                    "<integer>.<integer>",
                    "<integer>",
                ],
            ),
            ("<integer>", &["<digit><integer>", "<digit>"]),
            (
                "<digit>",
                &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
            ),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::examples::{cgi, expr};
    use super::*;

    const STRATEGIES: [Strategy; 4] = [
        Strategy::Random,
        Strategy::Simple,
        Strategy::DeepForesight,
        Strategy::ShortestPath,
    ];

    fn fuzzer(grammar: &Grammar, strategy: Strategy, seed: u64) -> GrammarFuzzer {
        GrammarFuzzer::new(grammar, strategy, seed).expect("valid grammar")
    }

    /// The inputs `fuzzer` produces until it covers every expansion, failing
    /// after `limit` inputs.
    fn inputs_until_covered(fuzzer: &mut GrammarFuzzer, limit: usize) -> Vec<String> {
        let mut inputs = Vec::new();
        while !fuzzer.missing_expansion_coverage().is_empty() {
            assert!(
                inputs.len() < limit,
                "{:?} still misses {:?} after {limit} inputs",
                fuzzer.strategy(),
                fuzzer.missing_expansion_coverage()
            );
            inputs.push(fuzzer.fuzz());
        }
        inputs
    }

    fn total_length_until_covered(grammar: &Grammar, strategy: Strategy, seeds: u64) -> usize {
        let length = |seed| {
            let inputs = inputs_until_covered(&mut fuzzer(grammar, strategy, seed), 1000);
            inputs.iter().map(String::len).sum::<usize>()
        };
        (0..seeds).map(length).sum()
    }

    fn all_keys(grammar: &Grammar) -> BTreeSet<String> {
        let keys = grammar
            .rules()
            .flat_map(|(s, es)| es.iter().map(move |e| expansion_key(s, e)));
        keys.collect()
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn expansions_split_into_terminals_and_nonterminals() {
        use Part::{Nonterminal, Terminal};
        let expected = [
            Nonterminal("<term>"),
            Terminal(" + "),
            Nonterminal("<expr>"),
        ];
        assert_eq!(parts("<term> + <expr>"), expected);
        let expected = [Terminal("a < b "), Nonterminal("<c>"), Terminal(" <d")];
        assert_eq!(parts("a < b <c> <d"), expected);
        let expected = [Terminal("<"), Nonterminal("<x>"), Terminal(">")];
        assert_eq!(parts("<<x>>"), expected);
        assert_eq!(parts(""), []);
        assert_eq!(
            nonterminals("%<hexdigit><hexdigit>"),
            ["<hexdigit>", "<hexdigit>"]
        );
        assert!(is_nonterminal("<digit>"));
        for not_one in ["digit", "<a b>", "<a><b>", "<digit", "x<digit>"] {
            assert!(!is_nonterminal(not_one), "{not_one}");
        }
    }

    #[test]
    fn book_grammars_are_valid() {
        assert_eq!(cgi().check(), Ok(()));
        assert_eq!(expr().check(), Ok(()));
        assert_eq!(expr().start(), START_SYMBOL);
        assert_eq!(expr().len(), 6);
        assert_eq!(expr().expansion_count(), 24);
    }

    #[test]
    fn check_names_undefined_symbols() {
        let grammar = Grammar::new(&[("<start>", &["<a>"]), ("<a>", &["x<b>", "y"])]);
        let error = grammar.check().unwrap_err();
        assert_eq!(error, GrammarError::Undefined("<b>".to_string()));
        assert!(error.to_string().contains("<b>"), "{error}");
        let no_start = Grammar::new(&[("<begin>", &["x"])]);
        assert_eq!(
            no_start.check(),
            Err(GrammarError::Undefined("<start>".to_string()))
        );
    }

    #[test]
    fn check_names_unreachable_symbols() {
        let mut rules: Vec<(&str, &[&str])> = vec![("<start>", &["<a>"]), ("<a>", &["a"])];
        rules.push(("<orphan>", &["o"]));
        let error = Grammar::new(&rules).check().unwrap_err();
        assert_eq!(error, GrammarError::Unreachable("<orphan>".to_string()));
        assert!(error.to_string().contains("<orphan>"), "{error}");

        // Fuzzing from another symbol only needs what that symbol reaches.
        let digits = expr().with_start("<digit>");
        assert_eq!(
            digits.check(),
            Err(GrammarError::Unreachable("<start>".to_string()))
        );
        assert_eq!(digits.check_derivable(), Ok(()));
    }

    #[test]
    fn check_names_symbols_that_never_terminate() {
        let grammar = Grammar::new(&[
            ("<start>", &["<a>", "x"]),
            ("<a>", &["a<b>"]),
            ("<b>", &["b<a>", "<b>"]),
        ]);
        let error = grammar.check().unwrap_err();
        assert_eq!(error, GrammarError::NonTerminating("<a>".to_string()));
        assert_eq!(error.symbol(), "<a>");
        assert!(error.to_string().contains("<a>"), "{error}");
    }

    #[test]
    fn check_names_bad_rule_names_and_redefinitions() {
        let unnamed = Grammar::new(&[("<start>", &["x"]), ("digit", &["1"])]);
        assert_eq!(
            unnamed.check(),
            Err(GrammarError::NotANonterminal("digit".to_string()))
        );
        let twice = Grammar::new(&[("<start>", &["x"]), ("<start>", &["y"])]);
        assert_eq!(
            twice.check(),
            Err(GrammarError::Redefined("<start>".to_string()))
        );
        assert_eq!(twice.expansions("<start>").unwrap(), ["y"]);
    }

    #[test]
    fn fuzzers_refuse_grammars_they_cannot_derive_from() {
        let endless = Grammar::new(&[("<start>", &["(<start>)"])]);
        let error = GrammarFuzzer::new(&endless, Strategy::Random, 0).unwrap_err();
        assert_eq!(error, GrammarError::NonTerminating("<start>".to_string()));
        let undefined = Grammar::new(&[("<start>", &["<x>"])]);
        assert!(GrammarFuzzer::new(&undefined, Strategy::Simple, 0).is_err());
    }

    #[test]
    fn max_expansion_coverage_is_what_a_symbol_reaches() {
        let fuzzer = fuzzer(&expr(), Strategy::Random, 0);
        let all = fuzzer.max_expansion_coverage("<start>", None);
        assert_eq!(all, all_keys(&expr()));
        assert!(all.contains("<factor> -> <integer>.<integer>"));
        assert_eq!(fuzzer.max_expansion_coverage("<integer>", None).len(), 12);
        assert_eq!(fuzzer.max_expansion_coverage("<digit>", None).len(), 10);
        assert_eq!(
            fuzzer.max_expansion_coverage("<unknown>", None),
            BTreeSet::new()
        );
        assert_eq!(fuzzer.missing_expansion_coverage(), all);
    }

    #[test]
    fn max_expansion_coverage_counts_depth_along_shortest_paths() {
        let fuzzer = fuzzer(&expr(), Strategy::Random, 0);
        let within = |depth| fuzzer.max_expansion_coverage("<start>", Some(depth));
        assert!(within(0).is_empty());
        assert_eq!(within(1), set(&["<start> -> <expr>"]));
        assert_eq!(within(2).len(), 1 + 3);
        assert_eq!(within(3).len(), 1 + 3 + 3);
        // <factor> is 3 below <start> directly, and again below (<expr>).
        assert_eq!(within(4).len(), 1 + 3 + 3 + 5);
        assert_eq!(within(6), within(100));
    }

    #[test]
    fn costs_follow_the_books_cycle_detection() {
        let compiled = Compiled::new(&expr()).unwrap();
        let costs = |symbol: &str| {
            let alternatives = &compiled.alternatives[compiled.ids[symbol]];
            alternatives.iter().map(|a| a.cost).collect::<Vec<_>>()
        };
        // (<expr>) can only terminate through another <factor>: infinite.
        assert_eq!(costs("<factor>"), [INFINITE, INFINITE, INFINITE, 5, 3]);
        assert_eq!(costs("<integer>"), [INFINITE, 2]);
        assert_eq!(costs("<expr>"), [INFINITE, INFINITE, 5]);
        assert_eq!(costs("<start>"), [6]);
        let compiled = Compiled::new(&cgi()).unwrap();
        let letter = &compiled.alternatives[compiled.ids["<letter>"]];
        assert_eq!(letter.iter().map(|a| a.cost).collect::<Vec<_>>(), [2, 4, 2]);
    }

    /// Checks that `tree` is a complete derivation by `grammar` whose
    /// expansions `covered` records.
    fn assert_derivation(tree: &DerivationTree, grammar: &Grammar, covered: &BTreeSet<String>) {
        let Some(children) = &tree.children else {
            panic!("unexpanded {} in a fuzzed tree", tree.symbol);
        };
        if children.is_empty() {
            assert!(
                !grammar.contains(&tree.symbol),
                "{} left as a leaf",
                tree.symbol
            );
            return;
        }
        let expansion = tree.expansion().unwrap();
        let rule = grammar.expansions(&tree.symbol).unwrap();
        assert!(rule.contains(&expansion), "{} -> {expansion}", tree.symbol);
        assert!(covered.contains(&expansion_key(&tree.symbol, &expansion)));
        for child in children {
            assert_derivation(child, grammar, covered);
        }
    }

    #[test]
    fn fuzzed_trees_are_derivations_whose_expansions_are_covered() {
        for grammar in [cgi(), expr()] {
            for strategy in STRATEGIES {
                let mut fuzzer = fuzzer(&grammar, strategy, 3);
                for _ in 0..30 {
                    let tree = fuzzer.fuzz_tree();
                    assert_eq!(tree.symbol, "<start>");
                    assert_eq!(tree.unexpanded_count(), 0);
                    assert_derivation(&tree, &grammar, fuzzer.expansion_coverage());
                }
            }
        }
    }

    /// Decodes a CGI-encoded string, or says why it is not one.
    fn cgi_decode(input: &str) -> Result<String, String> {
        let mut decoded = String::new();
        let mut chars = input.chars();
        while let Some(c) = chars.next() {
            match c {
                '+' => decoded.push(' '),
                '%' => {
                    let hex: String = chars.by_ref().take(2).collect();
                    let is_hex =
                        hex.len() == 2 && hex.chars().all(|h| "0123456789abcdef".contains(h));
                    let byte = u8::from_str_radix(&hex, 16).ok().filter(|_| is_hex);
                    decoded.push(byte.ok_or(format!("bad escape %{hex} in {input:?}"))? as char);
                }
                c if "012345abcde-_".contains(c) => decoded.push(c),
                c => return Err(format!("{c:?} outside the CGI alphabet in {input:?}")),
            }
        }
        Ok(decoded)
    }

    #[test]
    fn cgi_inputs_are_cgi_encoded() {
        assert!(cgi_decode("%4x").is_err() && cgi_decode("z").is_err());
        for strategy in STRATEGIES {
            let mut fuzzer = fuzzer(&cgi(), strategy, 11);
            for _ in 0..100 {
                let input = fuzzer.fuzz();
                assert!(!input.is_empty());
                if let Err(why) = cgi_decode(&input) {
                    panic!("{strategy:?}: {why}");
                }
            }
        }
    }

    #[test]
    fn every_strategy_covers_both_grammars() {
        for grammar in [cgi(), expr()] {
            for strategy in STRATEGIES {
                for seed in 0..10 {
                    let mut fuzzer = fuzzer(&grammar, strategy, seed);
                    inputs_until_covered(&mut fuzzer, 500);
                    assert_eq!(fuzzer.expansion_coverage(), &all_keys(&grammar));
                }
            }
        }
    }

    #[test]
    fn steering_strategies_cover_cgi_with_less_text() {
        let length = |strategy| total_length_until_covered(&cgi(), strategy, 20);
        let lengths = STRATEGIES.map(length);
        assert!(lengths.windows(2).all(|w| w[0] > w[1]), "{lengths:?}");
        // 8 escapes for the 16 hex digits, 13 others and one plus: 38 chars.
        assert!(lengths[3] <= 20 * 40, "{lengths:?}");
    }

    #[test]
    fn coverage_strategies_cover_a_new_digit_with_every_input() {
        let digits = expr().with_start("<digit>");
        for strategy in &STRATEGIES[1..] {
            let mut fuzzer = fuzzer(&digits, *strategy, 5);
            let inputs: BTreeSet<String> = (0..10).map(|_| fuzzer.fuzz()).collect();
            assert_eq!(inputs.len(), 10, "{strategy:?}: {inputs:?}");
            assert!(fuzzer.missing_expansion_coverage().is_empty());
        }
    }

    /// Covers every expansion of `fuzzer` except those in `uncovered`.
    fn cover_all_but(fuzzer: &mut GrammarFuzzer, uncovered: &[&str]) {
        for key in 0..fuzzer.grammar.keys.len() {
            if !uncovered.contains(&fuzzer.grammar.keys[key].as_str()) {
                fuzzer.cover(key);
            }
        }
    }

    /// The expansions `fuzzer` chooses for `symbol` in 20 free tries, each
    /// from the coverage it has now.
    fn choices(fuzzer: &mut GrammarFuzzer, symbol: &str) -> BTreeSet<String> {
        let before = (fuzzer.covered.clone(), fuzzer.coverage.clone());
        let mut choose = || {
            let children = fuzzer.expand_symbol(symbol, Phase::Random).0;
            (fuzzer.covered, fuzzer.coverage) = before.clone();
            let tree = DerivationTree {
                symbol: symbol.to_string(),
                children: Some(children),
            };
            tree.expansion().unwrap()
        };
        (0..20).map(|_| choose()).collect()
    }

    #[test]
    fn foresight_heads_for_uncovered_expansions_deep_down() {
        for strategy in [Strategy::DeepForesight, Strategy::ShortestPath] {
            let mut fuzzer = fuzzer(&cgi(), strategy, 1);
            cover_all_but(&mut fuzzer, &["<hexdigit> -> f"]);
            let chosen = choices(&mut fuzzer, "<letter>");
            assert_eq!(chosen, set(&["<percent>"]));
        }
        let mut simple = fuzzer(&cgi(), Strategy::Simple, 1);
        cover_all_but(&mut simple, &["<hexdigit> -> f"]);
        assert_eq!(choices(&mut simple, "<letter>").len(), 3);
    }

    #[test]
    fn lookahead_sees_expansions_one_level_per_rule() {
        let fuzzer = fuzzer(&cgi(), Strategy::DeepForesight, 0);
        let letter = fuzzer.grammar.ids["<letter>"];
        let mut depths = fuzzer.uncovered_depths(letter, 1);
        depths.sort();
        // <letter> -> <percent>, then <percent>'s rule, then 16 hex digits.
        assert_eq!(depths, [[0, 1].as_slice(), &[2; 16]].concat());
    }

    #[test]
    fn foresight_looks_no_deeper_than_needed() {
        let mut fuzzer = fuzzer(&cgi(), Strategy::DeepForesight, 1);
        let uncovered = ["<letter> -> <plus>", "<hexdigit> -> 1", "<hexdigit> -> 2"];
        cover_all_but(&mut fuzzer, &uncovered);
        // <plus> is new itself; <percent> only two expansions further down.
        let chosen = choices(&mut fuzzer, "<letter>");
        assert_eq!(chosen, set(&["<plus>"]));
    }

    #[test]
    fn shortest_path_prefers_the_cheapest_of_equal_gains() {
        let factors = |strategy| {
            let mut fuzzer = fuzzer(&expr(), strategy, 1);
            cover_all_but(&mut fuzzer, &["<digit> -> 7"]);
            choices(&mut fuzzer, "<factor>")
        };
        // Integers and decimals both lead to the digit; integers are cheaper.
        let equal_gains = set(&["<integer>", "<integer>.<integer>"]);
        assert_eq!(factors(Strategy::DeepForesight), equal_gains);
        assert_eq!(factors(Strategy::ShortestPath), set(&["<integer>"]));
    }

    #[test]
    fn same_seed_same_inputs_other_seed_other_inputs() {
        for grammar in [cgi(), expr()] {
            for strategy in STRATEGIES {
                let inputs = |seed| {
                    let mut fuzzer = fuzzer(&grammar, strategy, seed);
                    (0..20).map(|_| fuzzer.fuzz()).collect::<Vec<_>>()
                };
                assert_eq!(inputs(42), inputs(42), "{strategy:?}");
                assert_ne!(inputs(42), inputs(43), "{strategy:?}");
            }
        }
    }

    #[test]
    fn reset_coverage_starts_covering_afresh() {
        let mut fuzzer = fuzzer(&expr(), Strategy::DeepForesight, 9);
        let first = inputs_until_covered(&mut fuzzer, 100);
        assert!(!first.is_empty());
        fuzzer.reset_coverage();
        assert!(fuzzer.expansion_coverage().is_empty());
        assert_eq!(fuzzer.missing_expansion_coverage().len(), 24);
        assert!(!inputs_until_covered(&mut fuzzer, 100).is_empty());
    }

    #[test]
    fn min_nonterminals_grows_every_input() {
        // Every CGI nonterminal derives at least one character.
        let lengths = |min| {
            let mut fuzzer = fuzzer(&cgi(), Strategy::Random, 2).with_min_nonterminals(min);
            (0..50).map(|_| fuzzer.fuzz().len()).collect::<Vec<_>>()
        };
        assert!(lengths(0).iter().any(|&length| length < 8));
        assert!(lengths(8).iter().all(|&length| length >= 8));
    }

    #[test]
    fn max_nonterminals_of_one_derives_only_cheapest_expansions() {
        let mut fuzzer = fuzzer(&cgi(), Strategy::DeepForesight, 4).with_max_nonterminals(1);
        for _ in 0..20 {
            let input = fuzzer.fuzz();
            assert!(input.len() == 1 && input != "%", "{input}");
        }
        assert!(fuzzer.expansion_coverage().contains("<letter> -> <other>"));
        assert!(!fuzzer
            .expansion_coverage()
            .contains("<letter> -> <percent>"));
    }

    #[test]
    fn empty_expansions_derive_empty_text() {
        let grammar = Grammar::new(&[("<start>", &["<as>"]), ("<as>", &["", "a<as>"])]);
        let mut fuzzer = fuzzer(&grammar, Strategy::Simple, 0);
        let inputs = inputs_until_covered(&mut fuzzer, 10);
        assert!(inputs.iter().all(|input| input.chars().all(|c| c == 'a')));
        let tree = GrammarFuzzer::new(&grammar.with_start("<as>"), Strategy::Random, 0)
            .unwrap()
            .with_max_nonterminals(0)
            .fuzz_tree();
        assert_eq!(tree.expansion().as_deref(), Some(""));
        assert_eq!(tree.to_string(), "");
    }

    #[test]
    fn trees_show_their_text_and_what_is_left_to_expand() {
        let tree = DerivationTree {
            symbol: "<expr>".to_string(),
            children: Some(vec![
                DerivationTree::unexpanded("<term>"),
                DerivationTree::terminal(" + "),
                DerivationTree {
                    symbol: "<expr>".to_string(),
                    children: Some(vec![DerivationTree::unexpanded("<term>")]),
                },
            ]),
        };
        assert_eq!(tree.to_string(), "<term> + <term>");
        assert_eq!(tree.unexpanded_count(), 2);
        assert!(tree.has_unexpanded() && !tree.is_unexpanded());
        assert_eq!(tree.expansion().as_deref(), Some("<term> + <expr>"));
        let leaf = DerivationTree::terminal("1");
        assert!(!leaf.has_unexpanded() && leaf.expansion().is_none());
    }

    fn rule(grammar: &Grammar, symbol: &str) -> Vec<String> {
        grammar
            .expansions(symbol)
            .unwrap_or_else(|| panic!("no rule {symbol}"))
            .to_vec()
    }

    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

    #[test]
    fn duplicate_context_copies_rules_below_one_expansion() {
        let duplicated = duplicate_context(&expr(), "<factor>", Some("<integer>.<integer>"));
        assert_eq!(duplicated.check(), Ok(()));
        let factor = [
            "+<factor>",
            "-<factor>",
            "(<expr>)",
            "<integer-1>.<integer-2>",
            "<integer>",
        ];
        assert_eq!(rule(&duplicated, "<factor>"), factor);
        assert_eq!(
            rule(&duplicated, "<integer>"),
            ["<digit><integer>", "<digit>"]
        );
        assert_eq!(
            rule(&duplicated, "<integer-1>"),
            ["<digit-1><integer-1>", "<digit-2>"]
        );
        assert_eq!(
            rule(&duplicated, "<integer-2>"),
            ["<digit-3><integer-2>", "<digit-4>"]
        );
        for digit in ["<digit-1>", "<digit-2>", "<digit-3>", "<digit-4>"] {
            assert_eq!(rule(&duplicated, digit), DIGITS);
        }
        let symbols: Vec<&str> = duplicated.rules().map(|(symbol, _)| symbol).collect();
        let copies = [
            "<integer-1>",
            "<digit-1>",
            "<digit-2>",
            "<integer-2>",
            "<digit-3>",
            "<digit-4>",
        ];
        assert_eq!(symbols[6..], copies);
        assert_eq!(
            duplicated.expansion_count(),
            expr().expansion_count() + 4 + 40
        );
    }

    #[test]
    fn duplicate_context_with_depth_stops_copying() {
        let duplicated =
            duplicate_context_with_depth(&expr(), "<factor>", Some("<integer>.<integer>"), 1);
        assert_eq!(duplicated.check(), Ok(()));
        assert_eq!(duplicated.len(), 8);
        assert_eq!(
            rule(&duplicated, "<integer-1>"),
            ["<digit><integer-1>", "<digit>"]
        );
        assert_eq!(
            rule(&duplicated, "<integer-2>"),
            ["<digit><integer-2>", "<digit>"]
        );
    }

    #[test]
    fn duplicate_context_of_every_expr_expansion_matches_the_book() {
        let once = duplicate_context(&expr(), "<expr>", None);
        assert_eq!(once.check(), Ok(()));
        assert_eq!(once.len(), 292);
        let keys = |grammar: &Grammar| {
            fuzzer(grammar, Strategy::Random, 0).max_expansion_coverage("<start>", None)
        };
        assert_eq!(keys(&once).len(), 1981);
        let twice = duplicate_context(&once, "<expr-1>", None);
        assert_eq!(twice.check(), Ok(()));
        assert_eq!(twice.len(), 594);
        assert_eq!(keys(&twice).len(), 3994);
        assert_eq!(
            rule(&twice, "<expr>"),
            ["<term-1> + <expr-4>", "<term-5> - <expr-8>", "<term-9>"]
        );
    }

    #[test]
    fn duplicate_context_without_a_match_changes_nothing() {
        assert_eq!(
            duplicate_context(&expr(), "<factor>", Some("<nope>")),
            expr()
        );
        assert_eq!(duplicate_context(&expr(), "<nope>", None), expr());
    }

    #[test]
    fn duplicated_contexts_are_covered_separately() {
        let duplicated = duplicate_context(&expr(), "<factor>", Some("<integer>.<integer>"));
        let factors = duplicated.with_start("<factor>");
        let mut fuzzer = fuzzer(&factors, Strategy::DeepForesight, 8);
        let inputs = inputs_until_covered(&mut fuzzer, 100);
        assert_eq!(
            fuzzer.expansion_coverage().len(),
            5 + 3 + 3 + 2 + 10 + 2 * (2 + 20)
        );
        // Each digit occurs in whole and fractional parts of some decimal.
        let decimals = inputs.iter().flat_map(|input| {
            let numbers = input.split(|c: char| !c.is_ascii_digit() && c != '.');
            numbers
                .filter(|n| n.contains('.'))
                .map(String::from)
                .collect::<Vec<_>>()
        });
        let (mut whole, mut fraction) = (BTreeSet::new(), BTreeSet::new());
        for decimal in decimals {
            let (w, f) = decimal.split_once('.').unwrap();
            whole.extend(w.chars());
            fraction.extend(f.chars());
        }
        assert_eq!(whole.len(), 10, "{inputs:?}");
        assert_eq!(fraction.len(), 10, "{inputs:?}");
    }
}
