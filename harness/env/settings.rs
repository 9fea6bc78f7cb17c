//! Per-target settings in the package's `Cargo.toml`, under
//! `[package.metadata.carve]`: generation's budget and call timeout, and
//! the panics that are intended (by message pattern), as defaults and per
//! target. Cargo ignores the table and publishes it with the crate, and it
//! sits beside the `carve` feature and `[[test]]` entry users already edit,
//! so carve reads no file of its own.
//!
//! ```toml
//! [package.metadata.carve]
//! budget = 5000                      # or "30s"; every target
//! timeout = "2s"
//! expected_panics = ["not implemented"]
//!
//! [package.metadata.carve.targets."date::fmt_http_date"]
//! budget = "10s"
//! expected_panics = ["year .* 9999"] # added to the defaults
//! ```
//!
//! `CARVE_BUDGET` and `CARVE_TIMEOUT` override the file. Unknown keys, bad
//! values, patterns that are no regular expression and targets that are not
//! registered are errors naming the file, line, column and key.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::{parse_budget, parse_timeout, Budget, Config};

/// A panic message pattern: a regular expression searched in the message.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether it occurs in `message`.
    pub fn matches(&self, message: &str) -> bool {
        self.0.is_match(message)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Pattern {}

/// The settings of one target, or the defaults of all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetSettings {
    /// Generation's budget for it.
    pub budget: Option<Budget>,
    /// Its call timeout.
    pub timeout: Option<Duration>,
    /// Panics that are intended: a generated call panicking with a message
    /// one of them matches is stored as an expected outcome.
    pub expected_panics: Vec<Pattern>,
}

/// What `[package.metadata.carve]` holds; empty when there is none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The manifest they were read from.
    pub file: PathBuf,
    /// `budget`, `timeout` and `expected_panics` at the top of the table.
    pub defaults: TargetSettings,
    /// `targets."<name>"` tables, by target name, with where each is named.
    pub targets: BTreeMap<String, (TargetSettings, Location)>,
}

/// `line:col` in the manifest (from 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A setting carve cannot use: where, which key, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    file: PathBuf,
    at: Option<Location>,
    key: String,
    problem: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::env::display_path(&self.file))?;
        if let Some(at) = self.at {
            write!(f, ":{at}")?;
        }
        write!(f, ": {}: {}", self.key, self.problem)
    }
}

impl std::error::Error for SettingsError {}

const TABLE: &str = "package.metadata.carve";

#[derive(Deserialize)]
struct Manifest {
    package: Option<Package>,
}

#[derive(Deserialize)]
struct Package {
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    carve: Option<Raw>,
}

/// The table as written; values are checked after parsing, with their spans.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    budget: Option<Spanned<toml::Value>>,
    timeout: Option<Spanned<toml::Value>>,
    #[serde(default)]
    expected_panics: Vec<Spanned<String>>,
    #[serde(default)]
    targets: BTreeMap<Spanned<String>, RawTarget>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    budget: Option<Spanned<toml::Value>>,
    timeout: Option<Spanned<toml::Value>>,
    #[serde(default)]
    expected_panics: Vec<Spanned<String>>,
}

impl Settings {
    /// Reads `[package.metadata.carve]` of `<package_root>/Cargo.toml`;
    /// empty settings when the file or the table is not there.
    pub fn load(package_root: &Path) -> Result<Settings, SettingsError> {
        let file = package_root.join("Cargo.toml");
        match std::fs::read_to_string(&file) {
            Ok(text) => Settings::parse(&file, &text),
            Err(_) => Ok(Settings {
                file,
                ..Settings::default()
            }),
        }
    }

