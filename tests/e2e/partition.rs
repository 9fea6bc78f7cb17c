//! Generation spread out: each target's generation is its own trial
//! `generate::<target>`, so filters, `--skip`, nextest partitions and
//! `CARVE_JOBS` decide where and when it runs, never what it writes. Every
//! way of splitting the work must give the carve files (and snapshots) of
//! one run, byte for byte.
//!
//! The copies keep two targets, `compatible` and `parse_triple`, which
//! reach the same helpers (`triple::parse`, `triple::part`): what one
//! target's generation keeps would change what the other aims at if
//! generation looked at the other's new calls. Sorted by name, they fall in
//! different partitions of two.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use insta::assert_snapshot;

use crate::{Project, Run};

/// The targets whose carve files the copies keep.
const KEPT: [&str; 2] = ["compatible", "parse_triple"];
/// A small budget: the property holds for any.
const BUDGET: &str = "2000";

/// A copy with its system tests recorded and only the carve files (and
/// snapshot folders) of [`KEPT`] left; the other functions are no targets
/// in it any more (a target without a carve file is generated too, from
/// the others' values).
fn three_targets(name: &str) -> Project {
    let p = Project::recorded(name);
    let attribute = "#[cfg_attr(feature = \"carve\", carve::target)]";
    let lib = p.read("src/lib.rs");
    let lines: Vec<&str> = lib.lines().collect();
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| {
            line.trim() != attribute
                || lines.get(i + 1).is_some_and(|next| {
                    KEPT.iter()
                        .any(|t| next.starts_with(&format!("pub fn {t}(")))
                })
        })
        .map(|(_, line)| *line)
        .collect();
    p.write("src/lib.rs", &(kept.join("\n") + "\n"));
    let carved = p.dir.join("carved");
    for file in p.carved().into_keys() {
        let kept = KEPT
            .iter()
            .any(|t| file.starts_with(&format!("{t}.")) || file.starts_with(&format!("{t}/")));
        if !kept {
            fs::remove_file(carved.join(&file)).unwrap();
        }
    }
    remove_empty_folders(&carved);
    p
}

fn remove_empty_folders(dir: &Path) {
    for path in fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if path.is_dir() {
            remove_empty_folders(&path);
            // Fails on a folder that still holds files: it stays.
            let _ = fs::remove_dir(&path);
        }
    }
}

/// `CARVE=generate` with the small budget, plus `env`.
fn generate(p: &Project, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut vars = vec![("CARVE", "generate"), ("CARVE_BUDGET", BUDGET)];
    vars.extend_from_slice(env);
    p.test(&vars, args)
}

/// What one unpartitioned run on one thread gives: the files under
/// `carved/` and carve's lines. Made once, by the first test that needs it.
fn one_run() -> &'static (BTreeMap<String, String>, String) {
    static ONE_RUN: OnceLock<(BTreeMap<String, String>, String)> = OnceLock::new();
    ONE_RUN.get_or_init(|| {
        let p = three_targets("partition-one-run");
        let before = p.carved();
        let run = generate(&p, &[("CARVE_JOBS", "1")], &[]);
        run.assert_success();
        let after = p.carved();
        for target in KEPT {
            let file = format!("{target}.ron");
            assert_ne!(before[&file], after[&file], "{target}: nothing generated");
        }
        (after, run.carve_lines())
    })
}

/// The files that differ between `before` and `after` (added, changed or
/// removed).
fn changed(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    before
        .keys()
        .chain(after.keys())
        .filter(|name| before.get(*name) != after.get(*name))
        .cloned()
        .collect()
}

