//! Configuration from `CARVE*` environment variables, read in one place.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `CARVE` | mode: `record`, `generate`, or unset for replay | replay |
//! | `CARVE_SEED` | seed of every generator (u64) | [`DEFAULT_SEED`] |
//! | `CARVE_BUDGET` | per target: `30s`, `500ms` or a number of executions | [`DEFAULT_BUDGET`] executions |
//! | `CARVE_TIMEOUT` | a generated call running longer is a hang: `500ms`, `2s`, or plain seconds | 10 times the slowest of the target's carve-file calls, at least 1 s |
//! | `CARVE_JOBS` | targets generated at once (each drives its own worker processes) | `--test-threads`, else the available cores |
//! | `CARVE_DIR` | folder of carve files and snapshots, relative to the package | `carved` |
//! | `CARVE_REPORT` | path of the JSON report to write | none |
//! | `CARVE_HTML` | folder to write the HTML report in (`index.html` and a page per function) | none |
//! | `CARVE_LCOV` | path of the lcov tracefile to write (for genhtml, Codecov, editor gutters) | none |
//! | `CARVE_ANNOTATE` | print annotated source of instrumented functions whose name contains it (`all`: every one) | none |
//!
//! `CARVE_BUDGET` and `CARVE_TIMEOUT` override the per-target settings of
//! the package's `[package.metadata.carve]` ([`Settings`], read from
//! `Cargo.toml` by `settings.rs`).
//!
//! Internal, for carve's own tests: `CARVE_SLOW_TEST_WARN_SECS`, the
//! seconds after which recording says a system test is still running
//! (default [`SLOW_TEST_WARNING`]).
//!
//! Other tools' variables carve acts on are read here too, each by one
//! function: `CI` ([`ci`]), `NEXTEST`/`NEXTEST_RUN_ID` ([`under_nextest`]),
//! insta's `INSTA_*` ([`insta_writes_nothing`], insta's config lookup ([`insta_variable`])),
//! `CARGO_TARGET_DIR` ([`cargo_target_dir`]) and `CARGO_PKG_NAME`
//! ([`package_name`]). The generation worker's and the recording child's
//! own variables are read by the modules that set them.
//!
//! ```
//! use carve::env::{Budget, Config, Mode};
//!
//! let vars = [("CARVE", "record"), ("CARVE_BUDGET", "30s")];
//! let lookup = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
//! let config = Config::from_lookup(lookup, "/crate".as_ref()).unwrap();
//! assert_eq!(config.mode, Mode::Record);
//! assert_eq!(config.budget, Budget::Time(std::time::Duration::from_secs(30)));
//! assert_eq!(config.dir, std::path::Path::new("/crate/carved"));
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod settings;

pub use settings::{Pattern, Settings};

/// Seed used when `CARVE_SEED` is not set.
pub const DEFAULT_SEED: u64 = 1;
/// Executions per target when `CARVE_BUDGET` is not set.
pub const DEFAULT_BUDGET: u64 = 20_000;
/// The shortest call timeout derived from the carved calls' own times
/// (`CARVE_TIMEOUT` unset): shorter, a loaded machine makes false hangs.
pub const MIN_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a system test records before carve says it is still running,
/// as libtest says of a test after 60 seconds.
pub const SLOW_TEST_WARNING: Duration = Duration::from_secs(60);

/// What a test run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Run system tests and replay carved calls (plain `cargo test`).
    Replay,
    /// Carve calls while system tests run, then replay (`CARVE=record`).
    Record,
    /// Generate calls that raise branch coverage (`CARVE=generate`).
    Generate,
}

/// How much generation may do per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// At most this many executions.
    Executions(u64),
    /// At most this much time.
    Time(Duration),
}

/// As `CARVE_BUDGET` takes it: `20000 executions`, `30s`, `1500ms`.
impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Executions(n) => write!(f, "{n} executions"),
            Budget::Time(d) if d.subsec_millis() == 0 => write!(f, "{}s", d.as_secs()),
            Budget::Time(d) => write!(f, "{}ms", d.as_millis()),
        }
    }
}

