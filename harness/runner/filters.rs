//! The test binary's command line, read as libtest reads it: libtest-mimic
//! parses everything but the filters, of which it accepts one where libtest
//! takes several (`cargo test -- needle unlock`).
//!
//! The positional arguments are taken out before libtest-mimic sees the
//! rest, minding the options that take a value (`--skip X`, `--test-threads
//! N`, …), so that a value is never taken for a filter. A test runs if its
//! name contains any filter or, with `--exact`, equals one.

use std::ffi::OsString;

use libtest_mimic::{Arguments, Conclusion, Trial};

/// libtest's options that take a value as the next argument (also accepted
/// as `--option=value`, and `-Zvalue`).
const TAKES_VALUE: [&str; 6] = [
    "--test-threads",
    "--logfile",
    "--skip",
    "--color",
    "--format",
    "-Z",
];

/// The kind given to trials no filter selects when there are several, so
/// that libtest-mimic leaves them out (and counts them as filtered out) by
/// a `--skip` of it: it matches skips against `[kind] name`.
const UNSELECTED: &str = "carve-unselected";

/// The test binary's arguments.
#[derive(Debug, Clone, Default)]
pub struct TestArgs {
    /// Everything libtest-mimic reads, with no filter: [`TestArgs::run`]
    /// applies [`TestArgs::filters`].
    pub libtest: Arguments,
    /// The positional filters, in the order given.
    pub filters: Vec<String>,
}

impl TestArgs {
    /// The arguments of this process; on a malformed command line, prints
    /// libtest-mimic's message and exits, as it does.
    pub fn from_env() -> TestArgs {
        TestArgs::parse(std::env::args_os())
    }

    /// `argv`, the program's name first.
    pub fn parse(argv: impl IntoIterator<Item = OsString>) -> TestArgs {
        let mut argv = argv.into_iter();
        let mut options: Vec<OsString> = argv.next().into_iter().collect();
        let mut filters = Vec::new();
        while let Some(arg) = argv.next() {
            let text = arg.to_string_lossy();
            if text == "--" {
                filters.extend(argv.by_ref().map(|a| a.to_string_lossy().into_owned()));
                break;
            }
            if !text.starts_with('-') || text == "-" {
                filters.push(text.into_owned());
                continue;
            }
            let takes_value = TAKES_VALUE.contains(&text.as_ref());
            options.push(arg);
            if takes_value {
                options.extend(argv.next());
            }
        }
        TestArgs {
            libtest: Arguments::from_iter(options),
            filters,
        }
    }

    /// Whether a filter or a `--skip` leaves tests out.
    pub fn is_filtered(&self) -> bool {
        !self.filters.is_empty() || !self.libtest.skip.is_empty()
    }

    /// Whether the test `name` passes the filters and skips (as libtest
    /// matches them: substrings, or whole names with `--exact`).
    pub fn selects(&self, name: &str) -> bool {
        let matches = |pattern: &String| match self.libtest.exact {
            true => name == pattern,
            false => name.contains(pattern.as_str()),
        };
        (self.filters.is_empty() || self.filters.iter().any(matches))
            && !self.libtest.skip.iter().any(matches)
    }

    /// These arguments without filters or skips: every test is selected.
    pub fn unfiltered(&self) -> TestArgs {
        TestArgs {
            libtest: Arguments {
                filter: None,
                skip: Vec::new(),
                exact: false,
                ..self.libtest.clone()
            },
            filters: Vec::new(),
        }
    }

    /// Runs (or lists) the trials these arguments select, with libtest-mimic.
    pub fn run(&self, trials: Vec<Trial>) -> Conclusion {
        if let [] | [_] = self.filters.as_slice() {
            // What libtest-mimic does alone.
            let args = Arguments {
                filter: self.filters.first().cloned(),
                ..self.libtest.clone()
            };
            return libtest_mimic::run(&args, trials);
        }
        let trials = trials
            .into_iter()
            .map(|trial| match self.selects(trial.name()) {
                true => trial,
                false => trial.with_kind(UNSELECTED),
            })
            .collect();
        let args = Arguments {
            filter: None,
            exact: false,
            skip: vec![format!("[{UNSELECTED}] ")],
            ..self.libtest.clone()
        };
        libtest_mimic::run(&args, trials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> TestArgs {
        TestArgs::parse(std::iter::once("carve").chain(args.iter().copied()).map(OsString::from))
    }

    #[test]
    fn every_positional_argument_is_a_filter_and_values_are_not() {
        let args = parse(&[
            "needle",
            "--test-threads",
            "2",
            "--skip",
            "x",
            "--format",
            "terse",
            "--color",
            "never",
            "-Z",
            "unstable-options",
            "--logfile",
            "log",
            "--exact",
            "unlock",
            "--skip=y",
            "--",
            "--list",
        ]);
        assert_eq!(args.filters, ["needle", "unlock", "--list"]);
        assert_eq!(args.libtest.skip, ["x", "y"]);
        assert_eq!(args.libtest.test_threads, Some(2));
        assert_eq!(args.libtest.logfile.as_deref(), Some("log"));
        assert!(args.libtest.exact && !args.libtest.list);
        assert_eq!(args.libtest.filter, None);
    }

    #[test]
    fn a_test_runs_if_its_name_matches_any_filter() {
        let args = parse(&["needle", "unlock", "--skip", "rusty"]);
        assert!(args.selects("system::needle_in_haystack"));
        assert!(args.selects("carved::unlock::0001"));
        assert!(!args.selects("carved::lock::0001"));
        assert!(!args.selects("carved::rusty_needle::0001"), "skipped");
        let exact = parse(&["--exact", "carved::a::0001", "carved::b::0002"]);
        assert!(exact.selects("carved::b::0002"));
        assert!(!exact.selects("carved::b::00021"));
        assert!(parse(&[]).selects("anything"));
        assert!(parse(&["--skip", "x"]).is_filtered() && !parse(&["--list"]).is_filtered());
    }

    #[test]
    fn several_filters_select_trials_and_count_the_rest_as_filtered_out() {
        let trials = || {
            ["a::one", "b::two", "c::three", "d::four"]
                .map(|name| Trial::test(name, || Ok(())))
                .into()
        };
        let run = |args: &[&str]| {
            let mut args = parse(args);
            args.libtest.test_threads = Some(1);
            args.libtest.quiet = true;
            let c = args.run(trials());
            (c.num_passed, c.num_filtered_out)
        };
        assert_eq!(run(&["one", "three"]), (2, 2));
        assert_eq!(run(&["--exact", "a::one", "d::four", "four"]), (2, 2));
        assert_eq!(run(&["one", "two", "--skip", "two"]), (1, 3));
        assert_eq!(run(&["two"]), (1, 3));
        assert_eq!(run(&[]), (4, 0));
    }
}
