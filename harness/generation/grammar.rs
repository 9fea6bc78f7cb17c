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

// The rest of the book's toolbox (the other strategies, grammar checks,
// contexts, the book's grammars) lets the benches compare strategies;
// generation uses one, so that part is compiled for tests and benches only.
#[cfg(any(test, feature = "_internals"))]
pub mod book;
#[cfg(any(test, feature = "_internals"))]
pub use book::{duplicate_context, duplicate_context_with_depth, examples};
#[cfg(test)]
mod tests;

use std::borrow::Cow;
#[cfg(test)]
use std::collections::BTreeSet;
use std::collections::{HashMap, HashSet, VecDeque};
use std::error::Error;
use std::fmt;
use std::rc::Rc;

use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

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

    /// Whether `symbol` has a rule.
    pub fn contains(&self, symbol: &str) -> bool {
        self.index.contains_key(symbol)
    }

    /// The expansions of `symbol`, or `None` if it has no rule.
    pub fn expansions(&self, symbol: &str) -> Option<&[String]> {
        self.index.get(symbol).map(|&i| self.rules[i].1.as_slice())
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
    #[cfg(any(test, feature = "_internals"))]
    Unreachable(String),
    /// A nonterminal has no finite derivation: every expansion recurses.
    NonTerminating(String),
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::NotANonterminal(s) => {
                write!(f, "rule name {s:?} is not a nonterminal <…>")
            }
            GrammarError::Redefined(s) => write!(f, "{s} is defined more than once"),
            GrammarError::Undefined(s) => write!(f, "{s} is used but not defined"),
            #[cfg(any(test, feature = "_internals"))]
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

/// A derivation tree: a symbol and, once expanded, the symbols it was
/// expanded into.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivationTree {
    /// A nonterminal such as `<digit>`, or terminal text; shared with the
    /// grammar, so that a derived tree copies no text.
    pub symbol: Rc<str>,
    /// `None` for a nonterminal not expanded yet; the expansion's symbols
    /// otherwise, none for terminal text.
    pub children: Option<Vec<DerivationTree>>,
}

// Derivation trees are built for the book's API and tests; generation
// reads derivations in place ([`Derived`]).
#[cfg(any(test, feature = "_internals"))]
impl DerivationTree {
    /// A nonterminal not expanded yet.
    pub fn unexpanded(symbol: impl Into<Rc<str>>) -> Self {
        DerivationTree {
            symbol: symbol.into(),
            children: None,
        }
    }

    /// Terminal text, a leaf.
    pub fn terminal(text: impl Into<Rc<str>>) -> Self {
        DerivationTree {
            symbol: text.into(),
            children: Some(Vec::new()),
        }
    }

