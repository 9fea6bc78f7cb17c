//! What carve writes and reads, when values, files or settings are odd:
//! deep values, stale pending snapshots, missing snapshots, a mistyped
//! `CARVE_DIR`, CI, broken and unwritable files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use insta::assert_snapshot;

use crate::{Project, Run};

/// A recursive tree type and two targets over it, appended to the copy's
/// library; two system tests, one within carve's depth bound and one past it.
fn with_deep_trees(p: &Project) {
    let lib = p.read("src/lib.rs");
    p.write(
        "src/lib.rs",
        &format!(
            "{lib}
/// A recursive type: two levels of nesting (struct, `Vec`) per tree level.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = \"carve\", derive(serde::Serialize, serde::Deserialize))]
pub struct Tree {{
    pub label: u32,
    pub children: Vec<Tree>,
}}

/// A chain of `levels` nodes, each the only child of the one above.
#[cfg_attr(feature = \"carve\", carve::target)]
pub fn chain(levels: u32) -> Tree {{
    let mut tree = Tree {{ label: 0, children: vec![] }};
    for label in 1..levels {{
        tree = Tree {{ label, children: vec![tree] }};
    }}
    tree
}}

/// The number of levels of `tree`.
#[cfg_attr(feature = \"carve\", carve::target)]
pub fn height(tree: &Tree) -> u32 {{
    levels(tree)
}}

fn levels(tree: &Tree) -> u32 {{
    1 + tree.children.iter().map(levels).max().unwrap_or(0)
}}
"
        ),
    );
    p.replace(
        "tests/carve.rs",
        "carve::main!();",
        "#[carve::system_test]
fn measures_a_deep_tree() {
    assert_eq!(shop::height(&shop::chain(100)), 100);
}

#[carve::system_test]
fn measures_a_too_deep_tree() {
    assert_eq!(shop::height(&shop::chain(200)), 200);
}

carve::main!();",
    );
}

/// Item 6 of issue 12: a tree 100 levels deep (201 levels of nesting with
/// the arguments around it) is carved and replays; one 200 levels deep is
/// refused when its entry is made, with a warning naming the call, its
/// depth and the bound, while every other call is carved and the run passes.
#[test]
fn a_value_100_levels_deep_records_and_replays_and_a_deeper_one_is_refused() {
    let p = Project::new("deep-values");
    with_deep_trees(&p);
    let run = p.record();
    run.assert_success();
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("carve:"))
        .collect();
    assert_snapshot!(lines.join("\n"), @r#"
        carve: not carving a call of `chain` in system test `measures_a_too_deep_tree`: the nesting of its return value is 400 levels, deeper than the 256 levels carve stores (so that every carve file reads back); pass a shallower value in the system test to carve this call
        carve: not carving a call of `height` in system test `measures_a_too_deep_tree`: the nesting of its arguments is 401 levels, deeper than the 256 levels carve stores (so that every carve file reads back); pass a shallower value in the system test to carve this call
        "#);
    let carved = p.carved();
    for file in ["chain.ron", "height.ron"] {
        assert_eq!(carved[file].matches("origin:").count(), 1, "{file}");
        assert!(carved[file].contains("System(\"measures_a_deep_tree\")"));
    }
    assert!(
        carved.contains_key("decode/cgi_decode.ron"),
        "the other calls are carved"
    );

    let replay = p.test(&[], &[]);
    replay.assert_success();
    replay
        .assert_line("test carved::chain::0001 ... ok")
        .assert_line("test carved::height::0001 ... ok");
    assert_eq!(p.carved(), carved, "replay writes nothing");

    // Recording again gives the same files.
    p.record().assert_success();
    assert_eq!(p.carved(), carved);
}

