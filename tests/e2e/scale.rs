//! A target with thousands of carved calls: its snapshots go to shards, so
//! no folder holds thousands of files, and move back when it shrinks.

use crate::Project;

/// The fixture with a target that one system test calls `SCALE_CALLS` times.
fn with_many_calls(name: &str) -> Project {
    let p = Project::new(name);
    let lib = p.read("src/lib.rs")
        + r#"
/// Labels a number by its parity.
#[cfg_attr(feature = "carve", carve::target)]
pub fn label(n: u64) -> String {
    if n % 2 == 0 {
        format!("even {n}")
    } else {
        format!("odd {n}")
    }
}
"#;
    p.write("src/lib.rs", &lib);
    let tests = p.read("tests/carve.rs").replace(
        "carve::main!();",
        r#"#[carve::system_test]
fn labels_many_numbers() {
    let calls: u64 = std::env::var("SCALE_CALLS").map_or(3, |n| n.parse().unwrap());
    for n in 0..calls {
        assert!(shop::label(n).ends_with(&n.to_string()));
    }
}

carve::main!();"#,
    );
    p.write("tests/carve.rs", &tests);
    p
}

/// The snapshot files of `label`, by folder under `carved/label`
/// (`""` for the folder itself, `0x3a` for a shard).
fn snapshot_folders(p: &Project) -> std::collections::BTreeMap<String, usize> {
    let mut folders = std::collections::BTreeMap::new();
    for name in p.carved().into_keys() {
        if let Some(rest) = name.strip_prefix("label/") {
            let folder = rest.rsplit_once('/').map_or("", |(folder, _)| folder);
            *folders.entry(folder.to_owned()).or_insert(0) += 1;
        }
    }
    folders
}

#[test]
fn snapshots_of_a_target_with_thousands_of_calls_are_sharded_and_move_back() {
    let p = with_many_calls("sharded");
    p.test(&[("CARVE", "record"), ("SCALE_CALLS", "1500")], &[])
        .assert_success();
    let folders = snapshot_folders(&p);
    assert_eq!(folders.values().sum::<usize>(), 1500);
    assert!(
        !folders.contains_key(""),
        "no snapshot left unsharded: {folders:?}"
    );
    assert!(
        folders.len() > 240,
        "ids spread over the 256 shards: {folders:?}"
    );
    assert!(folders.keys().all(|f| f.len() == 4 && f.starts_with("0x")));
    assert!(folders.values().all(|&n| n < 20), "evenly: {folders:?}");

    // A plain run checks every call against its sharded snapshot.
    let run = p.test(&[("SCALE_CALLS", "1500")], &[]);
    run.assert_success();
    let passed = run
        .stdout
        .lines()
        .filter(|line| line.starts_with("test carved::label::") && line.ends_with(" ok"))
        .count();
    assert_eq!(passed, 1500);

    // Fewer calls: the snapshots still used move back beside each other.
    let before = p.carved();
    p.test(&[("CARVE", "record"), ("SCALE_CALLS", "900")], &[])
        .assert_success();
    assert_eq!(snapshot_folders(&p), [(String::new(), 900)].into());
    let after = p.carved();
    let moved = after
        .iter()
        .filter(|(name, _)| name.starts_with("label/"))
        .filter(|(name, text)| {
            let file = name.rsplit_once('/').unwrap().1;
            before.iter().any(|(was, old)| {
                was.ends_with(&format!("/{file}")) && was != *name && old == *text
            })
        })
        .count();
    assert_eq!(moved, 900, "every kept snapshot moved as it was");
    p.test(&[("SCALE_CALLS", "900")], &[]).assert_success();
}