    /// Whether some node of the tree still waits for its expansion.
    pub fn has_unexpanded(&self) -> bool {
        match &self.children {
            None => true,
            Some(children) => children.iter().any(DerivationTree::has_unexpanded),
        }
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
    names: Vec<Rc<str>>,
    /// Symbol ids by name (derivations go by id; tests look symbols up).
    #[cfg_attr(not(test), allow(dead_code))]
    ids: HashMap<String, usize>,
    alternatives: Vec<Vec<Alternative>>,
    /// The terminal text of every expansion's pieces ([`Piece::Text`]).
    texts: Vec<Rc<str>>,
    /// Coverage keys by id.
    keys: Vec<String>,
    /// The distinct keys of each symbol's expansions.
    symbol_keys: Vec<Vec<usize>>,
    /// The symbol of each key.
    key_symbols: Vec<usize>,
    /// Per symbol: the symbols that lead to it (in any number of
    /// expansions, itself included), whose choices read its coverage.
    led_from: Vec<Vec<usize>>,
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
    /// The symbols this expansion leads to, each with the lookahead depth
    /// that sees its expansions (1 plus the fewest expansions from one of
    /// `nonterminals` to it), nearest first.
    reach: Vec<(usize, usize)>,
}

/// A [`Part`] of a compiled expansion: terminal text (by its index in
/// [`Compiled::texts`]) or a symbol id.
#[derive(Debug, Clone, Copy)]
enum Piece {
    Text(usize),
    Symbol(usize),
}

impl Alternative {
    fn new(
        expansion: &str,
        key: usize,
        ids: &HashMap<String, usize>,
        texts: &mut Vec<Rc<str>>,
    ) -> Self {
        let mut text = |text: &str| {
            texts.push(Rc::from(text));
            Piece::Text(texts.len() - 1)
        };
        let mut pieces: Vec<Piece> = parts(expansion)
            .into_iter()
            .map(|part| match part {
                Part::Terminal(t) => text(t),
                Part::Nonterminal(symbol) => Piece::Symbol(ids[symbol]),
            })
            .collect();
        if pieces.is_empty() {
            // An empty expansion still derives one (empty) terminal.
            pieces.push(text(""));
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
            reach: Vec::new(),
        }
    }
}

impl Compiled {
    fn new(grammar: &Grammar) -> Result<Self, GrammarError> {
        grammar.check_derivable()?;
        let names: Vec<Rc<str>> = grammar.reachable().into_iter().map(Rc::from).collect();
        let ids: HashMap<String, usize> = names
            .iter()
            .enumerate()
            .map(|(id, name)| (name.to_string(), id))
            .collect();
        let (mut keys, mut symbol_keys, mut alternatives) = (Vec::new(), Vec::new(), Vec::new());
        let mut texts = Vec::new();
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
                own_alternatives.push(Alternative::new(expansion, key, &ids, &mut texts));
            }
            symbol_keys.push(own_keys);
            alternatives.push(own_alternatives);
        }
        let mut key_symbols = vec![0; keys.len()];
        for (symbol, own) in symbol_keys.iter().enumerate() {
            for &key in own {
                key_symbols[key] = symbol;
            }
        }
        let mut compiled = Compiled {
            names,
            ids,
            texts,
            alternatives,
            keys,
            symbol_keys,
            key_symbols,
            distances: Vec::new(),
            led_from: Vec::new(),
        };
        compiled.compute_costs();
        compiled.distances = (0..compiled.len())
            .map(|s| compiled.distances_from(s))
            .collect();
        compiled.led_from = (0..compiled.len())
            .map(|to| {
                let from = 0..compiled.len();
                from.filter(|&from| compiled.distances[from][to] != UNREACHABLE).collect()
            })
            .collect();
        compiled.compute_reach();
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

