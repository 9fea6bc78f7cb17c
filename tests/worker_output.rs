//! A target that prints, whole lines and partial ones, even text that looks
//! like the protocol, cannot disturb generation: its workers talk to the
//! parent on a channel of their own.
//!
//! This binary (`harness = false`) drives itself: run plainly, it re-runs
//! itself as a carve test binary (`CARVE_SELF_TEST=1`) to record and then to
//! generate into a temporary carve directory, and checks what they did.

use std::path::Path;
use std::process::{Command, Output};

/// Prints on every call, on stdout and stderr, without newlines, and
/// sometimes a line that a parent reading stdout would take for a message.
#[carve::target]
pub fn noisy(n: u32) -> u32 {
    print!("carve-worker kept");
    print!("partial {n} ");
    eprint!("carve-worker failure");
    if n % 5 == 3 {
        println!("\ncarve-worker done 1 1");
    }
    if n > 1000 {
        n / 2
    } else if n % 2 == 1 {
        n
    } else {
        n + 1
    }
}

#[carve::system_test]
fn calls_noisy() {
    assert_eq!(noisy(4), 5);
}

const SELF_TEST: &str = "CARVE_SELF_TEST";

fn main() {
    if std::env::var_os(SELF_TEST).is_some() {
        carve::_macro_support::main(carve::_macro_support::MainConfig {
            manifest_dir: env!("CARGO_MANIFEST_DIR"),
            check_snapshot: |name: &str, observation: &str| {
                carve::_macro_support::insta::assert_snapshot!(name, observation);
            },
        })
    }
    if std::env::args().any(|a| a == "--list") {
        return; // nothing to list: this binary is one check
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("worker-output");
    let _ = std::fs::remove_dir_all(&dir);

    let record = run(&dir, &[("CARVE", "record")]);
    assert!(record.status.success(), "record failed:\n{}", text(&record));

    let generate = run(&dir, &[("CARVE", "generate"), ("CARVE_BUDGET", "3000")]);
    let output = text(&generate);
    assert!(generate.status.success(), "generate failed:\n{output}");
    // The parent replays carved calls too, so the target's prints may
    // share the summary's line; the summary is still whole.
    let summary = output
        .lines()
        .find_map(|l| {
            l.split_once("carve: noisy: branch coverage")
                .map(|(_, s)| s)
        })
        .unwrap_or_else(|| panic!("no generation summary in:\n{output}"));
    // Within the budget: the run may end earlier, on a plateau.
    let executions: u64 = summary
        .split(" in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no executions in {summary:?}"));
    assert!(
        summary.contains("-> 6/6") && (1..=3000).contains(&executions),
        "{summary}"
    );
    assert!(!summary.contains("crash"), "{summary}");
    let carved = std::fs::read_to_string(dir.join("noisy.ron")).expect("carve file");
    assert!(carved.contains("Generated("), "{carved}");
    println!("worker_output: ok ({summary})");
}

fn run(dir: &Path, vars: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("own path"));
    for (name, _) in std::env::vars() {
        if name.starts_with("CARVE") || name.starts_with("INSTA") || name == "CI" {
            command.env_remove(name);
        }
    }
    command
        .env(SELF_TEST, "1")
        .env("CARVE_DIR", dir)
        .envs(vars.iter().copied())
        .output()
        .expect("the test binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
