//! Replay mode (plain `cargo test`): the system tests, and one trial per
//! carved call, checked against its snapshot. Record and generate mode end
//! with the same replay.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use libtest_mimic::Trial;

use crate::carving::layout::{self, display_path, OldLayout};
use crate::carving::replay::{repeated_calls, snapshot_names, Case, Checker};
use crate::carving::skim::skim;
use crate::carving::store::CarveFile;
use crate::coverage::report::Calls;
use crate::registry::{Registry, Target};

use super::filters::TestArgs;
use super::{report_accepted, system_trials};

pub(super) fn run_replay(args: &TestArgs, registry: &Registry, checker: &Checker) -> bool {
    let mut trials = system_trials(registry);
    trials.extend(replay_trials(registry, checker, args));
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    let failed = args.run(trials).has_failed();
    report_accepted(checker);
    failed
}

/// One trial per carved call, plus one failing trial per unusable carve file.
pub(super) fn replay_trials(registry: &Registry, checker: &Checker, args: &TestArgs) -> Vec<Trial> {
    let mut trials = Vec::new();
    let dir = &checker.dir;
    let (paths, old) = match CarveFile::list(dir).and_then(|p| Ok((p, OldLayout::find(dir)?))) {
        Ok(found) => found,
        Err(e) => return vec![failing_trial("carved".into(), e.to_string())],
    };
    // Targets still in the old layout are not replayed: one test fails and
    // says how to move them.
    if !old.is_empty() {
        trials.push(failing_trial("carved".into(), old.replay_message()));
    }
    let old_files = old.files();
    let checker = Arc::new(checker.clone());
    for path in paths {
        if old_files.contains(&path.as_path())
            || !may_be_selected(args, dir, &path)
        {
            continue;
        }
        if args.libtest.list {
            if let Some(names) = listed_names(registry, dir, &path) {
                trials.extend(names.into_iter().map(|name| {
                    Trial::test(name, || Err("carve: this trial was made to be listed".into()))
                }));
                continue;
            }
        }
        let file = match CarveFile::load(dir, &path) {
            Ok(file) => file,
            Err(e) => {
                trials.push(failing_trial(
                    format!("carved::{}", CarveFile::target_of(dir, &path)),
                    e.to_string(),
                ));
                continue;
            }
        };
        if old.targets.contains_key(&file.target) {
            continue;
        }
        let Some(target) = registry.target(&file.target) else {
            trials.push(failing_trial(
                format!("carved::{}", file.target),
                unknown_target(&file),
            ));
            continue;
        };
        for case in cases_of(file, target, dir) {
            let checker = Arc::clone(&checker);
            trials.push(Trial::test(case.test.clone(), move || {
                case.run(&checker).map_err(|e| e.to_string().into())
            }));
        }
    }
    trials
}

/// The test names of the carve file at `path`, from a [`skim`] of it: what
/// `--list` shows, without parsing every value. `None` when the skim is not
/// sure (then the file is loaded as for a run, and what that finds is listed).
pub(super) fn listed_names(registry: &Registry, dir: &Path, path: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(path).ok()?;
    let skimmed = skim(&text)?;
    if CarveFile::path_for(dir, &skimmed.target) != path || registry.target(&skimmed.target).is_none()
    {
        return None;
    }
    Some(test_names(&skimmed.target, skimmed.carved))
}

/// The test names of a carve file's entries, in order, given whether a
/// system test carved each: `carved::<target>::<NNNN>` and
/// `generated::<target>::<NNNN>`, each numbered from 1.
pub(super) fn test_names(target: &str, carved: impl IntoIterator<Item = bool>) -> Vec<String> {
    let mut numbers = [0usize; 2];
    carved
        .into_iter()
        .map(|carved| {
            let (kind, number) = match carved {
                true => ("carved", &mut numbers[0]),
                false => ("generated", &mut numbers[1]),
            };
            *number += 1;
            format!("{kind}::{target}::{number:04}")
        })
        .collect()
}

