//! `cargo carve`, driven as a user drives it: the binary built from this
//! workspace runs as `cargo-carve carve <command>` (how cargo runs it) in
//! copies of crates that have never heard of carve.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use insta::assert_snapshot;

use crate::{count, entry, inherited_var_changes_behaviour, normalize, tmp, Project, Run};

/// The `cargo-carve` binary, built once from this workspace into the
/// copies' shared target dir.
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = tmp().join("e2e-target");
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "--quiet", "-p", "cargo-carve", "--manifest-path"])
            .arg(root.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target);
        scrub(&mut cmd);
        let out = cmd.output().expect("cargo runs");
        assert!(
            out.status.success(),
            "building cargo-carve:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target
            .join("debug")
            .join(format!("cargo-carve{}", std::env::consts::EXE_SUFFIX))
    })
}

fn scrub(cmd: &mut Command) {
    for (var, _) in std::env::vars_os() {
        if inherited_var_changes_behaviour(&var.to_string_lossy()) {
            cmd.env_remove(var);
        }
    }
}

impl Project {
    /// `cargo carve <args>` in the copy, as cargo runs it.
    pub(crate) fn carve(&self, args: &[&str]) -> Run {
        Run::of(self.carve_command(args))
    }

    fn carve_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(binary());
        cmd.current_dir(&self.dir).arg("carve").args(args);
        scrub(&mut cmd);
        cmd.env("CARGO", env!("CARGO"))
            .env("CARGO_TARGET_DIR", tmp().join("e2e-target"))
            .env("CARGO_TERM_COLOR", "never")
            .env("INSTA_WORKSPACE_ROOT", &self.dir);
        cmd
    }
}

/// What users read, with the copy's folder and carve's checkout named.
fn shown(text: &str) -> String {
    normalize(text).replace(env!("CARGO_MANIFEST_DIR"), "[carve]")
}

