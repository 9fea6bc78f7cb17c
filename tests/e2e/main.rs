//! End-to-end tests: a user crate (`fixture/`) that depends on carve by path
//! is copied to a temporary folder and driven through the real workflow with
//! `cargo test`. All copies share one target directory, so carve and its
//! dependencies compile once.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Project {
    dir: PathBuf,
}

struct Run {
    success: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn output(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    #[track_caller]
    fn assert_success(&self) -> &Self {
        assert!(self.success, "expected success:\n{}", self.output());
        self
    }

    #[track_caller]
    fn assert_failure(&self) -> &Self {
        assert_eq!(
            self.code,
            Some(101),
            "expected test failure (101):\n{}",
            self.output()
        );
        self
    }

    #[track_caller]
    fn assert_line(&self, needle: &str) -> &Self {
        // libtest pads test names into columns; compare with single spaces.
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let found = self
            .output()
            .lines()
            .any(|l| squash(l).contains(&squash(needle)));
        assert!(found, "no line with {needle:?} in:\n{}", self.output());
        self
    }
}

/// The entry called `name` of a JSON report's `targets` or `functions`.
#[track_caller]
fn entry<'a>(list: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    list.as_array()
        .and_then(|l| l.iter().find(|e| e["name"] == name))
        .unwrap_or_else(|| panic!("no {name:?} in {list}"))
}

impl Project {
    /// A fresh copy of the fixture crate.
    fn new(name: &str) -> Project {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-{name}"));
        let _ = fs::remove_dir_all(&dir);
        copy_dir(&root.join("tests/e2e/fixture"), &dir);
        let manifest = fs::read_to_string(dir.join("Cargo.toml.in"))
            .unwrap()
            .replace("@CARVE_PATH@", &root.display().to_string())
            // Distinct package names keep the copies' artifacts apart in the shared target dir.
            .replace("@NAME@", name);
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        fs::remove_file(dir.join("Cargo.toml.in")).unwrap();
        fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        Project { dir }
    }

    /// `cargo test --test carve -- <args>` with carve's and insta's variables
    /// cleared, then `env` set.
    fn test(&self, env: &[(&str, &str)], args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&self.dir)
            .args(["test", "--quiet", "--test", "carve", "--"])
            .args(args)
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-target"),
            )
            .env("CARGO_TERM_COLOR", "never")
            .env("INSTA_WORKSPACE_ROOT", &self.dir);
        for var in [
            "CARVE",
            "CARVE_SEED",
            "CARVE_BUDGET",
            "CARVE_DIR",
            "CARVE_REPORT",
            "CARVE_ANNOTATE",
            "CARVE_WORKER",
            "CI",
            "INSTA_UPDATE",
            "INSTA_FORCE_PASS",
            "INSTA_OUTPUT",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("cargo runs");
        Run {
            success: out.status.success(),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn record(&self) -> Run {
        self.test(&[("CARVE", "record")], &[])
    }

    /// The JSON report written to `path`.
    fn report(&self, path: &str) -> serde_json::Value {
        let text = self.read(path);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}\n{text}"))
    }

    fn read(&self, path: &str) -> String {
        fs::read_to_string(self.dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn write(&self, path: &str, text: &str) {
        fs::write(self.dir.join(path), text).unwrap();
    }

    #[track_caller]
    fn replace(&self, path: &str, from: &str, to: &str) {
        let text = self.read(path);
        assert!(text.contains(from), "{path} has no {from:?}");
        self.write(path, &text.replacen(from, to, 1));
    }

    /// Every file under `carved/`, by name.
    fn carved(&self) -> BTreeMap<String, String> {
        let Ok(read) = fs::read_dir(self.dir.join("carved")) else {
            return BTreeMap::new();
        };
        read.map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    fs::read_to_string(&p).unwrap(),
                )
            })
            .collect()
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

fn count(run: &Run, suffix: &str) -> usize {
    run.stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.ends_with(suffix))
        .count()
}

