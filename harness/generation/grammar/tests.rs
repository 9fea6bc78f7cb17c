//! The grammar fuzzer against the examples and measurements of the book's
//! chapter "Grammar Coverage".

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
                assert_eq!(&*tree.symbol, "<start>");
                assert_eq!(tree.unexpanded_count(), 0);
                assert_derivation(&tree, &grammar, &fuzzer.expansion_coverage());
            }
        }
    }
}

/// Walks `derived` and `tree` side by side: the same symbols and children.
fn assert_reads_as(derived: Derived<'_>, tree: &DerivationTree) {
    assert_eq!(derived.symbol(), &*tree.symbol);
    match (derived.children(), &tree.children) {
        (Some(children), Some(expected)) => {
            assert_eq!(children.len(), expected.len(), "children of {}", tree.symbol);
            for (child, expected) in children.zip(expected) {
                assert_reads_as(child, expected);
            }
        }
        (children, expected) => {
            assert!(children.is_none() && expected.is_none(), "{}", tree.symbol)
        }
    }
}

#[test]
fn derivations_read_in_place_are_the_fuzzed_trees() {
    for grammar in [cgi(), expr()] {
        for strategy in STRATEGIES {
            let (mut by_tree, mut in_place) = (fuzzer(&grammar, strategy, 5), fuzzer(&grammar, strategy, 5));
            for _ in 0..30 {
                let tree = by_tree.fuzz_tree();
                let derived = in_place.derive();
                assert_reads_as(derived, &tree);
                assert_eq!(derived.to_string(), tree.to_string());
                assert_eq!(derived.tree(), tree);
            }
            assert_eq!(in_place.expansion_coverage(), by_tree.expansion_coverage());
        }
    }
}

