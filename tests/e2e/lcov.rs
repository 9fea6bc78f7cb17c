//! The lcov tracefile (`CARVE_LCOV`) read back by lcov's own tools: `lcov
//! --summary` and `genhtml` from Debian's `lcov` package (`.ci/run`
//! installs it). Their branch counts must be carve's.

use std::path::PathBuf;
use std::process::Command;

use insta::assert_snapshot;

use crate::{normalize, Project};

/// `lcov` or `genhtml` on PATH, or `None` after saying the test is skipped.
fn tool(name: &str) -> Option<PathBuf> {
    let out = Command::new("which").arg(name).output().ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if out.status.success() && !path.is_empty() {
        return Some(PathBuf::from(path));
    }
    eprintln!("SKIPPED: no `{name}` on PATH (Debian: apt-get install lcov; .ci/run installs it)");
    None
}

/// `(hit, found)` of the `what` line lcov prints, as in
/// `  branches...: 43.2% (16 of 37 branches)`.
fn rate(output: &str, what: &str) -> (u64, u64) {
    let line = output
        .lines()
        .find(|l| l.trim_start().starts_with(what))
        .unwrap_or_else(|| panic!("no {what} line in:\n{output}"));
    let inner = line
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inner, _)| inner)
        .unwrap_or_else(|| panic!("{line}"));
    let numbers: Vec<u64> = inner
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 2, "{line}");
    (numbers[0], numbers[1])
}

fn run(mut cmd: Command) -> String {
    let out = cmd.output().expect("lcov runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// Replay writes the tracefile beside the JSON report; lcov and genhtml
/// read it (genhtml finds every source through its `SF` path) and count
/// the branches and functions carve counted.
#[test]
fn lcov_reads_the_tracefile_with_carves_branch_counts() {
    let p = Project::recorded("lcov");
    let replay = p.test(
        &[("CARVE_REPORT", "report.json"), ("CARVE_LCOV", "lcov.info")],
        &[],
    );
    replay
        .assert_success()
        .assert_line("carve: wrote the lcov tracefile to lcov.info");
    let json = p.report("report.json");
    let tracefile = p.read("lcov.info");
    let files: Vec<String> = tracefile
        .lines()
        .filter(|l| l.starts_with("SF:"))
        .map(normalize)
        .collect();
    assert_snapshot!(files.join("\n"), @"SF:[tmp]/e2e-lcov/src/lib.rs");
    // One BRDA per outcome, as the JSON report counts them.
    let brda = tracefile.lines().filter(|l| l.starts_with("BRDA:")).count();
    let total = (
        json["total"]["covered"].as_u64().unwrap(),
        json["total"]["branches"].as_u64().unwrap(),
    );
    assert_eq!(brda as u64, total.1);
    let functions = json["functions"].as_array().unwrap().len() as u64;

    let (Some(lcov), Some(genhtml)) = (tool("lcov"), tool("genhtml")) else {
        return;
    };
    let mut summary = Command::new(lcov);
    summary
        .current_dir(&p.dir)
        .args(["--summary", "lcov.info"])
        // lcov 1.x and 2.x name the switch differently; each ignores the other's.
        .args([
            "--rc",
            "lcov_branch_coverage=1",
            "--rc",
            "branch_coverage=1",
        ]);
    let summary = run(summary);
    assert_eq!(rate(&summary, "branches"), total, "{summary}");
    assert_eq!(rate(&summary, "functions").1, functions, "{summary}");

    let out = p.dir.join("target/lcov-html");
    let mut html = Command::new(genhtml);
    html.current_dir(std::env::temp_dir())
        .arg("--branch-coverage")
        .arg("--output-directory")
        .arg(&out)
        .arg(p.dir.join("lcov.info"));
    let html = run(html);
    assert_eq!(rate(&html, "branches"), total, "{html}");
    assert!(out.join("index.html").is_file());
}
