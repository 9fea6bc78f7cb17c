//! Generate mode (`CARVE=generate`): one trial per target that generates
//! calls raising its coverage in worker processes and adds them to its
//! carve file, then the replay.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use libtest_mimic::{Failed, Trial};

use crate::carving::layout::{self, display_path};
use crate::carving::replay::Checker;
use crate::carving::store::{CarveFile, Origin};
use crate::coverage::counters;
use crate::coverage::goals::GoalKind;
use crate::coverage::history::RunHistory;
use crate::coverage::report::GenerationStats;
use crate::env::{Config, Settings};
use crate::error::Error;
use crate::generation::worker;
use crate::registry::{Registry, Target};

use super::ci::accepts_new_snapshots;
use super::filters::TestArgs;
use super::history;
use super::replay_mode::{replay_trials, target_of_case};
use super::{fail_setup, lock, migrate_layout, report_accepted, system_trials};

/// What the generation of one target did and printed.
#[derive(Debug, Default)]
pub(super) struct Generated {
    /// Its figures, if it ran to the end.
    stats: Option<GenerationStats>,
    /// Goals covered against executions, if it ran.
    history: Option<RunHistory>,
    /// Lines for stdout.
    out: Vec<String>,
    /// Lines for stderr.
    err: Vec<String>,
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
pub(super) fn run_generate(
    args: &TestArgs,
    registry: &'static Registry,
    config: &Config,
    settings: &'static Settings,
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
        let listing = args.run(generate_trials(registry, &config, settings, &done, None));
        return (listing.has_failed(), BTreeMap::new(), BTreeMap::new());
    }
    let mut failed = !migrate_layout(&config.dir);
    println!(
        "carve: generating calls with seed {} (CARVE_SEED) and budget {} per target ({})",
        config.seed,
        settings.defaults_over(&config).budget,
        settings.budget_source(&config)
    );
    if let Some(summary) = counters::summary() {
        println!("{summary}");
    }
    let trials = generate_trials(
        registry,
        &config,
        settings,
        &done,
        generating(args, registry, crate::env::under_nextest()),
    );
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

/// The targets a run with `args` generates for, when filters or skips
/// leave some out: those whose trial `generate::<target>` they select.
/// `None` (every target) without a filter, and under nextest, which runs
/// each trial in a process of its own with `--exact generate::<target>`:
/// there a process is one part of a run that generates for every target.
/// Owners of shared functions ([`crate::generation::owners`]) are decided
/// among every target all the same (any split of a run gives its files,
/// byte for byte); a target that leaves outcomes to an owner this run
/// does not generate for says so, and how to explore them.
fn generating(args: &TestArgs, registry: &Registry, under_nextest: bool) -> Option<BTreeSet<String>> {
    if !args.is_filtered() || under_nextest {
        return None;
    }
    Some(
        registry
            .targets()
            .map(|(name, _)| name)
            .filter(|name| args.selects(&format!("generate::{name}")))
            .map(str::to_owned)
            .collect(),
    )
}

/// One trial `generate::<target>` per carve file in the carve folder whose
/// target is registered (a file of an unknown target fails its replay
/// test instead), then one per registered target that has no carve file (no
/// system test called it), which starts from values carved for the others
/// ([`crate::generation::borrowed`]). Each trial records what it did in
/// `done`. `generating`: the targets the run generates for, if not every
/// one ([`generating`]).
pub(super) fn generate_trials(
    registry: &'static Registry,
    config: &Arc<Config>,
    settings: &'static Settings,
    done: &Arc<Mutex<BTreeMap<String, Generated>>>,
    generating: Option<BTreeSet<String>>,
) -> Vec<Trial> {
    let generating = Arc::new(generating);
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
    // In name order, after those with a file.
    let never_called: Vec<(std::path::PathBuf, &str)> = registry
        .targets()
        .map(|(name, _)| (layout::carve_file(&config.dir, name), name))
        .filter(|(path, _)| !paths.contains(path))
        .collect();
    let called: Vec<(std::path::PathBuf, &str)> = paths
        .into_iter()
        .filter_map(|path| {
            let name = *by_file.get(&path)?;
            Some((path, name))
        })
        .collect();
    called
        .into_iter()
        .chain(never_called)
        .filter_map(|(path, name)| {
            let name = name.to_string();
            let target = registry.target(&name)?;
            let (config, done) = (Arc::clone(config), Arc::clone(done));
            let generating = Arc::clone(&generating);
            Some(Trial::test(format!("generate::{name}"), move || {
                let mut generated = Generated::default();
                let own = settings.config_for(&name, &config);
                // Said when it differs from the first line's budget or from
                // CARVE_TIMEOUT (or its default).
                let defaults = settings.defaults_over(&config);
                if (own.budget, own.timeout) != (defaults.budget, config.timeout) {
                    generated.out.push(format!(
                        "carve: {name}: budget {}{} ({} [package.metadata.carve])",
                        own.budget,
                        own.timeout
                            .map(|t| format!(", call timeout {t:?}"))
                            .unwrap_or_default(),
                        display_path(&settings.file),
                    ));
                }
                // A target no system test called has no file until
                // generation keeps a call of it.
                let called = path.exists();
                let marked = match called {
                    true => worker::mark_expected(&own.dir, &path, &own.expected_panics),
                    false => Ok(Vec::new()),
                };
                let result = marked
                    .and_then(|marked| {
                        for entry in &marked {
                            generated.out.push(format!(
                                "carve: {name}: marked a found failure expected \
                                 (expected_panics): {name}{} at {}",
                                crate::carving::identity::canonical_text(&entry.args),
                                entry.origin.failure().map(|f| f.to_string()).unwrap_or_default(),
                            ));
                        }
                        match called {
                            true => CarveFile::load(&own.dir, &path),
                            false => Ok(CarveFile {
                                path: path.clone(),
                                target: name.clone(),
                                entries: Vec::new(),
                            }),
                        }
                    })
                    .map_err(Error::from)
                    .and_then(|file| {
                        let generates = |name: &str| {
                            (*generating).as_ref().is_none_or(|g| g.contains(name))
                        };
                        generate_for(registry, target, &file, &own, &generates, &mut generated.out)
                    });
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

/// Generates calls for one target in worker processes, which add what they
/// find to its carve file; says (in `out`) what coverage was before and
/// after. `generates` tells the targets the run generates for, which the
/// owners of the functions its reach shares may not be.
pub(super) fn generate_for(
    registry: &Registry,
    target: &'static Target,
    file: &CarveFile,
    config: &Config,
    generates: &dyn Fn(&str) -> bool,
    out: &mut Vec<String>,
) -> Result<(GenerationStats, Option<RunHistory>), Error> {
    let mut baseline = worker::Baseline::replay(registry, target, file, &config.dir, config.seed)?;
    let before = baseline.existing();
    if let Some(why) = baseline.unseeded() {
        out.push(format!(
            "carve: {}: skipped: no call of it replays and none could be made from the calls \
             of other targets: {why}",
            file.target
        ));
        return Ok((GenerationStats::default(), None));
    }
    // With edge counters, code no attribute marks still guides generation:
    // a thin wrapper over uninstrumented logic is generated for.
    if before.reach.is_empty() && counters::total() == 0 {
        out.push(format!(
            "carve: {}: skipped: no branch outcomes in reach (mark the functions that hold its \
             logic with `#[carve::instrument]`)",
            file.target
        ));
        return Ok((GenerationStats::default(), None));
    }
    for note in before.sealed.notes(&before.seeds) {
        out.push(format!("carve: {}: {note}", file.target));
    }
    // What generation stored counts as its workers traced it: no call runs
    // again here (other targets' calls of this seed are left out either way).
    let summary = worker::generate_in_rounds(&file.target, &mut baseline, &before, config)?;
    // What the workers said, in the order they said it, before the figures.
    out.extend(summary.notes.iter().cloned());
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
         {covered_after}/{total_after}{goals}; kept {} call(s), found {} failure(s){} in {} executions ({} generated arguments did not deserialize){}{}{}",
        file.target,
        summary.kept(),
        summary.failures(),
        match summary.expected() {
            0 => String::new(),
            n => format!(" and {n} expected panic(s)"),
        },
        summary.executions,
        summary.undeserializable,
        summary.restart_note(),
        summary.unconfirmed(),
        // Last, as the other counts that only some runs have: the line
        // reads the same up to here with and without edge counters.
        match summary.kept_beyond_goals(&before.reach) {
            (0, 0) => String::new(),
            (edges, 0) => format!(" ({edges} call(s) kept for new edges outside instrumented code)"),
            (0, outside) => format!(" ({outside} call(s) kept for outcomes of functions outside the reach)"),
            (edges, outside) => format!(
                " ({edges} call(s) kept for new edges outside instrumented code, {outside} for \
                 outcomes of functions outside the reach)"
            ),
        },
    ));
    // A line of its own: the generation line keeps the contract's form.
    if summary.distilled > 0 {
        out.push(format!(
            "carve: {}: distilled: dropped {} more call(s) it had kept, as later kept calls \
             cover what they did",
            file.target, summary.distilled
        ));
    }
    let delegated: Vec<(String, usize)> = baseline
        .delegated_to(&before)
        .into_iter()
        .filter(|(_, outcomes)| *outcomes > 0)
        .collect();
    if !delegated.is_empty() {
        let shared: Vec<String> = delegated
            .iter()
            .map(|(owner, outcomes)| format!("{outcomes} branch outcome(s) to generate::{owner}"))
            .collect();
        // Owners are decided among every target whatever the filter (so
        // that any split gives one run's files): one the filter left out
        // explores nothing in this run.
        let left_out: Vec<String> = delegated
            .iter()
            .filter(|(owner, _)| !generates(owner))
            .map(|(owner, _)| format!("generate::{owner}"))
            .collect();
        let unexplored = match left_out.is_empty() {
            true => String::new(),
            false => format!(
                "; this run's filters leave out {}: select it too, or run without a filter, \
                 to explore them",
                left_out.join(", ")
            ),
        };
        out.push(format!(
            "carve: {}: shares its reach: left {} (one exploration per reach{unexplored})",
            file.target,
            shared.join(", ")
        ));
    }
    for entry in summary.stored.iter().map(|found| found.entry()) {
        let Origin::Found { at, expected, .. } = &entry.origin else {
            continue;
        };
        let call = entry.shown_call(&file.target);
        out.push(match expected {
            false => format!(
                "carve: {}: found a failing input, minimized: {call} fails at {at}",
                file.target
            ),
            true => format!(
                "carve: {}: found an expected panic (expected_panics), minimized: {call} \
                 panics at {at}; stored as `expected: true`, its snapshot is checked like any other",
                file.target
            ),
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{ArgsInput, ReplayResult};
    use crate::registry::Sites;

    fn never(_: ArgsInput<'_>) -> ReplayResult {
        unreachable!("the registry is only read")
    }
    const fn target(fn_name: &'static str, sites: &'static Sites) -> Target {
        Target {
            module_path: "demo",
            fn_name,
            signature: "fn f()",
            file: "src/lib.rs",
            line: 1,
            sites,
            replay: never,
            trace: |_| {},
            uncarvable: || None,
        }
    }
    static PARSE_SITES: Sites = Sites::new("demo", "Version::parse", "src/lib.rs", (1, 2), &[], &[]);
    static FROM_STR_SITES: Sites = Sites::new("demo", "Version::from_str", "src/lib.rs", (3, 4), &[], &[]);
    static PARSE: Target = target("Version::parse", &PARSE_SITES);
    static FROM_STR: Target = target("Version::from_str", &FROM_STR_SITES);

    fn args(argv: &[&str]) -> TestArgs {
        TestArgs::parse(std::iter::once("carve").chain(argv.iter().copied()).map(Into::into))
    }

    /// The targets a filtered run generates for are those whose trial it
    /// selects; without a filter, and under nextest (one process per
    /// trial, each with `--exact`), every target.
    #[test]
    fn a_filtered_run_generates_for_the_targets_it_selects() {
        let registry = Registry::of(&[&PARSE, &FROM_STR]);
        let names = |set: Option<BTreeSet<String>>| set.map(|s| s.into_iter().collect::<Vec<_>>());
        let exact = args(&["--exact", "generate::Version::parse"]);
        assert_eq!(names(generating(&exact, &registry, false)), Some(vec!["Version::parse".to_owned()]));
        assert_eq!(names(generating(&exact, &registry, true)), None);
        assert_eq!(names(generating(&args(&[]), &registry, false)), None);
        let skip = args(&["--skip", "from_str"]);
        assert_eq!(names(generating(&skip, &registry, false)), Some(vec!["Version::parse".to_owned()]));
        let both = args(&["Version"]);
        assert_eq!(
            names(generating(&both, &registry, false)),
            Some(vec!["Version::from_str".to_owned(), "Version::parse".to_owned()])
        );
        // A filter of another kind of test selects no generation.
        assert_eq!(names(generating(&args(&["carved::"]), &registry, false)), Some(vec![]));
    }
}
