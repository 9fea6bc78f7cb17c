//! `async fn` targets, on their fixture (`asynchronous/`): one driven by
//! carve's own executor, a generic one, one that needs tokio's timer (`runtime =
//! "tokio"`), each recorded from an `async` system test, replayed and
//! generated for; a future that never completes is a timeout.

use insta::assert_snapshot;

use crate::Project;

#[test]
fn async_targets_are_carved_replayed_and_generated_for() {
    let p = Project::of("asynchronous", "async-record");
    let run = p.record();
    run.assert_success();
    assert_snapshot!(run.results(), @r"
    test carved::backoff::0001 ... ok
    test carved::checksum::0001 ... ok
    test carved::checksum::0002 ... ok
    test carved::first_above<String>::0001 ... ok
    test carved::first_above<u32>::0001 ... ok
    test system::backs_off ... ok
    test system::finds_the_first_above ... ok
    test system::sums_bytes ... ok
    ");
    assert_snapshot!(p.read("carved/checksum.ron"), @r#"
    // Calls of `checksum` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "checksum",
        calls: [
            (
                origin: System("sums_bytes"),
                args: (
                    data: b"\x01\x02\x03",
                ),
                outcome: Returned(Ok(6)),
            ),
            (
                origin: System("sums_bytes"),
                args: (
                    data: b"\x00",
                ),
                outcome: Returned(Err("zero byte")),
            ),
        ],
    )
    "#);
    assert_snapshot!(p.read("carved/backoff.ron"), @r#"
    // Calls of `backoff` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "backoff",
        calls: [
            (
                origin: System("backs_off"),
                args: (
                    attempt: 1,
                ),
                outcome: Returned(2),
            ),
        ],
    )
    "#);

    // A generic `async fn`: one file per instantiation listed.
    assert_snapshot!(p.read("carved/first_above(u32).ron"), @r#"
    // Calls of `first_above<u32>` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "first_above<u32>",
        calls: [
            (
                origin: System("finds_the_first_above"),
                args: (
                    items: [
                        1,
                        5,
                        9,
                    ],
                    floor: 4,
                ),
                outcome: Returned(Some(5)),
            ),
        ],
    )
    "#);

    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_snapshot!(replay.summary(), @r"
    carve: branch coverage of instrumented functions by carved and generated calls
      function     kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      backoff      target     1/2     50.0%         0/1            3/5   reach    1/2     50.0%  (1 carved, 0 generated calls)
      checksum     target     5/6     83.3%         1/3            7/10  reach    5/6     83.3%  (2 carved, 0 generated calls)
      first_above  target     4/4    100.0%         -              4/5   reach    4/4    100.0%  (1 carved, 0 generated calls)
      total                  10/12    83.3%         1/4           14/20
    ");

    let generate = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "1000"),
            ("CARVE_TIMEOUT", "1s"),
        ],
        &[],
    );
    let backoff = generate.generation_line("backoff");
    assert_snapshot!(backoff, @"carve: backoff: branch coverage 1/2 -> 2/2; boundaries 0/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 26 executions (0 generated arguments did not deserialize)");
    // More than 8 bytes never complete: found as a timeout, like a hang.
    let file = p.read("carved/checksum.ron");
    assert!(
        file.contains(r#"outcome: Crashed("timeout: did not return within 1s")"#),
        "{}\n{file}",
        generate.output()
    );
    // The timeout is a found failure: the replay says so and fails.
    p.test(&[], &[]).assert_failure();

    // A changed generic `async fn` shows as the diff of its carved call.
    p.replace("src/lib.rs", "if item > floor", "if item < floor");
    let changed = p.test(&[], &["first_above<u32>"]);
    changed.assert_failure();
    // The generated call still passes, run alone: beside a failing test,
    // insta's diff may land inside its result line.
    let generated = p.test(&[], &["--exact", "generated::first_above<u32>::0001"]);
    generated.assert_success();
    assert_snapshot!(generated.results(), @"test generated::first_above<u32>::0001 ... ok");
    assert!(changed.output().contains("Some(1)"), "{}", changed.output());
}
