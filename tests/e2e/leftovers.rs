//! What runs killed at the wrong moment leave behind, and what the next run
//! makes of it: temporary files of a writer killed between its write and
//! its rename (`kill -9`), and calls that hung only once, on a loaded
//! machine (spurious timeouts).

use crate::Project;

/// A temporary file that a killed writer left in `carved/` (the form
/// carve wrote before, with a process id no process has) is removed by
/// the next record, which says so; one of a live process is left alone.
#[test]
fn record_removes_temporary_files_that_killed_writers_left() {
    let p = Project::recorded("leftovers-tmp");
    let dead = "carved/decode/.cgi_decode.ron.4294967294.tmp";
    let deep = "carved/decode/cgi_decode/.0001.snap.4294967293.Ab12Cd.tmp";
    p.write(dead, "torn");
    p.write(deep, "torn");
    let live = format!("carved/.fact.ron.{}.tmp", std::process::id());
    p.write(&live, "being written");
    let run = p.record();
    run.assert_success();
    insta::assert_snapshot!(
        run.stdout.lines().find(|l| l.contains("temporary file")).unwrap_or_default(),
        @"carve: removed 2 temporary file(s) that killed writers left in carved: carved/decode/.cgi_decode.ron.4294967294.tmp and 1 more"
    );
    let names = p.carved_names();
    // Only the live writer's file is left.
    assert_eq!(names.matches(".tmp").count(), 1, "{names}");
    assert!(names.contains(&live["carved/".len()..]), "{names}");
    std::fs::remove_file(p.dir.join(&live)).unwrap();
    // Nothing else: the record itself leaves no temporary file.
    assert!(!p.carved_names().contains(".tmp"), "{}", p.carved_names());
}

/// A call that hangs once and returns when run again (a loaded machine
/// made it overrun the call timeout) is no failure: the fresh worker that
/// confirms crashes runs it again, it returns, and nothing is stored; the
/// generation line counts it apart. The files are those of a run in which
/// it never hung.
#[test]
fn a_timeout_that_does_not_happen_again_is_not_kept() {
    let p = Project::of("crashes", "leftovers-hangs-once");
    p.record().assert_success();
    let recorded = p.read("carved/hangs_once.ron");
    let generate = || {
        p.test(
            &[("CARVE", "generate"), ("CARVE_BUDGET", "300")],
            // Not `hangs_once_per_argument` too: it hangs once for each
            // argument, a second each (another test's).
            &["--exact", "generate::hangs_once"],
        )
    };
    let line = |run: &crate::Run| run.generation_line("hangs_once").to_owned();
    let hung = generate();
    println!("{}", hung.output());
    hung.assert_success();
    assert!(p.dir.join("hung-once").exists(), "the target hung once");
    let after_hang = p.read("carved/hangs_once.ron");
    assert!(!after_hang.contains("Crashed"), "{after_hang}");
    assert!(!after_hang.contains("Found("), "{after_hang}");
    let hung_line = line(&hung);
    insta::assert_snapshot!(
        hung_line,
        @"carve: hangs_once: branch coverage 1/2 -> 2/2; boundaries 0/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 104 executions (0 generated arguments did not deserialize) (1 unconfirmed timeout(s) not kept)"
    );

    // Again from the recorded file, now that it never hangs: the same file.
    p.write("carved/hangs_once.ron", &recorded);
    let calm = generate();
    println!("{}", calm.output());
    calm.assert_success();
    assert_eq!(p.read("carved/hangs_once.ron"), after_hang);
    assert_eq!(
        line(&calm),
        hung_line.replace(" (1 unconfirmed timeout(s) not kept)", "")
    );
}