/// Whether a test of `target`'s carve file can pass the filters of `args`.
/// Only exact filters (nextest runs each test alone with `--exact`) rule
/// files out: a substring filter may match any test's number.
pub(super) fn may_be_selected(args: &TestArgs, dir: &Path, path: &Path) -> bool {
    if !args.libtest.exact || args.filters.is_empty() {
        return true;
    }
    // A test's name (`carved::a::b::0001`), or a broken file's (`carved::a::b`),
    // compared by file: a path does not always spell its target back.
    args.filters.iter().any(|filter| {
        target_of_case(filter)
            .or_else(|| filter.strip_prefix("carved::"))
            .is_some_and(|target| layout::carve_file(dir, target) == path)
    })
}

/// One case per entry of `file`, a carve file in `dir` of `target`, named
/// `carved::<target>::<NNNN>` or `generated::<target>::<NNNN>`.
pub(super) fn cases_of(file: CarveFile, target: &'static Target, dir: &Path) -> Vec<Case> {
    let snapshot_folder = layout::snapshot_folder(dir, &file.target);
    let snapshots = snapshot_names(&file.entries);
    let repeats = repeated_calls(&file.entries, &snapshots);
    let tests = test_names(
        &file.target,
        file.entries.iter().map(|e| e.origin.system_test().is_some()),
    );
    let entries_in_file = file.entries.len();
    file.entries
        .into_iter()
        .zip(snapshots)
        .zip(tests)
        .zip(repeats)
        .map(|(((entry, snapshot), test), repeats)| {
            Case {
                test,
                target_name: file.target.clone(),
                target,
                file: file.path.clone(),
                entry,
                snapshot_folder: snapshot_folder.clone(),
                entries_in_file,
                snapshot,
                repeats,
            }
        })
        .collect()
}

/// Writes the snapshots that the calls of `targets` lack, as their replay
/// would, whether or not a filter selects them: so a filtered record leaves
/// no carved call without its snapshot. Their coverage is not counted (the
/// replay that follows counts what it runs). Returns false if one failed.
pub(super) fn accept_new_snapshots_of(
    targets: &BTreeSet<String>,
    registry: &Registry,
    checker: &Checker,
) -> bool {
    let checker = Checker {
        coverage: Calls::default(),
        ..checker.clone()
    };
    let mut ok = true;
    for name in targets {
        let Some(target) = registry.target(name) else {
            continue;
        };
        let path = CarveFile::path_for(&checker.dir, name);
        let Ok(file) = CarveFile::load(&checker.dir, &path) else {
            continue;
        };
        for case in cases_of(file, target, &checker.dir) {
            // Generated entries got theirs when they were generated; found
            // failures have none until they are fixed.
            if case.entry.origin.system_test().is_none() || case.has_snapshot() {
                continue;
            }
            if let Err(e) = case.run(&checker) {
                eprintln!("carve: {}: {e}", case.test);
                ok = false;
            }
        }
    }
    ok
}

pub(super) fn unknown_target(file: &CarveFile) -> String {
    let folder = file.path.with_extension("");
    format!(
        "{}: no target `{}` is registered in this test binary. Was it renamed or removed? \
         Then delete this file and its snapshot folder {}/ (or move them to the new name's \
         place), and re-record with `CARVE=record cargo test`. If it still exists, check that \
         it is still marked `#[carve::target]` and that this test links its crate \
         (`use mycrate as _;`).",
        display_path(&file.path),
        file.target,
        display_path(&folder),
    )
}

pub(super) fn failing_trial(name: String, message: String) -> Trial {
    Trial::test(name, move || Err(message.clone().into()))
}

/// The target of a replay trial's name: `a::b` of `carved::a::b::0001` or
/// `generated::a::b::0001`.
pub(super) fn target_of_case(name: &str) -> Option<&str> {
    let rest = name
        .strip_prefix("carved::")
        .or_else(|| name.strip_prefix("generated::"))?;
    let (target, number) = rest.rsplit_once("::")?;
    number.bytes().all(|b| b.is_ascii_digit()).then_some(target)
}
