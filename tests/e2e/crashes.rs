//! Crash triage in generation, on the third fixture (`crashes/`): a target
//! that aborts at 7, overflows its stack at 8 and hangs at 9, next to the 5
//! its system test calls it with. Also time budgets. (`hangs_once`, for
//! spurious timeouts, is `leftovers`'.)

use std::time::Instant;

use crate::{Project, Run};

const TARGET: &str = "classify";

/// The fixture, recorded.
fn recorded(name: &str) -> Project {
    let p = Project::of("crashes", name);
    p.record().assert_success();
    p
}

/// The generation line of `classify`: `(covered before, covered after)`.
#[track_caller]
fn generation_line(run: &Run) -> (String, u32, u32) {
    let head = format!("carve: {TARGET}: branch coverage ");
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no generation line in:\n{}", run.output()))
        .to_owned();
    let covered = |part: &str| -> u32 {
        part.split('/')
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap()
    };
    let rest = &line[head.len()..];
    let (before, after) = rest.split_once(" -> ").unwrap();
    (line.clone(), covered(before), covered(after))
}

/// The `Found` entries of the carve file, as `(at, outcome)`.
fn found(file: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = file.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if *line != "origin: Found(" {
            continue;
        }
        let at = lines[i + 2]
            .strip_prefix("at: ")
            .and_then(|a| a.strip_suffix(','))
            .unwrap_or_default()
            .to_owned();
        let outcome = lines[i..]
            .iter()
            .find_map(|l| l.strip_prefix("outcome: "))
            .unwrap_or_default()
            .to_owned();
        out.push((at, outcome));
    }
    out
}

/// Three crashes of three kinds at three inputs: three `Found` entries,
/// each named by its kind, and generation still covers the healthy inputs.
#[test]
fn aborts_stack_overflows_and_hangs_are_three_failures() {
    let p = recorded("crashes-triage");
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "2000")],
        &[TARGET],
    );
    let file = p.read("carved/classify.ron");
    println!("{}\n{file}", run.output());
    let (line, before, after) = generation_line(&run);
    assert!(after > before, "{line}");
    let found = found(&file);
    let kinds: Vec<&str> = found.iter().map(|(at, _)| at.as_str()).collect();
    for (kind, arg, message) in [
        (
            "\"abort at src/lib.rs:10",
            "n: 7,",
            "Crashed(\"abort: process killed by signal 6",
        ),
        (
            "\"stack overflow",
            "n: 8,",
            "Crashed(\"stack overflow: thread ",
        ),
        (
            "\"timeout",
            "n: 9,",
            "Crashed(\"timeout: did not return within 1s",
        ),
    ] {
        let entry = found
            .iter()
            .find(|(at, _)| at.starts_with(kind))
            .unwrap_or_else(|| panic!("no {kind} among {kinds:?}:\n{file}"));
        assert!(entry.1.starts_with(message), "{entry:?}");
        assert!(file.contains(arg), "{arg}\n{file}");
    }
    assert_eq!(found.len(), 3, "{kinds:?}");
    assert!(line.contains("found 3 failure(s)"), "{line}");
    assert!(line.contains("worker crash(es) survived"), "{line}");
}

/// An argument whose `Deserialize` aborts (`Slots`, at every even count
/// over 1000, as slab 0.4.12's `Deserialize` of a key near `usize::MAX` runs until the
/// timeout) takes a worker down while carve builds it, not in the call: no
/// failure of `fill`, no `Found` entry, and the generation line says so.
#[test]
fn arguments_that_crash_while_built_are_no_failures_of_the_target() {
    let p = recorded("crashes-unbuildable");
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "1000"),
            ("CARVE_TIMEOUT", "30s"),
        ],
        &["fill"],
    );
    let file = p.read("carved/fill.ron");
    println!("{}\n{file}", run.output());
    run.assert_success();
    assert_eq!(found(&file), Vec::<(String, String)>::new());
    let line = run.generation_line("fill");
    assert!(line.contains("found 0 failure(s)"), "{line}");
    assert!(
        line.contains("argument(s) took a worker down while carve built them: left out)"),
        "{line}"
    );
    assert!(!line.contains("worker crash(es) survived"), "{line}");
}

/// A mutant that never ends (`c != Some(' ')` in `leading_spaces`' loop,
/// as in natord 1.0.9's `compare`) runs out of fuel
/// (`coverage::MUTANT_FUEL`): each turn of the loop evaluates the mutated
/// condition, and the 100,000th ends the call with a panic that kills the
/// mutant. No worker hangs, and no call waits for the timeout.
#[test]
fn mutants_that_never_end_run_out_of_fuel_and_are_killed() {
    let line = generated_without_failures("crashes-mutant-fuel", "leading_spaces");
    assert!(!line.contains("hung or crashed a worker"), "{line}");
    // The mutant is killed: every weak mutant of the loop's condition is.
    assert!(
        line.contains("weak mutants killed ") && mutants_all_killed(&line),
        "{line}"
    );
}

