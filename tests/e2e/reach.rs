//! One exploration per reach: a target no system test called is generated
//! for from values carved for the others, and two names of one parser
//! (`Version::parse`, `FromStr::from_str`) share their exploration.

use insta::assert_snapshot;

use crate::Project;

/// `works_with` is never called: its two `Version` parameters start from
/// the versions carved for `newer_than` (its first kept call compares 1.10
/// with itself), and all its outcomes are covered.
#[test]
fn a_target_no_system_test_called_is_generated_for() {
    let p = Project::of("reach", "reach");
    p.record().assert_success();
    assert!(
        !p.carved_names().contains("works_with"),
        "{}",
        p.carved_names()
    );
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    generate.assert_success();
    let lines = generate.carve_lines();
    let works_with = lines
        .lines()
        .filter(|l| l.contains("Version::works_with"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_snapshot!(works_with, @r#"
        carve: Version::works_with: branch coverage 0/10 -> 10/10; boundaries 0/9 -> 7/9; weak mutants killed 0/27 -> 25/27; kept 10 call(s), found 0 failure(s) in 2000 executions (0 generated arguments did not deserialize)
        carve: wrote 10 new snapshot(s) for Version::works_with in carved/Version/works_with/
          Version::works_with         target    10/10   100.0%        7/9            25/27  reach   10/10   100.0%  (0 carved, 10 generated calls)
    "#);
    let file = p.read("carved/Version/works_with.ron");
    let first = file
        .split_once("args: ")
        .and_then(|(_, rest)| rest.split_once("outcome: "))
        .map(|(args, _)| args.trim())
        .unwrap_or_default();
    let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_snapshot!(first, @"( self: Version( major: 1, minor: 10, ), other: Version( major: 1, minor: 10, ), ),");
    // The call kept for `other.major == self.major` false, minimized to
    // 1.0 against 0.0, also kills `==` → `<=` there (`0 <= 1`, then
    // `0 >= 0`: true instead of false). It is checked against it once
    // minimized and names it: no later call is kept for it alone.
    let mutant = "`==` → `<=` in `other.major == self.major`";
    let naming: Vec<&str> = file
        .split("origin: ")
        .filter(|e| e.contains(mutant))
        .collect();
    assert_eq!(naming.len(), 1, "{file}");
    assert!(
        naming[0].contains("`other.major == self.major` false"),
        "{file}"
    );
    // Its calls replay as any generated call.
    p.test(&[], &["works_with"]).assert_success();
}

/// `Version::parse` and `FromStr::from_str` are one parser under two names:
/// the first by name explores it, the other leaves it to that one and
/// stops as soon as its turns stop paying; together they still cover
/// the whole parser, in a fraction of the executions.
#[test]
fn two_names_of_one_parser_share_one_exploration() {
    let p = Project::of("reach", "reach-aliases");
    p.record().assert_success();
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    generate.assert_success();
    let lines = generate.carve_lines();
    let parser = lines
        .lines()
        .filter(|l| l.contains("parse") || l.contains("from_str"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_snapshot!(parser, @r#"
        carve: Version::FromStr::from_str: branch coverage 6/8 -> 8/8; boundaries 1/1 -> 1/1; weak mutants killed 7/8 -> 7/8; kept 2 call(s), found 0 failure(s) in 90 executions (0 generated arguments did not deserialize)
        carve: Version::FromStr::from_str: shares its reach: left 8 branch outcome(s) to generate::Version::parse (one exploration per reach)
        carve: Version::parse: branch coverage 6/8 -> 8/8; boundaries 1/1 -> 1/1; weak mutants killed 7/8 -> 7/8; kept 2 call(s), found 0 failure(s) in 764 executions (0 generated arguments did not deserialize)
        carve: Version::parse: distilled: dropped 1 more call(s) it had kept, as later kept calls cover what they did
        carve: wrote 2 new snapshot(s) for Version::FromStr::from_str in carved/Version/FromStr/from_str/
        carve: wrote 2 new snapshot(s) for Version::parse in carved/Version/parse/
          Version::FromStr::from_str  target     -                    -               -     reach    8/8    100.0%  (1 carved, 2 generated calls)
          Version::parse              target     -                    -               -     reach    8/8    100.0%  (2 carved, 2 generated calls)
          parse_version               helper     8/8    100.0%        1/1             7/8   reached from Version::FromStr::from_str, Version::parse
        "#);
    // The same files for one job at a time.
    let first = p.carved();
    p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "2000"),
            ("CARVE_JOBS", "1"),
        ],
        &[],
    )
    .assert_success();
    assert_eq!(p.carved(), first);
}

/// Generated alone (a filter), `Version::FromStr::from_str` still leaves
/// the parser it shares to `Version::parse` (any split of a run gives its
/// files), and says that the filter left that owner out and how to
/// explore the parser.
#[test]
fn a_filtered_run_names_the_owner_its_filter_left_out() {
    let p = Project::of("reach", "reach-filtered");
    p.record().assert_success();
    let generate = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "2000")],
        &["--exact", "generate::Version::FromStr::from_str"],
    );
    generate.assert_success();
    let lines = generate.carve_lines();
    assert!(
        lines.contains(
            "carve: Version::FromStr::from_str: shares its reach: left 8 branch outcome(s) to \
             generate::Version::parse (one exploration per reach; this run's filters leave out \
             generate::Version::parse: select it too, or run without a filter, to explore them)"
        ),
        "{}",
        generate.output()
    );
    assert!(
        !lines.contains("carve: Version::parse: branch coverage"),
        "{}",
        generate.output()
    );
}
