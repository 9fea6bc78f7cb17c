//! `cargo carve`: carve's workflow as a cargo subcommand.
//!
//! Every mode is `cargo test` of the carve test binaries (the `[[test]]`
//! targets with `harness = false` whose file calls `carve::main!`) with
//! carve's variables set: this binary finds those targets with
//! `cargo metadata`, turns flags into `cargo test` arguments and `CARVE*`
//! variables ([`run`]), and edits a crate's manifest for `init` ([`init`]).
//!
//! Exit codes: 0 when everything passed; 1 when `cargo carve` could not do
//! what was asked (no carve test target, `init` refused, cargo-insta
//! missing, `cargo metadata` failed); 2 for a command line it does not take;
//! otherwise `cargo test`'s, which is the test binary's (101 when a test
//! failed; 2 when carve refuses to record or generate under CI).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod init;
mod run;
mod wrapper;

/// Exit code when `cargo carve` itself could not do what was asked.
const FAILED: u8 = 1;

/// cargo runs `cargo-carve carve <args>`: the first argument names the
/// subcommand, as for every cargo plugin.
#[derive(Parser, Debug)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    Carve(Carve),
}

/// Carve unit and regression tests from system tests, measure their branch
/// coverage, and generate calls that raise it.
///
/// Exit codes: 0 when everything passed; 1 when cargo carve could not do
/// what was asked (no carve test target, init refused, cargo-insta missing);
/// 2 for a bad command line; otherwise cargo test's (101: a test failed; 2:
/// carve refused to write under CI).
#[derive(Args, Debug)]
#[command(version, about, long_about)]
struct Carve {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Add carve to the current crate: a `carve` feature, optional carve and
    /// serde dependencies, a `[[test]]` named carve and a tests/carve.rs
    /// skeleton.
    Init(init::InitArgs),
    /// Run the system tests while carving calls of targets into carved/,
    /// then replay every carved call (CARVE=record cargo test).
    Record(RunArgs),
    /// Generate calls that raise branch coverage and add them to carved/,
    /// then replay (CARVE=generate cargo test).
    ///
    /// Builds the crate's libraries with edge counters, in a profile of its
    /// own (in a folder of its own: the normal build is neither rebuilt nor
    /// reused): `carve-edges`, which is dev with its dependencies optimized
    /// (package."*".opt-level=1 package.carve.opt-level=3
    /// package.carve.incremental=false package."*".debug=false). The crate itself
    /// is built as in dev, with its debug assertions and overflow checks, so
    /// that a call that overflows panics as under cargo test and generation
    /// keeps the calls a dev build keeps. Generation runs about 6 times
    /// faster there than in dev; the first build of the dependencies takes
    /// about 2.5 times as long. With --profile P or --release:
    /// `carve-edges-P` or `carve-edges-release`, inheriting P or release as
    /// it is (--profile dev: unoptimized). With --no-edges: no counters, in
    /// cargo test's own profile.
    Generate(GenerateArgs),
    /// Replay every carved call against its snapshot, and run the system
    /// tests (cargo test of the carve test binaries; writes nothing).
    Test(RunArgs),
    /// Replay, and write coverage reports (HTML into target/carve-report
    /// when no report is asked for).
    Report(ReportArgs),
    /// Review changed outcomes with `cargo insta review` (needs cargo-insta).
    Review(ReviewArgs),
}

/// What every mode that runs tests takes: cargo's own flags, passed on.
#[derive(Args, Debug, Default, Clone)]
pub struct RunArgs {
    /// Package to run the carve tests of (several allowed).
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub package: Vec<String>,
    /// Run the carve tests of every workspace member.
    #[arg(long)]
    pub workspace: bool,
    /// Leave a package out of --workspace.
    #[arg(long, value_name = "SPEC", requires = "workspace")]
    pub exclude: Vec<String>,
    /// Features to turn on besides those the carve test targets require
    /// (space or comma separated).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub features: Vec<String>,
    /// Turn on every feature of the selected packages.
    #[arg(long)]
    pub all_features: bool,
    /// Turn off the default features.
    #[arg(long)]
    pub no_default_features: bool,
    /// Build into this folder (cargo's --target-dir).
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,
    /// Build with this profile (`carve` for the README's optimized test profile).
    #[arg(long, value_name = "NAME", conflicts_with = "release")]
    pub profile: Option<String>,
    /// Build optimized (cargo's --release).
    #[arg(long)]
    pub release: bool,
    /// The Cargo.toml to work on (default: the one cargo finds from here).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Test filters and options for the test binaries (`-- cgi --exact`).
    #[arg(last = true, value_name = "TEST ARGS")]
    pub test_args: Vec<String>,
}

