//! Edge counters: `cargo carve generate` builds the crate's libraries with
//! SanitizerCoverage's counters, and generation keeps a call that reaches an
//! edge of code carve does not instrument (a helper no attribute marks),
//! which `CARVE=generate cargo test` cannot see.

use insta::assert_snapshot;

use crate::Project;

/// The generation line of `kind`.
fn generated(run: &crate::Run) -> String {
    let out = run.output();
    out.lines()
        .find(|l| l.starts_with("carve: kind: branch coverage"))
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
    assert_snapshot!(generated(&plain), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 0 call(s), found 0 failure(s) in 2000 executions (0 generated arguments did not deserialize)");
    assert!(!p.read("carved/kind.ron").contains("long"));

    let edges = p.carve(&["generate", "--seed", "1", "--budget", "2000", "--jobs", "1"]);
    edges.assert_success();
    assert_snapshot!(generated(&edges), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 1 call(s), found 0 failure(s) in 2000 executions (0 generated arguments did not deserialize) (1 call(s) kept for new edges outside instrumented code)");
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
    assert_snapshot!(generated(&off), @"carve: kind: branch coverage 2/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 0 call(s), found 0 failure(s) in 2000 executions (0 generated arguments did not deserialize)");
}
