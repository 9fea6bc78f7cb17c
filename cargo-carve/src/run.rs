//! The modes that run tests: which test binaries, which `cargo test`
//! arguments, which variables.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};
use carve::_internals::coverage::counters::CRATES_VAR;
use clap::Args;

use crate::RunArgs;

/// What `CARVE` is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `CARVE=record`.
    Record,
    /// `CARVE=generate`.
    Generate,
    /// `CARVE=replay`: set rather than left out, so a `CARVE=record` in the
    /// environment does not turn `cargo carve test` into a recording.
    Test,
}

impl Mode {
    fn variable(self) -> &'static str {
        match self {
            Mode::Record => "record",
            Mode::Generate => "generate",
            Mode::Test => "replay",
        }
    }
}

/// Generation settings: each sets the variable of its name, checked as
/// carve checks the variable. Unset, the variable in the environment (if
/// any) applies.
#[derive(Args, Debug, Default, Clone)]
pub struct Settings {
    /// Seed of every generator, a u64 (CARVE_SEED; default 1).
    #[arg(long, value_name = "U64", value_parser = seed)]
    pub seed: Option<String>,
    /// Per target: executions (`20000`, the default) or a time (`30s`, `2m`)
    /// (CARVE_BUDGET).
    #[arg(long, value_name = "BUDGET", value_parser = budget)]
    pub budget: Option<String>,
    /// Targets generated at once (CARVE_JOBS; default: the available cores).
    #[arg(long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<String>,
    /// A generated call running longer is a hang: `500ms`, `2s`, or seconds
    /// (CARVE_TIMEOUT; default 10 times the slowest carved call, at least 1 s).
    #[arg(long, value_name = "DURATION", value_parser = timeout)]
    pub timeout: Option<String>,
    /// Build without edge counters: generation then keeps calls only for
    /// what carve instruments (as `CARVE=generate cargo test` does).
    #[arg(long)]
    pub no_edges: bool,
    /// The `cargo-carve` to build the crate's libraries through with edge
    /// counters ([`crate::wrapper`]); set for `generate` unless `--no-edges`.
    #[arg(skip)]
    pub wrapper: Option<PathBuf>,
    /// The libraries the wrapper builds with the counters (the workspace
    /// members'), for the runtime to count their functions' counters only
    /// (`CARVE_EDGE_CRATES`); filled in from `cargo metadata`.
    #[arg(skip)]
    pub edge_crates: Vec<String>,
}

/// The profile a build with edge counters goes to (`carve-edges`, dev with
/// [`EDGES_SETTINGS`], or `carve-edges-<profile>` for `--profile`/`--release`,
/// inheriting it as it is): a folder of its own, so that it never
/// invalidates the normal build nor is reused by it (the flags the wrapper
/// adds are not in cargo's fingerprints), one per profile it inherits.
pub const EDGES_PROFILE: &str = "carve-edges";

/// What [`EDGES_PROFILE`] changes of `dev` when no profile is asked for:
/// the dependencies optimized, without debug info, and carve's runtime
/// (where a generation worker spends most of its time: its search, its
/// coverage, its edge counters, and the generic code of the crates it uses,
/// compiled in it) optimized fully. The workspace's own crates stay as in
/// dev, so their edge counters and the calls generation keeps are the same
/// as in a dev build (inlined across crates, optimized code has other
/// edges), and an edit rebuilds them as fast. Debug assertions and overflow
/// checks are dev's: a call ends as it does under `cargo test` (an overflow
/// panics). Measured on humantime and semver (README, "Speed of
/// generation"): generation about 6 times faster, the first build about 2.5
/// times dev's; carve at `opt-level = 3` rather than 1: semver's generation
/// 4% less CPU, its first build 5% longer. The runtime is built without
/// incremental compilation, as it is when it comes from crates.io: a path
/// or git dependency on carve would otherwise be incremental, whose
/// codegen units are not optimized across each other (semver's worker read
/// 18% more instructions, its generation took 13% more CPU).
pub const EDGES_SETTINGS: [&str; 4] = [
    "package.\"*\".opt-level=1",
    "package.carve.opt-level=3",
    "package.carve.incremental=false",
    "package.\"*\".debug=false",
];