    /// Sets what each alternative leads to ([`Alternative::reach`]).
    fn compute_reach(&mut self) {
        let distances = &self.distances;
        for alternative in self.alternatives.iter_mut().flatten() {
            let nearest = |target: usize| {
                let to_target = alternative.nonterminals.iter().map(|&n| distances[n][target]);
                to_target.min().filter(|&d| d != UNREACHABLE)
            };
            let mut reach: Vec<(usize, usize)> = (0..distances.len())
                .filter_map(|target| Some((target, nearest(target)? + 1)))
                .collect();
            reach.sort_by_key(|&(_, depth)| depth);
            alternative.reach = reach;
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

/// The [`Node::Symbol::place`] of a derivation's root.
const ROOT_PLACE: u64 = 0x243f_6a88_85a3_08d3;

/// SplitMix64's finalizer: a bijection of 64-bit words whose every output
/// bit depends on every input bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The place of the `index`th child of a node at `place`: a digest of the
/// path from the root, child index by child index.
fn child_place(place: u64, index: usize) -> u64 {
    mix(place.wrapping_add((index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// What choosing expansion `chosen` at `place` adds to a derivation's key
/// ([`Derived::derivation_key`]): two digests of both, side by side.
fn choice_digest(place: u64, chosen: usize) -> u128 {
    let chosen = chosen as u64 + 1;
    let low = mix(place ^ chosen.wrapping_mul(0x6a09_e667_f3bc_c909));
    let high = mix(place.rotate_left(32) ^ chosen.wrapping_mul(0xbb67_ae85_84ca_a73b));
    (u128::from(high) << 64) | u128::from(low)
}

/// A draw below `n` (at least 1), as `rng.random_range(0..n)` draws it, the
/// same number from the same state to the same state after: with a single
/// choice that is still one 32-bit draw (so that later draws stay those
/// the fuzzer always made), without the arithmetic. Most choices of a
/// derivation have one candidate (the only child left to expand, the only
/// expansion of a symbol).
///
/// Below 2^32 it is rand's draw written out, inline (the call cost more than
/// the draw): `UniformInt<u32>::sample_single_inclusive`, Canon's method
/// (the high word of a 32-bit draw times `n`, and a second draw in the
/// rare case the low word says the first may be biased).
#[inline]
fn draw_below(rng: &mut StdRng, n: usize) -> usize {
    if n == 1 {
        rng.next_u32();
        return 0;
    }
    let Ok(range) = u32::try_from(n) else {
        return rng.random_range(0..n);
    };
    let product = u64::from(rng.next_u32()) * u64::from(range);
    let (mut drawn, low) = ((product >> 32) as u32, product as u32);
    if low > range.wrapping_neg() {
        let next = ((u64::from(rng.next_u32()) * u64::from(range)) >> 32) as u32;
        drawn += u32::from(low.checked_add(next).is_none());
    }
    drawn as usize
}

/// A node of the derivation [`GrammarFuzzer::derive`] builds: symbols by
/// id, and per node how many below it wait for their expansion, so that
/// finding one is not a walk of the tree. The nodes of a derivation live in
/// one vector the fuzzer reuses, the children of a node side by side.
#[derive(Debug, Clone, Copy)]
enum Node {
    /// Terminal text, by its index in [`Compiled::texts`].
    Text(usize),
    /// A nonterminal; `children` (the range of its children in the
    /// vector) is `None` until it is expanded, `open` counts the
    /// unexpanded nodes below it (itself, 1, until then), and `place`
    /// digests where in the tree it is ([`child_place`]).
    Symbol {
        id: usize,
        children: Option<(usize, usize)>,
        open: usize,
        place: u64,
    },
}

impl Node {
    /// How many nodes of this subtree wait for their expansion.
    fn open(&self) -> usize {
        match self {
            Node::Text(_) => 0,
            Node::Symbol { open, .. } => *open,
        }
    }
}

/// The last derivation of a [`GrammarFuzzer`], read in place
/// ([`GrammarFuzzer::derive`]): one node of it, the root at first. It reads
/// as the [`DerivationTree`] that [`GrammarFuzzer::fuzz_tree`] would have
/// built (same symbols, children and text), without building it.
#[derive(Debug, Clone, Copy)]
pub struct Derived<'a> {
    grammar: &'a Compiled,
    nodes: &'a [Node],
    at: usize,
    /// [`Derived::derivation_key`].
    key: u128,
}

impl<'a> Derived<'a> {
    /// The node's symbol: a nonterminal's name, or terminal text (as
    /// [`DerivationTree::symbol`]).
    pub fn symbol(&self) -> &'a str {
        match self.nodes[self.at] {
            Node::Text(text) => &self.grammar.texts[text],
            Node::Symbol { id, .. } => &self.grammar.names[id],
        }
    }

    /// The node's children: `None` for a nonterminal not expanded, none
    /// for terminal text (as [`DerivationTree::children`]).
    pub fn children(&self) -> Option<impl ExactSizeIterator<Item = Derived<'a>> + 'a> {
        let (start, end) = match self.nodes[self.at] {
            Node::Text(_) => (0, 0),
            Node::Symbol { children, .. } => children?,
        };
        let (grammar, nodes, key) = (self.grammar, self.nodes, self.key);
        Some((start..end).map(move |at| Derived { grammar, nodes, at, key }))
    }
}

#[cfg(any(test, feature = "_internals"))]
impl Derived<'_> {
    /// The derivation tree below this node, with the grammar's text.
    pub fn tree(&self) -> DerivationTree {
        let symbol = match self.nodes[self.at] {
            Node::Text(text) => return DerivationTree::terminal(Rc::clone(&self.grammar.texts[text])),
            Node::Symbol { id, .. } => id,
        };
        DerivationTree {
            symbol: Rc::clone(&self.grammar.names[symbol]),
            children: self.children().map(|c| c.map(|n| n.tree()).collect()),
        }
    }
}

impl<'a> Derived<'a> {
    /// A key of the whole derivation this node is part of (the same for
    /// each of its nodes): the same for the same tree, and different for
    /// different trees but with negligible odds, like a 128-bit digest of
    /// the tree. It is cheaper than reading the tree: the sum of a digest
    /// of each expansion chosen and where in the tree it was chosen (the
    /// place of each node being a digest of its path from the root), added
    /// up as the fuzzer expands.
    pub fn derivation_key(&self) -> u128 {
        self.key
    }

    /// Whether the node is a nonterminal, expanded or not (not text).
    pub fn is_symbol(&self) -> bool {
        matches!(self.nodes[self.at], Node::Symbol { .. })
    }

    /// The text derived below this node (its `to_string()`): borrowed
    /// from the grammar when it is one terminal's.
    pub fn text(&self) -> Cow<'a, str> {
        let mut at = self.at;
        // Down a chain of only children to one text, or to several.
        let several = loop {
            let (id, start, end) = match self.nodes[at] {
                Node::Text(text) => return Cow::Borrowed(&self.grammar.texts[text]),
                Node::Symbol { id, children, .. } => match children {
                    Some((start, end)) => (id, start, end),
                    None => (id, 0, 0),
                },
            };
            match end - start {
                0 => return Cow::Borrowed(&self.grammar.names[id]),
                1 => at = start,
                _ => break at,
            }
        };
        // One walk: growing a short text costs less than walking it twice
        // to size it first.
        let mut out = String::with_capacity(16);
        self.each_text(several, &mut |text| out.push_str(text));
        Cow::Owned(out)
    }

    /// Calls `f` with each piece of text below node `at`, in order (an
    /// unexpanded nonterminal stands for itself).
    fn each_text(&self, at: usize, f: &mut impl FnMut(&'a str)) {
        match self.nodes[at] {
            Node::Text(text) => f(&self.grammar.texts[text]),
            Node::Symbol {
                children: Some((start, end)),
                ..
            } if start < end => (start..end).for_each(|child| self.each_text(child, f)),
            Node::Symbol { id, .. } => f(&self.grammar.names[id]),
        }
    }
}

/// The derived string, as [`DerivationTree`]'s.
impl fmt::Display for Derived<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// How a [`GrammarFuzzer`] chooses among the expansions of a symbol. Every
/// strategy tracks the expansions it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Uniformly at random: the book's `GrammarFuzzer`, and its
    /// `TrackingGrammarCoverageFuzzer` since coverage is always tracked.
    #[cfg(any(test, feature = "_internals"))]
    Random,
    /// Uniformly among the expansions of the symbol at hand that are not
    /// covered yet, if any: the book's `SimpleGrammarCoverageFuzzer`.
    #[cfg(any(test, feature = "_internals"))]
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
    #[cfg(any(test, feature = "_internals"))]
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

/// What the strategy of a [`GrammarFuzzer`] prefers for a symbol in a
/// phase, remembered until the coverage it read changes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Preference {
    /// The alternatives it prefers; `None`: none of them (the choice is
    /// among all those the phase allows).
    preferred: Option<Vec<usize>>,
    /// The coverage it read.
    reads: Reads,
}

/// The coverage a [`Preference`] read, which decides what covering an
/// expansion does to it ([`GrammarFuzzer::cover`]). Ordered from what
/// covering changes least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reads {
    /// The coverage of the symbol's own expansions, and the preferred are
    /// the candidates whose own expansion is not covered, in order:
    /// covering one of them drops it from them, covering anything below
    /// leaves them be.
    Uncovered,
    /// The coverage of the symbol's own expansions: covering anything below
    /// leaves it be.
    Own,
    /// The coverage of the symbols it leads to.
    Below,
}

/// Every [`Phase`], in the order of their numbers.
const PHASES: [Phase; 3] = [Phase::MaxCost, Phase::Random, Phase::MinCost];

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
    /// How many expansions are covered (the true entries of `covered`).
    covered_count: usize,
    /// Per symbol and [`Phase`]: the alternatives the phase allows (fixed
    /// by the grammar), so that a choice does not collect them again.
    allowed: Vec<[Vec<usize>; 3]>,
    /// Per symbol and [`Phase`]: the alternatives the strategy preferred,
    /// valid until the coverage it read changes. The lookahead reads
    /// coverage only, which changes a few times per run, while a
    /// derivation chooses many times per execution.
    preferred: Vec<[Option<Preference>; 3]>,
    /// Per symbol: how many of its distinct expansions are not covered yet.
    uncovered: Vec<usize>,
    /// The nodes of the last derivation ([`GrammarFuzzer::derive`]), the
    /// root first.
    nodes: Vec<Node>,
    /// The nodes above the one [`GrammarFuzzer::expand_once`] expands.
    path: Vec<usize>,
    /// The key of the last derivation ([`Derived::derivation_key`]).
    key: u128,
}

impl GrammarFuzzer {
    /// A fuzzer deriving from the grammar's start symbol, with
    /// `min_nonterminals` 0 and `max_nonterminals` 10 as in the book.
    ///
    /// Fails if [`Grammar::check_derivable`] does.
    pub fn new(grammar: &Grammar, strategy: Strategy, seed: u64) -> Result<Self, GrammarError> {
        let grammar = Compiled::new(grammar)?;
        let allowed = (0..grammar.len())
            .map(|symbol| {
                PHASES.map(|phase| {
                    let all = (0..grammar.alternatives[symbol].len()).collect();
                    grammar.allowed(symbol, all, phase)
                })
            })
            .collect();
        Ok(GrammarFuzzer {
            covered: vec![false; grammar.keys.len()],
            preferred: vec![[None, None, None]; grammar.len()],
            covered_count: 0,
            uncovered: grammar.symbol_keys.iter().map(Vec::len).collect(),
            allowed,
            grammar,
            strategy,
            min_nonterminals: 0,
            max_nonterminals: 10,
            rng: StdRng::seed_from_u64(seed),
            nodes: Vec::new(),
            path: Vec::new(),
            key: 0,
        })
    }

