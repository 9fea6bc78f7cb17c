//! The test harness behind `carve::main!()`: builds libtest-mimic trials for
//! system tests and carved calls, and runs the mode `CARVE` asks for.
//!
//! Trial names: `system::<fn>`, `carved::<target>::<NNNN>`,
//! `generated::<target>::<NNNN>`; a carve file that cannot be used at all is
//! one failing trial `carved::<file stem>`, so every other test still runs.
//! Under `CARVE=generate`, the trials are first `generate::<target>`, one per
//! carve file (the only ones listed, so nextest runs and partitions them),
//! then the replay.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, Mutex};

use libtest_mimic::{Conclusion, Failed, Trial};

use crate::carving::layout::{self, OldLayout};
use crate::carving::isolate::{self, TestRun};
use crate::carving::lock::CarveDirLock;
use crate::carving::record;
use crate::carving::replay::{
    repeated_calls, snapshot_names, Accepted, Case, Checker, SnapshotCheck,
};
use crate::carving::skim::skim;
use crate::carving::store::{
    display_path, merge_recorded, write_atomic, CarveFile, Entry, Origin, StoreError,
};
use crate::coverage::goals::GoalKind;
use crate::coverage::html;
use crate::coverage::report::{Calls, GenerationStats, Report};
use crate::env::{self, Config, Mode};
use crate::error::Error;
use crate::generation::history::{self, RunHistory};
use crate::generation::worker;
use crate::outcome::{install_panic_hook, panic_message, quietly};
use crate::registry::{Registry, SystemTest, Target};

mod filters;

use filters::TestArgs;

/// What `carve::main!()` passes in from the test crate.
#[derive(Debug, Clone, Copy)]
pub struct MainConfig {
    /// `CARGO_MANIFEST_DIR` of the test crate: the package root.
    pub manifest_dir: &'static str,
    /// insta's assertion, expanded in the test crate.
    pub check_snapshot: SnapshotCheck,
}

/// Runs the harness and exits with libtest's exit codes (101 on failure).
pub fn main(main: MainConfig) -> ! {
    install_panic_hook();
    let config = match Config::from_env(Path::new(main.manifest_dir)) {
        Ok(config) => config,
        Err(e) => fail_setup(&format!("{e}")),
    };
    // Lives as long as the process: generate trials run on libtest's threads.
    let registry: &'static Registry = Box::leak(Box::new(Registry::collect()));
    if let Ok(target) = std::env::var(worker::WORKER_VAR) {
        worker::worker_main(registry, &config, &target);
    }
    if let Ok(name) = std::env::var(isolate::TEST_VAR) {
        let Some((_, test)) = registry.system_tests().find(|(n, _)| *n == name) else {
            fail_setup(&format!("no system test `{name}` to record"))
        };
        isolate::child_main(&name, || {
            run_system_test(&name, test, true)
                .map_err(|f| f.message().unwrap_or("failed").to_owned())
        });
    }
    let mut args = TestArgs::from_env();
    if args.libtest.list && args.libtest.color.is_none() {
        // A listing has no colours, but libtest-mimic strips escape codes
        // byte by byte from output that is not a terminal: in a debug build
        // that is most of the time `--list` takes for 100,000 tests.
        args.libtest.color = Some(libtest_mimic::ColorSetting::Always);
    }
    if let Some(message) = config.missing_dir() {
        fail_setup(&message);
    }
    if is_ci() && config.mode != Mode::Replay && !args.libtest.list {
        fail_setup(&ci_refuses(config.mode));
    }
    // What a writer killed between its write and its rename left in the
    // carve folder (replay writes no carve file, and leaves it alone).
    if config.mode != Mode::Replay && !args.libtest.list {
        if let Some(line) = crate::carving::atomic::tidy(&config.dir) {
            println!("carve: {line}");
        }
    }
    let coverage = Calls::default();
    let checker = Checker {
        dir: config.dir.clone(),
        check: main.check_snapshot,
        accept_new: false,
        coverage: coverage.clone(),
        accepted: Accepted::default(),
    };
    let root = Path::new(main.manifest_dir);
    let history_folder = history::folder(
        &std::env::current_exe().unwrap_or_default(),
        root,
        &env::package_name(root),
    );
    let (failed, generation, histories) = match config.mode {
        Mode::Generate => run_generate(&args, registry, &config, checker, &history_folder),
        Mode::Record if !args.libtest.list => (
            run_record(&args, registry, &config, checker),
            BTreeMap::new(),
            BTreeMap::new(),
        ),
        _ => (
            run_replay(&args, registry, &checker),
            BTreeMap::new(),
            BTreeMap::new(),
        ),
    };
    let report_failed = !args.libtest.list && {
        let report = Report::build(registry, &coverage.take(), &generation, config.seed)
            .with_failures(coverage.take_failures());
        !report_coverage(&report, &config, histories, &history_folder)
    };
    std::process::exit(if failed || report_failed { 101 } else { 0 })
}

