#!/usr/bin/env python3
"""carve's generation beside libFuzzer, on one published parser, in one run.

    python3 benches/fuzz/run.py [humantime|semver]     # default: humantime

Prepares the pinned crate as the field test does (benches/field/field.py:
feature-gated setup, `#[carve::target]` on its public API, one system test),
records, then measures for FUZZ_SECONDS each (default 20), one after the
other:

- carve as users run it: `cargo carve generate --seed 1 --budget <N>s
  --jobs 1 -- --exact generate::<target>` on the one target (humantime's
  `parse_duration`, semver's `Version::from_str`, the owner of the reach
  `Version::parse` shares: `Version::parse` alone leaves it to that target
  and ends its generation after ~100-200 executions, README "One
  exploration per reach"): built with edge counters in
  the profile `cargo carve generate` chooses (`carve-edges`: dev with its
  dependencies optimized); executions per second = the
  executions its generation line reports over the generate test's time
  (libtest's, the worker's start included; generation on a plateau ends
  before its budget, said after the line); and the same
  with `--profile dev` (`carve-edges-dev`: dev as is, unoptimized), as
  `cargo carve generate` built before it chose an optimized profile;
- libFuzzer: `cargo +nightly fuzz run` (cargo-fuzz defaults: release,
  AddressSanitizer, one job) on a harness that calls the same function on
  every UTF-8 input, seeded with the system test's inputs, for the same
  time; executions per second from `-print_final_stats=1`.

Then it prints carve's executions per second over libFuzzer's, and the
branch coverage of the target's reach (carve's own measure) that each
reached: carve's after generation, libFuzzer's by recording its final
corpus through carve (every corpus input as one call).

Exit status: 0 both halves measured; 3 the libFuzzer half was skipped
(nightly or cargo-fuzz missing: said loudly, carve's half still printed);
1 a step failed. Not run by CI (a few minutes, more on a cold target dir).
Variables: FUZZ_SECONDS, FIELD_OUT (default target/field; the crate goes to
$FIELD_OUT/fuzz-<crate>), CARGO_TARGET_DIR (default $FIELD_OUT/target),
CARGO_CARVE (the cargo-carve binary; default: `cargo-carve` on the PATH,
else this checkout's, built with `cargo build -p cargo-carve`).
"""
import importlib.util, os, pathlib, re, shutil, subprocess, sys

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("field", HERE.parent / "field" / "field.py")
field = importlib.util.module_from_spec(spec)
spec.loader.exec_module(field)
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
from harnesses import FUZZ_MANIFEST  # noqa: E402

PARSERS = {
    "humantime": dict(target="duration::parse_duration", call="humantime::parse_duration(s)",
                      seeds=["2h 37min", "32ms", "12 lightyears", "5days"]),
    # `Version::parse` calls `from_str`, which owns their shared reach.
    "semver": dict(target="parse::Version::FromStr::from_str", call="semver::Version::parse(s)",
                   seeds=["1.4.0", "1.8.0-alpha.1", "1.2"]),
}


FUZZ_TARGET = """#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {{
    if let Ok(s) = std::str::from_utf8(data) {{
        let _ = {call};
    }}
}});
"""

# Replays libFuzzer's corpus through carve: each input is one carved call,
# so carve's coverage table shows what the corpus covers.
CORPUS_TEST = """
#[carve::system_test]
fn fuzz_corpus() {{
    let dir = std::env::var("FUZZ_CORPUS").expect("FUZZ_CORPUS");
    for entry in std::fs::read_dir(dir).expect("corpus folder") {{
        let data = std::fs::read(entry.expect("corpus entry").path()).expect("corpus file");
        if let Ok(s) = std::str::from_utf8(&data) {{
            let _ = {call};
        }}
    }}
}}

carve::main!();
"""


def reach(output, target):
    """`covered/total` of the target's reach in a coverage table."""
    for line in output.splitlines():
        cells = line.split()
        if cells and cells[0] == target and "reach" in cells:
            at = cells.index("reach")
            return cells[at + 1], cells[at + 2]
    return "?", "?"


def cargo_carve(env):
    """The cargo-carve to generate through: $CARGO_CARVE, the one on the
    PATH, else this checkout's (built)."""
    if os.environ.get("CARGO_CARVE"):
        return os.environ["CARGO_CARVE"]
    found = shutil.which("cargo-carve")
    if found:
        return found
    field.run(["cargo", "build", "-p", "cargo-carve"], field.ROOT, env)
    return str(pathlib.Path(env["CARGO_TARGET_DIR"]) / "debug" / "cargo-carve")


def carve_generate(dir, parser, seconds, env, binary, profile):
    """`cargo carve generate` on the one target for `seconds`, built first
    (the build is not in the time); executions per second, the generation
    line, and the target's reach after."""
    field.run(["git", "checkout", "-q", "--", "carved"], dir)
    field.run(["git", "clean", "-qfd", "--", "carved"], dir)
    flags = ["--profile", profile] if profile else []
    # Builds (a target no test matches generates nothing), so that the time
    # budget is all generation.
    field.run([binary, "carve", "generate", *flags, "--", "--exact", "no such test"], dir, env)
    gen = field.run([binary, "carve", "generate", "--seed", "1", "--budget", f"{seconds}s", "--jobs", "1", *flags,
                     "--", "--exact", f"generate::{parser['target']}"], dir, env)
    line = next((l for l in gen.stdout.splitlines() if l.startswith("carve: ") and "->" in l), "")
    m = re.search(r"in (\d+) executions", line)
    if not m:
        raise SystemExit(f"fuzz: no generation line in:\n{gen.stdout[-3000:]}")
    took, note = elapsed(gen.stdout, seconds)
    table = field.run(["cargo", "test", "--features", "carve", "--test", "carve"], dir, env).stdout
    # The crate is left as recorded: a later run in it (or anything else
    # generating there) would start from these calls and end at once.
    field.run(["git", "checkout", "-q", "--", "carved"], dir)
    field.run(["git", "clean", "-qfd", "--", "carved"], dir)
    return int(m.group(1)) / took, line + note, reach(table, parser["target"])


