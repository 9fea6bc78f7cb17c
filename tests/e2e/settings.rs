//! Per-target settings in `[package.metadata.carve]` of the user's
//! `Cargo.toml`: a budget, and a panic marked expected by its message, so
//! that generation stores it as an expected outcome and replay passes; and
//! the errors for settings carve cannot use.

use insta::assert_snapshot;

use crate::Project;

/// `split_pair` panics with "a comma" on an input without one: with that
/// panic expected, generation stores it as `expected: true`, says so, and
/// the run (generation's replay, then a plain replay) passes.
#[test]
fn a_panic_matching_expected_panics_is_stored_as_expected_and_replay_passes() {
    let p = Project::recorded("settings-expected");
    let manifest = p.read("Cargo.toml");
    p.write(
        "Cargo.toml",
        &format!(
            "{manifest}\n[package.metadata.carve]\nbudget = 50000\n\n\
             [package.metadata.carve.targets.split_pair]\nbudget = 3000\n\
             expected_panics = [\"^a comma$\"]\n"
        ),
    );
    let run = p.test(&[("CARVE", "generate")], &["split_pair"]);
    run.assert_success();
    assert_snapshot!(run.carve_lines().lines().take(5).collect::<Vec<_>>().join("\n"), @r#"
    carve: generating calls with seed 1 (CARVE_SEED) and budget 50000 executions per target (Cargo.toml [package.metadata.carve])
    carve: split_pair: budget 3000 executions (Cargo.toml [package.metadata.carve])
    carve: split_pair: branch coverage 1/2 -> 2/2; boundaries 1/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) and 1 expected panic(s) in 430 executions (0 generated arguments did not deserialize)
    carve: split_pair: found an expected panic (expected_panics), minimized: split_pair(s:"") panics at src/lib.rs:152; stored as `expected: true`, its snapshot is checked like any other
    carve: wrote 3 new snapshot(s) for split_pair in carved/split_pair/
    "#);
    let file = p.read("carved/split_pair.ron");
    let squashed = file.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        squashed.contains(r#"at: "src/lib.rs:152", expected: true, ), args: ( s: "", ), outcome: Panicked("a comma"),"#),
        "{file}"
    );
    // CARVE_BUDGET overrides the file.
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "100")],
        &["split_pair"],
    );
    run.assert_success().assert_line(
        "carve: generating calls with seed 1 (CARVE_SEED) and budget 100 executions per target (CARVE_BUDGET)",
    );
    assert!(
        !run.carve_lines().contains("budget 3000"),
        "{}",
        run.carve_lines()
    );
    assert!(
        run.carve_lines().contains(" in 100 executions"),
        "{}",
        run.carve_lines()
    );
    // Replayed, the expected panic is checked against its snapshot and passes.
    p.test(&[], &[])
        .assert_success()
        .assert_line("test generated::split_pair::0001 ... ok");
}

/// An unknown key, a pattern that is no regular expression and a table of
/// a target that does not exist stop the run before any test, naming the
/// file, its line and column, and the key.
#[test]
fn bad_settings_stop_the_run_naming_file_line_and_key() {
    let p = Project::new("settings-bad");
    let manifest = p.read("Cargo.toml");
    let errors: Vec<String> = [
        "[package.metadata.carve]\nbudgett = 5\n",
        "[package.metadata.carve.targets.split_pair]\nexpected_panics = [\"a (comma\"]\n",
        "[package.metadata.carve.targets.split_pairs]\nbudget = 5\n",
    ]
    .iter()
    .map(|settings| {
        p.write("Cargo.toml", &format!("{manifest}\n{settings}"));
        let run = p.test(&[], &[]);
        assert_eq!(run.code, Some(2), "{}", run.output());
        run.carve_lines()
    })
    .collect();
    assert_snapshot!(errors.join("\n"), @r#"
    carve: Cargo.toml:25:1: package.metadata.carve: unknown field `budgett`, expected one of `budget`, `timeout`, `expected_panics`, `targets`. See README "Per-target settings" for the keys carve reads.
    carve: Cargo.toml:25:20: package.metadata.carve.targets."split_pair".expected_panics: "a (comma" is no regular expression: regex parse error: a (comma ^ error: unclosed group. See README "Per-target settings" for the keys carve reads.
    carve: Cargo.toml:24:33: package.metadata.carve.targets."split_pairs": no target `split_pairs` in this test binary (the closest is `split_pair`); a target is named by its path inside the crate, as carve's trials name it (`generate::<target>`). See README "Per-target settings" for the keys carve reads.
    "#);
}

/// A pattern added after generation found the panic: the next generation
/// marks the stored failure `expected: true`, says so, and replay passes.
#[test]
fn a_pattern_added_later_marks_the_failure_found_before() {
    let p = Project::recorded("settings-later");
    let budget = [("CARVE", "generate"), ("CARVE_BUDGET", "3000")];
    p.test(&budget, &["split_pair"])
        .assert_failure()
        .assert_line("test generated::split_pair::0001 ... FAILED");
    let manifest = p.read("Cargo.toml");
    p.write(
        "Cargo.toml",
        &format!(
            "{manifest}\n[package.metadata.carve.targets.split_pair]\n\
             expected_panics = [\"comma\"]\n"
        ),
    );
    let run = p.test(&budget, &["split_pair"]);
    run.assert_success()
        .assert_line("test generated::split_pair::0001 ... ok");
    assert_snapshot!(run.carve_lines().lines().nth(1).unwrap(), @r#"carve: split_pair: marked a found failure expected (expected_panics): split_pair(s:"") at src/lib.rs:152"#);
    let squashed = p
        .read("carved/split_pair.ron")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        squashed.contains(r#"at: "src/lib.rs:152", expected: true,"#),
        "{squashed}"
    );
    p.test(&[], &[]).assert_success();
}