/// Prints the coverage summary (and the annotated listing when asked);
/// writes the JSON report to `CARVE_REPORT` and the HTML report to
/// `CARVE_HTML`, with the generation runs of this run (`histories`) or, for
/// targets not generated now, their last run kept in `history_folder`.
/// Returns false if writing failed.
fn report_coverage(
    report: &Report,
    config: &Config,
    mut histories: BTreeMap<String, RunHistory>,
    history_folder: &Path,
) -> bool {
    println!("{}", report.summary());
    if let Some(filter) = &config.annotate {
        match report.annotate_misses(filter) {
            Some(miss) => eprintln!("carve: {miss}"),
            None => println!("{}", report.annotate(filter)),
        }
    }
    let json_ok = write_json_report(report, config);
    let Some(dir) = &config.html else {
        return json_ok;
    };
    for target in &report.targets {
        if !histories.contains_key(&target.name) {
            if let Some(run) = history::last_run(history_folder, &target.name) {
                histories.insert(target.name.clone(), run);
            }
        }
    }
    match html::write(report, &histories, dir) {
        Ok(index) => {
            println!("carve: wrote the HTML report to {}", display_path(&index));
            json_ok
        }
        Err(e) => {
            eprintln!("carve: CARVE_HTML={}: {e}", display_path(dir));
            false
        }
    }
}

/// Writes the JSON report to `CARVE_REPORT`. Returns false if writing failed.
fn write_json_report(report: &Report, config: &Config) -> bool {
    match &config.report {
        Some(path) => match write_atomic(path, report.to_json().as_bytes()) {
            Ok(()) => {
                println!("carve: wrote the coverage report to {}", display_path(path));
                true
            }
            Err(e) => {
                eprintln!("carve: CARVE_REPORT={}: {e}", display_path(path));
                false
            }
        },
        None => true,
    }
}

fn fail_setup(message: &str) -> ! {
    eprintln!("carve: {message}");
    std::process::exit(2)
}

fn run_replay(args: &TestArgs, registry: &Registry, checker: &Checker) -> bool {
    let mut trials = system_trials(registry);
    trials.extend(replay_trials(registry, checker, args));
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    let failed = args.run(trials).has_failed();
    report_accepted(checker);
    failed
}

/// Prints how many new snapshots were written, one line per target.
fn report_accepted(checker: &Checker) {
    for line in checker.accepted.report() {
        println!("{line}");
    }
}

/// Moves files of carve's old layout (`carved/a::b.ron`,
/// `carved/a::b@<id>.snap`) to their portable places, saying so. Returns
/// false if some could not be moved.
fn migrate_layout(dir: &Path) -> bool {
    let old = match OldLayout::find(dir) {
        Ok(old) => old,
        Err(e) => {
            eprintln!("carve: {e}");
            return false;
        }
    };
    let (moved, errors) = old.migrate();
    for moved in &moved {
        println!("carve: {moved}");
    }
    for e in &errors {
        eprintln!("carve: {e}");
    }
    errors.is_empty()
}