fn seed(value: &str) -> Result<String, String> {
    checked("CARVE_SEED", value)
}

fn budget(value: &str) -> Result<String, String> {
    checked("CARVE_BUDGET", value)
}

fn jobs(value: &str) -> Result<String, String> {
    checked("CARVE_JOBS", value)
}

fn timeout(value: &str) -> Result<String, String> {
    checked("CARVE_TIMEOUT", value)
}

/// `value` if carve takes it for `variable`, else what it expects (clap
/// puts the flag and the value before it).
fn checked(variable: &str, value: &str) -> Result<String, String> {
    let lookup = |name: &str| (name == variable).then(|| value.to_owned());
    match carve::_internals::env::Config::from_lookup(lookup, Path::new("/")) {
        Ok(_) => Ok(value.to_owned()),
        // carve names the variable and the value; clap names the flag and
        // the value before what is left.
        Err(e) => {
            let message = e.to_string();
            let head = format!("{variable}={value:?}: ");
            Err(message.strip_prefix(&head).unwrap_or(&message).to_owned())
        }
    }
}

/// Where `report` writes, as absolute paths.
#[derive(Debug, Default, Clone)]
pub struct Reports {
    /// `CARVE_HTML`.
    pub html: Option<PathBuf>,
    /// `CARVE_REPORT`.
    pub json: Option<PathBuf>,
    /// `CARVE_LCOV`.
    pub lcov: Option<PathBuf>,
    /// `CARVE_ANNOTATE`.
    pub annotate: Option<String>,
}

/// A package selected to run, with its carve test targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// The package's name.
    pub name: String,
    /// Its carve test targets.
    pub tests: Vec<TestTarget>,
    /// Whether it is the package of the manifest cargo runs with (no `-p`,
    /// no `--workspace`), whose features cargo takes by their plain names.
    pub here: bool,
}

/// A `[[test]]` target whose file calls `carve::main!`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestTarget {
    /// Its name (`--test <name>`).
    pub name: String,
    /// Its `required-features`.
    pub required_features: Vec<String>,
}

/// A `cargo test` to run: its arguments and the variables to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Arguments after `cargo`.
    pub args: Vec<String>,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
}

impl Plan {
    /// The command as a user would type it, for the line printed before it runs.
    fn display(&self) -> String {
        let mut words: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", quoted(v)))
            .collect();
        words.push("cargo".to_owned());
        words.extend(self.args.iter().map(|a| quoted(a)));
        words.join(" ")
    }
}