    /// Reads the settings of the manifest `text` (from `file`, for messages).
    pub fn parse(file: &Path, text: &str) -> Result<Settings, SettingsError> {
        let error = |span: Option<std::ops::Range<usize>>, key: String, problem: String| {
            SettingsError {
                file: file.to_owned(),
                at: span.map(|s| location(text, s.start)),
                key,
                problem,
            }
        };
        let manifest: Manifest = toml::from_str(text).map_err(|e| {
            error(e.span(), TABLE.to_owned(), e.message().trim().to_owned())
        })?;
        let Some(raw) = manifest
            .package
            .and_then(|p| p.metadata)
            .and_then(|m| m.carve)
        else {
            return Ok(Settings {
                file: file.to_owned(),
                ..Settings::default()
            });
        };
        let target = |raw: RawTarget, table: &str| -> Result<TargetSettings, SettingsError> {
            let budget = match raw.budget {
                None => None,
                Some(v) => Some(budget(v.get_ref()).ok_or_else(|| {
                    error(
                        Some(v.span()),
                        format!("{table}.budget"),
                        format!(
                            "{} is no budget: give a number of executions (`5000`) or a \
                             duration (`\"30s\"`, `\"500ms\"`, `\"2m\"`)",
                            show(v.get_ref())
                        ),
                    )
                })?),
            };
            let timeout = match raw.timeout {
                None => None,
                Some(v) => Some(timeout(v.get_ref()).ok_or_else(|| {
                    error(
                        Some(v.span()),
                        format!("{table}.timeout"),
                        format!(
                            "{} is no timeout: give a positive duration (`\"500ms\"`, `\"2s\"`) \
                             or number of seconds (`3`)",
                            show(v.get_ref())
                        ),
                    )
                })?),
            };
            let expected_panics = raw
                .expected_panics
                .into_iter()
                .map(|p| {
                    regex::Regex::new(p.get_ref()).map(Pattern).map_err(|e| {
                        error(
                            Some(p.span()),
                            format!("{table}.expected_panics"),
                            format!(
                                "{:?} is no regular expression: {}",
                                p.get_ref(),
                                one_line(&e.to_string())
                            ),
                        )
                    })
                })
                .collect::<Result<_, _>>()?;
            Ok(TargetSettings {
                budget,
                timeout,
                expected_panics,
            })
        };
        let defaults = RawTarget {
            budget: raw.budget,
            timeout: raw.timeout,
            expected_panics: raw.expected_panics,
        };
        let defaults = target(defaults, TABLE)?;
        let mut targets = BTreeMap::new();
        for (name, settings) in raw.targets {
            let table = format!("{TABLE}.targets.{:?}", name.get_ref());
            let at = location(text, name.span().start);
            targets.insert(name.into_inner(), (target(settings, &table)?, at));
        }
        Ok(Settings {
            file: file.to_owned(),
            defaults,
            targets,
        })
    }

    /// Fails on a `targets."<name>"` table that names no target of
    /// `registered` (a typo would otherwise do nothing), naming the closest.
    pub fn check_targets<'a>(
        &self,
        registered: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), SettingsError> {
        let registered: Vec<&str> = registered.into_iter().collect();
        for (name, (_, at)) in &self.targets {
            if registered.contains(&name.as_str()) {
                continue;
            }
            let closest = registered
                .iter()
                .min_by_key(|t| crate::coverage::report::edit_distance(t, name))
                .map(|t| format!(" (the closest is `{t}`)"))
                .unwrap_or_default();
            return Err(SettingsError {
                file: self.file.clone(),
                at: Some(*at),
                key: format!("{TABLE}.targets.{name:?}"),
                problem: format!(
                    "no target `{name}` in this test binary{closest}; a target is named by its \
                     path inside the crate, as carve's trials name it (`generate::<target>`)"
                ),
            });
        }
        Ok(())
    }

    /// The settings of `target`: its own table over the defaults; its
    /// expected panics are added to the default ones.
    pub fn of(&self, target: &str) -> TargetSettings {
        let mut settings = self.defaults.clone();
        if let Some((own, _)) = self.targets.get(target) {
            settings.budget = own.budget.or(settings.budget);
            settings.timeout = own.timeout.or(settings.timeout);
            settings.expected_panics.extend(own.expected_panics.iter().cloned());
        }
        settings
    }

    /// The configuration of a target without a table of its own: `config`
    /// with the default budget and timeout where `CARVE_BUDGET` and
    /// `CARVE_TIMEOUT` do not set them.
    pub fn defaults_over(&self, config: &Config) -> Config {
        apply(self.defaults.clone(), config)
    }

    /// Where the budget a target without a table of its own gets comes
    /// from: `CARVE_BUDGET` (or its default) or the manifest.
    pub fn budget_source(&self, config: &Config) -> String {
        match (config.budget_is_set, self.defaults.budget) {
            (false, Some(_)) => format!(
                "{} [package.metadata.carve]",
                crate::env::display_path(&self.file)
            ),
            _ => "CARVE_BUDGET".to_owned(),
        }
    }

    /// The configuration generation of `target` runs with: `config` with
    /// the target's budget and timeout where `CARVE_BUDGET` and
    /// `CARVE_TIMEOUT` do not set them, and its expected panics.
    pub fn config_for(&self, target: &str, config: &Config) -> Config {
        apply(self.of(target), config)
    }

}