#[test]
fn record_replay_change_review() {
    let p = Project::new("workflow");

    // Record: one file per called target, pretty RON, named arguments, origins.
    p.record().assert_success().assert_line("wrote");
    let carved = p.carved();
    let decode = &carved["decode::cgi_decode.ron"];
    assert!(decode.contains("origin: System(\"decodes\")"), "{decode}");
    assert!(decode.contains("s: \"a+b%21\""), "{decode}");
    assert!(
        decode.contains("outcome: Returned(Ok(\"a b!\"))"),
        "{decode}"
    );
    assert!(
        decode.contains("outcome: Returned(Err(InvalidEncoding))"),
        "{decode}"
    );
    assert_eq!(
        decode.matches("s: \"x\"").count(),
        1,
        "identical calls are stored once:\n{decode}"
    );
    assert!(
        !decode.contains("decodes_again"),
        "the duplicate belongs to the first test by name:\n{decode}"
    );
    let push = &carved["push_all.ron"];
    assert!(push.contains("after: (\n                v: [\n                    1,\n                    2,\n                    3,"), "{push}");
    let bump = &carved["Counter::bump.ron"];
    assert!(
        bump.contains("self: (\n                    n: 0,"),
        "the receiver is an argument:\n{bump}"
    );
    assert!(
        !carved.contains_key("Counter::get.ron"),
        "only marked methods are carved"
    );
    let fact = &carved["fact.ron"];
    for n in 1..=3 {
        assert!(
            fact.contains(&format!("n: {n},")),
            "every recursion level is carved:\n{fact}"
        );
    }
    for n in 10..=13 {
        assert!(
            fact.contains(&format!("n: {n},")),
            "calls on spawned threads are attributed:\n{fact}"
        );
    }
    assert!(
        carved["sum_pairs.ron"].contains("arg0: (1, 2),"),
        "pattern parameters are named by position"
    );
    assert!(carved["first_word.ron"].contains("Returned(\"hello\")"));
    assert!(carved
        .keys()
        .any(|k| k.starts_with("decode::cgi_decode@") && k.ends_with(".snap")));
    assert!(
        !carved.keys().any(|k| k.ends_with(".snap.new")),
        "new snapshots are accepted while recording"
    );

    // Re-recording with nothing changed changes nothing.
    p.record().assert_success().assert_line("unchanged");
    assert_eq!(p.carved(), carved);
    // Neither does recording with system tests in parallel (calls on spawned
    // threads are the one thing that needs a single test thread).
    p.test(
        &[("CARVE", "record")],
        &["--test-threads=4", "--skip", "calls_from_threads"],
    )
    .assert_success();
    assert_eq!(p.carved(), carved);

    // Replay: each carved call is a test, named per the contract.
    let run = p.test(&[], &[]);
    run.assert_success();
    run.assert_line("test carved::decode::cgi_decode::0001 ... ok");
    run.assert_line("test carved::Counter::bump::0001 ... ok");
    run.assert_line("test system::decodes ... ok");
    let list = p.test(&[], &["--list"]);
    list.assert_success()
        .assert_line("carved::fact::0001: test");
    let exact = p.test(&[], &["--exact", "carved::decode::cgi_decode::0002"]);
    assert_eq!(count(&exact, "ok"), 1, "{}", exact.output());

    // Coverage: a summary after every run, the contract's JSON report, and
    // the annotated listing.
    let run = p.test(
        &[
            ("CARVE_REPORT", "report.json"),
            ("CARVE_ANNOTATE", "unlucky"),
        ],
        &[],
    );
    run.assert_success();
    run.assert_line(
        "decode::cgi_decode target 5/5 100.0% reach 5/5 100.0% (3 carved, 0 generated calls)",
    );
    let json = p.report("report.json");
    assert_eq!(json["seed"], 1);
    // cgi_decode: `while i < bytes.len()` true/false and three match arms.
    assert_eq!(
        entry(&json["targets"], "decode::cgi_decode"),
        &serde_json::json!({ "name": "decode::cgi_decode", "branches": 5, "covered": 5,
            "reach_branches": 5, "reach_covered": 5, "carved_calls": 3, "generated_calls": 0,
            "executions": 3, "failures": 0 })
    );
    let unlucky = entry(&json["targets"], "unlucky");
    assert_eq!(
        (&unlucky["branches"], &unlucky["covered"]),
        (&2.into(), &1.into())
    );
    run.assert_line("unlucky: 1/2 branch outcomes covered (50.0%), src/lib.rs");
    run.assert_line("#  124     if x == 13 {");
    run.assert_line("^ missed: `x == 13` true (closest distance 6)");

    // A behaviour change fails with a diff and a pending snapshot.
    p.replace(
        "src/lib.rs",
        "b'+' => out.push(' ')",
        "b'+' => out.push('_')",
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    run.assert_line("test carved::decode::cgi_decode::0001 ... FAILED");
    run.assert_line("Returned(Ok(\"a b!\"))");
    run.assert_line("Returned(Ok(\"a_b!\"))");
    run.assert_line("cargo insta review");
    let pending: Vec<_> = p
        .carved()
        .into_keys()
        .filter(|k| k.ends_with(".snap.new"))
        .collect();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert!(pending[0].starts_with("decode::cgi_decode@"));
    assert_eq!(
        p.carved()["decode::cgi_decode.ron"],
        carved["decode::cgi_decode.ron"],
        "cargo test never writes carve files"
    );

    // With CI=true nothing is written and the test still fails.
    fs::remove_file(p.dir.join("carved").join(&pending[0])).unwrap();
    p.test(&[("CI", "true")], &[]).assert_failure();
    assert!(!p.carved().keys().any(|k| k.ends_with(".snap.new")));

    // Re-recording does not bless the change: the snapshot still disagrees.
    p.record()
        .assert_failure()
        .assert_line("differs from its snapshot");
}

#[test]
fn bad_input_fails_one_test_and_loses_nothing() {
    let p = Project::new("bad-input");
    p.record().assert_success();
    let baseline = p.test(&[], &[]);
    baseline.assert_success();
    let passing = count(&baseline, "ok");

    // A RON syntax error: one failing test named after the file, with
    // file:line:col; every other test still runs.
    let good = p.read("carved/fact.ron");
    p.write(
        "carved/fact.ron",
        &good.replacen("origin: System", "origin System", 1),
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    run.assert_line("test carved::fact ... FAILED");
    run.assert_line("carved/fact.ron:8:19: this carve file does not parse");
    let fact_calls = good.matches("origin:").count();
    assert_eq!(count(&run, "ok"), passing - fact_calls, "{}", run.output());
    // Recording leaves the broken file as it is.
    p.record()
        .assert_failure()
        .assert_line("fact.ron was left as it is");
    assert_eq!(
        p.read("carved/fact.ron"),
        good.replacen("origin: System", "origin System", 1)
    );
    p.write("carved/fact.ron", &good);

    // A carve file of a target that no longer exists.
    p.write(
        "carved/gone::thing.ron",
        &good.replace("target: \"fact\"", "target: \"gone::thing\""),
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    run.assert_line("test carved::gone::thing ... FAILED");
    run.assert_line("Was it renamed or removed?");
    fs::remove_file(p.dir.join("carved/gone::thing.ron")).unwrap();

    // A signature change makes carved arguments stale.
    p.replace(
        "src/lib.rs",
        "pub fn double(s: &str)",
        "pub fn double(text: &str)",
    );
    p.replace(
        "src/lib.rs",
        "let n: u32 = s.trim()",
        "let n: u32 = text.trim()",
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    run.assert_line("test carved::double::0001 ... FAILED");
    run.assert_line("no longer fit its signature `fn double(text: &str) -> Result<u32, String>`");
    run.assert_line("This carve is stale: re-record it");
    run.assert_line("carved/double.ron:10:17: the carved arguments of `double`");
    assert_eq!(
        count(&run, "ok"),
        passing - 2,
        "only the stale calls fail:\n{}",
        run.output()
    );
    p.record().assert_success();
    assert!(p.read("carved/double.ron").contains("text: \"21\""));

    // A target that panics during a system test: the panic is the carved
    // outcome and the system test fails as under libtest.
    let tests = p.read("tests/carve.rs").replace(
        "carve::main!();",
        "#[carve::system_test]\nfn hits_thirteen() {\n    shop::unlucky(13);\n}\n\ncarve::main!();",
    );
    p.write("tests/carve.rs", &tests);
    let run = p.record();
    run.assert_failure();
    run.assert_line("test system::hits_thirteen ... FAILED");
    let unlucky = p.read("carved/unlucky.ron");
    assert!(
        unlucky.contains("outcome: Panicked(\"unlucky number 13\")"),
        "{unlucky}"
    );
    // Replaying the panic passes (it is the recorded outcome) and prints no backtrace.
    let run = p.test(&[], &["carved::unlucky"]);
    run.assert_success();
    assert!(
        !run.output().contains("stack backtrace"),
        "{}",
        run.output()
    );
}

#[test]
fn no_instrument_feature_carves_without_branch_instrumentation() {
    let p = Project::new("no-instrument");
    p.replace(
        "Cargo.toml",
        "carve = { path = ",
        "carve = { features = [\"no-instrument\"], path = ",
    );
    p.record().assert_success();
    let run = p.test(&[("CARVE_REPORT", "report.json")], &[]);
    run.assert_success()
        .assert_line("test carved::decode::cgi_decode::0001 ... ok");
    let json = p.report("report.json");
    let decode = entry(&json["targets"], "decode::cgi_decode");
    assert_eq!(decode["branches"], 0, "{json}");
    assert_eq!(decode["carved_calls"], 3, "{json}");
    assert_eq!(
        json["total"],
        serde_json::json!({ "branches": 0, "covered": 0 })
    );
}

/// A thin target that delegates to `#[carve::instrument]` helpers (an inline
/// module): the report lists the helpers with exact counts, the target's
/// reach adds them up, and generation covers the whole reach.
#[test]
fn coverage_and_generation_follow_the_call_tree() {
    let p = Project::new("call-tree");
    p.record().assert_success();
    let run = p.test(&[("CARVE_REPORT", "report.json")], &[]);
    run.assert_success()
        .assert_line("triple::part helper 7/14 50.0% reached from compatible, parse_triple");
    let json = p.report("report.json");
    // part: let-else 2, `is_empty() || len() > 9` 4, for 2, `!is_ascii_digit()` 2,
    // `len() > 1 && starts_with('0')` 4. parse: `is_some()` 2.
    assert_eq!(
        entry(&json["functions"], "triple::part"),
        &serde_json::json!({ "name": "triple::part", "kind": "helper", "branches": 14,
            "covered": 7, "reached_from": ["compatible", "parse_triple"] })
    );
    let compatible = entry(&json["functions"], "triple::compatible");
    assert_eq!(
        (&compatible["branches"], &compatible["covered"]),
        (&4.into(), &2.into()),
        "`&&` in a return value counts each operand: {json}"
    );
    let thin = entry(&json["targets"], "parse_triple");
    assert_eq!(
        (
            &thin["branches"],
            &thin["reach_branches"],
            &thin["reach_covered"]
        ),
        (&0.into(), &16.into(), &8.into()),
        "{json}"
    );
    assert_eq!(entry(&json["functions"], "parse_triple")["kind"], "target");

    let generate = p.test(
        &[("CARVE", "generate"), ("CARVE_REPORT", "report.json")],
        &["parse_triple"],
    );
    generate
        .assert_success()
        .assert_line("carve: parse_triple: branch coverage 8/16 -> 16/16;");
    let json = p.report("report.json");
    let thin = entry(&json["targets"], "parse_triple");
    assert_eq!(thin["reach_covered"], 16, "{json}");
    assert!(thin["executions"].as_u64().unwrap() > 16, "{json}");
    assert_eq!(entry(&json["functions"], "triple::part")["covered"], 14);

    // A target with nothing to cover in reach gets no budget.
    p.test(&[("CARVE", "generate")], &["first_word"])
        .assert_success()
        .assert_line("carve: first_word: skipped: no branch outcomes in reach");
}

#[test]
fn generate_keeps_found_failures_minimized_and_is_deterministic() {
    let p = Project::new("generate");
    p.record().assert_success();

    // Generation finds the missing-comma panic, minimized to the empty string.
    let run = p.test(&[("CARVE", "generate")], &["split_pair"]);
    run.assert_failure();
    run.assert_line("carve: generating calls with seed 1");
    run.assert_line("carve: split_pair: found a failing input, minimized: split_pair(s:\"\") fails at src/lib.rs:");
    run.assert_line("test generated::split_pair::0001 ... FAILED");
    run.assert_line("generation found a failing input: `split_pair(s:\"\")` panics: a comma");
    let first = p.carved();
    let file = &first["split_pair.ron"];
    assert!(
        file.contains("origin: Found(\n                seed: 1,"),
        "{file}"
    );
    assert!(file.contains("expected: false,"), "{file}");
    assert_eq!(
        file.matches("origin: Found(").count(),
        1,
        "one failure per panic location:\n{file}"
    );

    // The same seed gives the same files, byte for byte.
    p.test(&[("CARVE", "generate")], &["split_pair"])
        .assert_failure();
    assert_eq!(p.carved(), first);
    p.test(
        &[("CARVE", "generate"), ("CARVE_SEED", "2")],
        &["split_pair"],
    );
    assert_eq!(
        p.carved()["split_pair.ron"],
        first["split_pair.ron"],
        "a known failure is not stored twice"
    );

    // Plain `cargo test` keeps failing on the found bug, and only on it.
    let run = p.test(&[], &[]);
    run.assert_failure()
        .assert_line("test generated::split_pair::0001 ... FAILED");
    assert_eq!(count(&run, "FAILED"), 1, "{}", run.output());

    // Marked as intended, the panic is an outcome like any other.
    p.replace(
        "carved/split_pair.ron",
        "expected: false,",
        "expected: true,",
    );
    p.test(&[("CARVE", "generate")], &["split_pair"])
        .assert_success();
    p.test(&[], &[]).assert_success();
}

#[test]
fn generation_survives_aborts_stack_overflows_and_endless_loops() {
    let p = Project::new("crashes");
    p.record().assert_success();
    // abort_on_max(255) aborts; fact(n) recurses n deep (a large n overflows
    // the stack); collatz(0) never returns.
    for (target, crash) in [
        ("abort_on_max", "process killed by signal 6"),
        ("fact", "process killed by signal 6"),
        ("collatz", "did not return within 1s"),
    ] {
        let run = p.test(
            &[("CARVE", "generate"), ("CARVE_BUDGET", "3000")],
            &[target],
        );
        run.assert_failure();
        run.assert_line(&format!("carve: {target}: branch coverage"));
        run.assert_line("worker crash(es) survived");
        let file = p.read(&format!("carved/{target}.ron"));
        assert!(
            file.contains(&format!("outcome: Crashed(\"{crash}")),
            "{target}:\n{file}\n{}",
            run.output()
        );
        assert!(
            file.contains("origin: System("),
            "carved calls are kept:\n{file}"
        );
        run.assert_line("It is not replayed here, as it would take the test binary down");
    }
}
