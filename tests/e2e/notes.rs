//! What a generation worker says for the user (a parameter type it cannot
//! trace) reaches the generation output, with the target's lines: workers'
//! stderr is not shown.

use insta::assert_snapshot;

use crate::{normalize, Project};

#[test]
fn a_workers_note_is_printed_with_its_targets_lines() {
    let p = Project::of("notes", "notes");
    p.record().assert_success();
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "300")], &[]);
    let stdout = normalize(&generate.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("carve: price: "))
        .collect();
    let coverage = lines
        .iter()
        .position(|l| l.contains(": branch coverage "))
        .unwrap_or_else(|| panic!("no generation line:\n{}", generate.output()));
    // Said once, before the figures. The carved values of the untagged enum
    // (a number and a string) are replayed: the grammar of two kinds of
    // values at one place used to keep neither and never terminate.
    assert_snapshot!(lines[..=coverage].join("\n"), @r#"
    carve: price: generating from carved values only for parameter(s) whose type could not be traced: `amount`: it asks what the data holds (an untagged or internally tagged enum, `flatten`, or a `Deserialize` written by hand)
    carve: price: branch coverage 3/5 -> 5/5; boundaries 0/1 -> 1/1; weak mutants killed 5/7 -> 7/7; kept 2 call(s), found 0 failure(s) in 30 executions (0 generated arguments did not deserialize)
    "#);
}