/// `CARVE_TIMEOUT` sets the call timeout: the endless loop at 9 is a hang
/// after 300 ms, confirmed and stored as such, minimized to 9.
#[test]
fn carve_timeout_sets_the_call_timeout() {
    let p = Project::of("crashes", "leftovers-timeout");
    p.record().assert_success();
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "2000"),
            ("CARVE_TIMEOUT", "300ms"),
        ],
        &["classify"],
    );
    // Replay fails: the failures found fail their tests until fixed.
    println!("{}", run.output());
    let file = p.read("carved/classify.ron");
    let hang = file
        .split("origin: Found(")
        .find(|entry| entry.contains("at: \"timeout\""))
        .unwrap_or_else(|| panic!("no timeout stored:\n{file}"));
    assert!(hang.contains("n: 9,"), "{hang}");
    assert!(
        hang.contains("outcome: Crashed(\"timeout: did not return within 300ms\")"),
        "{hang}"
    );
    assert!(!run.output().contains("unconfirmed"), "{}", run.output());
}

/// Unconfirmed crashes cost no budget (so the run stays the one without
/// them): when calls keep overrunning the timeout once and returning when
/// run again, generation stops after 16 of them, says why and what to do,
/// and keeps no crash.
#[test]
fn calls_that_keep_timing_out_once_stop_generation_with_advice() {
    let p = Project::of("crashes", "leftovers-flaky");
    p.record().assert_success();
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "20000"),
            ("CARVE_TIMEOUT", "200ms"),
        ],
        &["hangs_once_per_argument"],
    );
    println!("{}", run.output());
    run.assert_success();
    insta::assert_snapshot!(
        run.stderr.lines().find(|l| l.contains("ended early")).unwrap_or_default(),
        @"carve: hangs_once_per_argument: generation ended early: 16 calls crashed or timed out once but not when run again (a loaded machine?); what was found is saved. Set CARVE_TIMEOUT higher (it was 200ms) or run with fewer CARVE_JOBS"
    );
    let line = run.generation_line("hangs_once_per_argument");
    assert!(
        line.ends_with(" (16 unconfirmed timeout(s) not kept)"),
        "{line}"
    );
    assert!(!p
        .read("carved/hangs_once_per_argument.ron")
        .contains("Crashed"));
}

/// A call that a loaded machine slows past the call timeout twice, the
/// second time less (the load easing), is no hang either: the worker that
/// confirms a timeout gives calls four times the timeout. A call that ran
/// 2× the timeout on its second run was kept as a hang before.
#[test]
fn a_call_slowed_past_the_timeout_twice_is_not_kept_as_a_hang() {
    let p = Project::of("crashes", "leftovers-slowed-twice");
    p.write(
        "src/lib.rs",
        r#"//! A target whose first two runs on one argument are slow (a counter file
//! per argument remembers): 5 s, then 2× the 300 ms timeout, then fast.

#[cfg_attr(feature = "carve", carve::target)]
pub fn slowed(n: u32) -> u32 {
    if n == 9 {
        slow_at_first(n);
        return 1;
    }
    0
}

fn slow_at_first(n: u32) {
    let counter = format!("{}/runs-with-{n}", env!("CARGO_MANIFEST_DIR"));
    let runs = std::fs::read_to_string(&counter).map_or(0, |s| s.len());
    let _ = std::fs::write(&counter, "x".repeat(runs + 1));
    let millis = match runs {
        0 => 5000,
        1 => 600,
        _ => 0,
    };
    std::thread::sleep(std::time::Duration::from_millis(millis));
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"#[carve::system_test]
fn calls() {
    assert_eq!(crashy::slowed(1), 0);
}

carve::main!();
"#,
    );
    p.record().assert_success();
    let generate = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "300"),
            ("CARVE_TIMEOUT", "300ms"),
        ],
        &[],
    );
    generate.assert_success();
    // Only what does not depend on the machine's load: a loaded machine
    // adds timeouts of its own, unconfirmed as this one.
    let line = generate.generation_line("slowed");
    assert!(
        line.contains("found 0 failure(s)") && line.contains("unconfirmed timeout(s) not kept"),
        "{line}"
    );
    let carved = p.read("carved/slowed.ron");
    assert!(
        carved.contains("n: 9,\n            ),\n            outcome: Returned(1)"),
        "{carved}"
    );
    assert!(
        !p.read("carved/slowed.ron").contains("Crashed"),
        "{}",
        p.read("carved/slowed.ron")
    );
}
