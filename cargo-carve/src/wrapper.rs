//! The hidden wrapper mode: `cargo carve generate` runs cargo with
//! `RUSTC_WORKSPACE_WRAPPER` set to this binary, and cargo then runs
//! `cargo-carve <rustc> <args>` for each crate of the workspace. The
//! libraries among them are compiled with SanitizerCoverage's 8-bit edge
//! counters, which carve's runtime reads while generating
//! (`carve::coverage::counters`): generation then also keeps calls that
//! reach edges of code carve does not instrument. Everything else (build
//! scripts, proc macros, test binaries, carve itself) is compiled as is:
//! their counters would be noise, and a build script or proc macro does
//! not link carve's runtime, which defines the counters' hook.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::{Command, ExitCode};

/// What rustc gets besides its arguments for an instrumented library
/// (works on stable: the pass and its options are LLVM's). The table of
/// the counters' edge addresses (`-sanitizer-coverage-pc-table`) tells
/// carve's runtime which counters are in the crate's own functions; v0
/// symbol names show the type arguments of other crates' generics compiled
/// into it, so that those instantiated with its types count too.
pub const EDGE_FLAGS: [&str; 10] = [
    "-C",
    "passes=sancov-module",
    "-C",
    "llvm-args=-sanitizer-coverage-level=3",
    "-C",
    "llvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-C",
    "llvm-args=-sanitizer-coverage-pc-table",
    "-C",
    "symbol-mangling-version=v0",
];

/// Whether `args` (this binary's, after its name) are cargo running rustc
/// through the wrapper: the first names a rustc (or what `RUSTC` names),
/// never a cargo subcommand.
pub fn is_wrapping(args: &[OsString]) -> bool {
    let Some(first) = args.first() else {
        return false;
    };
    let stem = Path::new(first)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem == "rustc" || std::env::var_os("RUSTC").is_some_and(|rustc| rustc == *first)
}

/// Whether rustc run with `args` compiles a library to instrument: a
/// `lib`/`rlib` that is not carve's own.
pub fn instruments(args: &[OsString]) -> bool {
    let value = |flag: &str| {
        args.windows(2)
            .filter(|w| w[0] == OsStr::new(flag))
            .map(|w| w[1].to_string_lossy().into_owned())
            .collect::<Vec<_>>()
    };
    let names = value("--crate-name");
    let types = value("--crate-type");
    let library = !types.is_empty() && types.iter().all(|t| t == "lib" || t == "rlib");
    library
        && names
            .iter()
            .all(|name| name != "carve" && name != "carve_derive")
        && !names.is_empty()
}

/// Runs rustc (`args[0]`) with the rest of `args`, and the edge flags for a
/// library to instrument; exits as rustc exits.
pub fn run(args: &[OsString]) -> ExitCode {
    let Some((rustc, rest)) = args.split_first() else {
        return ExitCode::from(crate::FAILED);
    };
    let mut command = Command::new(rustc);
    command.args(rest);
    if instruments(rest) {
        command.args(EDGE_FLAGS);
    }
    match command.status() {
        Ok(status) => crate::run::exit_code(status),
        Err(e) => {
            eprintln!(
                "error: cargo carve could not run {}: {e}",
                Path::new(rustc).display()
            );
            ExitCode::from(crate::FAILED)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn only_the_crates_libraries_are_instrumented() {
        assert!(is_wrapping(&args(
            "/home/u/.rustup/toolchains/stable/bin/rustc -vV"
        )));
        assert!(!is_wrapping(&args("carve generate")));
        assert!(instruments(&args(
            "--crate-name semver --edition=2021 src/lib.rs --crate-type lib"
        )));
        for other in [
            "--crate-name carve --crate-type lib",
            "--crate-name build_script_build --crate-type bin",
            "--crate-name semver_derive --crate-type proc-macro",
            "--crate-name carve tests/carve.rs --test",
            "-vV",
        ] {
            assert!(!instruments(&args(other)), "{other}");
        }
    }
}