/// Names the differences, for a failure message.
fn differences(one: &BTreeMap<String, String>, other: &BTreeMap<String, String>) -> String {
    changed(one, other)
        .iter()
        .map(|name| {
            format!(
                "--- {name}: one run\n{}\n--- {name}: split\n{}",
                one.get(name).map_or("(none)", String::as_str),
                other.get(name).map_or("(none)", String::as_str)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--list` under `CARVE=generate` names one trial per target: what
/// nextest lists, and what filters select.
#[test]
fn generate_lists_one_trial_per_target() {
    let p = three_targets("partition-list");
    let run = p.test(&[("CARVE", "generate")], &["--list"]);
    run.assert_success();
    assert_snapshot!(run.stdout.trim_end(), @r"
    generate::compatible: test
    generate::parse_triple: test
    ");
}

/// One target by its trial name, then the others with `--skip`: the first
/// writes only its own target's files, and the two together write the files
/// of one run.
#[test]
fn targets_generated_one_filter_at_a_time_match_one_run() {
    let p = three_targets("partition-filters");
    let start = p.carved();
    let first = generate(&p, &[], &["generate::parse_triple"]);
    first.assert_success();
    let own: Vec<String> = changed(&start, &p.carved()).into_iter().collect();
    assert!(!own.is_empty(), "{}", first.output());
    assert!(
        own.iter().all(|name| name.starts_with("parse_triple")),
        "generate::parse_triple wrote other targets' files: {own:?}"
    );
    assert!(
        first
            .carve_lines()
            .contains("carve: parse_triple: branch coverage")
            && !first.carve_lines().contains("carve: compatible:"),
        "{}",
        first.output()
    );
    generate(&p, &[], &["--skip", "generate::parse_triple"]).assert_success();
    let (one, _) = one_run();
    let split = p.carved();
    assert!(split == *one, "{}", differences(one, &split));
}

/// Two targets at a time write the same files and print the same lines, in
/// the same order, as one at a time.
#[test]
fn carve_jobs_change_neither_files_nor_output() {
    let p = three_targets("partition-jobs");
    let run = generate(&p, &[("CARVE_JOBS", "2")], &[]);
    run.assert_success();
    let (one, lines) = one_run();
    let two = p.carved();
    assert!(two == *one, "{}", differences(one, &two));
    assert_eq!(run.carve_lines(), *lines);
}

/// A bad `CARVE_JOBS` stops the run before anything is generated.
#[test]
fn a_bad_carve_jobs_is_an_error() {
    let p = Project::new("partition-bad-jobs");
    let run = p.test(&[("CARVE", "generate"), ("CARVE_JOBS", "0")], &[]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    run.assert_line(
        "carve: CARVE_JOBS=\"0\": expected a positive number of targets to generate at once",
    );
}

/// Whether `cargo nextest` runs here; says loudly why not.
fn nextest_available() -> bool {
    let found = Command::new(env!("CARGO"))
        .args(["nextest", "--version"])
        .output();
    match found {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            let why = format!(
                "SKIPPED: `cargo nextest --version` failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
            println!("{why}");
            eprintln!("{why}");
            false
        }
        Err(e) => {
            let why = format!("SKIPPED: cannot run `cargo nextest --version`: {e}");
            println!("{why}");
            eprintln!("{why}");
            false
        }
    }
}

/// Two nextest partitions, each on a machine (a copy) of its own as in a CI
/// matrix, generate disjoint sets of files; put together, they are the
/// files of one run. Each partition prints the generation line of its
/// targets.
#[test]
fn two_nextest_partitions_match_one_run() {
    if !nextest_available() {
        eprintln!(
            "SKIPPED two_nextest_partitions_match_one_run: cargo-nextest is not installed \
             (`cargo install cargo-nextest`); the same property is checked with filters by \
             targets_generated_one_filter_at_a_time_match_one_run"
        );
        return;
    }
    let mut merged: Option<BTreeMap<String, String>> = None;
    let mut written: Vec<BTreeSet<String>> = Vec::new();
    let mut lines = String::new();
    for k in 1..=2 {
        let p = three_targets(&format!("partition-nextest-{k}"));
        let start = p.carved();
        let mut cmd = p.cargo(&[
            "nextest",
            "run",
            "--features",
            "carve",
            "--test",
            "carve",
            "--partition",
            &format!("count:{k}/2"),
            "--no-fail-fast",
            "--success-output",
            "final",
        ]);
        cmd.env("CARVE", "generate").env("CARVE_BUDGET", BUDGET);
        let run = Run::of(cmd);
        run.assert_success();
        lines.push_str(&run.output());
        let after = p.carved();
        let mine = changed(&start, &after);
        assert!(
            !mine.is_empty(),
            "partition {k}/2 wrote nothing:\n{}",
            run.output()
        );
        let merged = merged.get_or_insert_with(|| start.clone());
        for name in &mine {
            match after.get(name) {
                Some(text) => merged.insert(name.clone(), text.clone()),
                None => merged.remove(name),
            };
        }
        written.push(mine);
    }
    assert!(
        written[0].is_disjoint(&written[1]),
        "both partitions wrote {:?}",
        written[0].intersection(&written[1]).collect::<Vec<_>>()
    );
    let (one, _) = one_run();
    let merged = merged.unwrap_or_default();
    assert!(merged == *one, "{}", differences(one, &merged));
    for target in KEPT {
        let line = format!("carve: {target}: branch coverage");
        assert_eq!(
            lines.matches(&line).count(),
            1,
            "one generation line of {target} over both partitions:\n{lines}"
        );
    }
}
