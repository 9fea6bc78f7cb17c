//! First contact with published crates' types (fixture `rebuild/`): only
//! what replay can rebuild is carved, a `Display` calling a target of its
//! own type records without recursing, rebuilding arguments is not part of
//! a call's coverage, and returned values are carved by their `Display`.

use insta::assert_snapshot;

use crate::{entry, Project};

/// An argument whose carved form does not rebuild the value (a text that
/// `FromStr` rejects, a lossy human-readable `Serialize`) is not carved:
/// the run says so once per target and parameter, replay passes, and
/// recording again leaves the files as they were. A `Display` that calls a
/// target of its own type records without a stack overflow.
#[test]
fn calls_whose_arguments_do_not_rebuild_are_not_carved_and_the_suite_stays_green() {
    let p = Project::of("rebuild", "rebuild-record");
    let run = p.record();
    run.assert_success();
    assert_snapshot!(run.messages(), @r#"
        carve: carved 6 system test(s); writing carved
        carve: wrote carved/LanguageTag/as_str.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/LanguageTag/primary.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/banner.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/format_seconds.ron: 2 call(s) stored, 2 carved in this run
        carve: wrote carved/half.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/is_hot.ron: 2 call(s) stored, 2 carved in this run
        carve: wrote carved/kib.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/parse_seconds.ron: 3 call(s) stored, 3 carved in this run
        carve: wrote 1 new snapshot(s) for LanguageTag::as_str in carved/LanguageTag/as_str/
        carve: wrote 1 new snapshot(s) for LanguageTag::primary in carved/LanguageTag/primary/
        carve: wrote 1 new snapshot(s) for banner in carved/banner/
        carve: wrote 2 new snapshot(s) for format_seconds in carved/format_seconds/
        carve: wrote 1 new snapshot(s) for half in carved/half/
        carve: wrote 2 new snapshot(s) for is_hot in carved/is_hot/
        carve: wrote 1 new snapshot(s) for kib in carved/kib/
        carve: wrote 3 new snapshot(s) for parse_seconds in carved/parse_seconds/
        carve: not carving calls of `half` whose argument `e` does not rebuild: "3" -> `3` does not parse as `rebuild::Even`: "odd number" (first seen in system test `halves_numbers`; 4 such call(s) skipped). Replay rebuilds arguments from what carve writes: make `FromStr` accept what `Display` writes (or `Deserialize` read what `Serialize` writes) to carve them.
        carve: not carving calls of `kib` whose argument `size` does not rebuild: "683.6 KiB" -> rebuilt as ByteSize(700006), not ByteSize(700000) (first seen in system test `measures_sizes`; 1 such call(s) skipped). Replay rebuilds arguments from what carve writes: make `FromStr` accept what `Display` writes (or `Deserialize` read what `Serialize` writes) to carve them.
    "#);
    assert_snapshot!(p.read("carved/half.ron"), @r#"
        // Calls of `half` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "half",
            calls: [
                (
                    origin: System("halves_numbers"),
                    args: (
                        e: "4",
                    ),
                    outcome: Returned(2),
                ),
            ],
        )
    "#);
    assert_snapshot!(p.read("carved/kib.ron"), @r#"
        // Calls of `kib` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "kib",
            calls: [
                (
                    origin: System("measures_sizes"),
                    args: (
                        size: "2.0 KiB",
                    ),
                    outcome: Returned(2),
                ),
            ],
        )
    "#);
    assert_snapshot!(p.read("carved/LanguageTag/as_str.ron"), @r#"
        // Calls of `LanguageTag::as_str` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "LanguageTag::as_str",
            calls: [
                (
                    origin: System("reads_language_tags"),
                    args: (
                        self: "en-GB",
                    ),
                    outcome: Returned("en-GB"),
                ),
            ],
        )
    "#);
    let carved = p.carved();
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_snapshot!(replay.failed(), @r#"

        test result: ok. 18 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
    "#);
    p.record().assert_success();
    assert_eq!(p.carved(), carved, "recording again changes nothing");
}

/// A value whose `Display` is its behaviour (a lazy formatter, an error, a
/// `Display`-only type) is carved as its text, beside its `Debug` text: its
/// formatting runs at replay, is covered, and is checked.
#[test]
fn returned_values_are_carved_by_their_display_which_replay_covers() {
    let p = Project::of("rebuild", "rebuild-display");
    p.record().assert_success();
    assert_snapshot!(p.read("carved/format_seconds.ron"), @r##"
        // Calls of `format_seconds` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "format_seconds",
            calls: [
                (
                    origin: System("formats_durations"),
                    args: (
                        secs: 3725,
                    ),
                    outcome: Returned(Display(
                        text: "1h 2m 5s",
                        debug: r#"FormattedSeconds(
                        3725,
                    )"#,
                    )),
                ),
                (
                    origin: System("formats_durations"),
                    args: (
                        secs: 5,
                    ),
                    outcome: Returned(Display(
                        text: "5s",
                        debug: r#"FormattedSeconds(
                        5,
                    )"#,
                    )),
                ),
            ],
        )
    "##);
    assert_snapshot!(p.read("carved/parse_seconds.ron"), @r##"
        // Calls of `parse_seconds` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "parse_seconds",
            calls: [
                (
                    origin: System("formats_durations"),
                    args: (
                        s: "5m",
                    ),
                    outcome: Returned(Ok(300)),
                ),
                (
                    origin: System("formats_durations"),
                    args: (
                        s: "",
                    ),
                    outcome: Returned(Err(Display(
                        text: "empty duration",
                        debug: "Empty",
                    ))),
                ),
                (
                    origin: System("formats_durations"),
                    args: (
                        s: "5x",
                    ),
                    outcome: Returned(Err(Display(
                        text: "unknown unit `x` (use s, m or h)",
                        debug: r#"BadUnit {
                        unit: 'x',
                    }"#,
                    ))),
                ),
            ],
        )
    "##);
    assert_snapshot!(p.read("carved/banner.ron"), @r#"
        // Calls of `banner` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "banner",
            calls: [
                (
                    origin: System("formats_durations"),
                    args: (
                        title: "carve",
                    ),
                    outcome: Returned(Display(
                        text: "== carve ==",
                    )),
                ),
            ],
        )
    "#);
    let run = p.test(&[("CARVE_REPORT", "report.json")], &[]);
    run.assert_success();
    let json = p.report("report.json");
    let formatter = entry(&json["functions"], "FormattedSeconds::fmt");
    assert_eq!(
        (&formatter["covered"], &formatter["reached_from"]),
        (&5.into(), &serde_json::json!(["format_seconds"])),
        "{json}"
    );
    let error = entry(&json["functions"], "TimeError::fmt");
    assert_eq!(
        (&error["covered"], &error["reached_from"]),
        (&2.into(), &serde_json::json!(["parse_seconds"])),
        "{json}"
    );
    // A changed message fails its carved test with a one-line diff.
    p.replace("src/lib.rs", "(use s, m or h)", "(use s, m, h)");
    let run = p.test(&[], &["--test-threads=1", "carved::parse_seconds"]);
    run.assert_failure();
    assert_snapshot!(run.insta_diff(), @r##"
        Snapshot file: carved/parse_seconds/1a4778aa7e17.snap
        Snapshot: 1a4778aa7e17
        Source: tests/carve.rs:54
        ────────────────────────────────────────────────────────────────────────────────
        parse_seconds(s:"5x")
        ────────────────────────────────────────────────────────────────────────────────
        -old snapshot
        +new results
        ────────────┬───────────────────────────────────────────────────────────────────
            1     1 │ Returned(Err(Display(
            2       │-    text: "unknown unit `x` (use s, m or h)",
                  2 │+    text: "unknown unit `x` (use s, m, h)",
            3     3 │     debug: r#"BadUnit {
            4     4 │     unit: 'x',
            5     5 │ }"#,
            6     6 │ )))
        ────────────┴───────────────────────────────────────────────────────────────────
    "##);
}

/// Replay rebuilds a `Celsius` argument with its `FromStr`, an instrumented
/// parser `is_hot` never calls: the parser is not in `is_hot`'s reach.
#[test]
fn a_parser_that_rebuilds_arguments_is_not_in_the_targets_reach() {
    let p = Project::of("rebuild", "rebuild-reach");
    p.record().assert_success();
    let run = p.test(&[("CARVE_REPORT", "report.json")], &[]);
    run.assert_success();
    let json = p.report("report.json");
    let parser = entry(&json["functions"], "parse_celsius");
    assert_eq!(
        (&parser["covered"], &parser["reached_from"]),
        (&0.into(), &serde_json::json!([])),
        "{json}"
    );
    let is_hot = entry(&json["targets"], "is_hot");
    assert_eq!(
        (&is_hot["reach_branches"], &is_hot["carved_calls"]),
        (&0.into(), &2.into()),
        "{json}"
    );
}