/// `config` with `own`'s budget and timeout where the variables do not set
/// them, and its expected panics.
fn apply(own: TargetSettings, config: &Config) -> Config {
    Config {
        budget: match (config.budget_is_set, own.budget) {
            (false, Some(budget)) => budget,
            _ => config.budget,
        },
        timeout: config.timeout.or(own.timeout),
        expected_panics: own.expected_panics,
        ..config.clone()
    }
}

fn budget(value: &toml::Value) -> Option<Budget> {
    match value {
        toml::Value::Integer(n) => u64::try_from(*n).ok().map(Budget::Executions),
        toml::Value::String(s) => parse_budget(s),
        _ => None,
    }
}

fn timeout(value: &toml::Value) -> Option<Duration> {
    match value {
        toml::Value::Integer(n) => u64::try_from(*n)
            .ok()
            .filter(|n| *n > 0)
            .map(Duration::from_secs),
        toml::Value::String(s) => parse_timeout(s),
        _ => None,
    }
}

/// A value as the message shows it: `"fast"`, `0`, or its kind.
fn show(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(n) => n.to_string(),
        other => format!("a {}", other.type_str()),
    }
}

/// The line and column of byte `offset` of `text`.
fn location(text: &str, offset: usize) -> Location {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Location { line, col }
}

/// regex's multi-line error, on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings, String> {
        Settings::parse(Path::new("/p/Cargo.toml"), text).map_err(|e| e.to_string())
    }

    const MANIFEST: &str = r#"[package]
name = "date"

[package.metadata.carve]
budget = 5000
expected_panics = ["not implemented"]