/// `text`, in single quotes when a shell would split or expand it.
fn quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,@+%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The `cargo test` that runs `selected`'s carve test binaries in `mode`.
pub fn plan(
    mode: Mode,
    args: &RunArgs,
    settings: &Settings,
    reports: &Reports,
    selected: &[Selected],
) -> Plan {
    let mut cargo: Vec<String> = vec!["test".into()];
    let mut push = |flag: &str, value: Option<&str>| {
        cargo.push(flag.to_owned());
        cargo.extend(value.map(str::to_owned));
    };
    if let Some(path) = &args.manifest_path {
        push("--manifest-path", Some(&path.to_string_lossy()));
    }
    if args.workspace {
        push("--workspace", None);
        for spec in &args.exclude {
            push("--exclude", Some(spec));
        }
    } else {
        for spec in &args.package {
            push("--package", Some(spec));
        }
    }
    // The carve test targets' required features (the recommended setup's
    // `carve`), named by package unless cargo runs in that package (a
    // virtual workspace's root takes no plain feature names).
    let mut features: Vec<String> = Vec::new();
    if !args.all_features {
        for package in selected {
            for test in &package.tests {
                for feature in &test.required_features {
                    let feature = if package.here {
                        feature.clone()
                    } else {
                        format!("{}/{feature}", package.name)
                    };
                    if !features.contains(&feature) {
                        features.push(feature);
                    }
                }
            }
        }
    }
    features.extend(args.features.iter().cloned());
    if !features.is_empty() {
        push("--features", Some(&features.join(",")));
    }
    if args.all_features {
        push("--all-features", None);
    }
    if args.no_default_features {
        push("--no-default-features", None);
    }
    if let Some(dir) = &args.target_dir {
        push("--target-dir", Some(&dir.to_string_lossy()));
    }
    if settings.wrapper.is_some() {
        // The profile asked for, under a name of its own; none asked for,
        // dev with its dependencies optimized ([`EDGES_SETTINGS`]).
        let (name, base, settings): (String, &str, &[&str]) = match (&args.profile, args.release) {
            (Some(profile), _) => (format!("{EDGES_PROFILE}-{profile}"), profile, &[]),
            (None, true) => (format!("{EDGES_PROFILE}-release"), "release", &[]),
            (None, false) => (EDGES_PROFILE.to_owned(), "dev", &EDGES_SETTINGS),
        };
        push(
            "--config",
            Some(&format!("profile.{name}.inherits=\"{base}\"")),
        );
        for setting in settings {
            push("--config", Some(&format!("profile.{name}.{setting}")));
        }
        push("--profile", Some(&name));
    } else {
        if let Some(profile) = &args.profile {
            push("--profile", Some(profile));
        }
        if args.release {
            push("--release", None);
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for test in selected.iter().flat_map(|p| &p.tests) {
        if !names.contains(&test.name.as_str()) {
            names.push(&test.name);
        }
    }
    for name in names {
        push("--test", Some(name));
    }
    if !args.test_args.is_empty() {
        cargo.push("--".to_owned());
        cargo.extend(args.test_args.iter().cloned());
    }

    let mut env = vec![("CARVE".to_owned(), mode.variable().to_owned())];
    if let Some(wrapper) = &settings.wrapper {
        env.push((
            "RUSTC_WORKSPACE_WRAPPER".to_owned(),
            wrapper.to_string_lossy().into_owned(),
        ));
        if !settings.edge_crates.is_empty() {
            env.push((CRATES_VAR.to_owned(), settings.edge_crates.join(",")));
        }
    }
    let mut set = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            env.push((name.to_owned(), value));
        }
    };
    set("CARVE_SEED", settings.seed.clone());
    set("CARVE_BUDGET", settings.budget.clone());
    set("CARVE_JOBS", settings.jobs.clone());
    set("CARVE_TIMEOUT", settings.timeout.clone());
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
    set("CARVE_HTML", path(&reports.html));
    set("CARVE_REPORT", path(&reports.json));
    set("CARVE_LCOV", path(&reports.lcov));
    set("CARVE_ANNOTATE", reports.annotate.clone());
    Plan { args: cargo, env }
}

/// The cargo that ran `cargo carve` (cargo sets `CARGO` for its
/// subcommands), else the one on the `PATH`.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cargo"))
}

/// Runs the carve test binaries of the selected packages in `mode`.
pub fn tests(mode: Mode, args: &RunArgs, settings: &Settings) -> Result<ExitCode, String> {
    let metadata = metadata(args)?;
    let selected = select(&metadata, args)?;
    let mut settings = settings.clone();
    if settings.wrapper.is_some() {
        settings.edge_crates = instrumented_libraries(&metadata);
    }
    execute(&plan(mode, args, &settings, &Reports::default(), &selected))
}