/// carve's configuration for one test run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `CARVE`.
    pub mode: Mode,
    /// `CARVE_SEED`.
    pub seed: u64,
    /// `CARVE_BUDGET`.
    pub budget: Budget,
    /// Whether `CARVE_BUDGET` was set (it then overrides the budget of
    /// `[package.metadata.carve]`).
    pub budget_is_set: bool,
    /// `CARVE_TIMEOUT`: a generated call running longer is a hang; `None`
    /// when it is not set (then derived from the carved calls' own times,
    /// at least [`MIN_TIMEOUT`]).
    pub timeout: Option<Duration>,
    /// `CARVE_JOBS`: targets generated at once; `None` when it is not set
    /// (then `--test-threads`, else the available cores: [`Config::jobs_or`]).
    pub jobs: Option<usize>,
    /// `CARVE_DIR`, made absolute.
    pub dir: PathBuf,
    /// Whether `CARVE_DIR` was set (not the default `carved`).
    pub dir_is_set: bool,
    /// `CARVE_REPORT`.
    pub report: Option<PathBuf>,
    /// `CARVE_HTML`: the folder of the HTML report.
    pub html: Option<PathBuf>,
    /// `CARVE_LCOV`: the path of the lcov tracefile.
    pub lcov: Option<PathBuf>,
    /// `CARVE_ANNOTATE`: a function name filter (empty: all instrumented functions).
    pub annotate: Option<String>,
    /// Panic message patterns of `[package.metadata.carve]` that make a
    /// generated call's panic an expected outcome: empty here, set per
    /// target by [`Settings::config_for`].
    pub expected_panics: Vec<Pattern>,
    /// `CARVE_SLOW_TEST_WARN_SECS` (internal): when recording says a system
    /// test is still running.
    pub slow_test_warning: Duration,
}

impl Config {
    /// Reads the process environment; relative paths are taken from
    /// `package_root`.
    pub fn from_env(package_root: &Path) -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok(), package_root)
    }

    /// Reads variables through `lookup` (for tests).
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        package_root: &Path,
    ) -> Result<Config, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let mode = match get("CARVE").as_deref().map(str::trim) {
            None | Some("replay") | Some("test") => Mode::Replay,
            Some("record") => Mode::Record,
            Some("generate") => Mode::Generate,
            Some(other) => {
                return Err(ConfigError::new(
                    "CARVE",
                    other,
                    "`record`, `generate`, or unset",
                ))
            }
        };
        let seed = match get("CARVE_SEED") {
            None => DEFAULT_SEED,
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| ConfigError::new("CARVE_SEED", &v, "an unsigned 64-bit integer"))?,
        };
        let budget = match get("CARVE_BUDGET") {
            None => Budget::Executions(DEFAULT_BUDGET),
            Some(v) => parse_budget(&v).ok_or_else(|| {
                ConfigError::new(
                    "CARVE_BUDGET",
                    &v,
                    "a number of executions (`5000`) or a duration (`30s`, `500ms`, `2m`)",
                )
            })?,
        };
        let timeout = match get("CARVE_TIMEOUT") {
            None => None,
            Some(v) => Some(parse_timeout(&v).ok_or_else(|| {
                ConfigError::new(
                    "CARVE_TIMEOUT",
                    &v,
                    "a positive duration (`500ms`, `2s`) or number of seconds (`3`)",
                )
            })?),
        };
        let jobs = match get("CARVE_JOBS") {
            None => None,
            Some(v) => Some(
                v.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        ConfigError::new(
                            "CARVE_JOBS",
                            &v,
                            "a positive number of targets to generate at once (`1`, `4`)",
                        )
                    })?,
            ),
        };
        let dir_is_set = get("CARVE_DIR").is_some();
        let dir = package_root.join(get("CARVE_DIR").unwrap_or_else(|| "carved".into()));
        let report = get("CARVE_REPORT").map(|p| package_root.join(p));
        let html = get("CARVE_HTML").map(|p| package_root.join(p.trim()));
        let lcov = get("CARVE_LCOV").map(|p| package_root.join(p.trim()));
        let annotate = get("CARVE_ANNOTATE").map(|f| match f.trim() {
            "all" | "1" => String::new(),
            filter => filter.to_owned(),
        });
        let slow_test_warning = match get("CARVE_SLOW_TEST_WARN_SECS") {
            None => SLOW_TEST_WARNING,
            Some(v) => Duration::from_secs(v.trim().parse().map_err(|_| {
                ConfigError::new("CARVE_SLOW_TEST_WARN_SECS", &v, "a number of seconds")
            })?),
        };
        Ok(Config {
            mode,
            seed,
            budget,
            budget_is_set: get("CARVE_BUDGET").is_some(),
            timeout,
            jobs,
            dir,
            dir_is_set,
            report,
            html,
            lcov,
            annotate,
            expected_panics: Vec::new(),
            slow_test_warning,
        })
    }
}