def elapsed(output, seconds):
    """The generate test's time (libtest's first `finished in`, the
    worker's start included), and a note when it ended well before its
    budget: a run on a plateau, or a target that shares its reach, stops
    early (README "One exploration per reach"), so executions over the
    budget would be no rate."""
    m = re.search(r"finished in ([\d.]+)s", output)
    if not m:
        raise SystemExit(f"fuzz: no libtest time in:\n{output[-3000:]}")
    took = float(m.group(1))
    note = f" (ended after {took:.1f} s of its {seconds} s budget)" if took < 0.9 * seconds else ""
    return took, note


def missing(toolchain):
    """What the libFuzzer half lacks (with how to get it), or None."""
    if subprocess.run(["cargo", f"+{toolchain}", "--version"], capture_output=True).returncode != 0:
        return f"the {toolchain} toolchain (rustup toolchain install {toolchain})"
    if subprocess.run(["cargo", f"+{toolchain}", "fuzz", "--version"], capture_output=True).returncode != 0:
        return "cargo-fuzz (cargo install cargo-fuzz)"
    return None


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "humantime"
    if name not in PARSERS:
        raise SystemExit(f"fuzz: no parser for {name!r}; one of {', '.join(PARSERS)}")
    parser = PARSERS[name]
    seconds = int(os.environ.get("FUZZ_SECONDS", "20"))
    env = {"CARGO_TARGET_DIR": os.environ.get("CARGO_TARGET_DIR", str(field.OUT / "target"))}
    dir = field.prepare(name, field.OUT / f"fuzz-{name}")
    binary = cargo_carve(env)
    field.run(["cargo", "test", "--features", "carve", "--test", "carve"], dir, {**env, "CARVE": "record"})
    field.run(["git", "add", "-A"], dir)
    field.run(["git", "-c", "user.name=field", "-c", "user.email=field@localhost", "commit", "-qm", "recorded"], dir)

    print(f"== {name} {field.CRATES[name]['version']}: {parser['target']}, {seconds} s each", flush=True)
    fast, line, carve_reach = carve_generate(dir, parser, seconds, env, binary, None)
    print(f"  carve (cargo carve generate): {fast:,.0f} executions/s; reach {carve_reach[0]} {carve_reach[1]}\n    {line}",
          flush=True)
    debug, line, _ = carve_generate(dir, parser, seconds, env, binary, "dev")
    print(f"  carve (cargo carve generate --profile dev, unoptimized): {debug:,.0f} executions/s\n    {line}", flush=True)
    print(f"  carve optimized / unoptimized: {fast / debug:.2f}x", flush=True)

    lacking = missing("nightly")
    if lacking:
        print(f"\n!!! fuzz: SKIPPED the libFuzzer half: {lacking} is missing.\n"
              f"!!! carve's lines above stand alone; no ratio (exit code 3).", file=sys.stderr, flush=True)
        sys.exit(3)

    fuzz = dir / "fuzz"
    (fuzz / "fuzz_targets").mkdir(parents=True)
    (fuzz / "Cargo.toml").write_text(FUZZ_MANIFEST.format(name=name))
    (fuzz / "fuzz_targets" / "target.rs").write_text(FUZZ_TARGET.format(call=parser["call"]))
    corpus = fuzz / "corpus" / "target"
    corpus.mkdir(parents=True)
    for i, seed in enumerate(parser["seeds"]):
        (corpus / f"seed{i}").write_text(seed)
    # Apart from the stable builds: nightly, sanitizer flags.
    fuzz_env = {"CARGO_TARGET_DIR": str(pathlib.Path(env["CARGO_TARGET_DIR"]) / "fuzz")}
    field.run(["cargo", "+nightly", "fuzz", "build", "target"], dir, fuzz_env)
    out = field.run(["cargo", "+nightly", "fuzz", "run", "target", "--", f"-max_total_time={seconds}",
                     "-print_final_stats=1"], dir, fuzz_env)
    stats = dict(re.findall(r"stat::(\w+):\s+(\d+)", out.stderr))
    if "number_of_executed_units" not in stats:
        raise SystemExit(f"fuzz: no final stats from libFuzzer:\n{out.stderr[-3000:]}")
    libfuzzer = int(stats["number_of_executed_units"]) / seconds

    # libFuzzer's corpus through carve's coverage, in a copy of the crate.
    replay = field.OUT / f"fuzz-{name}-corpus"
    shutil.rmtree(replay, ignore_errors=True)
    shutil.copytree(dir, replay, ignore=shutil.ignore_patterns("fuzz", "carved", ".git"))
    (replay / "tests" / "carve.rs").write_text(CORPUS_TEST.format(call=parser["call"]))
    table = field.run(["cargo", "test", "--features", "carve", "--test", "carve"], replay,
                      {**env, "CARVE": "record", "FUZZ_CORPUS": str(corpus)}).stdout
    fuzz_reach = reach(table, parser["target"])
    print(f"  libFuzzer (cargo fuzz defaults): {libfuzzer:,.0f} executions/s; reach {fuzz_reach[0]} {fuzz_reach[1]} "
          f"({len(list(corpus.iterdir()))} corpus inputs)", flush=True)
    print(f"  carve / libFuzzer executions per second: {fast / libfuzzer:.2f} "
          f"(unoptimized: {debug / libfuzzer:.2f})", flush=True)


if __name__ == "__main__":
    main()