#[test]
fn a_derivations_key_tells_its_tree_apart_from_every_other() {
    // Trees of one text that differ (`x` by way of `<a>` or `<b>`), lists
    // of several lengths, and one expansion at several places.
    let same_text = Grammar::new(&[
        ("<start>", &["<a>", "<b>", "<a><start>", "<b><b>", "<b><a>"]),
        ("<a>", &["x", "<b>", ""]),
        ("<b>", &["x", "y"]),
    ]);
    for grammar in [cgi(), expr(), same_text] {
        for strategy in [Strategy::Random, Strategy::DeepForesight] {
            let mut fuzzer = fuzzer(&grammar, strategy, 9);
            let mut trees: HashMap<u128, DerivationTree> = HashMap::new();
            let mut keys: HashMap<String, u128> = HashMap::new();
            for _ in 0..1000 {
                let derived = fuzzer.derive();
                let (key, tree) = (derived.derivation_key(), derived.tree());
                // Every node tells the key of the whole derivation.
                let child = derived.children().and_then(|mut c| c.next()).expect("a child");
                assert_eq!(child.derivation_key(), key);
                assert_eq!(trees.entry(key).or_insert_with(|| tree.clone()), &tree);
                assert_eq!(keys.entry(format!("{tree:?}")).or_insert(key), &key);
            }
            // Trees were derived again, and different ones too.
            assert!(trees.len() > 5 && trees.len() < 1000, "{} trees", trees.len());
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
                assert_eq!(fuzzer.expansion_coverage(), all_keys(&grammar));
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
    let before = fuzzer.covered.clone();
    let mut choose = || {
        let children = fuzzer.expand_symbol(symbol, Phase::Random).0;
        fuzzer.covered = before.clone();
        fuzzer.recount();
        let tree = DerivationTree {
            symbol: symbol.into(),
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

/// The strings of seed 11, as derived before derivations were read in
/// place (checked against the earlier derivation code): the one-pass
/// derivation makes the same choices and the same random draws.
#[test]
fn derivations_are_pinned_by_seed() {
    let pinned: [(Grammar, Strategy, [&str; 6]); 4] = [
        (cgi(), Strategy::Random, [
            "++_",
            "c",
            "_",
            "%38",
            "+",
            "%66a%90a",
        ]),
        (cgi(), Strategy::DeepForesight, [
            "+%9e",
            "d",
            "43",
            "a5c-2be",
            "1",
            "_0%c5%30",
        ]),
        (expr(), Strategy::Random, [
            "80 * 21.83 - 17.4 / (5) * 6.2",
            "(2 - 8) * (6 / 4 + 2) + 9 / 6 / 88 * 6",
            "(2.90)",
            "966.102 * 2 - 734",
            "(1 * 7.0 + -(0 / 1) - 4 + 9) / -4 / (130) / 0",
            "(-(2 + 0) - +-0 * +8 + 9 / 0) / (1.9) / (9 + 3) / -4.7",
        ]),
        (expr(), Strategy::DeepForesight, [
            "7 * -+01 - 96.4 / (3 * 5 / 8 + 2 + 1 - 4 - 9)",
            "+(+-(3 + 8 - 5) + 5 * 2 / 4 + 6) * +86101.0",
            "7.0 * +8 / 4 - 7.50 + 3 - 8 + 6",
            "551326.89",
            "+(4.52 - ++(3 + 1) / 2 * 8 + 5.75 * 2 - 7 / 2)",
            "+97.48 / 7 - 5.8 - 3 * 7 * 4",
        ]),
    ];
    for (grammar, strategy, expected) in pinned {
        let mut fuzzer = fuzzer(&grammar, strategy, 11);
        let inputs: Vec<String> = (0..6).map(|_| fuzzer.fuzz()).collect();
        assert_eq!(inputs, expected, "{strategy:?}");
    }
}

/// Every preference remembered after a derivation (the cache `choose`
/// reads) is what the strategy would prefer afresh: the same alternatives
/// to pick among. A covered expansion forgets the preferences of the
/// symbols that lead to its symbol only, and a single candidate is picked
/// without asking the strategy.
#[test]
fn remembered_preferences_are_those_computed_afresh() {
    let grammars = [cgi(), expr(), duplicate_context(&expr(), "<factor>", None)];
    for grammar in &grammars {
        for strategy in STRATEGIES {
            let mut fuzzer = fuzzer(grammar, strategy, 2);
            let mut checked = 0;
            for _ in 0..60 {
                fuzzer.fuzz();
                for symbol in 0..fuzzer.grammar.len() {
                    for phase in PHASES {
                        let at = phase as usize;
                        let Some(remembered) = &fuzzer.preferred[symbol][at] else {
                            continue;
                        };
                        let candidates = &fuzzer.allowed[symbol][at];
                        let afresh = fuzzer.prefer(symbol, candidates).preferred;
                        assert_eq!(
                            remembered.preferred.as_ref().unwrap_or(candidates),
                            afresh.as_ref().unwrap_or(candidates),
                            "{strategy:?} {} {phase:?}",
                            fuzzer.grammar.names[symbol]
                        );
                        checked += 1;
                    }
                }
            }
            assert!(checked > 40, "{strategy:?}: {checked} remembered");
        }
    }
}

#[test]
fn preferences_that_read_their_own_coverage_stand_when_a_symbol_below_is_covered() {
    let mut fuzzer = fuzzer(&cgi(), Strategy::DeepForesight, 4);
    let id = |fuzzer: &GrammarFuzzer, symbol: &str| fuzzer.grammar.ids[symbol];
    let key = |fuzzer: &GrammarFuzzer, symbol: &str, expansion: &str| {
        let text = expansion_key(symbol, expansion);
        fuzzer.grammar.keys.iter().position(|k| *k == text).expect("a key")
    };
    let at = Phase::Random as usize;
    let remembered = |fuzzer: &GrammarFuzzer, symbol: &str| fuzzer.preferred[id(fuzzer, symbol)][at].clone();
    // <string> has both its expansions uncovered, <letter> all three: what
    // they prefer reads their own coverage only.
    for symbol in ["<string>", "<letter>", "<hexdigit>"] {
        let symbol = id(&fuzzer, symbol);
        fuzzer.choose(symbol, Phase::Random);
    }
    let string = remembered(&fuzzer, "<string>").expect("remembered");
    assert_eq!(string.reads, Reads::Uncovered);
    let hexdigit = key(&fuzzer, "<hexdigit>", "0");
    fuzzer.cover(hexdigit);
    assert_eq!(remembered(&fuzzer, "<string>"), Some(string));
    assert!(remembered(&fuzzer, "<letter>").is_some_and(|p| p.reads == Reads::Uncovered));
    // The covered expansion's own symbol prefers the others it preferred,
    // as it would afresh.
    let symbol = id(&fuzzer, "<hexdigit>");
    let afresh = fuzzer.prefer(symbol, &fuzzer.allowed[symbol][at]);
    assert_eq!(afresh.preferred.as_ref().map(Vec::len), Some(15));
    assert_eq!(remembered(&fuzzer, "<hexdigit>"), Some(afresh));
    // Once <string>'s own expansions are covered, it looks ahead: covering
    // anything below makes it look again.
    for expansion in ["<letter>", "<letter><string>"] {
        let string = key(&fuzzer, "<string>", expansion);
        fuzzer.cover(string);
    }
    fuzzer.choose(id(&fuzzer, "<string>"), Phase::Random);
    assert!(remembered(&fuzzer, "<string>").is_some_and(|p| p.reads == Reads::Below));
    let plus = key(&fuzzer, "<plus>", "+");
    fuzzer.cover(plus);
    assert_eq!(remembered(&fuzzer, "<string>"), None);
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
        symbol: "<expr>".into(),
        children: Some(vec![
            DerivationTree::unexpanded("<term>"),
            DerivationTree::terminal(" + "),
            DerivationTree {
                symbol: "<expr>".into(),
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

#[test]
fn a_draw_below_is_the_draw_of_a_random_range() {
    // One choice or many, the same number and the same state after.
    let (mut ours, mut theirs) = (StdRng::seed_from_u64(3), StdRng::seed_from_u64(3));
    let mut sizes = StdRng::seed_from_u64(4);
    for _ in 0..10_000 {
        let n = match sizes.random_range(0..5) {
            0 => 1,
            1 => sizes.random_range(2..5),
            2 => sizes.random_range(1..1000),
            // Half of these draw twice (a low word past `2^32 - n`).
            3 => sizes.random_range(1 << 31..=u32::MAX as usize),
            _ => sizes.random_range(1..usize::MAX),
        };
        assert_eq!(draw_below(&mut ours, n), theirs.random_range(0..n), "below {n}");
    }
    assert_eq!(ours.random::<u64>(), theirs.random::<u64>());
}

#[test]
fn counted_foresight_prefers_what_the_books_depths_prefer() {
    // Every symbol and phase of grammars with recursion, shared rules and
    // contexts, at coverage states from none to nearly all, as derivations
    // reach them and as a seeded random subset sets them.
    let grammars = [cgi(), expr(), duplicate_context(&expr(), "<factor>", None)];
    for grammar in &grammars {
        let mut fuzzer = fuzzer(grammar, Strategy::DeepForesight, 3);
        let mut rng = StdRng::seed_from_u64(11);
        let compare = |fuzzer: &GrammarFuzzer| {
            for symbol in 0..fuzzer.grammar.len() {
                for (at, _) in PHASES.iter().enumerate() {
                    let candidates = &fuzzer.allowed[symbol][at];
                    assert_eq!(
                        fuzzer.foresight(symbol, candidates),
                        fuzzer.foresight_by_depths(symbol, candidates),
                        "{} with {:?} covered",
                        fuzzer.grammar.names[symbol],
                        fuzzer.expansion_coverage()
                    );
                }
            }
        };
        compare(&fuzzer);
        for _ in 0..30 {
            fuzzer.fuzz();
            compare(&fuzzer);
        }
        for _ in 0..30 {
            let covered: Vec<bool> =
                (0..fuzzer.grammar.keys.len()).map(|_| rng.random_bool(0.8)).collect();
            fuzzer.covered = covered;
            fuzzer.recount();
            compare(&fuzzer);
        }
    }
}
