//! How carve scales with the number of carved calls: record, `--list` and
//! replay times for a target called 1,000, 10,000 and 100,000 times with
//! distinct arguments, printed as a table with the growth factor per 10×
//! (linear is 10×).
//!
//! ```text
//! cargo bench --bench scale
//! CARVE_SCALE_SIZES=1000,10000 cargo bench --bench scale   # fewer sizes
//! ```
//!
//! The subject (`benches/scale-subject/`) is a user crate whose one system
//! test makes `SCALE_CALLS` calls; it is copied to a temporary folder and
//! its test binary is built as `cargo test` builds it (debug), then run
//! directly, so cargo's own start-up is not counted:
//!
//! - record: `CARVE=record` (the system test runs and is carved, the carve
//!   file is written, every call is replayed and gets its snapshot);
//! - list: `--list`, which loads the carve file and names every test;
//! - replay: a plain run, which replays and checks every call.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let sizes: Vec<u64> = std::env::var("CARVE_SCALE_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".to_owned())
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .expect("CARVE_SCALE_SIZES: numbers separated by commas")
        })
        .collect();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale");
    let binary = build_subject(&root);
    println!("carve scale bench: one target, N distinct calls, debug build of the subject");
    println!();
    println!(
        "{:>8}  {:>10}  {:>10}  {:>10}",
        "calls", "record", "list", "replay"
    );
    let mut rows: Vec<(u64, [Duration; 3])> = Vec::new();
    for &calls in &sizes {
        let carved = root.join(format!("carved-{calls}"));
        let _ = fs::remove_dir_all(&carved);
        let record = run(&binary, &carved, calls, &[("CARVE", "record")], &[]);
        let list = run(&binary, &carved, calls, &[], &["--list"]);
        let replay = run(&binary, &carved, calls, &[], &[]);
        let times = [record, list, replay];
        println!(
            "{calls:>8}  {:>10}  {:>10}  {:>10}",
            seconds(record),
            seconds(list),
            seconds(replay)
        );
        rows.push((calls, times));
        let _ = fs::remove_dir_all(&carved);
    }
    println!();
    println!("growth per 10× calls (linear: 10×; goal: at most 12×)");
    for pair in rows.windows(2) {
        let ((small, a), (large, b)) = (&pair[0], &pair[1]);
        let per_10x = |i: usize| {
            let ratio = b[i].as_secs_f64() / a[i].as_secs_f64();
            // Normalized to a 10× step, whatever the sizes asked for.
            ratio.powf(1.0 / (*large as f64 / *small as f64).log10())
        };
        println!(
            "{:>8}  {:>9.1}×  {:>9.1}×  {:>9.1}×",
            format!("{small}→{large}"),
            per_10x(0),
            per_10x(1),
            per_10x(2)
        );
    }
}

/// Copies the subject next to carve, builds its test binary and returns its path.
fn build_subject(root: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/scale-subject");
    let crate_dir = root.join("subject");
    for file in ["src/lib.rs", "tests/carve.rs"] {
        let to = crate_dir.join(file);
        fs::create_dir_all(to.parent().expect("a file in a folder")).expect("subject folder");
        fs::copy(source.join(file), &to).expect("copy the subject");
    }
    let manifest = fs::read_to_string(source.join("Cargo.toml.in"))
        .expect("subject manifest")
        .replace("@CARVE_PATH@", env!("CARGO_MANIFEST_DIR"));
    fs::write(crate_dir.join("Cargo.toml"), manifest).expect("write the subject manifest");
    let output = Command::new(env!("CARGO"))
        .args([
            "test",
            "--no-run",
            "--message-format=json",
            "--test",
            "carve",
        ])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run cargo");
    assert!(output.status.success(), "building the scale subject failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["target"]["name"] == "carve")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the test binary")
}

/// Runs the subject's test binary once on `carved` and returns how long it took.
fn run(binary: &Path, carved: &Path, calls: u64, vars: &[(&str, &str)], args: &[&str]) -> Duration {
    let mut command = Command::new(binary);
    for (var, _) in std::env::vars() {
        if var.starts_with("CARVE") || var.starts_with("INSTA_") || var == "CI" {
            command.env_remove(var);
        }
    }
    command
        .args(args)
        .envs(vars.iter().copied())
        .env("CARVE_DIR", carved)
        .env("SCALE_CALLS", calls.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let output = command.output().expect("run the subject's tests");
    let took = start.elapsed();
    assert!(
        output.status.success(),
        "{} {args:?} with {calls} calls failed:\n{}",
        binary.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    took
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}