impl Config {
    /// How many targets to generate at once: `CARVE_JOBS` when set, else
    /// `test_threads` (libtest's `--test-threads`) when given, else the
    /// available cores.
    pub fn jobs_or(&self, test_threads: Option<usize>) -> usize {
        self.jobs
            .or(test_threads)
            .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
            .unwrap_or(1)
            .max(1)
    }

    /// Why this run cannot go on with the carve folder it was given: a
    /// `CARVE_DIR` that does not exist would replay nothing and pass (a typo
    /// must not look like a green run). Recording creates the folder.
    pub fn missing_dir(&self) -> Option<String> {
        (self.dir_is_set && self.mode != Mode::Record && !self.dir.is_dir()).then(|| {
            format!(
                "CARVE_DIR={}: no such folder, so there is nothing to {}. Check the path \
                 (relative paths start at the package root), or create the folder with \
                 `CARVE=record cargo test`.",
                self.dir.display(),
                match self.mode {
                    Mode::Generate => "generate from",
                    Mode::Replay | Mode::Record => "replay",
                }
            )
        })
    }
}

/// `CI`'s value when it says this run is under CI: set, and not empty,
/// `0` or `false`.
pub fn ci() -> Option<String> {
    ci_of(std::env::var("CI").ok())
}

fn ci_of(value: Option<String>) -> Option<String> {
    value.filter(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// Whether this test binary runs under cargo-nextest (`NEXTEST_RUN_ID` or
/// `NEXTEST` set), which runs every test in a process of its own.
pub fn under_nextest() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some() || std::env::var_os("NEXTEST").is_some()
}

/// Whether `INSTA_UPDATE=no` asks insta to write no snapshot at all.
pub fn insta_writes_nothing() -> bool {
    std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "no")
}

/// An insta variable (`INSTA_*`) or `CARGO_MANIFEST_DIR`, which insta reads
/// to find its config file: [`crate::carving::insta_config`] judges from
/// these, given as a lookup so that its tests pass their own.
pub fn insta_variable(name: &str) -> Option<String> {
    debug_assert!(name.starts_with("INSTA_") || name == "CARGO_MANIFEST_DIR");
    std::env::var(name).ok()
}

/// `CARGO_TARGET_DIR`, as set (possibly relative to where cargo ran).
pub fn cargo_target_dir() -> Option<PathBuf> {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from)
}

/// The name of the package under test: cargo's `CARGO_PKG_NAME` (set when
/// cargo runs a test), else the name of its folder `package_root`.
pub fn package_name(package_root: &Path) -> String {
    std::env::var("CARGO_PKG_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| {
            package_root
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "package".to_owned())
}

fn parse_budget(text: &str) -> Option<Budget> {
    let text = text.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number.parse().ok()?;
    Some(match unit.trim() {
        "" => Budget::Executions(n),
        "ms" => Budget::Time(Duration::from_millis(n)),
        "s" => Budget::Time(Duration::from_secs(n)),
        "m" | "min" => Budget::Time(Duration::from_secs(n.checked_mul(60)?)),
        _ => return None,
    })
}

/// `500ms`, `2s`, `3` (seconds), `1m`; never zero.
fn parse_timeout(text: &str) -> Option<Duration> {
    let duration = match parse_budget(text)? {
        Budget::Executions(seconds) => Duration::from_secs(seconds),
        Budget::Time(duration) => duration,
    };
    (!duration.is_zero()).then_some(duration)
}

