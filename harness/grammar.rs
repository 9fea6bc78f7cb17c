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
//!   uncovered expansions, looking only as deep as needed to find any.
//!
//! [`duplicate_context`] copies the rules below an expansion under fresh
//! names, so that their expansions are covered once per context.
//!
//! ```
//! use carve::grammar::{Grammar, GrammarFuzzer, Strategy};
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
//! # Ok::<(), carve::grammar::GrammarError>(())
//! ```

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
    /// # use carve::grammar::Grammar;
    /// let grammar = Grammar::new(&[("<start>", &["a<start>", ""])]);
    /// assert_eq!(grammar.expansions("<start>").unwrap(), ["a<start>", ""]);
    /// ```
    pub fn new(rules: &[(&str, &[&str])]) -> Self {
        let mut grammar = Grammar {
            rules: Vec::new(),
            index: HashMap::new(),
            start: START_SYMBOL.to_string(),
            redefined: None,
        };
        for (symbol, expansions) in rules {
            if grammar.contains(symbol) && grammar.redefined.is_none() {
                grammar.redefined = Some(symbol.to_string());
            }
            let expansions = expansions.iter().map(|e| e.to_string()).collect();
            grammar.insert(symbol, expansions);
        }
        grammar
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
    /// # use carve::grammar::{Grammar, GrammarError};
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
        let mut pruned = Grammar {
            rules: Vec::new(),
            index: HashMap::new(),
            start: self.start.clone(),
            redefined: self.redefined.clone(),
        };
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
/// # use carve::grammar::nonterminals;
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
/// # use carve::grammar::{duplicate_context, Grammar};
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
    let expansions = grammar.expansions(symbol).unwrap_or_default().to_vec();
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
    /// # use carve::grammar::DerivationTree;
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
            Some(children) if !children.is_empty() => {
                children.iter().try_for_each(|child| child.fmt(f))
            }
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
            let recursive = self.alternatives[symbol]
                .iter()
                .any(|a| !a.nonterminals.is_empty());
            let without = if recursive {
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

    /// The size of each symbol's smallest derivation tree, not using
    /// `excluded`: a least fixpoint, reached after at most one pass per
    /// symbol since smallest trees repeat no symbol along a path.
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

    /// The alternatives of `symbol` that `phase` may choose from.
    fn candidates(&self, symbol: usize, phase: Phase) -> Vec<usize> {
        let alternatives = &self.alternatives[symbol];
        let costs = alternatives.iter().map(|a| a.cost);
        let wanted = match phase {
            Phase::Random => return (0..alternatives.len()).collect(),
            Phase::MaxCost => costs.max(),
            Phase::MinCost => costs.min(),
        };
        (0..alternatives.len())
            .filter(|&i| Some(alternatives[i].cost) == wanted)
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

    /// The keys of all expansions reachable from `symbol` through fewer than
    /// `max_depth` expansions (`Some(1)`: those of `symbol` itself; `None`:
    /// no limit). Empty for symbols the start symbol does not reach.
    ///
    /// Depth counts along the shortest path to a rule, so the result does not
    /// depend on the order the grammar is explored in.
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
        let candidates = self.grammar.candidates(symbol, phase);
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
