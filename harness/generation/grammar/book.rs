//! The rest of The Fuzzing Book's grammar toolbox, for carve's tests and
//! benches (compiled with them only: generation derives with
//! [`Strategy::DeepForesight`](super::Strategy::DeepForesight) alone): the
//! fuzzer's coverage API, grammar checks and accessors,
//! [`duplicate_context`], and the book's grammars ([`examples`]). The
//! other strategies are variants of [`Strategy`](super::Strategy) under the
//! same condition.

use std::collections::{BTreeSet, HashSet};

use super::*;

impl Grammar {
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

impl DerivationTree {
    /// Whether this node still waits for its expansion.
    pub fn is_unexpanded(&self) -> bool {
        self.children.is_none()
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
    ///     symbol: "<start>".into(),
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
        Some(children.iter().map(|c| &*c.symbol).collect())
    }
}

impl GrammarFuzzer {
    /// The `candidates` of `symbol` whose expansions are not covered yet
    /// ([`Strategy::Simple`]).
    pub(super) fn uncovered(&self, symbol: usize, candidates: &[usize]) -> Vec<usize> {
        let alternatives = &self.grammar.alternatives[symbol];
        let uncovered = |&&c: &&usize| !self.covered[alternatives[c].key];
        candidates.iter().filter(uncovered).copied().collect()
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

    /// The keys (`"<symbol> -> expansion"`) of the expansions used since
    /// creation or the last [`GrammarFuzzer::reset_coverage`].
    pub fn expansion_coverage(&self) -> BTreeSet<String> {
        let covered = (0..self.grammar.keys.len()).filter(|&key| self.covered[key]);
        covered.map(|key| self.grammar.keys[key].clone()).collect()
    }

    /// Forgets the expansions used so far.
    pub fn reset_coverage(&mut self) {
        self.covered.fill(false);
        self.recount();
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