/// The line `cargo carve` prints before running cargo.
fn running(run: &Run) -> String {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("cargo carve: running "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// init on a crate without serde, then the whole workflow: record,
/// generate, test, report, each through `cargo carve`.
#[test]
fn init_then_record_generate_test_and_report() {
    let p = Project::of("cli_plain", "cli-plain");
    let run = p.carve(&["init"]);
    run.assert_success();
    assert_snapshot!(shown(&run.stdout), @r#"
    cargo carve init: set up carve in `plain-cli-plain` ([tmp]/e2e-cli-plain):
      Cargo.toml [dependencies] carve = { path = "[carve]", optional = true }
      Cargo.toml [dependencies] serde = { version = "1", features = ["derive"], optional = true }
      Cargo.toml [features] carve = ["dep:carve", "dep:serde"]
      Cargo.toml [[test]] name = "carve", harness = false, required-features = ["carve"]
      tests/carve.rs: new, a system test to fill in
    Next: mark library functions with #[cfg_attr(feature = "carve", carve::target)], call them from the system test in tests/carve.rs, then run `cargo carve record`.
    "#);
    assert_snapshot!(shown(&p.read("Cargo.toml")), @r##"
    # A crate as it is before `cargo carve init`: no carve, no serde.
    [package]
    name = "plain-cli-plain"
    version = "0.1.0"
    edition = "2021"
    publish = false

    [lib]
    name = "plain"

    [dependencies]
    carve = { path = "[carve]", optional = true }
    serde = { version = "1", features = ["derive"], optional = true }

    [features]
    carve = ["dep:carve", "dep:serde"]

    [workspace]

    [[test]]
    name = "carve"
    harness = false
    required-features = ["carve"]
    "##);

    // What the printed next step asks for.
    p.replace(
        "src/lib.rs",
        "/// Names the size of `n`.\n",
        "/// Names the size of `n`.\n#[cfg_attr(feature = \"carve\", carve::target)]\n",
    );
    p.replace(
        "tests/carve.rs",
        "    // assert_eq!(plain::parse(\"1.2.3\").unwrap().to_string(), \"1.2.3\");",
        "    assert_eq!(plain::classify(5), \"small\");",
    );

    let run = p.carve(&["record"]);
    run.assert_success();
    assert_snapshot!(running(&run), @"cargo carve: running CARVE=record cargo test --features carve --test carve");
    run.assert_line("carve: wrote carved/classify.ron: 1 call(s) stored, 1 carved in this run");

    let run = p.carve(&["generate", "--seed", "1", "--budget", "2000", "--jobs", "1"]);
    run.assert_success();
    // Built with edge counters, through cargo-carve itself, in a profile of its own.
    assert_snapshot!(shown(&running(&run)), @r#"cargo carve: running CARVE=generate RUSTC_WORKSPACE_WRAPPER=[tmp]/e2e-target/debug/cargo-carve CARVE_EDGE_CRATES=plain CARVE_SEED=1 CARVE_BUDGET=2000 CARVE_JOBS=1 cargo test --features carve --config 'profile.carve-edges.inherits="dev"' --config 'profile.carve-edges.package."*".opt-level=1' --config profile.carve-edges.package.carve.opt-level=3 --config profile.carve-edges.package.carve.incremental=false --config 'profile.carve-edges.package."*".debug=false' --profile carve-edges --test carve"#);
    run.assert_line("carve: classify: branch coverage 3/6 -> 6/6");
    assert!(p.read("carved/classify.ron").contains("origin: Generated("));

    let run = p.carve(&["test"]);
    run.assert_success();
    assert_snapshot!(running(&run), @"cargo carve: running CARVE=replay cargo test --features carve --test carve");
    assert!(count(&run, "ok") >= 4, "{}", run.output());
    assert_eq!(count(&run, "FAILED"), 0, "{}", run.output());

    let run = p.carve(&[
        "report",
        "--json",
        "report.json",
        "--html",
        "html",
        "--lcov",
        "lcov.info",
    ]);
    run.assert_success();
    assert_snapshot!(shown(&running(&run)), @"cargo carve: running CARVE=replay CARVE_HTML=[tmp]/e2e-cli-plain/html CARVE_REPORT=[tmp]/e2e-cli-plain/report.json CARVE_LCOV=[tmp]/e2e-cli-plain/lcov.info cargo test --features carve --test carve");
    let json = p.report("report.json");
    // The lcov tracefile counts what the JSON report counts.
    let lcov = p.read("lcov.info");
    let sum = |key: &str| -> u64 {
        lcov.lines()
            .filter_map(|l| l.strip_prefix(key)?.parse::<u64>().ok())
            .sum()
    };
    assert_eq!(
        (Some(sum("BRF:")), Some(sum("BRH:"))),
        (
            json["total"]["branches"].as_u64(),
            json["total"]["covered"].as_u64()
        ),
        "{lcov}"
    );
    let classify = entry(&json["targets"], "classify");
    assert_eq!(
        (classify["branches"].as_u64(), classify["covered"].as_u64()),
        (Some(6), Some(6)),
        "{json}"
    );
    let page = scraper::Html::parse_document(&p.read("html/index.html"));
    let rows = scraper::Selector::parse("table tr").unwrap();
    assert!(
        page.select(&rows)
            .any(|r| r.text().any(|t| t.contains("classify"))),
        "no row of classify in html/index.html"
    );

    // No report asked for: the HTML report in the target dir.
    let run = p.carve(&["report"]);
    run.assert_success();
    assert_snapshot!(shown(&running(&run)), @"cargo carve: running CARVE=replay CARVE_HTML=[tmp]/e2e-target/carve-report cargo test --features carve --test carve");
    assert!(tmp().join("e2e-target/carve-report/index.html").is_file());

    // A failing replay is cargo test's failure: exit 101.
    p.replace("src/lib.rs", "\"small\"", "\"smallish\"");
    let run = p.carve(&["test", "--", "classify"]);
    run.assert_failure();
}

/// init on a crate with serde support of its own turns that on by name:
/// the crate still builds with its own feature, and records with carve's.
/// A second init refuses and writes nothing.
#[test]
fn init_keeps_a_crates_own_serde_feature() {
    let p = Project::of("cli_serde", "cli-serde");
    let run = p.carve(&["init"]);
    run.assert_success();
    assert_snapshot!(shown(&p.read("Cargo.toml")), @r##"
    # A published crate's own optional serde support, before `cargo carve init`:
    # `serde_support` names the optional dependency's implicit feature `serde`,
    # which a `dep:serde` anywhere in [features] would remove.
    [package]
    name = "temps-cli-serde"
    version = "0.1.0"
    edition = "2021"
    publish = false

    [lib]
    name = "temps"

    [features]
    serde_support = ["serde"] # the crate's own
    carve = ["dep:carve", "serde", "serde/derive"]

    [dependencies]
    serde = { version = "1", features = ["derive"], optional = true }
    carve = { path = "[carve]", optional = true }

    [workspace]

    [[test]]
    name = "carve"
    harness = false
    required-features = ["carve"]
    "##);
    for features in [&[][..], &["--features", "serde_support"][..]] {
        let mut args = vec!["check", "--quiet", "--lib"];
        args.extend_from_slice(features);
        let out = p.cargo(&args).output().expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo {args:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    p.replace(
        "src/lib.rs",
        "/// Whether it is a hot day.\n",
        "/// Whether it is a hot day.\n#[cfg_attr(feature = \"carve\", carve::target)]\n",
    );
    p.replace(
        "tests/carve.rs",
        "    // assert_eq!(temps::parse(\"1.2.3\").unwrap().to_string(), \"1.2.3\");",
        "    assert!(temps::is_hot(temps::Celsius(31)));",
    );
    p.carve(&["record"]).assert_success();
    assert!(
        p.read("carved/is_hot.ron").contains("t: Celsius(31),"),
        "{}",
        p.read("carved/is_hot.ron")
    );

    let manifest = p.read("Cargo.toml");
    let test_file = p.read("tests/carve.rs");
    let run = p.carve(&["init"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert_snapshot!(shown(&run.stderr), @"error: cargo carve init changed nothing: tests/carve.rs exists; Cargo.toml has a [[test]] named `carve`; Cargo.toml has a feature `carve`; Cargo.toml has a dependency `carve`. carve looks set up already (run `cargo carve record`); to start over, remove them.");
    assert_eq!(p.read("Cargo.toml"), manifest);
    assert_eq!(p.read("tests/carve.rs"), test_file);
}

/// Mistakes on the command line name the flag; a crate without a carve
/// test binary is told how to get one. Nothing is built.
#[test]
fn errors_name_the_flag_or_the_way_out() {
    let p = Project::of("cli_plain", "cli-errors");
    let run = p.carve(&["generate", "--budget", "10 parsecs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_snapshot!(shown(&run.stderr), @r"
    error: invalid value '10 parsecs' for '--budget <BUDGET>': expected a number of executions (`5000`) or a duration (`30s`, `500ms`, `2m`)

    For more information, try '--help'.
    ");
    let run = p.carve(&["generate", "--timeout", "0"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    run.assert_line(
        "error: invalid value '0' for '--timeout <DURATION>': expected a positive duration",
    );
    let run = p.carve(&["record", "-p", "nope"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert_snapshot!(shown(&run.stderr), @"error: -p nope: no such package in this workspace (its packages: plain-cli-errors)");
    let run = p.carve(&["record"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert_snapshot!(shown(&run.stderr), @"error: no carve test target in package `plain-cli-errors`: carve runs `[[test]]` targets with `harness = false` whose file calls `carve::main!()`. Run `cargo carve init` in the package to add one.");
    let run = p.carve(&["report", "--html"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    run.assert_line("error: a value is required for '--html <DIR>' but none was supplied");
}

/// `review` hands over to `cargo insta review` where cargo-insta is
/// installed (here a stand-in that prints what it was given), and says how
/// to install it where it is not.
#[cfg(unix)]
#[test]
fn review_hands_over_to_cargo_insta() {
    use std::os::unix::fs::PermissionsExt;

    let p = Project::of("cli_plain", "cli-review");
    // Only the toolchain's own folder on the PATH, and an empty CARGO_HOME:
    // no cargo-insta this machine may have installed is found.
    let toolchain = Path::new(env!("CARGO")).parent().unwrap().to_owned();
    let home = p.dir.join("cargo-home");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let review = |path: &Path| {
        let mut cmd = p.carve_command(&["review", "--", "--accept"]);
        cmd.env("PATH", path).env("CARGO_HOME", &home);
        Run::of(cmd)
    };

    let run = review(&toolchain);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert_snapshot!(shown(&run.stderr), @"error: `cargo insta` is not installed; it is what shows each changed outcome as a diff to accept or reject. Install it with `cargo install cargo-insta`, then run `cargo carve review` again.");

    let bin = p.dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("cargo-insta");
    std::fs::write(&fake, "#!/bin/sh\necho \"cargo-insta got: $*\"\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths([bin, toolchain]).unwrap();
    let run = review(Path::new(&path));
    run.assert_success();
    assert_snapshot!(run.stdout, @"cargo-insta got: insta review --accept");
}

/// Every command has its help; the top one lists them and the exit codes.
#[test]
fn help_lists_the_commands_and_exit_codes() {
    let p = Project::of("cli_plain", "cli-help");
    let run = p.carve(&["--help"]);
    run.assert_success();
    assert_snapshot!(run.stdout, @r"
    Carve unit and regression tests from system tests, measure their branch coverage, and generate calls that raise it.

    Exit codes: 0 when everything passed; 1 when cargo carve could not do what was asked (no carve test target, init refused, cargo-insta missing); 2 for a bad command line; otherwise cargo test's (101: a test failed; 2: carve refused to write under CI).

    Usage: cargo carve <COMMAND>

    Commands:
      init      Add carve to the current crate: a `carve` feature, optional carve and serde dependencies, a `[[test]]` named carve and a tests/carve.rs skeleton
      record    Run the system tests while carving calls of targets into carved/, then replay every carved call (CARVE=record cargo test)
      generate  Generate calls that raise branch coverage and add them to carved/, then replay (CARVE=generate cargo test)
      test      Replay every carved call against its snapshot, and run the system tests (cargo test of the carve test binaries; writes nothing)
      report    Replay, and write coverage reports (HTML into target/carve-report when no report is asked for)
      review    Review changed outcomes with `cargo insta review` (needs cargo-insta)
      help      Print this message or the help of the given subcommand(s)

    Options:
      -h, --help
              Print help (see a summary with '-h')

      -V, --version
              Print version
    ");
    for command in ["init", "record", "generate", "test", "report", "review"] {
        let run = p.carve(&[command, "--help"]);
        run.assert_success();
        assert!(run.stdout.contains("Usage: cargo carve "), "{}", run.stdout);
    }
}