/// The names of the libraries the wrapper builds with edge counters: those
/// of the workspace's members (cargo runs the wrapper for them only) that
/// are `lib`/`rlib` alone ([`crate::wrapper::instruments`]), as rustc names
/// them (`-` as `_`).
fn instrumented_libraries(metadata: &Metadata) -> Vec<String> {
    let mut names: Vec<String> = metadata
        .workspace_packages()
        .iter()
        .flat_map(|p| &p.targets)
        .filter(|t| {
            !t.kind.is_empty()
                && t.kind
                    .iter()
                    .all(|k| matches!(k, TargetKind::Lib | TargetKind::RLib))
        })
        .map(|t| t.name.replace('-', "_"))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Replays the selected package with reports written; the HTML report
/// into `<target dir>/carve-report` when none is asked for.
pub fn report(args: &RunArgs, reports: &mut Reports) -> Result<ExitCode, String> {
    let metadata = metadata(args)?;
    let selected = select(&metadata, args)?;
    if selected.len() > 1 {
        let names: Vec<&str> = selected.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "`cargo carve report` writes the report of one package, and {} are selected ({}): \
             choose one with `-p <name>`.",
            names.len(),
            names.join(", ")
        ));
    }
    if reports.html.is_none() && reports.json.is_none() && reports.lcov.is_none() {
        let target_dir = match &args.target_dir {
            Some(dir) => std::env::current_dir()
                .map_err(|e| format!("the current folder: {e}"))?
                .join(dir),
            None => metadata.target_directory.clone().into_std_path_buf(),
        };
        reports.html = Some(target_dir.join("carve-report"));
    }
    execute(&plan(
        Mode::Test,
        args,
        &Settings::default(),
        reports,
        &selected,
    ))
}

fn execute(plan: &Plan) -> Result<ExitCode, String> {
    eprintln!("cargo carve: running {}", plan.display());
    let status = Command::new(cargo())
        .args(&plan.args)
        .envs(plan.env.iter().map(|(k, v)| (k, v)))
        .status()
        .map_err(|e| format!("could not run cargo ({}): {e}", cargo().display()))?;
    Ok(exit_code(status))
}

/// The exit code of `cargo carve` for a child that ended with `status`:
/// its own code, or [`crate::FAILED`] when a signal ended it.
pub fn exit_code(status: ExitStatus) -> ExitCode {
    match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(crate::FAILED)),
        None => ExitCode::from(crate::FAILED),
    }
}

fn metadata(args: &RunArgs) -> Result<Metadata, String> {
    let mut command = MetadataCommand::new();
    command.cargo_path(cargo()).no_deps();
    if let Some(path) = &args.manifest_path {
        command.manifest_path(path);
    }
    command
        .exec()
        .map_err(|e| format!("`cargo metadata` failed: {e}"))
}