/// A mutant whose endless loop is outside the mutated function (`steps`'
/// step made 0, counted by a function carve does not instrument) hangs the
/// worker that checks a call against it: the mutant is killed, and the
/// generation line says so, where it said worker crashes beside no failure
/// found.
#[test]
fn mutants_that_hang_their_worker_are_no_crashes_of_the_target() {
    let line = generated_without_failures("crashes-mutant-hangs", "steps");
    assert!(
        line.contains(
            "check(s) against mutants hung or crashed a worker: mutants killed, no failure)"
        ),
        "{line}"
    );
}

/// Generates for `target` alone in a recorded copy called `name` and
/// returns its generation line, having checked that the run passed, found
/// no failure and took no worker crash for one.
fn generated_without_failures(name: &str, target: &str) -> String {
    let p = recorded(name);
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "1000")],
        &[target],
    );
    let file = p.read(&format!("carved/{target}.ron"));
    println!("{}\n{file}", run.output());
    run.assert_success();
    assert_eq!(found(&file), Vec::<(String, String)>::new());
    let line = run.generation_line(target).to_owned();
    assert!(line.contains("found 0 failure(s)"), "{line}");
    assert!(!line.contains("worker crash(es) survived"), "{line}");
    line
}

/// Whether the generation line's `weak mutants killed a/b -> c/d` ends
/// with every mutant killed (`c == d`).
fn mutants_all_killed(line: &str) -> bool {
    let after = line
        .split("weak mutants killed ")
        .nth(1)
        .unwrap_or_default();
    let last = after.split(" -> ").nth(1).unwrap_or_default();
    let fraction = last.split(';').next().unwrap_or_default().trim();
    matches!(fraction.split_once('/'), Some((a, b)) if a == b)
}

/// Crashes do not make generation depend on when workers die: the same
/// seed on two copies gives the same carve files, byte for byte.
#[test]
fn a_run_with_crashes_is_deterministic_per_seed() {
    let runs: Vec<_> = ["crashes-same-seed-a", "crashes-same-seed-b"]
        .into_iter()
        .map(|name| {
            let p = recorded(name);
            let start = Instant::now();
            let run = p.test(
                &[
                    ("CARVE", "generate"),
                    ("CARVE_BUDGET", "1500"),
                    ("CARVE_SEED", "7"),
                ],
                &[TARGET],
            );
            println!("{name}: generate took {:?}", start.elapsed());
            let (line, _, _) = generation_line(&run);
            println!("{line}");
            assert!(line.contains("worker crash(es) survived"), "{line}");
            (line, p.carved())
        })
        .collect();
    assert_eq!(runs[0].0, runs[1].0);
    assert_eq!(runs[0].1, runs[1].1);
}

/// `CARVE_BUDGET=2s` generates for at most about 2 s and ends cleanly.
#[test]
fn a_time_budget_ends_cleanly() {
    let p = Project::recorded("crashes-time-budget");
    let start = Instant::now();
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "2s")],
        &["cgi_decode"],
    );
    let took = start.elapsed();
    println!("{}\ngenerate with a 2s budget took {took:?}", run.output());
    run.assert_success();
    run.assert_line("budget 2s per target (CARVE_BUDGET)");
    let line = run.generation_line("decode::cgi_decode");
    let executions: u64 = line
        .split(" in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no executions in {line:?}"));
    assert!(executions > 0, "{line}");
    assert!(!run.output().contains("worker crash"), "{}", run.output());
    // No bound on `took`: a time budget is an upper bound too, and this run
    // ends on a plateau once nothing new is found, while how long the build
    // and the replay take depends on the machine's load.
}

/// A target that aborts on every generated call: restarts cost budget, so
/// generation spends its budget on them, says so, and keeps the one failure
/// it found.
#[test]
fn a_target_that_always_crashes_ends_within_its_budget() {
    let p = recorded("crashes-always");
    // `fragile` aborts at once; a generous timeout keeps a worker that a
    // loaded machine slows from counting as a hang.
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "1000"),
            ("CARVE_TIMEOUT", "30s"),
        ],
        &["fragile"],
    );
    println!("{}", run.output());
    let stopped = run
        .stderr
        .lines()
        .find(|l| l.starts_with("carve: fragile: generation spent its budget: "))
        .unwrap_or_else(|| panic!("no stop line in:\n{}", run.output()));
    let restarts: u64 = stopped
        .split("budget: ")
        .nth(1)
        .and_then(|r| r.split(' ').next()?.parse().ok())
        .unwrap();
    assert!((1..=10).contains(&restarts), "{stopped}");
    // Checks against mutants that crash (`n == 5` aborts at 5) are
    // restarts too, named apart.
    let took: u64 = stopped
        .split(" took ")
        .nth(1)
        .and_then(|r| r.split(' ').next()?.parse().ok())
        .unwrap();
    assert!(
        took >= restarts * 100 && took <= 1000 && took.is_multiple_of(100),
        "{stopped}"
    );
    assert!(
        stopped.ends_with(
            "of the 1000 executions in the budget (100 per restart); what was found is saved"
        ),
        "{stopped}"
    );
    let found = found(&p.read("carved/fragile.ron"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "\"abort at src/lib.rs:39\"", "{found:?}");
}
