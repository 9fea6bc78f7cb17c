//! The dictionary from the code: constants that a target's comparisons and
//! `match` patterns use (unit names) are offered to generation, inside the
//! carved texts' tokens, so that the arms behind them are covered although
//! no carved call shows them, also those of the parser that reads a
//! text-form parameter.

use insta::assert_snapshot;

use crate::Project;

#[test]
fn units_a_parser_matches_are_generated_from_its_constants() {
    let p = Project::of("dictionary", "dictionary");
    p.record().assert_success();
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    generate.assert_success();
    let summary = generate.summary();
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with("millis"))
        .unwrap_or_default();
    // Every arm is taken: `sec`, `secs` and `min` come from the `match`.
    assert_snapshot!(line, @r#"  millis             target     6/6    100.0%         -              3/3   reach    6/6    100.0%  (2 carved, 3 generated calls)"#);
    // `allows` reads its requirement through a parser outside its reach; the
    // `~` that parser compares against joins its dictionary, so the `Near`
    // arm, which no carved text (`>=3`, `<10`) shows, is taken.
    let allows = summary
        .lines()
        .find(|l| l.trim_start().starts_with("allows"))
        .unwrap_or_default();
    assert_snapshot!(allows, @r#"  allows             target     7/7    100.0%         3/4           11/11  reach    7/7    100.0%  (2 carved, 4 generated calls)"#);
}

/// A key only a table holds (`ZONES`, binary-searched, where no comparison
/// carve instruments shows it) comes from the table's constants: the
/// attributes name the table, its first replay notes its texts, and the
/// worker that generates is sent them.
#[test]
fn keys_of_a_table_the_code_reads_are_generated() {
    let p = Project::of("dictionary", "dictionary-tables");
    p.record().assert_success();
    let generate = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "2000")],
        &["generate::is_zone"],
    );
    generate.assert_success();
    let line = generate.generation_line("is_zone");
    assert!(line.contains("branch coverage 1/2 -> 2/2"), "{line}");
    let file = p.read("carved/is_zone.ron");
    assert!(
        ["ACDT", "BRST", "CHOT", "NZDT"]
            .iter()
            .any(|zone| file.contains(&format!("zone: \"{zone}\""))),
        "{file}"
    );
}

/// A range only ever passed to a function (`between(script, "Qaaa",
/// "Qabx")`, language-tags 0.3.2) is compared inside it, where carve does
/// not instrument: its ends join the dictionary as the call's arguments, and
/// a script inside the range is generated from them.
#[test]
fn constants_passed_to_a_function_are_generated() {
    let p = Project::of("dictionary", "dictionary-arguments");
    p.record().assert_success();
    let generate = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "2000")],
        &["generate::is_private_script"],
    );
    generate.assert_success();
    let line = generate.generation_line("is_private_script");
    assert!(line.contains("branch coverage 1/2 -> 2/2"), "{line}");
}
