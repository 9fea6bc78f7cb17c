//! The test harness behind `carve::main!()`: builds libtest-mimic trials for
//! system tests and carved calls, and runs the mode `CARVE` asks for.
//!
//! Trial names: `system::<fn>`, `carved::<target>::<NNNN>`,
//! `generated::<target>::<NNNN>`; a carve file that cannot be used at all is
//! one failing trial `carved::<file stem>`, so every other test still runs.
//! Under `CARVE=generate`, the trials are first `generate::<target>`, one per
//! target, with a carve file or not (the only ones listed, so nextest runs
//! and partitions them), then the replay.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;

use libtest_mimic::{Failed, Trial};

use crate::carving::isolate;
use crate::carving::layout::{display_path, OldLayout};
use crate::carving::record;
use crate::carving::replay::{Accepted, Checker, SnapshotCheck};
use crate::carving::store::write_atomic;
use crate::coverage::history::RunHistory;
use crate::coverage::html;
use crate::coverage::report::{Calls, Report};
use crate::env::{self, Config, Mode, Settings};
use crate::generation::worker;
use crate::outcome::panic_message;
use crate::panics::{install_panic_hook, quietly};
use crate::registry::{Registry, SystemTest};

mod ci;
mod filters;
mod generate_mode;
mod history;
mod orphans;
mod record_mode;
mod replay_mode;

use ci::ci_refusal;
use filters::TestArgs;
use generate_mode::run_generate;
use record_mode::run_record;
use replay_mode::run_replay;

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
    if let Some(target) = crate::env::role::worker_target() {
        worker::worker_main(registry, &config, &target);
    }
    if let Some(name) = crate::env::role::recorded_test() {
        let Some((_, test)) = registry.system_tests().find(|(n, _)| *n == name) else {
            fail_setup(&format!("no system test `{name}` to record"))
        };
        isolate::child_main(&name, || {
            run_system_test(&name, test, true)
                .map_err(|f| f.message().unwrap_or("failed").to_owned())
        });
    }
    // `[package.metadata.carve]`: read here, past the child roles (a
    // worker gets its budget and timeout from its parent).
    let root = Path::new(main.manifest_dir);
    let settings: &'static Settings = match Settings::load(root)
        .and_then(|s| s.check_targets(registry.targets().map(|(name, _)| name)).map(|()| s))
    {
        Ok(settings) => Box::leak(Box::new(settings)),
        Err(e) => fail_setup(&format!(
            "{e}. See README \"Per-target settings\" for the keys carve reads."
        )),
    };
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
    if let Some(refusal) = ci_refusal(config.mode, env::ci().as_deref()) {
        if !args.libtest.list {
            fail_setup(&refusal);
        }
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
    let history_folder = history::folder(
        &std::env::current_exe().unwrap_or_default(),
        root,
        &env::package_name(root),
    );
    let (failed, generation, histories) = match config.mode {
        Mode::Generate => run_generate(
            &args,
            registry,
            &config,
            settings,
            checker,
            &history_folder,
        ),
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
/// writes the JSON report to `CARVE_REPORT`, the lcov tracefile to
/// `CARVE_LCOV` and the HTML report to `CARVE_HTML`, with the generation runs of this run (`histories`) or, for
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
    let json_ok = write_json_report(report, config) & write_lcov(report, config);
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

/// Writes the lcov tracefile to `CARVE_LCOV`. Returns false if writing failed.
fn write_lcov(report: &Report, config: &Config) -> bool {
    let Some(path) = &config.lcov else {
        return true;
    };
    match write_atomic(path, report.to_lcov().as_bytes()) {
        Ok(()) => {
            println!("carve: wrote the lcov tracefile to {}", display_path(path));
            true
        }
        Err(e) => {
            eprintln!("carve: CARVE_LCOV={}: {e}", display_path(path));
            false
        }
    }
}

fn fail_setup(message: &str) -> ! {
    eprintln!("carve: {message}");
    std::process::exit(2)
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is one insert or take: never left inconsistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
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
