//! Distilling: at the end of a target's generation, the kept calls that
//! later kept calls make redundant are dropped, and what the calls cover
//! together stays the same.

use insta::assert_snapshot;

use crate::Project;

#[test]
fn generation_drops_the_kept_calls_that_later_ones_cover() {
    let p = Project::of("distil", "distil");
    p.record().assert_success();
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_SEED", "1"),
            ("CARVE_BUDGET", "2000"),
            ("CARVE_JOBS", "1"),
        ],
        &[],
    );
    run.assert_success();
    // Without distilling, generation kept 5 calls for the same 15/15, 1/1
    // and 10/10: what two of them covered, calls kept after them cover too
    // (`"a&a"`, a query of two pairs, takes the paths of one), so they are
    // dropped. The summary after generation is what it was with all 5.
    let output = run.output();
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| l.starts_with("carve: pairs: "))
        .collect();
    assert_snapshot!(lines.join("\n"), @r"
    carve: pairs: branch coverage 8/15 -> 15/15; boundaries 1/1 -> 1/1; weak mutants killed 8/10 -> 10/10; kept 3 call(s), found 0 failure(s) in 549 executions (0 generated arguments did not deserialize)
    carve: pairs: distilled: dropped 2 more call(s) it had kept, as later kept calls cover what they did
    ");
    assert_snapshot!(run.summary(), @r"
    carve: branch coverage of instrumented functions by carved and generated calls
      function  kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      pairs     target    15/15   100.0%         1/1           10/10  reach   15/15   100.0%  (1 carved, 3 generated calls)
      total               15/15   100.0%         1/1           10/10
    ");
    let file = p.read("carved/pairs.ron");
    assert_snapshot!(
        &file[file.find("origin: Generated").unwrap_or(0)..],
        @r#"
    origin: Generated(
                    seed: 1,
                    added: [
                        "src/lib.rs:19:35 `!key.is_empty()` false",
                        "src/lib.rs:20:13 `Some((_, value))` taken",
                    ],
                ),
                args: (
                    query: "=",
                ),
                outcome: Returned([
                    ("", ""),
                ]),
            ),
            (
                origin: Generated(
                    seed: 1,
                    added: [
                        "src/lib.rs:8:48 `query.contains(\';\')` true",
                        "src/lib.rs:15:12 `pair.is_empty()` true",
                        "src/lib.rs:8:24 `!query.contains(\'&\')` negated",
                        "src/lib.rs:8:48 `query.contains(\';\')` negated",
                    ],
                ),
                args: (
                    query: ";",
                ),
                outcome: Returned([]),
            ),
            (
                origin: Generated(
                    seed: 1,
                    added: [
                        "src/lib.rs:8:24 `!query.contains(\'&\')` false",
                        "src/lib.rs:21:13 `None` taken",
                        "src/lib.rs:26:8 `out.len() > 1` true",
                        "src/lib.rs:26:8 `>` → `<` in `out.len() > 1`",
                    ],
                ),
                args: (
                    query: "a&a",
                ),
                outcome: Returned([
                    ("a", ""),
                ]),
            ),
        ],
    )
    "#
    );
}
