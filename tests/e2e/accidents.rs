//! Bad inputs and accidents a first user runs into: several test filters,
//! a system test that hangs while recording, a `CARVE_ANNOTATE` that
//! matches nothing, carve files edited by hand (a duplicated entry, an
//! outcome that contradicts its snapshot).

use insta::assert_snapshot;

use crate::{normalize, Project};

/// The entries of `file` (its text between `calls: [` and the closing `],`).
fn entries_of(file: &str) -> &str {
    let start = file.find("    calls: [\n").expect("a calls list") + "    calls: [\n".len();
    let end = file.rfind("    ],").expect("the end of the calls list");
    &file[start..end]
}

/// `cargo test -- a b` runs the tests matching any filter, as libtest does;
/// `--exact` applies to each; `--list` lists them; nextest's one exact
/// filter still works.
#[test]
fn several_filters_select_as_with_libtest() {
    let p = Project::recorded("accidents-filters");
    let run = p.test(
        &[],
        &["--test-threads=1", "parse_triple", "system::decodes"],
    );
    run.assert_success();
    assert_snapshot!(run.results(), @r#"
        test carved::parse_triple::0001 ... ok
        test system::decodes ... ok
        test system::decodes_again ... ok
        "#);
    assert_snapshot!(run.failed(), @r#"

        test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 30 filtered out; finished in [time]
        "#);
    let exact = p.test(
        &[],
        &[
            "--exact",
            "carved::collatz::0001",
            "--skip",
            "x",
            "system::decodes",
            "collatz",
        ],
    );
    exact.assert_success();
    assert_snapshot!(exact.results(), @r#"
        test carved::collatz::0001 ... ok
        test system::decodes ... ok
        "#);
    let list = p.test(
        &[],
        &["--list", "decodes", "--format", "terse", "compatible"],
    );
    list.assert_success();
    assert_snapshot!(normalize(&list.stdout), @r#"
        carved::compatible::0001: test
        system::decodes: test
        system::decodes_again: test
        "#);
    // What nextest runs: one test, with `--exact`.
    let one = p.test(&[], &["--exact", "carved::collatz::0001", "--nocapture"]);
    one.assert_success();
    assert_snapshot!(one.results(), @"test carved::collatz::0001 ... ok");
    // A `CARVE_ANNOTATE` that names no function is reported, not ignored.
    let annotate = p.test(&[("CARVE_ANNOTATE", "colatz")], &["collatz"]);
    annotate.assert_success();
    assert_snapshot!(annotate.messages(), @"carve: CARVE_ANNOTATE=colatz matches no instrumented function; names are (the 5 closest of 17): collatz, Counter::get, double, fact, triple::part. It selects the names that contain it; `all` selects every one.");
}

/// A system test still running after a while is named once while recording,
/// as libtest names a test running for over 60 seconds (1 s here).
#[test]
fn a_system_test_that_runs_long_while_recording_is_named() {
    let p = Project::new("accidents-slow");
    p.replace(
        "tests/carve.rs",
        "carve::main!();",
        "#[carve::system_test]
fn takes_its_time() {
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert_eq!(shop::collatz(6), 8);
}

carve::main!();",
    );
    let run = p.test(
        &[("CARVE", "record"), ("CARVE_SLOW_TEST_WARN_SECS", "1")],
        &["takes_its_time"],
    );
    run.assert_success();
    assert_snapshot!(run.messages(), @r#"
        carve: system test `takes_its_time` has been running for over 1 seconds
        carve: carved 1 system test(s); writing carved
        carve: wrote carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote 1 new snapshot(s) for collatz in carved/collatz/
        "#);
}

/// An entry duplicated by hand fails its test; following the advice
/// (re-recording) leaves no pending snapshot for `cargo insta review` to
/// offer for a call that no longer exists.
#[test]
fn a_duplicated_entry_leaves_no_pending_snapshot_once_re_recorded() {
    let p = Project::recorded("accidents-duplicate");
    let file = p.read("carved/collatz.ron");
    let entry = entries_of(&file);
    p.replace("carved/collatz.ron", entry, &format!("{entry}{entry}"));
    let run = p.test(&[], &["collatz"]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::collatz::0002"), @"carved/collatz.ron:17:19: this entry repeats the call at carved/collatz.ron:10:19 (same arguments, same outcome), so it has no snapshot of its own (carved/collatz/2683040e83f0-2.snap). Delete it, or re-record with `CARVE=record cargo test`, which stores each call once.");
    // No pending snapshot is made for it.
    assert_snapshot!(collatz_files(&p), @r#"
        collatz.ron
        collatz/2683040e83f0.snap
        "#);
    // One left by an earlier carve, or by `cargo insta test`.
    p.write(
        "carved/collatz/2683040e83f0-2.snap.new",
        "---\nsource: tests/carve.rs\n---\nReturned(8)\n",
    );
    p.write("carved/collatz/2683040e83f0-3.pending-snap", "");
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.messages().lines().filter(|l| l.contains("collatz")).collect::<Vec<_>>().join("\n"), @r#"
        carve: wrote carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: removed carved/collatz/2683040e83f0-2.snap.new (a pending snapshot; its call is no longer carved)
        carve: removed carved/collatz/2683040e83f0-3.pending-snap (a pending snapshot; its call is no longer carved)
        "#);
    assert_snapshot!(collatz_files(&p), @r#"
        collatz.ron
        collatz/2683040e83f0.snap
        "#);
    assert_eq!(
        p.read("carved/collatz.ron"),
        file,
        "the file as carve wrote it"
    );
    p.test(&[], &[]).assert_success();
}

/// The files of `collatz` under `carved/`.
fn collatz_files(p: &Project) -> String {
    let names = p.carved_names();
    names
        .lines()
        .filter(|l| l.starts_with("collatz"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An outcome edited by hand in a carve file, which its snapshot
/// contradicts, fails its test, which says which of the two counts and how
/// to put the file right.
#[test]
fn an_outcome_edited_against_its_snapshot_fails_its_test() {
    let p = Project::recorded("accidents-outcome");
    let collatz = p.read("carved/collatz.ron");
    p.replace(
        "carved/collatz.ron",
        "outcome: Returned(8)",
        "outcome: Returned(9)",
    );
    // The state after a call of a `&mut` parameter too.
    let push_all = p.read("carved/push_all.ron");
    p.replace(
        "carved/push_all.ron",
        "v: b\"\\x01\\x02\\x03\"",
        "v: b\"\\x01\\x02\"",
    );
    let run = p.test(&[], &["--test-threads=1"]);
    run.assert_failure();
    assert_snapshot!(run.failed(), @r#"
        carved::collatz::0001
        carved::push_all::0001
        test result: FAILED. 31 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
        "#);
    assert_snapshot!(run.failure("carved::collatz::0001"), @"carved/collatz.ron:13:22: the carve file's outcome of `collatz` (`Returned(9)`) disagrees with its snapshot carved/collatz/2683040e83f0.snap (`Returned(8)`), which the call still matches. The snapshot is what replay checks; the outcome in the carve file only documents the call. Rewrite it with `CARVE=record cargo test`, or fix it by hand.");
    assert_snapshot!(run.failure("carved::push_all::0001"), @r#"carved/push_all.ron:14:22: the carve file's outcome of `push_all` (`(outcome:Returned(3),after:(v:b"\x01\x02"))`) disagrees with its snapshot carved/push_all/14eeb06f7199.snap (`(outcome:Returned(3),after:(v:b"\x01\x02\x03"))`), which the call still matches. The snapshot is what replay checks; the outcome in the carve file only documents the call. Rewrite it with `CARVE=record cargo test`, or fix it by hand."#);
    // The advice: recording rewrites them as they were.
    p.record().assert_success();
    assert_eq!(p.read("carved/collatz.ron"), collatz);
    assert_eq!(p.read("carved/push_all.ron"), push_all);
    p.test(&[], &[]).assert_success();
}
