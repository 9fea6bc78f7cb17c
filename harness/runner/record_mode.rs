//! Record mode (`CARVE=record`): every system test in a child process
//! that carves its calls, the calls merged into the carve files, then
//! replayed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use libtest_mimic::{Conclusion, Failed, Trial};

use crate::carving::isolate::{self, TestRun};
use crate::carving::layout::{self, display_path, StoreError};
use crate::carving::lock::CarveDirLock;
use crate::carving::record;
use crate::carving::replay::Checker;
use crate::carving::store::{merge_recorded, CarveFile, Entry};
use crate::env::{self, Config};
use crate::registry::Registry;

use super::ci::accepts_new_snapshots;
use super::filters::TestArgs;
use super::orphans::remove_orphan_snapshots;
use super::replay_mode::{accept_new_snapshots_of, replay_trials};
use super::{fail_setup, lock, migrate_layout, report_accepted};

pub(super) fn run_record(
    args: &TestArgs,
    registry: &Registry,
    config: &Config,
    checker: Checker,
) -> bool {
    if env::under_nextest() {
        fail_setup(
            "CARVE=record needs every system test in one process; run it with `cargo test`, \
             not `cargo nextest run` (replaying works under nextest)",
        );
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => fail_setup(&format!("cannot find this test binary to record in: {e}")),
    };
    for line in crate::registry::skipped_lines() {
        eprintln!("{line}");
    }
    let mut store_failed = !migrate_layout(&config.dir);
    // Each system test records in a process of its own (see `isolate`).
    let runs: Arc<Mutex<BTreeMap<String, TestRun>>> = Arc::default();
    let trials = registry
        .system_tests()
        .map(|(name, test)| {
            let (name, exe, runs, slow) = (
                name.to_owned(),
                exe.clone(),
                Arc::clone(&runs),
                config.slow_test_warning,
            );
            Trial::test(format!("system::{name}"), move || {
                let run = isolate::record_in_child(&exe, &name, slow)?;
                let verdict = run.verdict();
                lock(&runs).insert(name, run);
                verdict.map_err(Failed::from)
            })
            .with_ignored_flag(test.ignored)
        })
        .collect();
    let carving: Conclusion = args.run(trials);
    let runs = std::mem::take(&mut *lock(&runs));
    let mut ran = BTreeSet::new();
    let mut kept = Vec::new();
    let mut carved: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    // Calls not carved because a value does not rebuild: said once per
    // target and parameter, with the first test (by name) that made one.
    let mut skipped: Vec<record::Skipped> = Vec::new();
    // Calls of generic targets at instantiations not listed: said once per
    // function and instantiation.
    let mut unlisted: Vec<record::Unlisted> = Vec::new();
    for (test, run) in runs {
        match run {
            TestRun::Passed {
                entries,
                unwritable,
                skipped: skipped_here,
                unlisted: unlisted_here,
            } => {
                for call in unlisted_here {
                    match unlisted
                        .iter_mut()
                        .find(|u| (&u.function, &u.bindings) == (&call.function, &call.bindings))
                    {
                        Some(seen) => seen.absorb(&call),
                        None => unlisted.push(call),
                    }
                }
                for message in unwritable {
                    eprintln!("carve: {message}");
                    store_failed = true;
                }
                for call in skipped_here {
                    match skipped.iter_mut().find(|s| s.same_param(&call)) {
                        Some(seen) => seen.absorb(&call),
                        None => skipped.push(call),
                    }
                }
                for (target, entries) in entries {
                    carved.entry(target).or_default().extend(entries);
                }
                ran.insert(test);
            }
            TestRun::Failed(_) | TestRun::Crashed(_) => kept.push(test),
        }
    }
    let recorded: BTreeSet<String> = carved.keys().cloned().collect();
    let mut targets = recorded.clone();
    // Files that do not load are reported once, here, and left as they are.
    let mut broken = BTreeSet::new();
    match CarveFile::list(&config.dir) {
        Ok(paths) => {
            for path in paths {
                match CarveFile::load(&config.dir, &path) {
                    Ok(file) => {
                        targets.insert(file.target);
                    }
                    Err(e) => {
                        eprintln!("carve: {e}");
                        eprintln!("carve: {} was left as it is", display_path(&path));
                        broken.insert(path);
                        store_failed = true;
                    }
                }
            }
        }
        Err(e) => {
            eprintln!("carve: {e}");
            store_failed = true;
        }
    }
    println!(
        "\ncarve: carved {} system test(s); writing {}",
        ran.len(),
        display_path(&config.dir)
    );
    for call in &skipped {
        eprintln!("{}", call.message());
    }
    unlisted.sort_by(|a, b| (&a.function, &a.bindings).cmp(&(&b.function, &b.bindings)));
    for call in &unlisted {
        eprintln!("{}", call.message());
    }
    for test in &kept {
        println!(
            "carve: system::{test} failed, so its carve entries were kept as they were \
             (nothing it called in this run was stored)"
        );
    }
    for target in &targets {
        let new = carved.remove(target).unwrap_or_default();
        if broken.contains(&CarveFile::path_for(&config.dir, target)) {
            continue;
        }
        if let Err(e) = store_recorded(&config.dir, target, new, &ran, registry) {
            eprintln!("carve: {e}");
            store_failed = true;
        }
    }
    let checker = Checker {
        accept_new: accepts_new_snapshots(),
        ..checker
    };
    if args.is_filtered() && checker.accept_new {
        store_failed |= !accept_new_snapshots_of(&recorded, registry, &checker);
    }
    let trials = replay_trials(registry, &checker, args);
    let replaying = args.run(trials);
    report_accepted(&checker);
    if !args.is_filtered() && !replaying.has_failed() {
        if let Err(e) = remove_orphan_snapshots(&config.dir, &targets) {
            eprintln!("carve: {e}");
            store_failed = true;
        }
    }
    carving.has_failed() || replaying.has_failed() || store_failed
}

/// Rewrites the carve file of `target` after recording, under the carve
/// folder's lock: what a generate running beside it adds is kept.
pub(super) fn store_recorded(
    dir: &Path,
    target: &str,
    carved: Vec<Entry>,
    ran: &BTreeSet<String>,
    registry: &Registry,
) -> Result<(), StoreError> {
    let _lock = CarveDirLock::acquire(dir)?;
    let path = CarveFile::path_for(dir, target);
    let existing = if path.exists() {
        CarveFile::load(dir, &path)?.entries
    } else {
        Vec::new()
    };
    let new_calls = carved.len();
    let entries = merge_recorded(&existing, carved, ran, |t| registry.has_system_test(t));
    if entries.is_empty() {
        if path.exists() {
            fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
            if let Some(folder) = path.parent() {
                layout::remove_empty_folders(dir, folder);
            }
            println!(
                "carve: removed {} (no system test calls `{target}` any more)",
                display_path(&path)
            );
        }
        return Ok(());
    }
    let changed = CarveFile::write(&path, &CarveFile::render(target, &entries))?;
    println!(
        "carve: {} {}: {} call(s) stored, {new_calls} carved in this run",
        if changed { "wrote" } else { "unchanged" },
        display_path(&path),
        entries.len(),
    );
    Ok(())
}