    /// Forgets the preferred alternatives: coverage changed.
    #[cfg(any(test, feature = "_internals"))]
    fn coverage_changed(&mut self) {
        for preferred in &mut self.preferred {
            *preferred = [None, None, None];
        }
    }

    /// Counts the uncovered expansions of each symbol again, after
    /// coverage was set as a whole (the book's `reset_coverage`, tests).
    #[cfg(any(test, feature = "_internals"))]
    fn recount(&mut self) {
        let covered = &self.covered;
        self.covered_count = covered.iter().filter(|&&c| c).count();
        for (uncovered, keys) in self.uncovered.iter_mut().zip(&self.grammar.symbol_keys) {
            *uncovered = keys.iter().filter(|&&key| !covered[key]).count();
        }
        self.coverage_changed();
    }

    /// Derives a string, returning its fully expanded derivation tree.
    #[cfg(any(test, feature = "_internals"))]
    pub fn fuzz_tree(&mut self) -> DerivationTree {
        let tree = self.derive().tree();
        debug_assert!(!tree.has_unexpanded());
        tree
    }

    /// Derives a string, as [`GrammarFuzzer::fuzz_tree`] does (the same
    /// choices and random draws), and returns its derivation to read in
    /// place, valid until the next derivation: no [`DerivationTree`] is
    /// built, and the nodes' vector is reused.
    pub fn derive(&mut self) -> Derived<'_> {
        self.nodes.clear();
        self.nodes.push(Node::Symbol {
            id: 0,
            children: None,
            open: 1,
            place: ROOT_PLACE,
        });
        self.key = 0;
        let mut unexpanded = 1;
        let phases = [
            (Phase::MaxCost, Some(self.min_nonterminals)),
            (Phase::Random, Some(self.max_nonterminals)),
            (Phase::MinCost, None),
        ];
        for (phase, limit) in phases {
            while unexpanded > 0 && limit.is_none_or(|limit| unexpanded < limit) {
                unexpanded = unexpanded - 1 + self.expand_once(phase);
            }
        }
        Derived {
            grammar: &self.grammar,
            nodes: &self.nodes,
            at: 0,
            key: self.key,
        }
    }

