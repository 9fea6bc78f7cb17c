//! End-to-end tests: a user crate (`fixture/`) that depends on carve by path
//! is copied to a temporary folder and driven through the real workflow with
//! `cargo test`. All copies share one target directory, so carve and its
//! dependencies compile once; each test has its own copy, so tests run in
//! parallel and a failure names the one behaviour that broke.
//!
//! What users read (summaries, listings, reports, carve files, error
//! messages) is checked with inline insta snapshots, after [`normalize`]
//! removes what varies between runs and machines.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use insta::assert_snapshot;

mod accidents;
mod asynchronous;
mod cli;
mod contact;
mod crashes;
mod dictionary;
mod distil;
mod edges;
mod files;
mod formatting;
mod generic;
mod html;
mod insta_config;
mod lcov;
mod leftovers;
mod lists;
mod mutants;
mod notes;
mod partition;
mod reach;
mod rebuild;
mod record;
mod rounds;
mod routes;
mod scale;
mod sealed;
mod settings;
mod setup;
mod shapes;
mod shrinking;
mod tags;
mod types;
mod workers;

struct Project {
    dir: PathBuf,
}

struct Run {
    success: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The folder every copy lives in.
fn tmp() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Whether the spawned cargo must not inherit `var`: carve's own variables,
/// and those that change how insta, carve's CI detection, recording (refused
/// under nextest), colours, backtraces or the stack size (the overflow test)
/// behave in the fixture's test binary.
fn inherited_var_changes_behaviour(var: &str) -> bool {
    var.starts_with("CARVE")
        || var.starts_with("INSTA_")
        || var.starts_with("NEXTEST")
        || var.starts_with("CLICOLOR")
        || matches!(
            var,
            "CI" | "TF_BUILD"
                | "NO_COLOR"
                | "RUST_BACKTRACE"
                | "RUST_LIB_BACKTRACE"
                | "RUST_MIN_STACK"
        )
}

/// Removes what varies between runs and machines: the copy's path, timings,
/// libtest's column padding, trailing blanks.
fn normalize(text: &str) -> String {
    let tmp = tmp().display().to_string();
    text.replace(&tmp, "[tmp]")
        .lines()
        .map(|line| {
            let line = line.trim_end();
            let line = match line.split_once(" ... ") {
                Some((name, result)) if line.starts_with("test ") => {
                    format!("{} ... {result}", name.trim_end())
                }
                _ => line.to_owned(),
            };
            match line.split_once("; finished in ") {
                Some((head, _)) => format!("{head}; finished in [time]"),
                None => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Run {
    fn of(mut cmd: Command) -> Run {
        let out = cmd.output().expect("cargo runs");
        Run {
            success: out.status.success(),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

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

    /// The generation line of `target` (`carve: <target>: branch coverage
    /// …`); fails the test, showing the run's output, when there is none.
    #[track_caller]
    fn generation_line(&self, target: &str) -> &str {
        let start = format!("carve: {target}: branch coverage ");
        self.stdout
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no generation line of {target} in:\n{}", self.output()))
    }

    /// carve's own lines (`carve: ...` and the summary table under it), stdout
    /// first, then stderr: cargo's and insta's lines are left out.
    fn carve_lines(&self) -> String {
        let mut lines = Vec::new();
        for stream in [&self.stdout, &self.stderr] {
            let mut in_carve = false;
            for line in stream.lines() {
                in_carve = line.starts_with("carve:") || (in_carve && line.starts_with("  "));
                if in_carve {
                    lines.push(line);
                }
            }
        }
        normalize(&lines.join("\n"))
    }

    /// [`Run::carve_lines`] without the coverage summary, for tests about
    /// something else.
    fn messages(&self) -> String {
        let summary = self.summary();
        let lines = self.carve_lines();
        let kept: Vec<&str> = lines
            .lines()
            .filter(|l| !summary.lines().any(|s| s == *l))
            .collect();
        kept.join("\n")
    }

    /// The names libtest lists as failed at the end, sorted, and its result
    /// line: printed after every test finished, so never interleaved.
    fn failed(&self) -> String {
        let text = normalize(&self.stdout);
        let mut names: Vec<&str> = text
            .lines()
            .rev()
            .skip_while(|l| !l.starts_with("test result:"))
            .skip(1)
            .skip_while(|l| l.is_empty())
            .take_while(|l| l.starts_with("    "))
            .map(str::trim)
            .collect();
        names.sort();
        let result = text
            .lines()
            .rfind(|l| l.starts_with("test result:"))
            .unwrap_or_else(|| panic!("no result in:\n{}", self.output()));
        format!("{}\n{result}", names.join("\n"))
    }

    /// The one diff insta printed, between its banner and its advice. Run
    /// with `--test-threads=1`: other threads' result lines would land in it.
    fn insta_diff(&self) -> String {
        let text = normalize(&self.stdout);
        assert_eq!(
            text.matches("Snapshot Summary").count(),
            1,
            "one diff expected in:\n{}",
            self.output()
        );
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.contains("Snapshot Summary"))
            .skip(1)
            .take_while(|l| !l.starts_with("To update snapshots"))
            .collect();
        block.join("\n")
    }

    /// The `test <name> ... <result>` lines, sorted: tests run on several
    /// threads, so their order varies. Only for runs where no test prints:
    /// a test's output can split another's line (see [`Run::failed`]).
    fn results(&self) -> String {
        let mut lines: Vec<String> = normalize(&self.stdout)
            .lines()
            .filter(|l| l.starts_with("test ") && l.contains(" ... "))
            .map(str::to_owned)
            .collect();
        lines.sort();
        lines.join("\n")
    }

    /// The coverage summary: from its heading to the last `carve:` line of
    /// the block.
    fn summary(&self) -> String {
        let start = "carve: branch coverage of instrumented functions";
        let text = normalize(&self.stdout);
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with(start))
            .take_while(|l| l.starts_with("carve:") || l.starts_with("  "))
            .filter(|l| !l.starts_with("carve: wrote the coverage report"))
            .collect();
        assert!(!block.is_empty(), "no summary in:\n{}", self.output());
        block.join("\n")
    }

    /// The annotated listing of `function`: its heading to the next blank line.
    fn listing(&self, function: &str) -> String {
        let text = normalize(&self.stdout);
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{function}: ")))
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(
            !block.is_empty(),
            "no listing of {function} in:\n{}",
            self.output()
        );
        block.join("\n")
    }

    /// What libtest prints for the failed test `name`: its `---- name ----`
    /// section.
    fn failure(&self, name: &str) -> String {
        let text = normalize(&self.stdout);
        let heading = format!("---- {name} ");
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with(&heading))
            .skip(1)
            .take_while(|l| !l.starts_with("---- ") && *l != "failures:")
            .collect();
        assert!(
            !block.is_empty(),
            "no failure of {name} in:\n{}",
            self.output()
        );
        block.join("\n").trim_end().to_owned()
    }
}

fn count(run: &Run, suffix: &str) -> usize {
    run.stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.ends_with(suffix))
        .count()
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
        Project::of("fixture", name)
    }

    /// A fresh copy of the crate in `tests/e2e/<fixture>`.
    fn of(fixture: &str, name: &str) -> Project {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = tmp().join(format!("e2e-{name}"));
        let _ = fs::remove_dir_all(&dir);
        copy_dir(&root.join("tests/e2e").join(fixture), &dir);
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

    /// A fresh copy with its system tests recorded.
    fn recorded(name: &str) -> Project {
        let p = Project::new(name);
        p.record().assert_success();
        p
    }

    /// `cargo test --features carve --test carve -- <args>` with the
    /// variables that would change the fixture's behaviour cleared, then
    /// `env` set.
    fn test(&self, env: &[(&str, &str)], args: &[&str]) -> Run {
        let mut cmd = self.cargo(&[
            "test",
            "--quiet",
            "--features",
            "carve",
            "--test",
            "carve",
            "--",
        ]);
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Run::of(cmd)
    }

    /// `cargo <args>` in the copy, with the variables that would change the
    /// fixture's behaviour cleared.
    fn cargo(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&self.dir).args(args);
        for (var, _) in std::env::vars_os() {
            if inherited_var_changes_behaviour(&var.to_string_lossy()) {
                cmd.env_remove(var);
            }
        }
        cmd.env("CARGO_TARGET_DIR", tmp().join("e2e-target"))
            .env("CARGO_TERM_COLOR", "never")
            .env("INSTA_WORKSPACE_ROOT", &self.dir);
        cmd
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
        let path = self.dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[track_caller]
    fn replace(&self, path: &str, from: &str, to: &str) {
        let text = self.read(path);
        assert!(text.contains(from), "{path} has no {from:?}");
        self.write(path, &text.replacen(from, to, 1));
    }

    /// Every file under `carved/`, at any depth, by its path inside it
    /// (`decode/cgi_decode.ron`).
    fn carved(&self) -> BTreeMap<String, String> {
        fn walk(dir: &Path, prefix: &str, files: &mut BTreeMap<String, String>) {
            let Ok(read) = fs::read_dir(dir) else { return };
            for path in read.map(|e| e.unwrap().path()) {
                let name = format!("{prefix}{}", path.file_name().unwrap().to_string_lossy());
                if path.is_dir() {
                    walk(&path, &format!("{name}/"), files);
                } else {
                    files.insert(name, fs::read_to_string(&path).unwrap());
                }
            }
        }
        let mut files = BTreeMap::new();
        walk(&self.dir.join("carved"), "", &mut files);
        files
    }

    /// Moves the files under `carved/` back to where carve stored them before
    /// its names were portable: `carved/<target>.ron` and
    /// `carved/<target>@<id>.snap`, with the target's `::` in the name.
    fn to_old_layout(&self) {
        let carved = self.dir.join("carved");
        for name in self.carved().into_keys() {
            let old = match name.rsplit_once('/') {
                Some((folder, file)) if file.ends_with(".snap") => {
                    format!("{}@{file}", folder.replace('/', "::"))
                }
                _ => name.replace('/', "::"),
            };
            fs::rename(carved.join(&name), carved.join(old)).unwrap();
        }
        for path in fs::read_dir(&carved).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                fs::remove_dir_all(path).unwrap();
            }
        }
    }

    /// The paths of the files under `carved/`, one a line.
    fn carved_names(&self) -> String {
        self.carved().into_keys().collect::<Vec<_>>().join("\n")
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

// Recording.

/// One file per called target, pretty RON, named arguments, origins; the
/// insta snapshots of the calls are accepted while recording.
#[test]
fn record_writes_one_carve_file_per_target() {
    let p = Project::new("record");
    let run = p.record();
    run.assert_success();
    assert_quiet_acceptance(&run);
    assert_snapshot!(run.messages(), @r#"
        carve: carved 5 system test(s); writing carved
        carve: wrote carved/Counter/bump.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/abort_on_max.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/compatible.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/decode/cgi_decode.ron: 3 call(s) stored, 4 carved in this run
        carve: wrote carved/double.ron: 2 call(s) stored, 2 carved in this run
        carve: wrote carved/fact.ron: 13 call(s) stored, 16 carved in this run
        carve: wrote carved/first_word.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/parse_triple.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/push_all.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/split_pair.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/sum_pairs.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote carved/unlucky.ron: 1 call(s) stored, 1 carved in this run
        carve: wrote 1 new snapshot(s) for Counter::bump in carved/Counter/bump/
        carve: wrote 1 new snapshot(s) for abort_on_max in carved/abort_on_max/
        carve: wrote 1 new snapshot(s) for collatz in carved/collatz/
        carve: wrote 1 new snapshot(s) for compatible in carved/compatible/
        carve: wrote 3 new snapshot(s) for decode::cgi_decode in carved/decode/cgi_decode/
        carve: wrote 2 new snapshot(s) for double in carved/double/
        carve: wrote 13 new snapshot(s) for fact in carved/fact/
        carve: wrote 1 new snapshot(s) for first_word in carved/first_word/
        carve: wrote 1 new snapshot(s) for parse_triple in carved/parse_triple/
        carve: wrote 1 new snapshot(s) for push_all in carved/push_all/
        carve: wrote 1 new snapshot(s) for split_pair in carved/split_pair/
        carve: wrote 1 new snapshot(s) for sum_pairs in carved/sum_pairs/
        carve: wrote 1 new snapshot(s) for unlucky in carved/unlucky/
        "#);
    assert_snapshot!(p.carved_names(), @r#"
        Counter/bump.ron
        Counter/bump/666aa873b198.snap
        abort_on_max.ron
        abort_on_max/09c0c7bb39ca.snap
        collatz.ron
        collatz/2683040e83f0.snap
        compatible.ron
        compatible/47a632b1a58e.snap
        decode/cgi_decode.ron
        decode/cgi_decode/09c4d6aeb0d6.snap
        decode/cgi_decode/a957222d34f0.snap
        decode/cgi_decode/c4e64ac555c6.snap
        double.ron
        double/09c4d6aeb0d6.snap
        double/1e5fa78e969e.snap
        fact.ron
        fact/2671d80e83e1.snap
        fact/26757c0e83e4.snap
        fact/2678e40e83e7.snap
        fact/267f600e83ec.snap
        fact/2683040e83f0.snap
        fact/26867c0e83f3.snap
        fact/2689e00e83f6.snap
        fact/2694040e83fe.snap
        fact/2697780e8401.snap
        fact/472938aa22b8.snap
        fact/472c9caa22bb.snap
        fact/473014aa22be.snap
        fact/473338aa22c1.snap
        first_word.ron
        first_word/f757ab1e8991.snap
        parse_triple.ron
        parse_triple/efa6a8718c21.snap
        push_all.ron
        push_all/14eeb06f7199.snap
        split_pair.ron
        split_pair/6e5b500d9738.snap
        sum_pairs.ron
        sum_pairs/acd2eae35ecb.snap
        unlucky.ron
        unlucky/09b9cbbb39c4.snap
        "#);
    let carved = p.carved();
    // Identical calls are stored once, under the first test by name
    // (`decodes`, not `decodes_again`).
    assert_snapshot!(carved["decode/cgi_decode.ron"], @r#"
        // Calls of `decode::cgi_decode` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "decode::cgi_decode",
            calls: [
                (
                    origin: System("decodes"),
                    args: (
                        s: "a+b%21",
                    ),
                    outcome: Returned(Ok("a b!")),
                ),
                (
                    origin: System("decodes"),
                    args: (
                        s: "x",
                    ),
                    outcome: Returned(Ok("x")),
                ),
                (
                    origin: System("decodes"),
                    args: (
                        s: "%zz",
                    ),
                    outcome: Returned(Err(InvalidEncoding)),
                ),
            ],
        )
        "#);
    // A `&mut` parameter's state after the call is carved too.
    assert_snapshot!(carved["push_all.ron"], @r#"
        // Calls of `push_all` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "push_all",
            calls: [
                (
                    origin: System("exercises_parameter_kinds"),
                    args: (
                        v: b"\x01",
                        items: b"\x02\x03",
                    ),
                    outcome: Returned(3),
                    after: (
                        v: b"\x01\x02\x03",
                    ),
                ),
            ],
        )
        "#);
    // The receiver is an argument.
    assert_snapshot!(carved["Counter/bump.ron"], @r#"
        // Calls of `Counter::bump` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "Counter::bump",
            calls: [
                (
                    origin: System("exercises_parameter_kinds"),
                    args: (
                        self: Counter(
                            n: 0,
                        ),
                        by: 2,
                    ),
                    outcome: Returned(2),
                    after: (
                        self: Counter(
                            n: 2,
                        ),
                    ),
                ),
            ],
        )
        "#);
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
}

/// Accepting new snapshots prints carve's one line per target, and nothing
/// from insta about pending snapshots or a stop that did not happen.
#[track_caller]
fn assert_quiet_acceptance(run: &Run) {
    for noise in [
        ".snap.new",
        "Stopped on the first failure",
        "Snapshot Summary",
        "cargo insta",
    ] {
        assert!(
            !run.output().contains(noise),
            "{noise:?} in:\n{}",
            run.output()
        );
    }
}

/// Carve files and snapshots of the old layout (`carved/<target>.ron`,
/// `carved/<target>@<id>.snap`: names Windows rejects) fail replay with one
/// test that says how to move them; `CARVE=record` moves them, and says so.
#[test]
fn record_moves_files_of_the_old_layout() {
    let p = Project::recorded("old-layout");
    let recorded = p.carved();
    p.to_old_layout();
    assert!(p.carved().contains_key("decode::cgi_decode.ron"));
    assert!(p.carved().contains_key("fact.ron"));

    let replay = p.test(&[], &[]);
    replay.assert_failure();
    assert_eq!(count(&replay, "FAILED"), 1, "{}", replay.output());
    assert_snapshot!(replay.failure("carved"), @r#"carved: 30 file(s) are in the old layout of carve, with `::` or `@` in their names (which Windows rejects), e.g. `carved/Counter::bump.ron`; the calls of 13 target(s) (Counter::bump, abort_on_max, collatz, compatible, decode::cgi_decode, and 8 more) are not replayed. Run `CARVE=record cargo test` once to move them to portable names (e.g. `carved/Counter/bump.ron`, with its snapshots in `carved/Counter/bump/`), then commit the move."#);

    let run = p.record();
    run.assert_success();
    assert_quiet_acceptance(&run);
    assert_snapshot!(run.messages(), @r#"
        carve: moved carved/Counter::bump.ron and 1 snapshot(s) to carved/Counter/bump.ron (portable file names)
        carve: moved 1 snapshot(s) of abort_on_max to carved/abort_on_max/ (portable file names)
        carve: moved 1 snapshot(s) of collatz to carved/collatz/ (portable file names)
        carve: moved 1 snapshot(s) of compatible to carved/compatible/ (portable file names)
        carve: moved carved/decode::cgi_decode.ron and 3 snapshot(s) to carved/decode/cgi_decode.ron (portable file names)
        carve: moved 2 snapshot(s) of double to carved/double/ (portable file names)
        carve: moved 13 snapshot(s) of fact to carved/fact/ (portable file names)
        carve: moved 1 snapshot(s) of first_word to carved/first_word/ (portable file names)
        carve: moved 1 snapshot(s) of parse_triple to carved/parse_triple/ (portable file names)
        carve: moved 1 snapshot(s) of push_all to carved/push_all/ (portable file names)
        carve: moved 1 snapshot(s) of split_pair to carved/split_pair/ (portable file names)
        carve: moved 1 snapshot(s) of sum_pairs to carved/sum_pairs/ (portable file names)
        carve: moved 1 snapshot(s) of unlucky to carved/unlucky/ (portable file names)
        carve: carved 5 system test(s); writing carved
        carve: unchanged carved/Counter/bump.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/abort_on_max.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/compatible.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/decode/cgi_decode.ron: 3 call(s) stored, 4 carved in this run
        carve: unchanged carved/double.ron: 2 call(s) stored, 2 carved in this run
        carve: unchanged carved/fact.ron: 13 call(s) stored, 16 carved in this run
        carve: unchanged carved/first_word.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/parse_triple.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/push_all.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/split_pair.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/sum_pairs.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/unlucky.ron: 1 call(s) stored, 1 carved in this run
        "#);
    assert_eq!(p.carved(), recorded, "moved, not rewritten");
    p.test(&[], &[]).assert_success();
}

#[test]
fn rerecording_unchanged_code_changes_nothing() {
    let p = Project::recorded("rerecord");
    let carved = p.carved();
    let run = p.record();
    run.assert_success();
    assert_snapshot!(run.messages(), @r#"
        carve: carved 5 system test(s); writing carved
        carve: unchanged carved/Counter/bump.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/abort_on_max.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/compatible.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/decode/cgi_decode.ron: 3 call(s) stored, 4 carved in this run
        carve: unchanged carved/double.ron: 2 call(s) stored, 2 carved in this run
        carve: unchanged carved/fact.ron: 13 call(s) stored, 16 carved in this run
        carve: unchanged carved/first_word.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/parse_triple.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/push_all.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/split_pair.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/sum_pairs.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/unlucky.ron: 1 call(s) stored, 1 carved in this run
        "#);
    assert_eq!(p.carved(), carved);
    // Neither does recording with system tests in parallel (calls on spawned
    // threads are the one thing that needs a single test thread).
    p.test(
        &[("CARVE", "record")],
        &["--test-threads=4", "--skip", "calls_from_threads"],
    )
    .assert_success();
    assert_eq!(p.carved(), carved);
}

// Replaying.

/// Each carved call is a test, named per the contract, next to the system tests.
#[test]
fn replay_runs_each_carved_call_as_a_named_test() {
    let p = Project::recorded("replay");
    let run = p.test(&[], &[]);
    run.assert_success();
    assert_snapshot!(run.results(), @r#"
        test carved::Counter::bump::0001 ... ok
        test carved::abort_on_max::0001 ... ok
        test carved::collatz::0001 ... ok
        test carved::compatible::0001 ... ok
        test carved::decode::cgi_decode::0001 ... ok
        test carved::decode::cgi_decode::0002 ... ok
        test carved::decode::cgi_decode::0003 ... ok
        test carved::double::0001 ... ok
        test carved::double::0002 ... ok
        test carved::fact::0001 ... ok
        test carved::fact::0002 ... ok
        test carved::fact::0003 ... ok
        test carved::fact::0004 ... ok
        test carved::fact::0005 ... ok
        test carved::fact::0006 ... ok
        test carved::fact::0007 ... ok
        test carved::fact::0008 ... ok
        test carved::fact::0009 ... ok
        test carved::fact::0010 ... ok
        test carved::fact::0011 ... ok
        test carved::fact::0012 ... ok
        test carved::fact::0013 ... ok
        test carved::first_word::0001 ... ok
        test carved::parse_triple::0001 ... ok
        test carved::push_all::0001 ... ok
        test carved::split_pair::0001 ... ok
        test carved::sum_pairs::0001 ... ok
        test carved::unlucky::0001 ... ok
        test system::calls_from_threads ... ok
        test system::decodes ... ok
        test system::decodes_again ... ok
        test system::exercises_parameter_kinds ... ok
        test system::parses_triples ... ok
        "#);
    let list = p.test(&[], &["--list"]);
    list.assert_success();
    assert_snapshot!(normalize(&list.stdout), @r#"
        carved::Counter::bump::0001: test
        carved::abort_on_max::0001: test
        carved::collatz::0001: test
        carved::compatible::0001: test
        carved::decode::cgi_decode::0001: test
        carved::decode::cgi_decode::0002: test
        carved::decode::cgi_decode::0003: test
        carved::double::0001: test
        carved::double::0002: test
        carved::fact::0001: test
        carved::fact::0002: test
        carved::fact::0003: test
        carved::fact::0004: test
        carved::fact::0005: test
        carved::fact::0006: test
        carved::fact::0007: test
        carved::fact::0008: test
        carved::fact::0009: test
        carved::fact::0010: test
        carved::fact::0011: test
        carved::fact::0012: test
        carved::fact::0013: test
        carved::first_word::0001: test
        carved::parse_triple::0001: test
        carved::push_all::0001: test
        carved::split_pair::0001: test
        carved::sum_pairs::0001: test
        carved::unlucky::0001: test
        system::calls_from_threads: test
        system::decodes: test
        system::decodes_again: test
        system::exercises_parameter_kinds: test
        system::parses_triples: test
        "#);
    let exact = p.test(&[], &["--exact", "carved::decode::cgi_decode::0002"]);
    exact.assert_success();
    assert_snapshot!(exact.results(), @r#"test carved::decode::cgi_decode::0002 ... ok"#);
}

/// A summary after every run, the contract's JSON report, and the annotated
/// listing.
#[test]
fn replay_prints_the_summary_the_report_and_the_annotated_listing() {
    let p = Project::recorded("coverage");
    let run = p.test(
        &[
            ("CARVE_REPORT", "report.json"),
            ("CARVE_ANNOTATE", "unlucky"),
        ],
        &[],
    );
    run.assert_success();
    // cgi_decode: `while i < bytes.len()` true/false and three match arms.
    assert_snapshot!(run.summary(), @r#"
        carve: branch coverage of instrumented functions by carved and generated calls
          function            kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
          Counter::bump       target     -                    -               -     reach    -              (1 carved, 0 generated calls)
          Counter::get        helper     -                    -               -     not reached
          abort_on_max        target     1/2     50.0%        0/2             3/5   reach    1/2     50.0%  (1 carved, 0 generated calls)
          collatz             target     4/4    100.0%        2/4            12/14  reach    4/4    100.0%  (1 carved, 0 generated calls)
          compatible          target     -                    -               -     reach   10/20    50.0%  (1 carved, 0 generated calls)
          decode::cgi_decode  target     5/5    100.0%        1/1            10/11  reach    5/5    100.0%  (3 carved, 0 generated calls)
          double              target     -                    -               2/2   reach    -              (2 carved, 0 generated calls)
          fact                target     2/2    100.0%        1/1             8/9   reach    2/2    100.0%  (13 carved, 0 generated calls)
          first_word          target     -                    -               -     reach    -              (1 carved, 0 generated calls)
          parse_triple        target     -                    -               -     reach    8/16    50.0%  (1 carved, 0 generated calls)
          push_all            target     -                    -               -     reach    -              (1 carved, 0 generated calls)
          split_pair          target     1/2     50.0%        1/1             3/5   reach    1/2     50.0%  (1 carved, 0 generated calls)
          sum_pairs           target     -                    -               4/4   reach    -              (1 carved, 0 generated calls)
          triple::compatible  helper     2/4     50.0%        0/3             6/11  reached from compatible
          triple::parse       helper     1/2     50.0%        -               1/1   reached from compatible, parse_triple
          triple::part        helper     7/14    50.0%        1/2            11/19  reached from compatible, parse_triple
          unlucky             target     1/2     50.0%        0/2             3/5   reach    1/2     50.0%  (1 carved, 0 generated calls)
          total                         24/37    64.9%        6/16           63/86
        carve: hint: `Counter::bump`, `double`, `first_word`, `push_all`, `sum_pairs` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
        "#);
    assert_snapshot!(run.listing("unlucky"), @r#"
        unlucky: 1/2 branch outcomes covered (50.0%), boundaries 0/2, weak mutants killed 3/5, src/lib.rs
           121 pub fn unlucky(x: u8) -> u8 {
        #  122     if x == 13 {
                      ^ missed: `x == 13` true (closest distance 6)
                      ^ missed boundary: `x == 13` with the left operand one below the right (closest distance 5)
                      ^ missed boundary: `x == 13` with the left operand one above the right (closest distance 7)
                      ^ mutant survives: `==` → `>` in `x == 13` (closest distance 6)
                      ^ mutant survives: `==` → `>=` in `x == 13` (closest distance 7)
           123         panic!("unlucky number {x}");
           124     }
           125     x
           126 }
        "#);
    run.assert_line("carve: wrote the coverage report to report.json");
    assert_snapshot!(p.read("report.json"), @r#"
        {
          "seed": 1,
          "targets": [
            {
              "name": "Counter::bump",
              "branches": 0,
              "covered": 0,
              "reach_branches": 0,
              "reach_covered": 0,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0,
              "reach_boundaries": 0,
              "reach_boundaries_covered": 0,
              "reach_mutants": 0,
              "reach_mutants_killed": 0
            },
            {
              "name": "abort_on_max",
              "branches": 2,
              "covered": 1,
              "reach_branches": 2,
              "reach_covered": 1,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 2,
              "boundaries_covered": 0,
              "mutants": 5,
              "mutants_killed": 3,
              "reach_boundaries": 2,
              "reach_boundaries_covered": 0,
              "reach_mutants": 5,
              "reach_mutants_killed": 3
            },
            {
              "name": "collatz",
              "branches": 4,
              "covered": 4,
              "reach_branches": 4,
              "reach_covered": 4,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 4,
              "boundaries_covered": 2,
              "mutants": 14,
              "mutants_killed": 12,
              "reach_boundaries": 4,
              "reach_boundaries_covered": 2,
              "reach_mutants": 14,
              "reach_mutants_killed": 12
            },
            {
              "name": "compatible",
              "branches": 0,
              "covered": 0,
              "reach_branches": 20,
              "reach_covered": 10,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0,
              "reach_boundaries": 5,
              "reach_boundaries_covered": 1,
              "reach_mutants": 31,
              "reach_mutants_killed": 18
            },
            {
              "name": "decode::cgi_decode",
              "branches": 5,
              "covered": 5,
              "reach_branches": 5,
              "reach_covered": 5,
              "carved_calls": 3,
              "generated_calls": 0,
              "executions": 3,
              "failures": 0,
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 11,
              "mutants_killed": 10,
              "reach_boundaries": 1,
              "reach_boundaries_covered": 1,
              "reach_mutants": 11,
              "reach_mutants_killed": 10
            },
            {
              "name": "double",
              "branches": 0,
              "covered": 0,
              "reach_branches": 0,
              "reach_covered": 0,
              "carved_calls": 2,
              "generated_calls": 0,
              "executions": 2,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 2,
              "mutants_killed": 2,
              "reach_boundaries": 0,
              "reach_boundaries_covered": 0,
              "reach_mutants": 2,
              "reach_mutants_killed": 2
            },
            {
              "name": "fact",
              "branches": 2,
              "covered": 2,
              "reach_branches": 2,
              "reach_covered": 2,
              "carved_calls": 13,
              "generated_calls": 0,
              "executions": 13,
              "failures": 0,
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 9,
              "mutants_killed": 8,
              "reach_boundaries": 1,
              "reach_boundaries_covered": 1,
              "reach_mutants": 9,
              "reach_mutants_killed": 8
            },
            {
              "name": "first_word",
              "branches": 0,
              "covered": 0,
              "reach_branches": 0,
              "reach_covered": 0,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0,
              "reach_boundaries": 0,
              "reach_boundaries_covered": 0,
              "reach_mutants": 0,
              "reach_mutants_killed": 0
            },
            {
              "name": "parse_triple",
              "branches": 0,
              "covered": 0,
              "reach_branches": 16,
              "reach_covered": 8,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0,
              "reach_boundaries": 2,
              "reach_boundaries_covered": 1,
              "reach_mutants": 20,
              "reach_mutants_killed": 12
            },
            {
              "name": "push_all",
              "branches": 0,
              "covered": 0,
              "reach_branches": 0,
              "reach_covered": 0,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0,
              "reach_boundaries": 0,
              "reach_boundaries_covered": 0,
              "reach_mutants": 0,
              "reach_mutants_killed": 0
            },
            {
              "name": "split_pair",
              "branches": 2,
              "covered": 1,
              "reach_branches": 2,
              "reach_covered": 1,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 5,
              "mutants_killed": 3,
              "reach_boundaries": 1,
              "reach_boundaries_covered": 1,
              "reach_mutants": 5,
              "reach_mutants_killed": 3
            },
            {
              "name": "sum_pairs",
              "branches": 0,
              "covered": 0,
              "reach_branches": 0,
              "reach_covered": 0,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 4,
              "mutants_killed": 4,
              "reach_boundaries": 0,
              "reach_boundaries_covered": 0,
              "reach_mutants": 4,
              "reach_mutants_killed": 4
            },
            {
              "name": "unlucky",
              "branches": 2,
              "covered": 1,
              "reach_branches": 2,
              "reach_covered": 1,
              "carved_calls": 1,
              "generated_calls": 0,
              "executions": 1,
              "failures": 0,
              "boundaries": 2,
              "boundaries_covered": 0,
              "mutants": 5,
              "mutants_killed": 3,
              "reach_boundaries": 2,
              "reach_boundaries_covered": 0,
              "reach_mutants": 5,
              "reach_mutants_killed": 3
            }
          ],
          "functions": [
            {
              "name": "Counter::bump",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "Counter::get",
              "kind": "helper",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "abort_on_max",
              "kind": "target",
              "branches": 2,
              "covered": 1,
              "reached_from": [],
              "boundaries": 2,
              "boundaries_covered": 0,
              "mutants": 5,
              "mutants_killed": 3
            },
            {
              "name": "collatz",
              "kind": "target",
              "branches": 4,
              "covered": 4,
              "reached_from": [],
              "boundaries": 4,
              "boundaries_covered": 2,
              "mutants": 14,
              "mutants_killed": 12
            },
            {
              "name": "compatible",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "decode::cgi_decode",
              "kind": "target",
              "branches": 5,
              "covered": 5,
              "reached_from": [],
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 11,
              "mutants_killed": 10
            },
            {
              "name": "double",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 2,
              "mutants_killed": 2
            },
            {
              "name": "fact",
              "kind": "target",
              "branches": 2,
              "covered": 2,
              "reached_from": [],
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 9,
              "mutants_killed": 8
            },
            {
              "name": "first_word",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "parse_triple",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "push_all",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 0,
              "mutants_killed": 0
            },
            {
              "name": "split_pair",
              "kind": "target",
              "branches": 2,
              "covered": 1,
              "reached_from": [],
              "boundaries": 1,
              "boundaries_covered": 1,
              "mutants": 5,
              "mutants_killed": 3
            },
            {
              "name": "sum_pairs",
              "kind": "target",
              "branches": 0,
              "covered": 0,
              "reached_from": [],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 4,
              "mutants_killed": 4
            },
            {
              "name": "triple::compatible",
              "kind": "helper",
              "branches": 4,
              "covered": 2,
              "reached_from": [
                "compatible"
              ],
              "boundaries": 3,
              "boundaries_covered": 0,
              "mutants": 11,
              "mutants_killed": 6
            },
            {
              "name": "triple::parse",
              "kind": "helper",
              "branches": 2,
              "covered": 1,
              "reached_from": [
                "compatible",
                "parse_triple"
              ],
              "boundaries": 0,
              "boundaries_covered": 0,
              "mutants": 1,
              "mutants_killed": 1
            },
            {
              "name": "triple::part",
              "kind": "helper",
              "branches": 14,
              "covered": 7,
              "reached_from": [
                "compatible",
                "parse_triple"
              ],
              "boundaries": 2,
              "boundaries_covered": 1,
              "mutants": 19,
              "mutants_killed": 11
            },
            {
              "name": "unlucky",
              "kind": "target",
              "branches": 2,
              "covered": 1,
              "reached_from": [],
              "boundaries": 2,
              "boundaries_covered": 0,
              "mutants": 5,
              "mutants_killed": 3
            }
          ],
          "total": {
            "branches": 37,
            "covered": 24,
            "boundaries": 16,
            "boundaries_covered": 6,
            "mutants": 86,
            "mutants_killed": 63
          }
        }
        "#);
}

/// A behaviour change fails with a diff and a pending snapshot; the carve
/// file is left alone.
#[test]
fn a_behaviour_change_fails_with_a_diff_and_a_pending_snapshot() {
    let p = Project::recorded("change");
    let before = p.carved();
    p.replace(
        "src/lib.rs",
        "b'+' => out.push(' ')",
        "b'+' => out.push('_')",
    );
    let run = p.test(&[], &["--test-threads=1"]);
    run.assert_failure();
    assert_snapshot!(run.failed(), @r#"
        carved::decode::cgi_decode::0001
        system::decodes
        test result: FAILED. 31 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
        "#);
    assert_snapshot!(run.failure("carved::decode::cgi_decode::0001"), @r#"carved/decode/cgi_decode.ron:10:19: the outcome of `decode::cgi_decode(s:"a+b%21")` differs from its snapshot carved/decode/cgi_decode/a957222d34f0.snap (diff above). If the change is intended, accept it with `cargo insta review`; otherwise fix the regression."#);
    assert_snapshot!(run.insta_diff(), @r#"
        Snapshot file: carved/decode/cgi_decode/a957222d34f0.snap
        Snapshot: a957222d34f0
        Source: tests/carve.rs:50
        ────────────────────────────────────────────────────────────────────────────────
        decode::cgi_decode(s:"a+b%21")
        ────────────────────────────────────────────────────────────────────────────────
        -old snapshot
        +new results
        ────────────┬───────────────────────────────────────────────────────────────────
            1       │-Returned(Ok("a b!"))
                  1 │+Returned(Ok("a_b!"))
        ────────────┴───────────────────────────────────────────────────────────────────
        "#);
    let pending: Vec<_> = p
        .carved()
        .into_keys()
        .filter(|k| k.ends_with(".snap.new"))
        .collect();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert!(pending[0].starts_with("decode/cgi_decode/"), "{pending:?}");
    assert_eq!(
        p.carved()["decode/cgi_decode.ron"],
        before["decode/cgi_decode.ron"],
        "cargo test never writes carve files"
    );
}

/// A call whose snapshot is missing fails replay, with a pending snapshot
/// to review; recording writes the snapshot and drops the pending one.
#[test]
fn a_missing_snapshot_fails_replay_and_recording_writes_it() {
    let p = Project::recorded("missing-snapshot");
    let recorded = p.carved();
    let snapshot = "carved/decode/cgi_decode/a957222d34f0.snap";
    fs::remove_file(p.dir.join(snapshot)).unwrap();
    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::decode::cgi_decode::0001"), @r#"carved/decode/cgi_decode.ron:10:19: `decode::cgi_decode(s:"a+b%21")` has no snapshot yet (carved/decode/cgi_decode/a957222d34f0.snap): write it with `CARVE=record cargo test`, or accept it with `cargo insta review`."#);
    assert!(p
        .carved()
        .contains_key("decode/cgi_decode/a957222d34f0.snap.new"));

    let run = p.record();
    run.assert_success();
    assert_quiet_acceptance(&run);
    run.assert_line(
        "carve: wrote 1 new snapshot(s) for decode::cgi_decode in carved/decode/cgi_decode/",
    );
    assert_eq!(
        p.carved(),
        recorded,
        "the same snapshot, and no pending one"
    );
}

/// With CI=true nothing is written and the test still fails.
#[test]
fn under_ci_a_behaviour_change_fails_without_a_pending_snapshot() {
    let p = Project::recorded("change-ci");
    p.replace(
        "src/lib.rs",
        "b'+' => out.push(' ')",
        "b'+' => out.push('_')",
    );
    let run = p.test(&[("CI", "true")], &[]);
    run.assert_failure()
        .assert_line("test carved::decode::cgi_decode::0001 ... FAILED");
    assert!(!p.carved().keys().any(|k| k.ends_with(".snap.new")));
}

/// Re-recording does not bless a change: the snapshot still disagrees.
#[test]
fn rerecording_does_not_bless_a_behaviour_change() {
    let p = Project::recorded("change-record");
    let snapshot = "decode/cgi_decode/a957222d34f0.snap";
    let committed = p.carved()[snapshot].clone();
    p.replace(
        "src/lib.rs",
        "b'+' => out.push(' ')",
        "b'+' => out.push('_')",
    );
    let run = p.test(&[("CARVE", "record")], &["--test-threads=1"]);
    run.assert_failure();
    assert_eq!(p.carved()[snapshot], committed, "the snapshot is untouched");
    assert_snapshot!(run.failed(), @r#"
        carved::decode::cgi_decode::0001
        test result: FAILED. 27 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
        "#);
    assert_snapshot!(run.failure("carved::decode::cgi_decode::0001"), @r#"carved/decode/cgi_decode.ron:10:19: the outcome of `decode::cgi_decode(s:"a+b%21")` differs from its snapshot carved/decode/cgi_decode/a957222d34f0.snap (diff above). If the change is intended, accept it with `cargo insta review`; otherwise fix the regression."#);
    assert_snapshot!(run.insta_diff(), @r#"
        Snapshot file: carved/decode/cgi_decode/a957222d34f0.snap
        Snapshot: a957222d34f0
        Source: tests/carve.rs:50
        ────────────────────────────────────────────────────────────────────────────────
        decode::cgi_decode(s:"a+b%21")
        ────────────────────────────────────────────────────────────────────────────────
        -old snapshot
        +new results
        ────────────┬───────────────────────────────────────────────────────────────────
            1       │-Returned(Ok("a b!"))
                  1 │+Returned(Ok("a_b!"))
        ────────────┴───────────────────────────────────────────────────────────────────
        "#);
}

// Bad input fails one test and loses nothing.

/// A RON syntax error: one failing test named after the file, with
/// file:line:col; every other test still runs; recording leaves the file.
#[test]
fn a_malformed_carve_file_fails_one_test_and_is_left_as_it_is() {
    let p = Project::recorded("malformed");
    let baseline = p.test(&[], &[]);
    baseline.assert_success();
    let passing = count(&baseline, "ok");
    let good = p.read("carved/fact.ron");
    let bad = good.replacen("origin: System", "origin System", 1);
    p.write("carved/fact.ron", &bad);

    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::fact"), @r#"carved/fact.ron:9:19: this carve file does not parse: Expected colon. Fix it by hand (see any other file in the same folder for the shape), or delete it and re-record with `CARVE=record cargo test`."#);
    let fact_calls = good.matches("origin:").count();
    assert_eq!(count(&run, "ok"), passing - fact_calls, "{}", run.output());
    assert_eq!(count(&run, "FAILED"), 1, "{}", run.output());

    let record = p.record();
    record.assert_failure();
    assert_snapshot!(record.messages(), @r#"
        carve: carved 5 system test(s); writing carved
        carve: unchanged carved/Counter/bump.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/abort_on_max.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/collatz.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/compatible.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/decode/cgi_decode.ron: 3 call(s) stored, 4 carved in this run
        carve: unchanged carved/double.ron: 2 call(s) stored, 2 carved in this run
        carve: unchanged carved/first_word.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/parse_triple.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/push_all.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/split_pair.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/sum_pairs.ron: 1 call(s) stored, 1 carved in this run
        carve: unchanged carved/unlucky.ron: 1 call(s) stored, 1 carved in this run
        carve: carved/fact.ron:9:19: this carve file does not parse: Expected colon. Fix it by hand (see any other file in the same folder for the shape), or delete it and re-record with `CARVE=record cargo test`.
        carve: carved/fact.ron was left as it is
        "#);
    assert_eq!(p.read("carved/fact.ron"), bad);
}

#[test]
fn a_carve_file_of_a_removed_target_fails_its_test() {
    let p = Project::recorded("removed");
    let fact = p.read("carved/fact.ron");
    p.write(
        "carved/gone/thing.ron",
        &fact.replace("target: \"fact\"", "target: \"gone::thing\""),
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_eq!(count(&run, "FAILED"), 1, "{}", run.output());
    assert_snapshot!(run.failure("carved::gone::thing"), @r#"carved/gone/thing.ron: no target `gone::thing` is registered in this test binary. Was it renamed or removed? Then delete this file and its snapshot folder carved/gone/thing/ (or move them to the new name's place), and re-record with `CARVE=record cargo test`. If it still exists, check that it is still marked `#[carve::target]` and that this test links its crate (`use mycrate as _;`)."#);
}

/// A signature change makes carved arguments stale: only their calls fail,
/// and re-recording fixes them.
#[test]
fn a_signature_change_makes_carved_arguments_stale() {
    let p = Project::recorded("stale");
    let passing = count(p.test(&[], &[]).assert_success(), "ok");
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
    assert_snapshot!(run.failure("carved::double::0001"), @r#"carved/double.ron:11:17: the carved arguments of `double` no longer fit its signature `fn double(text: &str) -> Result<u32, String>` (Unexpected field named `s` in `arguments`, expected `text` instead). This carve is stale: re-record it with `CARVE=record cargo test`, or delete the entry."#);
    assert_eq!(
        count(&run, "ok"),
        passing - 2,
        "only the stale calls fail:\n{}",
        run.output()
    );
    p.record().assert_success();
    assert!(p.read("carved/double.ron").contains("text: \"21\""));
}

/// A target that panics during a system test: the panic is the carved
/// outcome and the system test fails as under libtest.
/// A panic the system test expects is carved as the call's outcome.
#[test]
fn a_panic_in_a_system_test_is_carved_and_replays_quietly() {
    let p = Project::new("panic");
    let tests = p.read("tests/carve.rs").replace(
        "carve::main!();",
        "#[carve::system_test]\n#[should_panic(expected = \"unlucky\")]\nfn hits_thirteen() {\n    shop::unlucky(13);\n}\n\ncarve::main!();",
    );
    p.write("tests/carve.rs", &tests);
    let run = p.record();
    run.assert_success();
    run.assert_line("test system::hits_thirteen ... ok");
    let unlucky = p.read("carved/unlucky.ron");
    assert!(
        unlucky.contains("origin: System(\"hits_thirteen\"),\n            args: (\n                x: 13,\n            ),\n            outcome: Panicked(\"unlucky number 13\")"),
        "{unlucky}"
    );
    // Replaying the panic passes (it is the recorded outcome) and prints no
    // backtrace, even with backtraces on.
    let run = p.test(&[("RUST_BACKTRACE", "1")], &["carved::unlucky"]);
    run.assert_success();
    assert!(
        !run.output().contains("stack backtrace"),
        "{}",
        run.output()
    );
}

#[test]
fn an_invalid_carve_variable_is_reported() {
    let p = Project::new("bad-variable");
    let run = p.test(&[("CARVE", "recrod")], &[]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_snapshot!(run.carve_lines(), @r#"carve: CARVE="recrod": expected `record`, `generate`, or unset"#);
}

// Coverage.

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
    assert_snapshot!(run.summary(), @r#"
        carve: branch coverage of instrumented functions by carved and generated calls
          function            kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
          Counter::bump       target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          Counter::get        helper     -                     -               -    not reached
          abort_on_max        target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          collatz             target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          compatible          target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          decode::cgi_decode  target     -                     -               -    reach    -              (3 carved, 0 generated calls)
          double              target     -                     -               -    reach    -              (2 carved, 0 generated calls)
          fact                target     -                     -               -    reach    -              (13 carved, 0 generated calls)
          first_word          target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          parse_triple        target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          push_all            target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          split_pair          target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          sum_pairs           target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          triple::compatible  helper     -                     -               -    not reached
          triple::parse       helper     -                     -               -    not reached
          triple::part        helper     -                     -               -    not reached
          unlucky             target     -                     -               -    reach    -              (1 carved, 0 generated calls)
          total                          -                     -               -
        carve: hint: `Counter::bump`, `abort_on_max`, `collatz`, `compatible`, `decode::cgi_decode`, `double`, `fact`, `first_word`, `parse_triple`, `push_all`, `split_pair`, `sum_pairs`, `unlucky` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
        "#);
    let json = p.report("report.json");
    let decode = entry(&json["targets"], "decode::cgi_decode");
    assert_eq!(decode["branches"], 0, "{json}");
    assert_eq!(decode["carved_calls"], 3, "{json}");
    assert_eq!(
        json["total"],
        serde_json::json!({ "branches": 0, "covered": 0, "boundaries": 0,
            "boundaries_covered": 0, "mutants": 0, "mutants_killed": 0 })
    );
}

/// A thin target that delegates to `#[carve::instrument]` helpers (an inline
/// module): the report lists the helpers with exact counts and the target's
/// reach adds them up.
#[test]
fn coverage_follows_the_call_tree() {
    let p = Project::recorded("call-tree");
    let run = p.test(&[("CARVE_REPORT", "report.json")], &[]);
    run.assert_success().assert_line(
        "triple::part helper 7/14 50.0% 1/2 11/19 reached from compatible, parse_triple",
    );
    let json = p.report("report.json");
    // part: let-else 2, `is_empty() || len() > 9` 4, for 2, `!is_ascii_digit()` 2,
    // `len() > 1 && starts_with('0')` 4. parse: `is_some()` 2. Its goals are
    // counted beside the outcomes, which stay what they were (7/14, as
    // llvm-cov counts them): boundaries of `len() > 9` and `len() > 1`, and
    // 19 mutants (5 per `>`, `is_empty()`, `!is_ascii_digit()` and
    // `starts_with` negated, `||` and `&&` swapped, and two replacements
    // each of `*` and `+` in `n * 10 + …`).
    assert_eq!(
        entry(&json["functions"], "triple::part"),
        &serde_json::json!({ "name": "triple::part", "kind": "helper", "branches": 14,
            "covered": 7, "reached_from": ["compatible", "parse_triple"],
            "boundaries": 2, "boundaries_covered": 1, "mutants": 19, "mutants_killed": 11 })
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
}

// Generation.

/// Generation for a thin target covers its whole reach; a target with
/// nothing to cover in reach gets no budget.
#[test]
fn generation_covers_the_reach_and_skips_targets_without_branches() {
    let p = Project::recorded("generate-reach");
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_REPORT", "report.json")],
        &["parse_triple"],
    );
    run.assert_success();
    assert_snapshot!(run.carve_lines(), @r#"
        carve: generating calls with seed 1 (CARVE_SEED) and budget 20000 executions per target (CARVE_BUDGET)
        carve: parse_triple: branch coverage 8/16 -> 16/16; boundaries 1/2 -> 2/2; weak mutants killed 12/20 -> 19/20; kept 7 call(s), found 0 failure(s) in 1565 executions (0 generated arguments did not deserialize)
        carve: parse_triple: distilled: dropped 2 more call(s) it had kept, as later kept calls cover what they did
        carve: wrote 7 new snapshot(s) for parse_triple in carved/parse_triple/
        carve: branch coverage of instrumented functions by carved and generated calls
          function            kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
          Counter::bump       target     -                    -               -     not called
          Counter::get        helper     -                    -               -     not reached
          abort_on_max        target     0/2      0.0%        0/2             0/5   not called
          collatz             target     0/4      0.0%        0/4             0/14  not called
          compatible          target     -                    -               -     not called
          decode::cgi_decode  target     0/5      0.0%        0/1             0/11  not called
          double              target     -                    -               0/2   not called
          fact                target     0/2      0.0%        0/1             0/9   not called
          first_word          target     -                    -               -     not called
          parse_triple        target     -                    -               -     reach   16/16   100.0%  (1 carved, 7 generated calls)
          push_all            target     -                    -               -     not called
          split_pair          target     0/2      0.0%        0/1             0/5   not called
          sum_pairs           target     -                    -               0/4   not called
          triple::compatible  helper     0/4      0.0%        0/3             0/11  not reached
          triple::parse       helper     2/2    100.0%        -               1/1   reached from parse_triple
          triple::part        helper    14/14   100.0%        2/2            18/19  reached from parse_triple
          unlucky             target     0/2      0.0%        0/2             0/5   not called
          total                         16/37    43.2%        2/16           19/86
        carve: wrote the coverage report to report.json
        "#);
    let json = p.report("report.json");
    let thin = entry(&json["targets"], "parse_triple");
    assert_eq!(thin["reach_covered"], 16, "{json}");
    assert!(thin["executions"].as_u64().unwrap() > 16, "{json}");
    assert_eq!(entry(&json["functions"], "triple::part")["covered"], 14);

    let run = p.test(&[("CARVE", "generate")], &["first_word"]);
    run.assert_success()
        .assert_line("carve: first_word: skipped: no branch outcomes in reach");
}

/// Generation finds the missing-comma panic, minimized to the empty string,
/// and keeps it as a failing call.
#[test]
fn generation_keeps_a_found_failure_minimized() {
    let p = Project::recorded("generate-find");
    let run = p.test(&[("CARVE", "generate")], &["split_pair"]);
    run.assert_failure();
    assert_snapshot!(run.carve_lines(), @r#"
        carve: generating calls with seed 1 (CARVE_SEED) and budget 20000 executions per target (CARVE_BUDGET)
        carve: split_pair: branch coverage 1/2 -> 2/2; boundaries 1/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 1 failure(s) in 430 executions (0 generated arguments did not deserialize)
        carve: split_pair: found a failing input, minimized: split_pair(s:"") fails at src/lib.rs:152
        carve: wrote 2 new snapshot(s) for split_pair in carved/split_pair/
        carve: branch coverage of instrumented functions by carved and generated calls
          function            kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
          Counter::bump       target     -                    -               -     not called
          Counter::get        helper     -                    -               -     not reached
          abort_on_max        target     0/2      0.0%        0/2             0/5   not called
          collatz             target     0/4      0.0%        0/4             0/14  not called
          compatible          target     -                    -               -     not called
          decode::cgi_decode  target     0/5      0.0%        0/1             0/11  not called
          double              target     -                    -               0/2   not called
          fact                target     0/2      0.0%        0/1             0/9   not called
          first_word          target     -                    -               -     not called
          parse_triple        target     -                    -               -     not called
          push_all            target     -                    -               -     not called
          split_pair          target     2/2    100.0%        1/1             5/5   reach    2/2    100.0%  (1 carved, 3 generated calls)
          sum_pairs           target     -                    -               0/4   not called
          triple::compatible  helper     0/4      0.0%        0/3             0/11  not reached
          triple::parse       helper     0/2      0.0%        -               0/1   not reached
          triple::part        helper     0/14     0.0%        0/2             0/19  not reached
          unlucky             target     0/2      0.0%        0/2             0/5   not called
          total                          2/37     5.4%        1/16            5/86
        "#);
    run.assert_line("test generated::split_pair::0001 ... FAILED");
    assert_snapshot!(run.failure("generated::split_pair::0001"), @r#"
        carved/split_pair.ron:21:19: generation found a failing input: `split_pair(s:"")` panics: a comma
        Fix the code; or, if the panic is intended, mark the entry `expected: true` in its origin (`Found(…, expected: true)`).
        "#);
    let file = p.read("carved/split_pair.ron");
    assert_snapshot!(file, @r#"
        // Calls of `split_pair` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "split_pair",
            calls: [
                (
                    origin: System("exercises_parameter_kinds"),
                    args: (
                        s: "a,b",
                    ),
                    outcome: Returned(("a", "b")),
                ),
                (
                    origin: Found(
                        seed: 1,
                        at: "src/lib.rs:152",
                        expected: false,
                    ),
                    args: (
                        s: "",
                    ),
                    outcome: Panicked("a comma"),
                ),
                (
                    origin: Generated(
                        seed: 1,
                        added: [
                            "src/lib.rs:153:8 `>` → `<` in `a.len() > b.len()`",
                            "src/lib.rs:153:8 `>` → `!=` in `a.len() > b.len()`",
                        ],
                    ),
                    args: (
                        s: ",a",
                    ),
                    outcome: Returned(("", "a")),
                ),
                (
                    origin: Generated(
                        seed: 1,
                        added: [
                            "src/lib.rs:153:8 `a.len() > b.len()` true",
                        ],
                    ),
                    args: (
                        s: "a,",
                    ),
                    outcome: Returned(("", "a")),
                ),
            ],
        )
        "#);
}

/// The same seed gives the same files, byte for byte; another seed does not
/// store a known failure twice.
#[test]
fn generation_is_deterministic_and_stores_a_failure_once() {
    let p = Project::recorded("generate-again");
    p.test(&[("CARVE", "generate")], &["split_pair"])
        .assert_failure();
    let first = p.carved();
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
}

/// Plain `cargo test` keeps failing on a found bug, and only on it, until it
/// is marked as intended.
#[test]
fn a_found_failure_fails_replay_until_marked_expected() {
    let p = Project::recorded("generate-replay");
    p.test(&[("CARVE", "generate")], &["split_pair"])
        .assert_failure();
    let run = p.test(&[], &[]);
    run.assert_failure()
        .assert_line("test generated::split_pair::0001 ... FAILED");
    assert_eq!(count(&run, "FAILED"), 1, "{}", run.output());
    assert_snapshot!(run.failure("generated::split_pair::0001"), @r#"
        carved/split_pair.ron:21:19: generation found a failing input: `split_pair(s:"")` panics: a comma
        Fix the code; or, if the panic is intended, mark the entry `expected: true` in its origin (`Found(…, expected: true)`).
        "#);

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
    let p = Project::recorded("crashes");
    // abort_on_max(255) aborts; fact(n) recurses n deep (a large n overflows
    // the stack); collatz(0) never returns. The crash messages depend on
    // timing and inputs, so they are checked by their stable parts.
    for (target, crash) in [
        ("abort_on_max", "abort: process killed by signal 6"),
        ("fact", "stack overflow: thread "),
        ("collatz", "timeout: did not return within 1s"),
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