/// `generate`: cargo's flags and generation settings.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    settings: run::Settings,
}

/// `report`: where to write which report.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Write the HTML report into this folder (CARVE_HTML).
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Write the JSON report to this file (CARVE_REPORT).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write an lcov tracefile to this file (CARVE_LCOV).
    #[arg(long, value_name = "FILE")]
    lcov: Option<PathBuf>,
    /// Print the annotated source of instrumented functions whose name
    /// contains this (`all`: every one) (CARVE_ANNOTATE).
    #[arg(long, value_name = "PATTERN")]
    annotate: Option<String>,
    #[command(flatten)]
    run: RunArgs,
}

/// `review`: arguments for `cargo insta review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// Passed on to `cargo insta review` (`-- --help` lists them).
    #[arg(last = true, value_name = "INSTA ARGS")]
    insta_args: Vec<String>,
}

fn main() -> ExitCode {
    // Cargo runs this binary as the rustc wrapper of `generate`.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if wrapper::is_wrapping(&args) {
        return wrapper::run(&args);
    }
    let Cargo::Carve(carve) = Cargo::parse();
    let result = match carve.command {
        Command::Init(args) => init::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Record(args) => run::tests(run::Mode::Record, &args, &run::Settings::default()),
        Command::Generate(mut args) => match edges(&mut args.settings) {
            Ok(()) => run::tests(run::Mode::Generate, &args.run, &args.settings),
            Err(e) => Err(e),
        },
        Command::Test(args) => run::tests(run::Mode::Test, &args, &run::Settings::default()),
        Command::Report(args) => report(&args),
        Command::Review(args) => review(&args),
    };
    result.unwrap_or_else(|message| {
        eprintln!("error: {message}");
        ExitCode::from(FAILED)
    })
}

/// Builds with edge counters through this binary unless `--no-edges`.
fn edges(settings: &mut run::Settings) -> Result<(), String> {
    if !settings.no_edges {
        let me = std::env::current_exe()
            .map_err(|e| format!("where cargo-carve is (for the edge counters' build): {e}"))?;
        settings.wrapper = Some(me);
    }
    Ok(())
}

/// Replays with the reports' variables set, paths taken from where
/// `cargo carve` runs (the runtime takes relative ones from the package).
fn report(args: &ReportArgs) -> Result<ExitCode, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?;
    let mut reports = run::Reports {
        html: args.html.as_ref().map(|p| cwd.join(p)),
        json: args.json.as_ref().map(|p| cwd.join(p)),
        lcov: args.lcov.as_ref().map(|p| cwd.join(p)),
        annotate: args.annotate.clone(),
    };
    run::report(&args.run, &mut reports)
}

/// Hands over to `cargo insta review`, run where cargo-insta finds carve's
/// snapshots (the package root); says how to install it when it is missing.
fn review(args: &ReviewArgs) -> Result<ExitCode, String> {
    let cargo = run::cargo();
    let installed = std::process::Command::new(&cargo)
        .args(["insta", "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        return Err(
            "`cargo insta` is not installed; it is what shows each changed outcome \
             as a diff to accept or reject. Install it with `cargo install cargo-insta`, \
             then run `cargo carve review` again."
                .to_owned(),
        );
    }
    let status = std::process::Command::new(&cargo)
        .args(["insta", "review"])
        .args(&args.insta_args)
        .status()
        .map_err(|e| format!("running `cargo insta review`: {e}"))?;
    Ok(run::exit_code(status))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own checks of the command line (conflicting names, flags that
    /// `requires` what does not exist).
    #[test]
    fn the_command_line_is_well_formed() {
        super::Cargo::command().debug_assert();
    }

    /// `generate --help` says what it builds: the profile and what it keeps
    /// of dev.
    #[test]
    fn generate_help_names_the_profile_it_builds() {
        let mut command = super::Cargo::command();
        let help = command
            .find_subcommand_mut("carve")
            .and_then(|c| c.find_subcommand_mut("generate"))
            .map(|c| c.render_long_help().to_string())
            .unwrap_or_default();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let settings = crate::run::EDGES_SETTINGS.join(" ");
        for said in [
            &format!("`carve-edges`, which is dev with its dependencies optimized ({settings})"),
            "The crate itself is built as in dev, with its debug assertions and overflow checks",
            "--profile dev: unoptimized",
        ] {
            assert!(help.contains(said), "{said:?} not in {help}");
        }
    }
}