[package.metadata.carve.targets."fmt_http_date"]
budget = "10s"
timeout = 3
expected_panics = ["year .* 9999"]
"#;

    #[test]
    fn a_target_table_overrides_the_defaults_and_adds_its_patterns() {
        let settings = parse(MANIFEST).unwrap();
        let own = settings.of("fmt_http_date");
        assert_eq!(own.budget, Some(Budget::Time(Duration::from_secs(10))));
        assert_eq!(own.timeout, Some(Duration::from_secs(3)));
        let patterns: Vec<&str> = own.expected_panics.iter().map(Pattern::as_str).collect();
        assert_eq!(patterns, ["not implemented", "year .* 9999"]);
        assert!(own.expected_panics[1].matches("year 10000 is after 9999"));
        let other = settings.of("parse");
        assert_eq!(other.budget, Some(Budget::Executions(5000)));
        assert_eq!((other.timeout, other.expected_panics.len()), (None, 1));
        assert!(settings.check_targets(["fmt_http_date", "parse"]).is_ok());
    }

    #[test]
    fn environment_variables_override_the_file() {
        let settings = parse(MANIFEST).unwrap();
        let root = Path::new("/p");
        let config = Config::from_lookup(|_| None, root).unwrap();
        let own = settings.config_for("fmt_http_date", &config);
        assert_eq!(own.budget, Budget::Time(Duration::from_secs(10)));
        assert_eq!(own.timeout, Some(Duration::from_secs(3)));
        assert_eq!(own.expected_panics.len(), 2);
        let vars = |name: &str| match name {
            "CARVE_BUDGET" => Some("700".to_owned()),
            "CARVE_TIMEOUT" => Some("1s".to_owned()),
            _ => None,
        };
        let config = Config::from_lookup(vars, root).unwrap();
        let own = settings.config_for("fmt_http_date", &config);
        assert_eq!(own.budget, Budget::Executions(700));
        assert_eq!(own.timeout, Some(Duration::from_secs(1)));
        assert_eq!(own.expected_panics.len(), 2, "no variable sets patterns");
        assert_eq!(settings.budget_source(&config), "CARVE_BUDGET");
        assert_eq!(settings.defaults_over(&config).budget, Budget::Executions(700));
        let config = Config::from_lookup(|_| None, root).unwrap();
        assert_eq!(
            settings.budget_source(&config),
            "/p/Cargo.toml [package.metadata.carve]"
        );
        assert_eq!(settings.defaults_over(&config).budget, Budget::Executions(5000));
        assert!(settings.defaults_over(&config).expected_panics.len() == 1);
    }

    #[test]
    fn a_manifest_without_the_table_has_no_settings() {
        let settings = parse("[package]\nname = \"x\"\n[package.metadata.docs.rs]\nall-features = true\n").unwrap();
        assert_eq!(settings.of("t"), TargetSettings::default());
        assert_eq!(parse("[workspace]\nmembers = []\n").unwrap().targets.len(), 0);
    }

    #[test]
    fn bad_settings_name_the_file_the_place_and_the_key() {
        let with = |table: &str| format!("[package]\nname = \"x\"\n\n[package.metadata.carve]\n{table}");
        let errors: Vec<String> = [
            with("budgett = 5\n"),
            with("budget = \"fast\"\n"),
            with("timeout = 0\n"),
            with("[package.metadata.carve.targets.\"t\"]\nexpected_panics = [\"year (9999\"]\n"),
            with("[package.metadata.carve.targets.t]\nexpected_panic = [\"x\"]\n"),
        ]
        .iter()
        .map(|text| parse(text).unwrap_err())
        .collect();
        insta::assert_snapshot!(errors.join("\n"), @r#"
        /p/Cargo.toml:5:1: package.metadata.carve: unknown field `budgett`, expected one of `budget`, `timeout`, `expected_panics`, `targets`
        /p/Cargo.toml:5:10: package.metadata.carve.budget: "fast" is no budget: give a number of executions (`5000`) or a duration (`"30s"`, `"500ms"`, `"2m"`)
        /p/Cargo.toml:5:11: package.metadata.carve.timeout: 0 is no timeout: give a positive duration (`"500ms"`, `"2s"`) or number of seconds (`3`)
        /p/Cargo.toml:6:20: package.metadata.carve.targets."t".expected_panics: "year (9999" is no regular expression: regex parse error: year (9999 ^ error: unclosed group
        /p/Cargo.toml:6:1: package.metadata.carve: unknown field `expected_panic`, expected one of `budget`, `timeout`, `expected_panics`
        "#);
    }

    #[test]
    fn a_table_of_an_unknown_target_is_an_error_naming_the_closest() {
        let settings = parse(MANIFEST).unwrap();
        let error = settings.check_targets(["fmt_http_dates", "parse"]).unwrap_err();
        insta::assert_snapshot!(error.to_string(), @r#"/p/Cargo.toml:8:33: package.metadata.carve.targets."fmt_http_date": no target `fmt_http_date` in this test binary (the closest is `fmt_http_dates`); a target is named by its path inside the crate, as carve's trials name it (`generate::<target>`)"#);
    }
}