/// Item 4: with a `.snap` deleted and a stale `.snap.new` with a wrong
/// outcome beside it, recording writes the outcome it computed, removes the
/// stale file, and changes nothing else.
#[test]
fn a_stale_pending_snapshot_is_never_promoted() {
    let p = Project::recorded("stale-pending");
    let recorded = p.carved();
    let snap = "carved/decode/cgi_decode/a957222d34f0.snap";
    let stale = p
        .read(snap)
        .replace("Returned(Ok(\"a b!\"))", "Returned(Ok(\"WRONG\"))");
    assert!(stale.contains("WRONG"));
    fs::remove_file(p.dir.join(snap)).unwrap();
    p.write(&format!("{snap}.new"), &stale);

    let run = p.record();
    run.assert_success();
    run.assert_line(
        "carve: wrote 1 new snapshot(s) for decode::cgi_decode in carved/decode/cgi_decode/",
    );
    assert_eq!(
        p.carved(),
        recorded,
        "the computed snapshot, no pending one"
    );
}

/// Item 10: a call added to a carve file has no snapshot; under CI that is
/// reported as missing (never as a difference with a diff that is not
/// there), and nothing is written.
#[test]
fn a_new_call_under_ci_is_reported_as_missing_a_snapshot() {
    let p = Project::recorded("missing-ci");
    p.replace("carved/fact.ron", "n: 1,\n", "n: 20,\n");
    let before = p.carved();
    let run = p.test(&[("CI", "true")], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::fact::0001"), @r#"carved/fact.ron:10:19: `fact(n:20)` has no snapshot (carved/fact/3e1987aa1d79.snap), and none was written (nothing is written under CI): write it with `CARVE=record cargo test` where writing is allowed, and commit it."#);
    assert_eq!(p.carved(), before, "nothing is written under CI");
}

/// Item 10: an entry repeated by hand gets a snapshot name of its own, which
/// does not exist: reported as a repeat of the entry it copies, not as a
/// difference (nor as a new snapshot to review).
#[test]
fn a_repeated_entry_is_reported_as_missing_a_snapshot() {
    let p = Project::recorded("missing-duplicate");
    let fact = p.read("carved/fact.ron");
    let start = fact.find("        (\n").unwrap();
    let close = "\n        ),\n";
    let end = start + fact[start..].find(close).unwrap() + close.len();
    let entry = &fact[start..end];
    p.write(
        "carved/fact.ron",
        &fact.replacen(entry, &entry.repeat(2), 1),
    );
    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::fact::0002"), @"carved/fact.ron:17:19: this entry repeats the call at carved/fact.ron:10:19 (same arguments, same outcome), so it has no snapshot of its own (carved/fact/2678e40e83e7-2.snap). Delete it, or re-record with `CARVE=record cargo test`, which stores each call once.");
}

/// Item 11: a `CARVE_DIR` that does not exist fails replay and generate as
/// a setup error naming the path; recording creates it.
#[test]
fn a_carve_dir_that_does_not_exist_fails_unless_recording() {
    let p = Project::recorded("carve-dir");
    let replay = p.test(&[("CARVE_DIR", "carvd")], &[]);
    assert_eq!(replay.code, Some(2), "{}", replay.output());
    assert_snapshot!(replay.carve_lines(), @r#"carve: CARVE_DIR=[tmp]/e2e-carve-dir/carvd: no such folder, so there is nothing to replay. Check the path (relative paths start at the package root), or create the folder with `CARVE=record cargo test`."#);
    let generate = p.test(&[("CARVE_DIR", "carvd"), ("CARVE", "generate")], &[]);
    assert_eq!(generate.code, Some(2), "{}", generate.output());
    generate.assert_line("nothing to generate from");
    assert!(!p.dir.join("carvd").exists());

    p.test(&[("CARVE_DIR", "elsewhere"), ("CARVE", "record")], &[])
        .assert_success();
    assert!(p.dir.join("elsewhere/fact.ron").is_file());
    p.test(&[("CARVE_DIR", "elsewhere")], &[]).assert_success();
}

/// Item 12: under CI, record and generate refuse before running anything;
/// no file changes.
#[test]
fn record_and_generate_refuse_under_ci() {
    let p = Project::recorded("ci-refuses");
    // A layout record would rewrite, to see that it does not.
    let fact = p.read("carved/fact.ron");
    p.write(
        "carved/fact.ron",
        &fact.replace("    calls: [", "    calls:   ["),
    );
    let before = p.carved();
    for mode in ["record", "generate"] {
        let run = p.test(&[("CI", "true"), ("CARVE", mode)], &[]);
        assert_eq!(run.code, Some(2), "{}", run.output());
        assert!(
            !run.stdout.contains("test "),
            "nothing ran:\n{}",
            run.output()
        );
        assert_eq!(p.carved(), before, "CARVE={mode} under CI writes nothing");
        if mode == "record" {
            assert_snapshot!(run.carve_lines(), @r#"carve: CARVE=record writes carve files and snapshots, and under CI (CI=true) carve writes nothing: run `CARVE=record cargo test` locally and commit carved/, or unset CI."#);
        }
    }
}

/// Item 13: errors in user terms, with a position for a file that is not
/// UTF-8.
#[test]
fn parse_errors_name_the_file_position_and_the_part_in_user_terms() {
    let p = Project::recorded("parse-errors");
    let fact = p.read("carved/fact.ron");
    p.write(
        "carved/fact.ron",
        &fact.replacen(
            "            args: (\n                n: 1,\n            ),\n",
            "",
            1,
        ),
    );
    let mut bytes = p.read("carved/double.ron").into_bytes();
    let at = bytes.windows(4).position(|w| w == b"\"21\"").unwrap() + 1;
    bytes[at] = 0xff;
    fs::write(p.dir.join("carved/double.ron"), bytes).unwrap();
    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::fact"), @r#"carved/fact.ron:11:9: this carve file does not parse: a call entry has no `args`; a call entry is `(origin: …, args: (…), outcome: …)`, with `after: (…)` for `&mut` arguments. Fix it by hand (see any other file in the same folder for the shape), or delete it and re-record with `CARVE=record cargo test`."#);
    assert_snapshot!(run.failure("carved::double"), @r#"carved/double.ron:11:21: this carve file does not parse: byte 0xff is not UTF-8 (carve files are UTF-8 text; was it saved in another encoding?). Fix it by hand (see any other file in the same folder for the shape), or delete it and re-record with `CARVE=record cargo test`."#);
}

/// Item 13: a snapshot that cannot be written is reported with its path and
/// the OS error. The test runs as root, for whom permissions do not apply,
/// so the fixture's test binary is run as user `nobody`.
#[test]
fn an_unwritable_snapshot_folder_is_reported_with_the_os_error() {
    let p = Project::recorded("read-only");
    let folder = p.dir.join("carved/decode/cgi_decode");
    fs::remove_file(folder.join("a957222d34f0.snap")).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    let built = p
        .cargo(&[
            "test",
            "--features",
            "carve",
            "--test",
            "carve",
            "--no-run",
            "--message-format=json",
        ])
        .output()
        .expect("cargo runs");
    let binary = String::from_utf8_lossy(&built.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(str::to_owned))
        .expect("cargo names the test binary");
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", &binary])
        .current_dir(&p.dir)
        .env("CARVE", "record")
        .env("INSTA_WORKSPACE_ROOT", &p.dir);
    for (var, _) in std::env::vars_os() {
        if crate::inherited_var_changes_behaviour(&var.to_string_lossy()) {
            cmd.env_remove(var);
        }
    }
    let run = Run::of(cmd);
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    run.assert_failure();
    assert_snapshot!(run.failure("carved::decode::cgi_decode::0001"), @r#"carved/decode/cgi_decode.ron:10:19: could not write the new snapshot of `decode::cgi_decode(s:"a+b%21")`: carved/decode/cgi_decode/a957222d34f0.snap: Permission denied (os error 13)"#);
}
