//! Generation workers under accidents: two generates at once, a carve
//! folder that cannot be written, a carved argument of a megabyte, a test
//! binary killed while its worker runs.
//!
//! Some of these run the fixture's test binary directly rather than through
//! `cargo test`: to run two at once without cargo's build lock between
//! them, to run it as another user, or to kill it and not cargo.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{inherited_var_changes_behaviour, Project, Run};

impl Project {
    /// The fixture's test binary (`tests/carve.rs`), built.
    fn test_binary(&self) -> PathBuf {
        let out = self
            .cargo(&[
                "test",
                "--no-run",
                "--features",
                "carve",
                "--test",
                "carve",
                "--message-format=json",
            ])
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(out.status.success(), "the fixture does not build");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find_map(|message| Some(PathBuf::from(message["executable"].as_str()?)))
            .expect("cargo names the test binary")
    }

    /// The test binary `exe` run in the copy (as `cargo test` would), with
    /// the variables that would change its behaviour cleared, then `env`
    /// set; `wrapper` goes before it (e.g. to run it as another user).
    fn binary(&self, wrapper: &[&str], exe: &Path, env: &[(&str, &str)], args: &[&str]) -> Command {
        let mut cmd = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut cmd = Command::new(program);
                cmd.args(rest).arg(exe);
                cmd
            }
            None => Command::new(exe),
        };
        cmd.current_dir(&self.dir).args(args);
        for (var, _) in std::env::vars_os() {
            if inherited_var_changes_behaviour(&var.to_string_lossy()) {
                cmd.env_remove(var);
            }
        }
        cmd.env("INSTA_WORKSPACE_ROOT", &self.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// The number N in `carve: <target>: … kept N call(s)`.
#[track_caller]
fn kept(run: &Run, target: &str) -> usize {
    let head = format!("carve: {target}: branch coverage");
    run.stdout
        .lines()
        .find(|l| l.starts_with(&head))
        .and_then(|l| l.split("; kept ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no kept count in:\n{}", run.output()))
}

/// The entries of a carve file generated with `seed`.
fn generated_with_seed(file: &str, seed: u64) -> usize {
    let lines: Vec<&str> = file.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "origin: Generated(" && w[1] == format!("seed: {seed},"))
        .count()
}

fn finish(child: Child) -> Run {
    let out = child.wait_with_output().expect("the test binary runs");
    Run {
        success: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Three generates with different seeds on one crate at once: every call
/// each reports as kept is in the file, under its seed (each save loads,
/// adds and writes under the carve folder's lock).
#[test]
fn concurrent_generates_lose_no_entry() {
    let p = Project::recorded("workers-concurrent");
    let exe = p.test_binary();
    let seeds = [2u64, 3, 4];
    let children: Vec<Child> = seeds
        .iter()
        .map(|seed| {
            p.binary(
                &[],
                &exe,
                &[("CARVE", "generate"), ("CARVE_SEED", &seed.to_string())],
                &["parse_triple"],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the test binary starts")
        })
        .collect();
    let runs: Vec<Run> = children.into_iter().map(finish).collect();
    let file = p.read("carved/parse_triple.ron");
    let mut report = Vec::new();
    for (seed, run) in seeds.iter().zip(&runs) {
        run.assert_success();
        report.push((kept(run, "parse_triple"), generated_with_seed(&file, *seed)));
    }
    println!("kept (reported, in the file) per seed {seeds:?}: {report:?}");
    // At least two runs saved calls at once (a run that starts after
    // another saved may find every goal covered and keep none).
    assert!(
        report.iter().filter(|(reported, _)| *reported > 0).count() >= 2,
        "{report:?}"
    );
    assert!(
        report.iter().all(|(reported, stored)| reported == stored),
        "kept (reported, in the file) per seed {seeds:?}: {report:?}\n{file}"
    );
    assert!(
        file.contains("origin: System(\"parses_triples\")"),
        "{file}"
    );
    // The lock file is not in `carved/`: nothing there but carve files and
    // snapshots.
    let stray: Vec<String> = p
        .carved()
        .into_keys()
        .filter(|name| !name.ends_with(".ron") && !name.ends_with(".snap"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// A carve folder nobody may write: saving what generation found fails,
/// names the file and the OS error, does not claim to have kept anything,
/// and the run fails. root may write anywhere, so as root the test binary
/// runs as `nobody` (uid 65534).
#[cfg(unix)]
#[test]
fn a_read_only_carve_folder_fails_generation_loudly() {
    use std::os::unix::fs::PermissionsExt;

    let p = Project::recorded("workers-read-only");
    let exe = p.test_binary();
    let before = p.carved();
    let set_mode = |path: &Path, mode: u32| {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    };
    fn walk(dir: &Path, each: &mut dyn FnMut(&Path, bool)) {
        for path in fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                walk(&path, each);
                each(&path, true);
            } else {
                each(&path, false);
            }
        }
    }
    // Anyone may read the copy; nobody may write in `carved/`.
    walk(&p.dir, &mut |path, dir| {
        set_mode(path, if dir { 0o755 } else { 0o644 })
    });
    walk(&p.dir.join("carved"), &mut |path, dir| {
        set_mode(path, if dir { 0o555 } else { 0o444 })
    });
    set_mode(&p.dir.join("carved"), 0o555);

    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let wrapper: &[&str] = if root {
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
    } else {
        &[]
    };
    let run = finish(
        p.binary(
            wrapper,
            &exe,
            &[("CARVE", "generate"), ("CARVE_BUDGET", "3000")],
            &["parse_triple"],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the test binary as {wrapper:?}: {e}")),
    );
    walk(&p.dir.join("carved"), &mut |path, dir| {
        set_mode(path, if dir { 0o755 } else { 0o644 })
    });
    set_mode(&p.dir.join("carved"), 0o755);

    assert!(
        !run.output().contains("setpriv:"),
        "setpriv failed:\n{}",
        run.output()
    );
    assert_eq!(run.code, Some(101), "{}", run.output());
    run.assert_line(
        "carve: parse_triple: generation stopped: could not save what generation found: \
         carved/parse_triple.ron: Permission denied (os error 13)",
    );
    assert!(
        !run.output().contains("kept"),
        "nothing was kept:\n{}",
        run.output()
    );
    assert!(
        !run.output().contains("worker crash"),
        "a save failure is no crash:\n{}",
        run.output()
    );
    assert_eq!(p.carved(), before, "nothing in carved/ changed");
}

/// Four carved calls with an argument of a megabyte each: the worker loads
/// and mines them for longer than the call timeout (2 s here) before its
/// first call, which is no hang.
#[test]
fn megabyte_carved_arguments_are_no_crash() {
    let p = Project::recorded("workers-large");
    let entries: String = (0..4)
        .map(|k| {
            let big = format!("Hello, World! 123-xyz_(ok){k}.").repeat((1 << 20) / 28);
            format!(
                "        (\n            origin: System(\"decodes\"),\n            args: (\n                \
                 s: \"{big}\",\n            ),\n            outcome: Returned(Ok(\"{big}\")),\n        \
                 ),\n"
            )
        })
        .collect();
    p.replace(
        "carved/decode/cgi_decode.ron",
        "    ],\n)",
        &format!("{entries}    ],\n)"),
    );
    let start = Instant::now();
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "20")],
        &["cgi_decode"],
    );
    println!("generate with 4 arguments of 1 MiB: {:?}", start.elapsed());
    run.assert_success();
    assert!(
        !run.output().contains("worker crash"),
        "no crash:\n{}",
        run.output()
    );
    let line = run.generation_line("decode::cgi_decode");
    println!("{line}");
    let executions: u64 = line
        .split(" in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no executions in {line:?}"));
    assert!(executions > 0, "{line}");
    assert!(
        !p.read("carved/decode/cgi_decode.ron").contains("Crashed"),
        "no crash stored"
    );
}

/// The processes whose environment names `CARVE_WORKER` and the copy's
/// folder: the workers of test binaries run in it.
#[cfg(target_os = "linux")]
fn workers_in(dir: &Path) -> Vec<u32> {
    let needle = format!("INSTA_WORKSPACE_ROOT={}", dir.display());
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // A zombie waits for its (new) parent to reap it: it is dead.
            let alive = fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            });
            let environ = fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let vars: Vec<&[u8]> = environ.split(|b| *b == 0).collect();
            alive
                && vars.iter().any(|v| v.starts_with(b"CARVE_WORKER="))
                && vars.contains(&needle.as_bytes())
        })
        .collect()
}