    /// Expands one unexpanded node of the derivation, descending from the
    /// root into a random child that has one; returns the number of
    /// nonterminals it added.
    fn expand_once(&mut self, phase: Phase) -> usize {
        self.path.clear();
        let mut at = 0;
        let (symbol, place) = loop {
            let Node::Symbol { id, children, place, .. } = self.nodes[at] else {
                // Text has nothing to expand, and no parent descends into it.
                return 0;
            };
            let Some((start, end)) = children else {
                break (id, place);
            };
            self.path.push(at);
            if end - start == 1 {
                // An only child has the unexpanded node: drawn all the same.
                self.rng.next_u32();
                at = start;
                continue;
            }
            // A pick among the children that have an unexpanded node, each
            // keeping its count: no walk of the subtrees, no list of them.
            let (mut expandable, mut first) = (0, start);
            for (c, child) in (start..end).zip(&self.nodes[start..end]) {
                if child.open() > 0 {
                    if expandable == 0 {
                        first = c;
                    }
                    expandable += 1;
                }
            }
            at = match draw_below(&mut self.rng, expandable) {
                0 => first,
                pick => match (start..end).filter(|&c| self.nodes[c].open() > 0).nth(pick) {
                    Some(next) => next,
                    None => return 0,
                },
            };
        };
        let (chosen, added) = self.expand_id(symbol, phase);
        self.key = self.key.wrapping_add(choice_digest(place, chosen));
        let pieces = &self.grammar.alternatives[symbol][chosen].pieces;
        let start = self.nodes.len();
        self.nodes.reserve(pieces.len());
        for (i, piece) in pieces.iter().enumerate() {
            self.nodes.push(match *piece {
                Piece::Text(text) => Node::Text(text),
                Piece::Symbol(id) => Node::Symbol {
                    id,
                    children: None,
                    open: 1,
                    place: child_place(place, i),
                },
            });
        }
        let end = self.nodes.len();
        self.nodes[at] = Node::Symbol {
            id: symbol,
            children: Some((start, end)),
            open: added,
            place,
        };
        for &above in &self.path {
            if let Node::Symbol { open, .. } = &mut self.nodes[above] {
                *open = *open - 1 + added;
            }
        }
        added
    }