/// The packages `args` select, each with its carve test targets: `-p`
/// names, `--workspace` (less `--exclude`), else the package of the
/// manifest cargo finds from here (the default members in a virtual
/// workspace's root).
fn select(metadata: &Metadata, args: &RunArgs) -> Result<Vec<Selected>, String> {
    let members = metadata.workspace_packages();
    let mut here = None;
    let chosen: Vec<&Package> = if args.workspace {
        members
            .into_iter()
            .filter(|p| !args.exclude.iter().any(|e| e == p.name.as_str()))
            .collect()
    } else if !args.package.is_empty() {
        let mut chosen = Vec::new();
        for spec in &args.package {
            // `name` or `name@version`.
            let name = spec.split('@').next().unwrap_or(spec);
            match members.iter().find(|p| p.name.as_str() == name) {
                Some(p) => chosen.push(*p),
                None => {
                    let known: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
                    return Err(format!(
                        "-p {spec}: no such package in this workspace (its packages: {})",
                        known.join(", ")
                    ));
                }
            }
        }
        chosen
    } else {
        let manifest = match &args.manifest_path {
            Some(path) => std::path::absolute(path)
                .map_err(|e| format!("--manifest-path {}: {e}", path.display()))?,
            None => nearest_manifest()?,
        };
        match members
            .iter()
            .find(|p| same_file(p.manifest_path.as_std_path(), &manifest))
        {
            Some(p) => {
                here = Some(&p.id);
                vec![*p]
            }
            None if metadata.workspace_default_members.is_available() => {
                metadata.workspace_default_packages()
            }
            None => members,
        }
    };

    let mut selected = Vec::new();
    let mut without = Vec::new();
    for package in chosen {
        let tests = carve_tests(package);
        if tests.is_empty() {
            without.push(package.name.to_string());
        } else {
            selected.push(Selected {
                name: package.name.to_string(),
                tests,
                here: here == Some(&package.id),
            });
        }
    }
    // Named packages must each have one; of a whole workspace, some may not.
    let named = !args.package.is_empty() && !args.workspace;
    if selected.is_empty() || (named && !without.is_empty()) {
        return Err(format!(
            "no carve test target in {} {}: carve runs `[[test]]` targets with \
             `harness = false` whose file calls `carve::main!()`. Run `cargo carve init` \
             in the package to add one.",
            if without.len() == 1 {
                "package"
            } else {
                "packages"
            },
            without
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(selected)
}

/// The package's test targets whose file calls `carve::main!`.
fn carve_tests(package: &Package) -> Vec<TestTarget> {
    package
        .targets
        .iter()
        .filter(|t| t.kind.contains(&TargetKind::Test))
        .filter(|t| {
            std::fs::read_to_string(&t.src_path).is_ok_and(|source| calls_carve_main(&source))
        })
        .map(|t| TestTarget {
            name: t.name.clone(),
            required_features: t.required_features.clone(),
        })
        .collect()
}

/// Whether a test file's source calls `carve::main!` (with or without
/// spaces, `::carve::main!` too).
fn calls_carve_main(source: &str) -> bool {
    let squashed: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    squashed.contains("carve::main!")
}

/// The `Cargo.toml` cargo would use from the current folder: the nearest
/// one in it or above it.
fn nearest_manifest() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?;
    cwd.ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "no Cargo.toml in {} or any folder above it: run cargo carve in a crate, \
                 or pass --manifest-path",
                cwd.display()
            )
        })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The package cargo runs in.
    fn one(name: &str, features: &[&str]) -> Selected {
        Selected {
            here: true,
            ..other(name, features)
        }
    }

    /// A package chosen with `-p`, `--workspace` or a virtual root's defaults.
    fn other(name: &str, features: &[&str]) -> Selected {
        Selected {
            here: false,
            name: name.to_owned(),
            tests: vec![TestTarget {
                name: "carve".to_owned(),
                required_features: features.iter().map(|f| f.to_string()).collect(),
            }],
        }
    }

    fn shown(mode: Mode, args: &RunArgs, settings: &Settings, selected: &[Selected]) -> String {
        plan(mode, args, settings, &Reports::default(), selected).display()
    }

    #[test]
    fn record_of_the_recommended_setup_turns_on_its_feature() {
        let selected = [one("dates", &["carve"])];
        insta::assert_snapshot!(
            shown(Mode::Record, &RunArgs::default(), &Settings::default(), &selected),
            @"CARVE=record cargo test --features carve --test carve"
        );
        insta::assert_snapshot!(
            shown(Mode::Test, &RunArgs::default(), &Settings::default(), &[one("dates", &[])]),
            @"CARVE=replay cargo test --test carve"
        );
    }

    #[test]
    fn cargo_flags_and_filters_are_passed_on() {
        let args = RunArgs {
            package: vec!["dates".into()],
            features: vec!["serde_support".into()],
            no_default_features: true,
            target_dir: Some("/tmp/t".into()),
            profile: Some("carve".into()),
            test_args: vec!["fmt".into(), "--exact".into()],
            ..RunArgs::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Test, &args, &Settings::default(), &[other("dates", &["carve"])]),
            @"CARVE=replay cargo test --package dates --features dates/carve,serde_support --no-default-features --target-dir /tmp/t --profile carve --test carve -- fmt --exact"
        );
    }

    #[test]
    fn a_workspace_names_features_by_package_and_each_test_once() {
        let args = RunArgs {
            workspace: true,
            exclude: vec!["xtask".into()],
            release: true,
            ..RunArgs::default()
        };
        let selected = [other("dates", &["carve"]), other("times", &["carve"])];
        insta::assert_snapshot!(
            shown(Mode::Record, &args, &Settings::default(), &selected),
            @"CARVE=record cargo test --workspace --exclude xtask --features dates/carve,times/carve --release --test carve"
        );
        // --all-features covers the required ones.
        let args = RunArgs {
            all_features: true,
            ..RunArgs::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Record, &args, &Settings::default(), &selected),
            @"CARVE=record cargo test --all-features --test carve"
        );
    }

    #[test]
    fn generation_settings_become_variables() {
        let settings = Settings {
            seed: Some("7".into()),
            budget: Some("30s".into()),
            jobs: Some("2".into()),
            timeout: Some("500ms".into()),
            ..Settings::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Generate, &RunArgs::default(), &settings, &[one("d", &[])]),
            @"CARVE=generate CARVE_SEED=7 CARVE_BUDGET=30s CARVE_JOBS=2 CARVE_TIMEOUT=500ms cargo test --test carve"
        );
    }

    #[test]
    fn generation_with_edge_counters_builds_optimized_through_the_wrapper_in_a_profile_of_its_own()
    {
        let settings = Settings {
            wrapper: Some("/bin/cargo-carve".into()),
            edge_crates: vec!["d".into(), "d_core".into()],
            ..Settings::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Generate, &RunArgs::default(), &settings, &[one("d", &[])]),
            @r#"CARVE=generate RUSTC_WORKSPACE_WRAPPER=/bin/cargo-carve CARVE_EDGE_CRATES=d,d_core cargo test --config 'profile.carve-edges.inherits="dev"' --config 'profile.carve-edges.package."*".opt-level=1' --config profile.carve-edges.package.carve.opt-level=3 --config profile.carve-edges.package.carve.incremental=false --config 'profile.carve-edges.package."*".debug=false' --profile carve-edges --test carve"#
        );
        // A profile asked for is built as it is, dev too (unoptimized).
        let args = RunArgs {
            profile: Some("dev".into()),
            ..RunArgs::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Generate, &args, &settings, &[one("d", &[])]),
            @r#"CARVE=generate RUSTC_WORKSPACE_WRAPPER=/bin/cargo-carve CARVE_EDGE_CRATES=d,d_core cargo test --config 'profile.carve-edges-dev.inherits="dev"' --profile carve-edges-dev --test carve"#
        );
        let args = RunArgs {
            release: true,
            ..RunArgs::default()
        };
        insta::assert_snapshot!(
            shown(Mode::Generate, &args, &settings, &[one("d", &[])]),
            @r#"CARVE=generate RUSTC_WORKSPACE_WRAPPER=/bin/cargo-carve CARVE_EDGE_CRATES=d,d_core cargo test --config 'profile.carve-edges-release.inherits="release"' --profile carve-edges-release --test carve"#
        );
    }

    #[test]
    fn reports_become_variables() {
        let reports = Reports {
            html: Some("/r/html".into()),
            json: Some("/r/carve report.json".into()),
            lcov: Some("/r/lcov.info".into()),
            annotate: Some("all".into()),
        };
        let plan = plan(
            Mode::Test,
            &RunArgs::default(),
            &Settings::default(),
            &reports,
            &[one("d", &[])],
        );
        insta::assert_snapshot!(
            plan.display(),
            @"CARVE=replay CARVE_HTML=/r/html CARVE_REPORT='/r/carve report.json' CARVE_LCOV=/r/lcov.info CARVE_ANNOTATE=all cargo test --test carve"
        );
    }

    #[test]
    fn settings_are_checked_as_carve_checks_its_variables() {
        assert_eq!(budget("30s"), Ok("30s".to_owned()));
        assert_eq!(budget("5000"), Ok("5000".to_owned()));
        insta::assert_snapshot!(
            budget("10 parsecs").unwrap_err(),
            @"expected a number of executions (`5000`) or a duration (`30s`, `500ms`, `2m`)"
        );
        insta::assert_snapshot!(seed("-1").unwrap_err(), @"expected an unsigned 64-bit integer");
        insta::assert_snapshot!(jobs("0").unwrap_err(), @"expected a positive number of targets to generate at once (`1`, `4`)");
        insta::assert_snapshot!(timeout("soon").unwrap_err(), @"expected a positive duration (`500ms`, `2s`) or number of seconds (`3`)");
    }

    #[test]
    fn carve_test_files_are_found_by_their_main() {
        assert!(calls_carve_main("use x as _;\ncarve::main!();\n"));
        assert!(calls_carve_main("::carve::main! {}"));
        assert!(calls_carve_main("carve :: main ! ();"));
        assert!(!calls_carve_main("#[test]\nfn t() {}\n"));
    }
}