fn run_record(args: &TestArgs, registry: &Registry, config: &Config, checker: Checker) -> bool {
    if std::env::var_os("NEXTEST_RUN_ID").is_some() || std::env::var_os("NEXTEST").is_some() {
        fail_setup(
            "CARVE=record needs every system test in one process; run it with `cargo test`, \
             not `cargo nextest run` (replaying works under nextest)",
        );
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => fail_setup(&format!("cannot find this test binary to record in: {e}")),
    };
    for skipped in crate::registry::all_skipped() {
        eprintln!("{}", skipped.line());
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
    for (test, run) in runs {
        match run {
            TestRun::Passed {
                entries,
                unwritable,
                skipped: skipped_here,
            } => {
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is one insert or take: never left inconsistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Generate mode: one trial `generate::<target>` per carve file of a
/// registered target, which mines its calls, generates calls that raise its
/// coverage in worker processes and adds them to the file. libtest runs the
/// trials (so filters, `--exact`, `--skip` and `--list` select targets, and
/// `cargo nextest run --partition` spreads them over machines) on
/// `CARVE_JOBS` threads; then the calls are replayed. Returns whether
/// anything failed, and what generation did per target.
///
/// Each target's generation writes only its own carve file and depends only
/// on it and on what the other files held before this seed's generation
/// ([`worker::Baseline::replay`]), so the files are the same whatever the
/// order, the job count or the partition. What a target's generation prints
/// is held back and printed as one block per target, in target order, once
/// the trials are done: nothing interleaves, and the output is the same for
/// any job count.
///
/// Replay: without a filter, everything, as in replay mode. With one, what
/// the filter selects, plus every call of the targets generated, so their
/// new snapshots are written and their calls checked (under nextest, where
/// each trial runs in a process of its own with `--exact generate::<target>`,
/// each process replays its target).
fn run_generate(
    args: &TestArgs,
    registry: &'static Registry,
    config: &Config,
    checker: Checker,
    history_folder: &Path,
) -> (
    bool,
    BTreeMap<String, GenerationStats>,
    BTreeMap<String, RunHistory>,
) {
    let jobs = config.jobs_or(args.libtest.test_threads);
    let config = Arc::new(Config {
        jobs: Some(jobs),
        ..config.clone()
    });
    let done: Arc<Mutex<BTreeMap<String, Generated>>> = Arc::default();
    if args.libtest.list {
        let listing = args.run(generate_trials(registry, &config, &done));
        return (listing.has_failed(), BTreeMap::new(), BTreeMap::new());
    }
    let mut failed = !migrate_layout(&config.dir);
    println!(
        "carve: generating calls with seed {} (CARVE_SEED) and budget {} per target (CARVE_BUDGET)",
        config.seed, config.budget
    );
    let trials = generate_trials(registry, &config, &done);
    let mut generate_args = args.clone();
    generate_args.libtest.test_threads = Some(jobs);
    let generating = generate_args.run(trials);
    failed |= generating.has_failed();
    let done = std::mem::take(&mut *lock(&done));
    let mut stats = BTreeMap::new();
    let mut histories = BTreeMap::new();
    for (target, generated) in &done {
        for line in &generated.out {
            println!("{line}");
        }
        for line in &generated.err {
            eprintln!("{line}");
        }
        if let Some(done) = &generated.stats {
            stats.insert(target.clone(), *done);
        }
        if let Some(run) = &generated.history {
            // A history is a convenience: failing to keep it fails nothing.
            if let Err(e) = history::append(history_folder, target, run.clone()) {
                eprintln!(
                    "carve: {target}: cannot keep the generation history in {}: {e}",
                    display_path(history_folder)
                );
            }
            histories.insert(target.clone(), run.clone());
        }
    }
    let checker = Checker {
        accept_new: accepts_new_snapshots(),
        ..checker
    };
    let mut trials = system_trials(registry);
    // Every carve file: the calls of the targets just generated are
    // replayed (for their new snapshots) whatever the filter.
    trials.extend(replay_trials(registry, &checker, &TestArgs::default()));
    let replay_args = if args.is_filtered() {
        trials.retain(|trial| {
            args.selects(trial.name())
                || target_of_case(trial.name()).is_some_and(|t| done.contains_key(t))
        });
        args.unfiltered()
    } else {
        args.clone()
    };
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    let replaying = replay_args.run(trials);
    report_accepted(&checker);
    (replaying.has_failed() || failed, stats, histories)
}

/// What the generation of one target did and printed.
#[derive(Debug, Default)]
struct Generated {
    /// Its figures, if it ran to the end.
    stats: Option<GenerationStats>,
    /// Goals covered against executions, if it ran.
    history: Option<RunHistory>,
    /// Lines for stdout.
    out: Vec<String>,
    /// Lines for stderr.
    err: Vec<String>,
}

/// One trial `generate::<target>` per carve file in the carve folder whose
/// target is registered (a file of an unknown target fails its replay
/// test instead). Each trial records what it did in `done`.
fn generate_trials(
    registry: &'static Registry,
    config: &Arc<Config>,
    done: &Arc<Mutex<BTreeMap<String, Generated>>>,
) -> Vec<Trial> {
    let paths = match CarveFile::list(&config.dir) {
        Ok(paths) => paths,
        Err(e) => fail_setup(&e.to_string()),
    };
    // By the file each target's name makes: a path does not always spell
    // its target back (`Meters/From(u32)/from.ron`).
    let by_file: BTreeMap<std::path::PathBuf, &str> = registry
        .targets()
        .map(|(name, _)| (layout::carve_file(&config.dir, name), name))
        .collect();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = by_file.get(&path)?.to_string();
            let target = registry.target(&name)?;
            let (config, done) = (Arc::clone(config), Arc::clone(done));
            Some(Trial::test(format!("generate::{name}"), move || {
                let mut generated = Generated::default();
                let result = CarveFile::load(&config.dir, &path)
                    .map_err(Error::from)
                    .and_then(|file| generate_for(registry, target, &file, &config, &mut generated.out));
                let verdict = match result {
                    Ok((stats, history)) => {
                        generated.stats = Some(stats);
                        generated.history = history;
                        Ok(())
                    }
                    Err(e) => {
                        generated.err.push(format!("carve: {e}"));
                        Err(Failed::from(e.to_string()))
                    }
                };
                lock(&done).insert(name, generated);
                verdict
            }))
        })
        .collect()
}

/// The target of a replay trial's name: `a::b` of `carved::a::b::0001` or
/// `generated::a::b::0001`.
fn target_of_case(name: &str) -> Option<&str> {
    let rest = name
        .strip_prefix("carved::")
        .or_else(|| name.strip_prefix("generated::"))?;
    let (target, number) = rest.rsplit_once("::")?;
    number.bytes().all(|b| b.is_ascii_digit()).then_some(target)
}

/// Generates calls for one target in worker processes, which add what they
/// find to its carve file; says (in `out`) what coverage was before and
/// after.
fn generate_for(
    registry: &Registry,
    target: &'static Target,
    file: &CarveFile,
    config: &Config,
    out: &mut Vec<String>,
) -> Result<(GenerationStats, Option<RunHistory>), Error> {
    let mut baseline = worker::Baseline::replay(registry, target, file, &config.dir, config.seed)?;
    let before = baseline.existing();
    if before.reach.is_empty() {
        out.push(format!(
            "carve: {}: skipped: no branch outcomes in reach (mark the functions that hold its \
             logic with `#[carve::instrument]`)",
            file.target
        ));
        return Ok((GenerationStats::default(), None));
    }
    let summary = worker::generate_in_workers(&file.target, &baseline, &before, config)?;
    // Only what generation added is replayed: the rest replayed the same
    // before it (other targets' calls of this seed are left out either way).
    let stored: Vec<Entry> = summary.stored.iter().map(|f| f.entry().clone()).collect();
    baseline.add(&stored);
    let after = baseline.existing();
    let (covered_before, total_before) = before.count(None);
    let (covered_after, total_after) = after.count(None);
    // Boundaries and mutants apart from branch coverage, never mixed in.
    let goals = [(GoalKind::Boundary, "boundaries"), (GoalKind::Mutant, "weak mutants killed")]
        .into_iter()
        .filter_map(|(kind, what)| {
            let ((b, bt), (a, at)) = (before.count(Some(kind)), after.count(Some(kind)));
            (bt + at > 0).then(|| format!("; {what} {b}/{bt} -> {a}/{at}"))
        })
        .collect::<String>();
    out.push(format!(
        "carve: {}: branch coverage {covered_before}/{total_before} -> \
         {covered_after}/{total_after}{goals}; kept {} call(s), found {} failure(s) in {} executions ({} generated arguments did not deserialize){}{}",
        file.target,
        summary.kept(),
        summary.failures(),
        summary.executions,
        summary.undeserializable,
        match summary.crashes {
            0 => String::new(),
            n => format!(" ({n} worker crash(es) survived)"),
        },
        summary.unconfirmed(),
    ));
    for entry in &stored {
        if let Origin::Found { at, .. } = &entry.origin {
            out.push(format!(
                "carve: {}: found a failing input, minimized: {}{} fails at {at}",
                file.target,
                file.target,
                crate::carving::replay::strip_layout(&entry.args)
            ));
        }
    }
    let failures = summary.failures();
    let history = RunHistory {
        seed: config.seed,
        budget: config.budget.to_string(),
        goals: total_before as u64,
        points: summary.history,
    };
    Ok((
        GenerationStats {
            executions: summary.executions,
            failures,
        },
        Some(history),
    ))
}

/// Rewrites the carve file of `target` after recording, under the carve
/// folder's lock: what a generate running beside it adds is kept.
fn store_recorded(
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

/// Deletes the snapshots no entry uses any more: for each of `targets`, the
/// `<id>.snap` files in its snapshot folder (and shards) that no entry of
/// its carve file checks, and the pending ones (`<id>.snap.new`,
/// `<id>.pending-snap`) that no entry would accept: left by a call removed
/// since (an entry duplicated by hand, say), `cargo insta review` would
/// offer them for a call that no longer exists. The file is read again
/// under the carve-folder lock, so an entry a generate run beside this one
/// just added keeps its snapshot. Nothing else is touched; folders left
/// empty are removed.
fn remove_orphan_snapshots(dir: &Path, targets: &BTreeSet<String>) -> Result<(), StoreError> {
    let _lock = CarveDirLock::acquire(dir)?;
    for target in targets {
        let path = CarveFile::path_for(dir, target);
        let entries = match CarveFile::load(dir, &path) {
            Ok(file) => file.entries,
            // Gone: every snapshot of the target is an orphan.
            Err(StoreError::Io { error, .. }) if error.kind() == io::ErrorKind::NotFound => {
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        let used: BTreeSet<String> = snapshot_names(&entries).into_iter().collect();
        let folder = layout::snapshot_folder(dir, target);
        for (path, snapshot, pending) in snapshot_files(&folder) {
            if !used.contains(&snapshot) {
                if fs::remove_file(&path).is_ok() {
                    println!(
                        "carve: removed {} ({}its call is no longer carved)",
                        display_path(&path),
                        if pending { "a pending snapshot; " } else { "" }
                    );
                }
                continue;
            }
            if pending {
                // A change to review (`cargo insta review`): not carve's.
                continue;
            }
            // In use, but where the target's size no longer puts it (it
            // crossed the sharding threshold): moved, never rewritten.
            let home = layout::snapshot_shard(&folder, &snapshot, entries.len())
                .join(format!("{snapshot}.snap"));
            if home != path && !home.exists() {
                let moved = home
                    .parent()
                    .map_or(Ok(()), fs::create_dir_all)
                    .and_then(|()| fs::rename(&path, &home));
                if let Err(e) = moved {
                    return Err(StoreError::io(&home, e));
                }
            }
        }
        for shard in shard_folders(&folder) {
            layout::remove_empty_folders(dir, &shard);
        }
        layout::remove_empty_folders(dir, &folder);
    }
    Ok(())
}

/// The snapshot files in a target's snapshot folder and its shards, each
/// with its snapshot's name and whether it is pending review: `<id>.snap`,
/// and `<id>.snap.new` or `<id>.pending-snap` (pending).
fn snapshot_files(folder: &Path) -> Vec<(std::path::PathBuf, String, bool)> {
    let in_folder = |folder: &Path| -> Vec<(std::path::PathBuf, String, bool)> {
        let Ok(read) = fs::read_dir(folder) else {
            return Vec::new();
        };
        read.flatten()
            .filter_map(|e| {
                let path = e.path();
                let name = path.file_name()?.to_str()?;
                let (snapshot, pending) = match name.strip_suffix(".snap") {
                    Some(stem) => (stem, false),
                    None => (
                        name.strip_suffix(".snap.new")
                            .or_else(|| name.strip_suffix(".pending-snap"))?,
                        true,
                    ),
                };
                let snapshot = snapshot.to_owned();
                (layout::is_snapshot_name(&snapshot) && path.is_file())
                    .then_some((path, snapshot, pending))
            })
            .collect()
    };
    let mut files = in_folder(folder);
    for shard in shard_folders(folder) {
        files.extend(in_folder(&shard));
    }
    files.sort();
    files
}

/// The shard folders (`0x3a`) of a target's snapshot folder.
fn shard_folders(folder: &Path) -> Vec<std::path::PathBuf> {
    let Ok(read) = fs::read_dir(folder) else {
        return Vec::new();
    };
    read.flatten()
        .filter(|e| e.file_name().to_str().is_some_and(layout::is_shard_name))
        .map(|e| e.path())
        .filter(|path| path.is_dir())
        .collect()
}

/// Record and generate write carve files and snapshots; under CI nothing
/// is written, so they refuse before anything runs.
fn ci_refuses(mode: Mode) -> String {
    let name = match mode {
        Mode::Generate => "generate",
        Mode::Record | Mode::Replay => "record",
    };
    format!(
        "CARVE={name} writes carve files and snapshots, and under CI (CI={}) carve writes \
         nothing: run `CARVE={name} cargo test` locally and commit carved/, or unset CI.",
        std::env::var("CI").unwrap_or_default()
    )
}

fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// Whether record and generate mode write the snapshots of calls that have
/// none: not under CI, nor when `INSTA_UPDATE=no` asks insta to write nothing.
fn accepts_new_snapshots() -> bool {
    !is_ci() && std::env::var("INSTA_UPDATE").map_or(true, |v| v != "no")
}

fn system_trials(registry: &Registry) -> Vec<Trial> {
    registry
        .system_tests()
        .map(|(name, test)| {
            let name_owned = name.to_owned();
            Trial::test(format!("system::{name}"), move || {
                run_system_test(&name_owned, test, false)
            })
            .with_ignored_flag(test.ignored)
        })
        .collect()
}

fn run_system_test(name: &str, test: &SystemTest, recording: bool) -> Result<(), Failed> {
    // A panic a test expects is not worth a backtrace.
    let run = || match test.should_panic {
        Some(_) => quietly(|| panic::catch_unwind(AssertUnwindSafe(test.run))),
        None => panic::catch_unwind(AssertUnwindSafe(test.run)),
    };
    let result = if recording {
        record::record_test(name, run)
    } else {
        run()
    };
    match (result, test.should_panic) {
        (Ok(Ok(())), None) => Ok(()),
        (Ok(Err(message)), None) => Err(message.into()),
        (Err(payload), None) => Err(format!("panicked: {}", panic_message(&*payload)).into()),
        (Ok(_), Some(_)) => Err("test did not panic as expected".into()),
        (Err(payload), Some(expected)) => {
            let message = panic_message(&*payload);
            if message.contains(expected) {
                Ok(())
            } else {
                Err(format!(
                    "panic did not contain expected string\n      panic message: {message:?}\n \
                     expected substring: {expected:?}"
                )
                .into())
            }
        }
    }
}

/// One trial per carved call, plus one failing trial per unusable carve file.
fn replay_trials(registry: &Registry, checker: &Checker, args: &TestArgs) -> Vec<Trial> {
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
fn listed_names(registry: &Registry, dir: &Path, path: &Path) -> Option<Vec<String>> {
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
fn test_names(target: &str, carved: impl IntoIterator<Item = bool>) -> Vec<String> {
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
fn may_be_selected(args: &TestArgs, dir: &Path, path: &Path) -> bool {
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
fn cases_of(file: CarveFile, target: &'static Target, dir: &Path) -> Vec<Case> {
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
fn accept_new_snapshots_of(targets: &BTreeSet<String>, registry: &Registry, checker: &Checker) -> bool {
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

fn unknown_target(file: &CarveFile) -> String {
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

fn failing_trial(name: String, message: String) -> Trial {
    Trial::test(name, move || Err(message.clone().into()))
}