/// An environment variable with a value carve does not understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    variable: &'static str,
    value: String,
    expected: &'static str,
}

impl ConfigError {
    fn new(variable: &'static str, value: &str, expected: &'static str) -> Self {
        ConfigError {
            variable,
            value: value.to_owned(),
            expected,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?}: expected {}",
            self.variable, self.value, self.expected
        )
    }
}

impl std::error::Error for ConfigError {}

/// The variables that start carve's own child processes in a role of
/// theirs, read here like every other variable carve reads. The rest of
/// what a child needs comes by other ways (a generation worker's setup on
/// its stdin).
pub mod role {
    use std::path::PathBuf;

    /// Makes a test binary a generation worker for the named target.
    pub const WORKER_VAR: &str = "CARVE_WORKER";
    /// Names the system test a recording child records.
    pub const RECORD_TEST_VAR: &str = "CARVE_RECORD_TEST";
    /// Where a recording child writes what it carved.
    pub const RECORD_OUT_VAR: &str = "CARVE_RECORD_OUT";

    /// The target this process generates for, if it is a generation worker.
    pub fn worker_target() -> Option<String> {
        std::env::var(WORKER_VAR).ok()
    }

    /// The system test this process records, if it is a recording child.
    pub fn recorded_test() -> Option<String> {
        std::env::var(RECORD_TEST_VAR).ok()
    }

    /// Where a recording child writes what it carved, if this is one.
    pub fn record_out() -> Option<PathBuf> {
        std::env::var_os(RECORD_OUT_VAR).map(PathBuf::from)
    }
}