    /// Chooses and covers an expansion of symbol `symbol`; returns which
    /// and how many nonterminals it has.
    fn expand_id(&mut self, symbol: usize, phase: Phase) -> (usize, usize) {
        let chosen = self.choose(symbol, phase);
        let alternative = &self.grammar.alternatives[symbol][chosen];
        let (key, added) = (alternative.key, alternative.nonterminals.len());
        self.cover(key);
        (chosen, added)
    }

    #[cfg(test)]
    /// Chooses and covers an expansion of `symbol`; returns its children
    /// and how many of them are nonterminals.
    fn expand_symbol(&mut self, symbol: &str, phase: Phase) -> (Vec<DerivationTree>, usize) {
        let symbol = self.grammar.ids[symbol];
        let (chosen, added) = self.expand_id(symbol, phase);
        let pieces = &self.grammar.alternatives[symbol][chosen].pieces;
        let children = pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => DerivationTree::terminal(Rc::clone(&self.grammar.texts[*text])),
                Piece::Symbol(id) => DerivationTree::unexpanded(Rc::clone(&self.grammar.names[*id])),
            })
            .collect();
        (children, added)
    }

    fn cover(&mut self, key: usize) {
        if !self.covered[key] {
            self.covered[key] = true;
            self.covered_count += 1;
            let symbol = self.grammar.key_symbols[key];
            self.uncovered[symbol] -= 1;
            // What a symbol prefers reads the coverage of its own
            // expansions and of the symbols it leads to only: the others'
            // preferences stand, and so do those of the symbols leading to
            // this one that read their own expansions' coverage only.
            let alternatives = &self.grammar.alternatives[symbol];
            for &watcher in &self.grammar.led_from[symbol] {
                for remembered in &mut self.preferred[watcher] {
                    let Some(preference) = remembered else {
                        continue;
                    };
                    match (preference.reads, &mut preference.preferred) {
                        (Reads::Below, _) => *remembered = None,
                        _ if watcher != symbol => {}
                        // The candidates whose own expansion is uncovered,
                        // but those of this expansion: as computed afresh,
                        // unless none are left.
                        (Reads::Uncovered, Some(preferred)) => {
                            preferred.retain(|&c| alternatives[c].key != key);
                            if preferred.is_empty() {
                                *remembered = None;
                            }
                        }
                        _ => *remembered = None,
                    }
                }
            }
        }
    }

    /// Picks one of the alternatives of `symbol` that `phase` allows, at
    /// random among those the strategy prefers.
    fn choose(&mut self, symbol: usize, phase: Phase) -> usize {
        let at = phase as usize;
        if self.preferred[symbol][at].is_none() {
            // A single candidate is the pick whatever the strategy prefers:
            // no lookahead.
            let candidates = &self.allowed[symbol][at];
            let preference = match candidates.len() {
                1 => Preference {
                    preferred: None,
                    reads: Reads::Own,
                },
                _ => self.prefer(symbol, candidates),
            };
            self.preferred[symbol][at] = Some(preference);
        }
        let candidates = &self.allowed[symbol][at];
        let pool = match &self.preferred[symbol][at] {
            Some(Preference {
                preferred: Some(preferred),
                ..
            }) => preferred,
            _ => candidates,
        };
        pool[draw_below(&mut self.rng, pool.len())]
    }

    /// The `candidates` alternatives of `symbol` the strategy prefers, given
    /// the coverage so far, and whether that read the coverage of the
    /// symbol's own expansions only.
    fn prefer(&self, symbol: usize, candidates: &[usize]) -> Preference {
        let (preferred, reads) = match self.strategy {
            #[cfg(any(test, feature = "_internals"))]
            Strategy::Random => (None, Reads::Own),
            #[cfg(any(test, feature = "_internals"))]
            Strategy::Simple => match self.uncovered(symbol, candidates) {
                uncovered if uncovered.is_empty() => (None, Reads::Own),
                uncovered => (Some(uncovered), Reads::Uncovered),
            },
            Strategy::DeepForesight => self.looked_ahead(symbol, candidates),
            #[cfg(any(test, feature = "_internals"))]
            Strategy::ShortestPath => {
                let (best, reads) = self.looked_ahead(symbol, candidates);
                let cheapest = |best| self.grammar.allowed(symbol, best, Phase::MinCost);
                // The cheapest of the uncovered are not the uncovered.
                (best.map(cheapest), reads.max(Reads::Own))
            }
        };
        Preference { preferred, reads }
    }

    /// The candidates offering the most new coverage at the smallest
    /// lookahead depth at which any offers some, or `None` if none can.
    /// Looking no deeper than needed keeps rules with many expansions deep
    /// down from dominating every choice above them.
    ///
    /// The book lists the depth of every uncovered expansion per candidate;
    /// this counts them from the alternatives' [`Alternative::reach`] and
    /// the uncovered expansions per symbol, without listing them.
    #[cfg(test)]
    fn foresight(&self, symbol: usize, candidates: &[usize]) -> Option<Vec<usize>> {
        self.looked_ahead(symbol, candidates).0
    }

    /// [`GrammarFuzzer::foresight`], and what coverage it read: the
    /// candidates' own when one of them is not covered ([`Reads::Uncovered`])
    /// or when every expansion is (coverage never shrinks but by
    /// [`GrammarFuzzer::recount`], which forgets every preference).
    fn looked_ahead(&self, symbol: usize, candidates: &[usize]) -> (Option<Vec<usize>>, Reads) {
        if self.covered_count == self.grammar.keys.len() {
            // Nothing left to find; spare the lookahead.
            return (None, Reads::Own);
        }
        let alternatives = &self.grammar.alternatives[symbol];
        let uncovered = |c: &&usize| !self.covered[alternatives[**c].key];
        if candidates.iter().any(|c| uncovered(&c)) {
            // Depth 0: each candidate gains its own expansion if uncovered,
            // nothing below counts (every reach is 1 deep or more).
            return (Some(candidates.iter().filter(uncovered).copied().collect()), Reads::Uncovered);
        }
        // Every candidate's own expansion is covered: what one leads to is
        // the uncovered expansions of the symbols it reaches (its own
        // symbol's included, since its own is not among them).
        let uncovered_of = |&(target, _): &(usize, usize)| self.uncovered[target];
        let nearest = |alternative: &Alternative| {
            let mut reach = alternative.reach.iter();
            reach.find(|r| uncovered_of(r) > 0).map(|&(_, depth)| depth)
        };
        let Some(depth) = candidates.iter().filter_map(|&c| nearest(&alternatives[c])).min() else {
            return (None, Reads::Below);
        };
        let gain = |&c: &usize| {
            let within = alternatives[c].reach.iter().take_while(|&&(_, d)| d <= depth);
            within.map(uncovered_of).sum::<usize>()
        };
        let gains: Vec<usize> = candidates.iter().map(gain).collect();
        (with_most(candidates, &gains), Reads::Below)
    }

    #[cfg(test)]
    /// [`GrammarFuzzer::foresight`] as the book computes it, from every
    /// uncovered expansion's depth: what the counting version must match.
    fn foresight_by_depths(&self, symbol: usize, candidates: &[usize]) -> Option<Vec<usize>> {
        if self.covered_count == self.grammar.keys.len() {
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
        with_most(candidates, &gains)
    }

    /// For each uncovered expansion that choosing `alternative` of `symbol`
    /// can lead to, the lookahead depth that sees it: 0 for `alternative`
    /// itself, `d + 1` for the expansions of a symbol `d` expansions below
    /// its nonterminals.
    #[cfg(test)]
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

/// The candidates whose gain is the largest (`None` when there are none).
fn with_most(candidates: &[usize], gains: &[usize]) -> Option<Vec<usize>> {
    let best = gains.iter().max().copied()?;
    let with_best = candidates.iter().zip(gains).filter(|(_, &gain)| gain == best);
    Some(with_best.map(|(&c, _)| c).collect())
}
