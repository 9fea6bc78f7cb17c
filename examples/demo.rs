//! The whole job on the demo, in one command: `cargo run --example demo`.
//!
//! Carves the dogfood's system tests (`tests/dogfood/`), generates calls
//! for its targets, and prints the branch coverage before and after
//! generation, the failing inputs generation found, and where the HTML
//! report is. Everything is written below `target/carve-demo/` (through
//! `CARVE_DIR`), so the repository's committed `carved/` is never touched.
//!
//! It drives `cargo test --test dogfood` exactly as a user drives their own
//! carve test binary, and reads back the JSON reports (`CARVE_REPORT`) the
//! two runs write.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

/// The seed of the generation run: fixed, so the demo shows the same
/// calls on every machine.
const SEED: &str = "1";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("demo: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let out = demo_dir()?;
    if out.exists() {
        std::fs::remove_dir_all(&out)
            .map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let carved = out.join("carved");
    let html = out.join("html");

    step("1/2: carve the system tests (CARVE=record) and replay every carved call");
    let record_report = out.join("record.json");
    let recorded = cargo_test(&[
        ("CARVE", "record".as_ref()),
        ("CARVE_DIR", carved.as_os_str()),
        ("CARVE_REPORT", record_report.as_os_str()),
    ])?;
    if !recorded {
        return Err("recording failed (see above); nothing was generated".into());
    }

    step("2/2: generate calls that raise branch coverage (CARVE=generate)");
    let generate_report = out.join("generate.json");
    // Generation fails the run when it finds failing inputs, and the demo
    // has planted bugs: its report, not its exit status, says how it went.
    let generated = cargo_test(&[
        ("CARVE", "generate".as_ref()),
        ("CARVE_SEED", SEED.as_ref()),
        ("CARVE_DIR", carved.as_os_str()),
        ("CARVE_REPORT", generate_report.as_os_str()),
        ("CARVE_HTML", html.as_os_str()),
    ])?;

    let before = read_report(&record_report)?;
    let after = read_report(&generate_report)?;
    print_summary(&before, &after);
    let failures = total_failures(&after);
    if !generated && failures == 0 {
        return Err("generation failed without finding a failing input (see above)".into());
    }
    println!();
    if failures > 0 {
        println!(
            "Generation found {failures} failing input(s), minimized (the demo's planted bugs); \
             each is now a failing test `generated::…` until the code is fixed or the entry is \
             marked `expected: true`."
        );
    }
    println!("HTML report: {}", html.join("index.html").display());
    println!(
        "Carve files and snapshots of this run: {} (the repository's carved/ is unchanged).",
        carved.display()
    );
    Ok(())
}

/// `target/carve-demo`, found from this example's own path
/// (`target/<profile>/examples/demo`), so it honours `CARGO_TARGET_DIR`.
fn demo_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the demo's path: {e}"))?;
    exe.ancestors()
        .nth(3)
        .map(|target| target.join("carve-demo"))
        .ok_or_else(|| format!("unexpected example path {}", exe.display()))
}

fn step(what: &str) {
    println!("\n=== demo {what}\n");
}

/// Runs the dogfood's carve test binary with `vars` set; `Ok(passed)`.
fn cargo_test(vars: &[(&str, &std::ffi::OsStr)]) -> Result<bool, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["test", "--test", "dogfood", "--", "--quiet"])
        // carve refuses to write carve files under CI; the demo writes only
        // below target/.
        .env_remove("CI");
    for (name, value) in vars {
        command.env(name, value);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    Ok(status.success())
}

fn read_report(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("the run wrote no report {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn total_failures(report: &Value) -> u64 {
    targets(report).map(|t| number(t, "failures")).sum()
}

fn targets(report: &Value) -> impl Iterator<Item = &Value> {
    report
        .get("targets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// Branch outcomes of each target's reach, carved calls only → after generation.
fn print_summary(before: &Value, after: &Value) {
    println!("\n=== demo: branch coverage, carved calls -> after generation\n");
    println!(
        "  {:<30} {:>9}    {:<9}  {:>9}  {:>8}",
        "target (outcomes of its reach)", "carved", "generated", "calls", "failures"
    );
    for target in targets(after) {
        let name = target.get("name").and_then(Value::as_str).unwrap_or("?");
        let was = targets(before).find(|t| t.get("name") == target.get("name"));
        let reach = |t: &Value| match number(t, "reach_branches") {
            0 => "-".to_string(),
            branches => format!("{}/{branches}", number(t, "reach_covered")),
        };
        println!(
            "  {:<30} {:>9} -> {:>9}  {:>9}  {:>8}",
            name,
            was.map(reach).unwrap_or_else(|| "-".into()),
            reach(target),
            format!(
                "{}+{}",
                number(target, "carved_calls"),
                number(target, "generated_calls")
            ),
            number(target, "failures"),
        );
    }
    // (label, met, of): the three kinds of goals the report counts.
    let kinds = [
        ("branch outcomes", "covered", "branches"),
        ("boundaries", "boundaries_covered", "boundaries"),
        ("weak mutants killed", "mutants_killed", "mutants"),
    ];
    println!("\n  all instrumented code:");
    for (label, met, of) in kinds {
        let total = |r: &Value| {
            let total = r.get("total").cloned().unwrap_or(Value::Null);
            let (met, of) = (number(&total, met), number(&total, of));
            let percent = if of == 0 {
                0.0
            } else {
                100.0 * met as f64 / of as f64
            };
            format!("{met}/{of} ({percent:.1}%)")
        };
        println!("    {label:<20} {} -> {}", total(before), total(after));
    }
}