/// `path` relative to the working directory (the package root under
/// `cargo test`) when it is inside it, for short messages.
///
/// ```
/// # use carve::env::display_path;
/// let here = std::env::current_dir().unwrap().join("carved/a.ron");
/// assert_eq!(display_path(&here).to_string(), "carved/a.ron");
/// ```
pub fn display_path(path: &std::path::Path) -> std::path::Display<'_> {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok());
    match relative {
        // Safe to return: `strip_prefix` borrows from `path`.
        Some(rel) => rel.display(),
        None => path.display(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_is_on_unless_empty_zero_or_false() {
        for off in [None, Some(""), Some("0"), Some("false")] {
            assert_eq!(ci_of(off.map(String::from)), None, "CI={off:?}");
        }
        assert_eq!(ci_of(Some("true".into())).as_deref(), Some("true"));
        assert_eq!(ci_of(Some("1".into())).as_deref(), Some("1"));
    }

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        config_in(Path::new("/p"), vars)
    }

    /// The config of a package at `root` with only `vars` set.
    fn config_in(root: &Path, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(
            |n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()),
            root,
        )
    }

    #[test]
    fn defaults() {
        let c = config(&[]).unwrap();
        assert_eq!(c.mode, Mode::Replay);
        assert_eq!(c.seed, DEFAULT_SEED);
        assert_eq!(c.budget, Budget::Executions(DEFAULT_BUDGET));
        assert_eq!(c.dir, Path::new("/p/carved"));
        assert_eq!(c.report, None);
        assert_eq!(c.html, None);
        assert_eq!(c.lcov, None);
    }

    #[test]
    fn the_lcov_path_is_taken_from_the_package_root() {
        let c = config(&[("CARVE_LCOV", "target/lcov.info ")]).unwrap();
        assert_eq!(c.lcov.as_deref(), Some(Path::new("/p/target/lcov.info")));
        let c = config(&[("CARVE_LCOV", "/tmp/lcov.info")]).unwrap();
        assert_eq!(c.lcov.as_deref(), Some(Path::new("/tmp/lcov.info")));
    }

    #[test]
    fn the_html_folder_is_taken_from_the_package_root() {
        let c = config(&[("CARVE_HTML", "target/carve-report")]).unwrap();
        assert_eq!(c.html.as_deref(), Some(Path::new("/p/target/carve-report")));
        let c = config(&[("CARVE_HTML", "/tmp/r")]).unwrap();
        assert_eq!(c.html.as_deref(), Some(Path::new("/tmp/r")));
    }

    #[test]
    fn bad_values_name_the_variable() {
        let message = |name, value| config(&[(name, value)]).unwrap_err().to_string();
        insta::assert_snapshot!(message("CARVE", "recrod"), @r#"CARVE="recrod": expected `record`, `generate`, or unset"#);
        insta::assert_snapshot!(message("CARVE_SEED", "-1"), @r#"CARVE_SEED="-1": expected an unsigned 64-bit integer"#);
        insta::assert_snapshot!(message("CARVE_BUDGET", "10 parsecs"), @r#"CARVE_BUDGET="10 parsecs": expected a number of executions (`5000`) or a duration (`30s`, `500ms`, `2m`)"#);
        insta::assert_snapshot!(message("CARVE_TIMEOUT", "soon"), @r#"CARVE_TIMEOUT="soon": expected a positive duration (`500ms`, `2s`) or number of seconds (`3`)"#);
        insta::assert_snapshot!(message("CARVE_JOBS", "0"), @r#"CARVE_JOBS="0": expected a positive number of targets to generate at once (`1`, `4`)"#);
        insta::assert_snapshot!(message("CARVE_JOBS", "all"), @r#"CARVE_JOBS="all": expected a positive number of targets to generate at once (`1`, `4`)"#);
    }

    #[test]
    fn a_carve_dir_that_is_set_must_exist_except_for_recording() {
        let root = std::env::temp_dir();
        let at = |vars: &[(&str, &str)]| config_in(&root, vars).unwrap();
        let typo = "carve-no-such-folder-here";
        assert_eq!(at(&[]).missing_dir(), None, "the default may be missing");
        assert_eq!(at(&[("CARVE_DIR", typo), ("CARVE", "record")]).missing_dir(), None);
        let message = at(&[("CARVE_DIR", typo)]).missing_dir().unwrap();
        assert!(message.contains(&format!("CARVE_DIR={}: no such folder", root.join(typo).display())), "{message}");
        let generate = at(&[("CARVE_DIR", typo), ("CARVE", "generate")]);
        assert!(generate.missing_dir().unwrap().contains("nothing to generate from"));
    }

    #[test]
    fn jobs_come_from_carve_jobs_then_test_threads_then_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(config(&[]).unwrap().jobs, None);
        assert_eq!(config(&[]).unwrap().jobs_or(None), cores);
        assert_eq!(config(&[]).unwrap().jobs_or(Some(3)), 3);
        let two = config(&[("CARVE_JOBS", " 2 ")]).unwrap();
        assert_eq!(two.jobs, Some(2));
        assert_eq!(two.jobs_or(Some(3)), 2, "CARVE_JOBS wins over --test-threads");
    }

    #[test]
    fn budgets() {
        assert_eq!(parse_budget("5000"), Some(Budget::Executions(5000)));
        assert_eq!(
            parse_budget("500ms"),
            Some(Budget::Time(Duration::from_millis(500)))
        );
        assert_eq!(
            parse_budget("2m"),
            Some(Budget::Time(Duration::from_secs(120)))
        );
        assert_eq!(parse_budget("s"), None);
    }

    #[test]
    fn timeouts() {
        let timeout = |v| config(&[("CARVE_TIMEOUT", v)]).map(|c| c.timeout);
        assert_eq!(config(&[]).unwrap().timeout, None, "derived");
        assert_eq!(timeout("500ms"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(timeout("2s"), Ok(Some(Duration::from_secs(2))));
        assert_eq!(timeout(" 3 "), Ok(Some(Duration::from_secs(3))));
        assert!(timeout("0").is_err() && timeout("0ms").is_err() && timeout("2 hours").is_err());
    }

    #[test]
    fn budgets_print_as_they_are_written() {
        for text in ["20000", "30s", "1500ms"] {
            let budget = parse_budget(text).unwrap();
            assert_eq!(parse_budget(&budget.to_string().replace(" executions", "")), Some(budget));
        }
        assert_eq!(Budget::Executions(20000).to_string(), "20000 executions");
        assert_eq!(Budget::Time(Duration::from_secs(120)).to_string(), "120s");
    }
}
