//! Kept generated calls are minimized before they are stored, and a call
//! that panics never counts as covering: not in the generation line, not
//! in the summary, not in the JSON report.

use insta::assert_snapshot;

use crate::{entry, Project};

/// A target whose `true` branch needs one `☃` anywhere in a line. The
/// grammar hardly draws it; search gets there by moving one character of
/// the carved line, and keeps that whole line with one character changed.
/// Minimized, the kept call is that one character.
const WEATHER_TARGET: &str = r#"
/// Whether a weather report calls for snow (its name is matched by the
/// test's filter `unlucky`).
#[cfg_attr(feature = "carve", carve::target)]
pub fn unlucky_weather(line: &str) -> bool {
    for c in line.chars() {
        if c == '☃' {
            return true;
        }
    }
    false
}
"#;

const WEATHER_TEST: &str = r#"
#[carve::system_test]
fn reads_a_report() {
    assert!(!shop::unlucky_weather("Sunny, light winds from the west, 24 degrees"));
}

carve::main!();
"#;

/// The `args:` blocks of the entries of a carve file with `origin` (`Generated`, `Found`).
fn args_of(file: &str, origin: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = file.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line.starts_with(&format!("origin: {origin}")) {
            let args: Vec<&str> = lines
                .by_ref()
                .skip_while(|l| *l != "args: (")
                .skip(1)
                .take_while(|l| *l != "),")
                .collect();
            out.push(args.join(" "));
        }
    }
    out
}

#[test]
fn kept_calls_are_minimal_and_panics_never_cover() {
    let p = Project::new("shrinking");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}{WEATHER_TARGET}"));
    p.replace("tests/carve.rs", "carve::main!();", WEATHER_TEST);
    p.record().assert_success();
    // `unlucky` panics on 13: its `x == 13` true outcome is taken only by a
    // panicking call.
    let run = p.test(
        &[
            ("CARVE", "generate"),
            ("CARVE_BUDGET", "3000"),
            ("CARVE_REPORT", "report.json"),
        ],
        &["unlucky"],
    );
    run.assert_failure();
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("carve: unlucky"))
        .collect();
    assert_snapshot!(lines.join("\n"), @r#"
    carve: unlucky: branch coverage 1/2 -> 1/2; boundaries 0/2 -> 2/2; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 1 failure(s) in 240 executions (0 generated arguments did not deserialize)
    carve: unlucky: found a failing input, minimized: unlucky(x:13) fails at src/lib.rs:123
    carve: unlucky_weather: branch coverage 3/4 -> 4/4; boundaries 0/2 -> 2/2; weak mutants killed 3/5 -> 5/5; kept 3 call(s), found 0 failure(s) in 913 executions (0 generated arguments did not deserialize)
    "#);
    let weather = p.read("carved/unlucky_weather.ron");
    // The snowman takes the branch; its neighbours are the boundaries of
    // `c == '☃'`, each minimized to one character.
    assert_eq!(
        args_of(&weather, "Generated"),
        [r#"line: "☃","#, r#"line: "☄","#, r#"line: "☂","#],
        "{weather}"
    );
    // No passing call takes `x == 13` true; the calls kept are the
    // boundaries either side of it.
    let unlucky = p.read("carved/unlucky.ron");
    assert_eq!(
        args_of(&unlucky, "Generated"),
        ["x: 14,", "x: 12,"],
        "{unlucky}"
    );
    assert_eq!(args_of(&unlucky, "Found"), ["x: 13,"], "{unlucky}");

    // The summary and the report count the panicking call as covering
    // nothing, like the generation line.
    let summary: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("unlucky"))
        .collect();
    assert_snapshot!(summary.join("\n"), @r#"
        unlucky             target     1/2     50.0%        2/2             5/5   reach    1/2     50.0%  (1 carved, 3 generated calls)
        unlucky_weather     target     4/4    100.0%        2/2             5/5   reach    4/4    100.0%  (1 carved, 3 generated calls)
        "#);
    let json = p.report("report.json");
    let target = entry(&json["targets"], "unlucky");
    assert_eq!(
        (&target["branches"], &target["covered"]),
        (&2.into(), &1.into()),
        "{json}"
    );
    assert_eq!(entry(&json["functions"], "unlucky")["covered"], 1, "{json}");

    // Replayed with nothing changed, the files stay as they are and the
    // numbers agree.
    let replay = p.test(&[("CARVE_REPORT", "again.json")], &[]);
    replay.assert_failure();
    let again = p.report("again.json");
    assert_eq!(entry(&again["targets"], "unlucky")["covered"], 1, "{again}");
    assert_eq!(
        entry(&again["targets"], "unlucky_weather")["covered"],
        4,
        "{again}"
    );
}