/// Killing the test binary (SIGKILL, so it cannot clean up) ends its
/// worker within a second, with the carve file whole.
#[cfg(target_os = "linux")]
#[test]
fn a_worker_dies_with_its_test_binary() {
    let p = Project::recorded("workers-orphan");
    let exe = p.test_binary();
    let mut parent = p
        .binary(
            &[],
            &exe,
            &[("CARVE", "generate"), ("CARVE_BUDGET", "60s")],
            &["parse_triple"],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the test binary starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let workers = loop {
        let workers = workers_in(&p.dir);
        if !workers.is_empty() {
            break workers;
        }
        assert!(Instant::now() < deadline, "no worker started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let it generate (and save) for a while.
    std::thread::sleep(Duration::from_millis(500));
    parent.kill().unwrap();
    let killed = Instant::now();
    parent.wait().unwrap();
    while !workers_in(&p.dir).is_empty() && killed.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let lived = killed.elapsed();
    println!("worker(s) {workers:?} ended {lived:?} after the test binary was killed");
    assert!(
        lived < Duration::from_secs(1),
        "worker(s) {workers:?} still ran {lived:?} after the kill"
    );
    let file = p.read("carved/parse_triple.ron");
    assert!(file.trim_end().ends_with(')'), "whole:\n{file}");
    let stray: Vec<String> = p
        .carved()
        .into_keys()
        .filter(|name| name.contains(".tmp"))
        .collect();
    assert!(stray.is_empty(), "temporary files left: {stray:?}");
}

/// `CARVE_BUDGET=<n>` is an upper bound on the executions each generation
/// line reports, whatever ran them (search, minimizing kept calls and
/// failures, strong mutant checks, replays of the existing calls).
#[test]
fn an_execution_budget_is_an_upper_bound_on_every_target() {
    let p = Project::recorded("workers-budget");
    for budget in [7u64, 40] {
        let run = p.test(
            &[("CARVE", "generate"), ("CARVE_BUDGET", &budget.to_string())],
            &[],
        );
        let lines: Vec<&str> = run
            .stdout
            .lines()
            .filter(|l| l.starts_with("carve: ") && l.contains(" executions ("))
            .collect();
        assert!(lines.len() >= 3, "{}", run.output());
        for line in lines {
            let executions: u64 = line
                .split(" in ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next()?.parse().ok())
                .unwrap_or_else(|| panic!("no executions in {line:?}"));
            println!("budget {budget}: {line}");
            assert!(executions <= budget, "{line}");
        }
    }
}
