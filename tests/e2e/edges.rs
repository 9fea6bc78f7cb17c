//! Edge counters: `cargo carve generate` builds the crate's libraries with
//! SanitizerCoverage's counters, and generation keeps a call that reaches an
//! edge of code carve does not instrument (a helper no attribute marks),
//! which `CARVE=generate cargo test` cannot see.

use insta::assert_snapshot;

use crate::Project;

/// The first line generation printed for `target`.
fn line_of(run: &crate::Run, target: &str) -> String {
    let prefix = format!("carve: {target}: ");
    run.output()
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn cargo_carve_generate_keeps_a_call_for_an_edge_of_an_uninstrumented_helper() {
    let p = Project::of("edges", "edges");
    p.record().assert_success();
    // Without the counters, the helper's `len > 8` is invisible: both
    // outcomes of the target's own branch are carved, nothing is kept.
    let plain = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_SEED", "1"),
            ("CARVE_BUDGET", "2000"),
            ("CARVE_JOBS", "1"),
        ],
        &[],
    );
    plain.assert_success();
    assert_snapshot!(line_of(&plain, "kind"), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 0 call(s), found 0 failure(s) in 502 executions (0 generated arguments did not deserialize)");
    assert!(!p.read("carved/kind.ron").contains("long"));
    assert_snapshot!(line_of(&plain, "describe"), @r#"carve: describe: skipped: no branch outcomes in reach (mark the functions that hold its logic with `#[carve::instrument]`)"#);

    let edges = p.carve(&["generate", "--seed", "1", "--budget", "2000", "--jobs", "1"]);
    edges.assert_success();
    assert_snapshot!(line_of(&edges, "kind"), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 1 call(s), found 0 failure(s) in 797 executions (0 generated arguments did not deserialize) (1 call(s) kept for new edges outside instrumented code)");
    // A target with no branch of its own is generated for by its edges.
    assert_snapshot!(line_of(&edges, "describe"), @r#"carve: describe: branch coverage 0/0 -> 0/0; kept 1 call(s), found 0 failure(s) in 481 executions (0 generated arguments did not deserialize) (1 call(s) kept for new edges outside instrumented code)"#);
    assert!(
        p.read("carved/describe.ron").contains("long, from"),
        "{}",
        p.read("carved/describe.ron")
    );
    let file = p.read("carved/kind.ron");
    assert_snapshot!(
        &file[file.find("origin: Generated").unwrap_or(0)..],
        @r#"
    origin: Generated(
                    seed: 1,
                    added: [],
                ),
                args: (
                    label: "aaaaaaaaa",
                ),
                outcome: Returned("long, from aaa"),
            ),
        ],
    )
    "#
    );

    // `--no-edges` builds and generates as `CARVE=generate cargo test`.
    let p = Project::of("edges", "edges-off");
    p.record().assert_success();
    let off = p.carve(&[
        "generate",
        "--seed",
        "1",
        "--budget",
        "2000",
        "--jobs",
        "1",
        "--no-edges",
    ]);
    off.assert_success();
    assert_snapshot!(line_of(&off, "kind"), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 0 call(s), found 0 failure(s) in 502 executions (0 generated arguments did not deserialize)");
}

/// Only the counters of the crate's own functions count: std's `HashMap`
/// compiled into the crate probes differently in each run (its hasher is
/// seeded at random), and its counters would keep other calls each time.
#[test]
fn the_same_seed_keeps_the_same_calls_whatever_the_probing_of_a_hash_map_did() {
    let p = Project::of("edges_hash", "edges-hash");
    p.record().assert_success();
    let recorded = p.carved();
    let generate = || {
        let _ = std::fs::remove_dir_all(p.dir.join("carved"));
        for (path, text) in &recorded {
            p.write(&format!("carved/{path}"), text);
        }
        let run = p.carve(&["generate", "--seed", "1", "--budget", "2000", "--jobs", "1"]);
        run.assert_success();
        (run, p.carved())
    };
    let (first, files) = generate();
    let (second, again) = generate();
    assert!(
        files["repeats.ron"].contains("origin: Generated"),
        "{}",
        files["repeats.ron"]
    );
    assert_eq!(files, again, "two runs at seed 1 kept other calls");
    assert_eq!(line_of(&first, "repeats"), line_of(&second, "repeats"));
    assert_snapshot!(line_of(&first, "repeats"), @"carve: repeats: branch coverage 4/4 -> 4/4; weak mutants killed 2/2 -> 2/2; kept 2 call(s), found 0 failure(s) in 636 executions (0 generated arguments did not deserialize) (2 call(s) kept for new edges outside instrumented code)");
    // How many counters count depends on the compiler's code for the
    // crate: the line says which crates' functions they are in, fewer than
    // all the crate's counters.
    let counted = line_of(&first, "edge counters");
    let (kept, rest) = counted
        .strip_prefix("carve: edge counters: ")
        .and_then(|l| l.split_once(" of "))
        .unwrap_or_else(|| panic!("{}", first.output()));
    let (all, rest) = rest.split_once(' ').unwrap_or_default();
    assert!(
        kept.parse::<u32>().unwrap() < all.parse::<u32>().unwrap(),
        "{counted}"
    );
    assert_snapshot!(rest, @"counted, those of the functions of letters and of other crates' generics over their types (hash tables' and the rest left out)");
}

/// A call whose outcome changes when it runs again with the same arguments
/// (a global counter, as url's opaque origins have) is not kept: its replay
/// could never match what would be stored, and the generate run would end
/// with failing tests carve wrote itself. Kept calls run once more under
/// the counters (for all their edge features), which shows it.
#[test]
fn a_call_whose_outcome_changes_when_run_again_is_not_kept() {
    let p = Project::of("edges_unstable", "edges-unstable");
    p.record().assert_success();
    let run = p.carve(&["generate", "--seed", "1", "--budget", "500", "--jobs", "1"]);
    run.assert_success();
    assert_snapshot!(line_of(&run, "ticket"), @r#"carve: ticket: not keeping calls whose outcome changes when they run again with the same arguments (first: (label:"a")): replay could not check them against a snapshot"#);
    let line = run
        .output()
        .lines()
        .find(|l| l.starts_with("carve: ticket: branch coverage"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        line.contains("kept 0 call(s), found 0 failure(s)"),
        "{line}"
    );
    assert!(
        !p.read("carved/ticket.ron").contains("origin: Generated"),
        "{}",
        p.read("carved/ticket.ron")
    );
}
