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
    // Said once each, in the order the worker said them, before the figures.
    assert_snapshot!(lines[..coverage].join("\n"), @r"
    carve: price: generating from carved values only for parameter(s) whose type could not be traced: `amount`: it asks what the data holds (an untagged or internally tagged enum, `flatten`, or a `Deserialize` written by hand)
    carve: price: the mined grammar is not usable (<start> never terminates: every derivation of it is infinite); nothing generated
    ");
}
