#!/usr/bin/env python3
"""Effectiveness: carve's branch coverage beside the crate's own test suite's.

    python3 benches/field/effectiveness.py [crate ...]   # default: every field crate

For each crate of the field test (benches/field/field.py: pinned versions,
public-API annotations, one small system test), this measures branch
coverage twice with the same tool, llvm-cov over
`rustc +nightly -C instrument-coverage -Zcoverage-options=branch`:

  own suite  The crate's own tests, as published: a copy of the pristine
             source with field.py's annotations inserted but inert (the
             `carve` feature is declared empty and never enabled, so the
             code is the pristine code on the same line numbers as carve's
             copy), its dev-dependencies except the bench-only ones
             (criterion, bencher), its benches removed. `cargo +nightly test`
             runs its unit, integration and doc tests (doc tests kept with
             `--persist-doctests`).
  carve      field.py's annotated copy: `CARVE=record` then `CARVE=generate`
             at the default budget (`CARVE_BUDGET` unset: 20,000 executions
             per target, `CARVE_SEED=1`), built normally with stable cargo, as
             users run it. Then the carve test binary alone (system tests and
             replay of `carved/`) is rebuilt with `cargo +nightly test
             --features carve,carve/no-instrument --test carve` and measured:
             `no-instrument` makes the targets run their original bodies, so
             llvm sees the same code as in the own suite's build.
  union      a branch outcome covered by either.
  libFuzzer  A hand-written harness over the same public functions
             (benches/fuzz/harnesses.py), seeded with the system test's
             inputs, run with `cargo +nightly fuzz run` (cargo-fuzz
             defaults: release, AddressSanitizer, one job) for as long as
             carve's generate run took in this run. Its final corpus is then
             replayed through the same harness as an integration test of
             the own-suite copy, measured as the own suite is.

Only the crate is instrumented: a RUSTC_WORKSPACE_WRAPPER adds the coverage
flags to the workspace's own crates (the crate, its tests), not to carve,
serde or dev-dependencies. Each process writes its own profile
(LLVM_PROFILE_FILE with %p and %m); they are merged with `llvm-profdata
merge -sparse`, and `llvm-cov export` gives, per function of each test
binary, its branches.

The universe counted for both is the same set of branches: the branches of
functions whose file is under the crate's `src/`, whose demangled name has
no `::tests::`/`::test::` module (unit tests) and that are no doc test's
`main`, as they appear in the own
suite's build. A branch is identified by its file and source span; its
instantiations (generics, the unit-test and integration-test copies of the
library) are merged: an outcome (true or false) is covered when any copy
took it. A branch has two outcomes, as in `llvm-cov report`. Code only the
carve build has (serde derives, what `#[carve::target]` adds) has no
branch in the universe and is not counted; a universe branch the carve
build lacks counts as not covered. Checked on httpdate: `llvm-cov report
-show-branch-summary` of each measured binary over `src/` gives the same
counts (61/96 own suite, 84/96 carve).

Not run by CI (minutes per crate on 2 cores). Needs nightly rustc and
LLVM >= 19 tools (`llvm-profdata`, `llvm-cov`, `llvm-cxxfilt`; LLVM_BIN,
default /usr/lib/llvm-19/bin): without them it says so and exits 3.
Variables: FIELD_OUT (default target/field; copies go to
$FIELD_OUT/effect/{own,carve}/<crate>), CARGO_TARGET_DIR (target folders
go under $CARGO_TARGET_DIR/effect: own, carve-stable and carve-cov,
each shared by the crates; libFuzzer's under fuzz), EFFECT_LIBFUZZER=0
to skip libFuzzer (skipped loudly without cargo-fuzz), EFFECT_CARGO_CARVE=<path
of a cargo-carve binary> to generate through `cargo carve generate --seed 1`
instead (the crate built with edge counters: generation also keeps calls for
edges of code carve does not instrument; the rest as above), EFFECT_DOCTESTS=0 to skip
the own suite's doc tests, EFFECT_SHOW_MISSED=1 to list the branch outcomes
the own suite took and carve did not (file:line:column and side),
EFFECT_SEED=<n> to generate with another seed than 1.
"""
import json, os, pathlib, re, shutil, subprocess, sys, time

SEED = os.environ.get("EFFECT_SEED", "1")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import field  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "fuzz"))
import harnesses  # noqa: E402

LLVM = pathlib.Path(os.environ.get("LLVM_BIN", "/usr/lib/llvm-19/bin"))
OUT = field.OUT / "effect"
TARGETS = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", str(field.OUT / "target"))) / "effect"
COVERAGE = "-C instrument-coverage -Zcoverage-options=branch"
# No debug info: llvm-cov reads the coverage sections, and the target folders
# (shared by the crates, whose package names differ) stay small.
LEAN = {"CARGO_PROFILE_DEV_DEBUG": "0", "CARGO_PROFILE_TEST_DEBUG": "0"}
# Dev-dependencies that only the crate's benches use: not needed by its tests.
BENCH_ONLY = {"criterion", "bencher"}


def missing_tools():
    """What this bench needs and this machine lacks, with the way out."""
    missing = []
    for tool in ["llvm-profdata", "llvm-cov", "llvm-cxxfilt"]:
        if not (LLVM / tool).exists():
            missing.append(f"{LLVM / tool} (apt-get install -y llvm-19, or set LLVM_BIN)")
    nightly = subprocess.run(["rustc", "+nightly", "--version"], capture_output=True, text=True)
    if nightly.returncode != 0:
        missing.append("nightly rustc (rustup toolchain install nightly)")
    return missing


def wrapper(cap_lints=False):
    """A RUSTC_WORKSPACE_WRAPPER adding the coverage flags to the workspace's
    crates only: dependencies (carve, serde, ...) stay uninstrumented. With
    `cap_lints` (field.py's `cap_lints`), their lints are capped at warn too."""
    path = OUT / ("rustc-coverage-capped" if cap_lints else "rustc-coverage")
    path.parent.mkdir(parents=True, exist_ok=True)
    cap = " --cap-lints=warn" if cap_lints else ""
    path.write_text(f'#!/bin/sh\nexec "$@" {COVERAGE}{cap}\n')
    path.chmod(0o755)
    return path


def own_copy(name):
    """The pristine crate with its tests, annotations inert (see docstring)."""
    crate = field.CRATES[name]
    dir = OUT / "own" / name
    shutil.rmtree(dir, ignore_errors=True)
    shutil.copytree(field.source(name, crate["version"]), dir)
    shutil.rmtree(dir / "benches", ignore_errors=True)
    for file, heads in crate["targets"].items():
        field.annotate(dir / file, heads, field.TARGET)
    for file, heads in crate["instrument"].items():
        field.annotate(dir / file, heads, field.INSTRUMENT)
    for file, heads in crate.get("serde_derive", {}).items():
        field.annotate(dir / file, heads, field.SERDE)
    kept, skip = [], False
    for line in (dir / "Cargo.toml").read_text().splitlines():
        if line.startswith("["):
            bench_dep = re.search(r"dev-dependencies\.(\w+)\]", line)
            skip = bool(re.match(r"\[\[bench\]\]", line) or (bench_dep and bench_dep.group(1) in BENCH_ONLY))
        if not skip:
            kept.append(line)
    text = "\n".join(kept) + "\n"
    # `carve` declared and off: the inserted `cfg_attr`s are inert.
    if "[features]" in text:
        text = text.replace("[features]", "[features]\ncarve = []", 1)
    else:
        text += "\n[features]\ncarve = []\n"
    (dir / "Cargo.toml").write_text(text + "\n[workspace]\n")
    return dir


def binaries(cargo_stdout):
    """Test executables cargo built, from its JSON messages."""
    found = []
    for line in cargo_stdout.splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["profile"]["test"]:
            found.append(msg["executable"])
    return found


def ran(p, what, known_failures=()):
    """Tests that fail because generation found failing inputs (panics
    carve reports and keeps as failing tests) still count: the run went
    through; so do the own suite's tests that fail as published (field.py's
    `own_fails`, each named). Anything else is a broken step."""
    out = p.stdout + p.stderr
    failed = re.findall(r"^---- (\S+) stdout ----$", out, re.M)
    if p.returncode != 0 and failed and "test result:" in out and all(t in known_failures for t in failed):
        print(f"  {what}: failed as published: {', '.join(failed)}", flush=True)
        return out
    if p.returncode != 0 and not ("generation found a failing input" in out and "test result:" in out):
        sys.stdout.write(out[-6000:])
        raise SystemExit(f"effectiveness: {what} failed ({p.returncode})")
    return out


def measure(dir, target_dir, prof, features, test_args, doctests, cap_lints=False, known_failures=()):
    """Builds and runs the tests of `dir` instrumented, returns
    {branch key: [true covered, false covered]} of its src/ functions."""
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir(parents=True)
    env = {
        "CARGO_TARGET_DIR": str(target_dir),
        **LEAN,
        "RUSTC_WORKSPACE_WRAPPER": str(wrapper(cap_lints)),
        "LLVM_PROFILE_FILE": str(prof / "%p-%m.profraw"),
    }
    base = ["cargo", "+nightly", "test"] + features + test_args
    build = field.run(base + ["--no-run", "--message-format=json"], dir, env)
    objects = binaries(build.stdout)
    ran(field.run(base, dir, env, check=False), f"{dir}: {' '.join(base)}", known_failures)
    if doctests:
        docs = prof.parent / "doctests"
        shutil.rmtree(docs, ignore_errors=True)
        flags = f"{COVERAGE} -Z unstable-options --persist-doctests {docs}"
        field.run(["cargo", "+nightly", "test", "--doc"] + features, dir, {**env, "RUSTDOCFLAGS": flags})
        objects += [str(p) for p in sorted(docs.rglob("*")) if p.is_file() and os.access(p, os.X_OK)]
    profraws = sorted(prof.glob("*.profraw"))
    profdata = prof.parent / "merged.profdata"
    field.run([str(LLVM / "llvm-profdata"), "merge", "-sparse", "-o", str(profdata)] + [str(p) for p in profraws], dir)
    cmd = [str(LLVM / "llvm-cov"), "export", "-instr-profile", str(profdata), objects[0]]
    for o in objects[1:]:
        cmd += ["-object", o]
    export = json.loads(field.run(cmd, dir).stdout)
    functions = [f for data in export["data"] for f in data["functions"]]
    names = demangle([f["name"] for f in functions])
    src = str((dir / "src").resolve()) + "/"
    branches = {}
    for f, name in zip(functions, names):
        if re.search(r"::tests?::", name) or "_doctest_main" in name:
            continue
        for b in f.get("branches", []):
            file = f["filenames"][b[6]]
            if not str(pathlib.Path(file).resolve()).startswith(src):
                continue
            key = (file[len(src):] if file.startswith(src) else str(pathlib.Path(file).resolve())[len(src):],
                   b[0], b[1], b[2], b[3])
            seen = branches.setdefault(key, [False, False])
            seen[0] |= b[4] > 0
            seen[1] |= b[5] > 0
    return branches, len(objects), len(profraws)


# The corpus replayed through the harness, one input at a time; an input
# that panics (none should: libFuzzer keeps crashes apart) is skipped.
CORPUS_TEST = """{prelude}
{body}
#[test]
fn fuzz_corpus() {{
    for entry in std::fs::read_dir({corpus}).expect("the corpus folder") {{
        let data = std::fs::read(entry.expect("a corpus entry").path()).expect("a corpus file");
        let _ = std::panic::catch_unwind(|| one(&data));
    }}
}}
"""


def fuzz_lacks():
    """What the libFuzzer column lacks (with how to get it), or None."""
    if subprocess.run(["cargo", "+nightly", "fuzz", "--version"], capture_output=True).returncode != 0:
        return "cargo-fuzz (cargo install cargo-fuzz)"
    return None


def libfuzzer(name, own_dir, seconds):
    """Runs libFuzzer on the crate's harness for `seconds`, then measures
    its corpus as the own suite is measured: (branches, executions, corpus
    inputs, whether it stopped on a crash)."""
    harness = harnesses.HARNESSES[name]
    fuzz = own_dir / "fuzz"
    (fuzz / "fuzz_targets").mkdir(parents=True)
    (fuzz / "Cargo.toml").write_text(harnesses.FUZZ_MANIFEST.format(name=name))
    (fuzz / "fuzz_targets" / "target.rs").write_text(
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n" + harnesses.PRELUDE + harness["body"]
        + "\nfuzz_target!(|data: &[u8]| one(data));\n")
    corpus = fuzz / "corpus" / "target"
    corpus.mkdir(parents=True)
    for i, seed in enumerate(harness["seeds"]):
        (corpus / f"seed{i}").write_bytes(seed)
    # The crate is a path dependency of the fuzz crate: RUSTC_WRAPPER.
    env = {"CARGO_TARGET_DIR": str(TARGETS / "fuzz"), **field.capped(field.CRATES[name], "RUSTC_WRAPPER")}
    field.run(["cargo", "+nightly", "fuzz", "build", "target"], own_dir, env)
    run = field.run(["cargo", "+nightly", "fuzz", "run", "target", "--", f"-max_total_time={seconds}",
                     "-print_final_stats=1"], own_dir, env, check=False)
    stats = dict(re.findall(r"stat::(\w+):\s+(\d+)", run.stderr))
    if "number_of_executed_units" not in stats:
        raise SystemExit(f"effectiveness: no final stats from libFuzzer:\n{run.stderr[-3000:]}")
    (own_dir / "tests").mkdir(exist_ok=True)
    # `extern crate`: some field crates are of the 2015 edition.
    (own_dir / "tests" / "fuzz_corpus.rs").write_text(
        f"extern crate {name.replace('-', '_')};\n"
        + CORPUS_TEST.format(prelude=harnesses.PRELUDE, body=harness["body"], corpus=json.dumps(str(corpus))))
    # Published manifests say `autotests = false`: the test is declared.
    with open(own_dir / "Cargo.toml", "a") as manifest:
        manifest.write('\n[[test]]\nname = "fuzz_corpus"\npath = "tests/fuzz_corpus.rs"\n')
    branches, _, _ = measure(own_dir, TARGETS / "own", TARGETS / name / "fuzz" / "profiles", [],
                             ["--test", "fuzz_corpus"], False, field.CRATES[name].get("cap_lints", False))
    return branches, int(stats["number_of_executed_units"]), len(list(corpus.iterdir())), run.returncode != 0


def demangle(names):
    p = subprocess.run([str(LLVM / "llvm-cxxfilt")], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    out = p.stdout.splitlines()
    return out if len(out) == len(names) else names


def percent(covered, total):
    return f"{100.0 * covered / total:.1f}%" if total else "n/a"


def main():
    missing = missing_tools()
    if missing:
        print("effectiveness: skipped, this machine lacks:\n  " + "\n  ".join(missing), flush=True)
        sys.exit(3)
    names = sys.argv[1:] or list(field.CRATES)
    doctests = os.environ.get("EFFECT_DOCTESTS", "1") != "0"
    fuzz_lacking = fuzz_lacks() if os.environ.get("EFFECT_LIBFUZZER", "1") != "0" else "EFFECT_LIBFUZZER=0"
    if fuzz_lacking:
        print(f"!!! effectiveness: SKIPPED the libFuzzer column: {fuzz_lacking}", file=sys.stderr, flush=True)
    rows = []
    for name in names:
        crate = field.CRATES[name]
        print(f"== {name} {crate['version']} (load average {os.getloadavg()[0]:.1f})", flush=True)
        own_dir = own_copy(name)
        own, own_bins, own_profiles = measure(own_dir, TARGETS / "own", TARGETS / name / "own" / "profiles", [], ["--tests"],
                                              doctests, crate.get("cap_lints", False), crate.get("own_fails", ()))

        carve_dir = field.prepare(name, OUT / "carve" / name)
        stable = {"CARGO_TARGET_DIR": str(TARGETS / "carve-stable"), **LEAN, **field.capped(crate)}
        test = ["cargo", "test", "--features", "carve", "--test", "carve"]
        field.run(test, carve_dir, {**stable, "CARVE": "record"})
        started = time.monotonic()
        cargo_carve = os.environ.get("EFFECT_CARGO_CARVE")
        if cargo_carve:
            # Built once more with the counters, in a profile of its own: not
            # part of the generate time, as the normal build before it is not.
            # The profile as `cargo carve generate` configures it
            # (cargo-carve/src/run.rs, EDGES_SETTINGS).
            field.run(["cargo", "test", "--no-run", "--features", "carve", "--test", "carve", "--config",
                       'profile.carve-edges.inherits="dev"', "--config", 'profile.carve-edges.package."*".opt-level=1',
                       "--config", 'profile.carve-edges.package."*".debug=false', "--profile", "carve-edges"],
                      carve_dir, {**stable, "RUSTC_WORKSPACE_WRAPPER": cargo_carve})
            started = time.monotonic()
            generate = field.run([cargo_carve, "carve", "generate", "--seed", SEED], carve_dir, stable, check=False)
        else:
            generate = field.run(test, carve_dir, {**stable, "CARVE": "generate", "CARVE_SEED": SEED}, check=False)
        seconds = time.monotonic() - started
        out = ran(generate, f"{name}: {'cargo carve generate' if cargo_carve else 'CARVE=generate'}")
        lines = [l for l in out.splitlines() if l.startswith("carve: ") and "->" in l]
        executions = sum(int(m) for l in lines for m in re.findall(r" in (\d+) executions", l))
        failures = sum(int(m) for l in lines for m in re.findall(r"found (\d+) failure", l))
        for l in lines:
            print("  " + l)
        carve, carve_bins, _ = measure(carve_dir, TARGETS / "carve-cov", TARGETS / name / "carve" / "profiles",
                                       ["--features", "carve,carve/no-instrument"], ["--test", "carve"], False,
                                       crate.get("cap_lints", False))

        universe = sorted(own)
        total = 2 * len(universe)
        own_n = sum(own[k][0] + own[k][1] for k in universe)
        carve_n = sum(carve.get(k, [False, False])[0] + carve.get(k, [False, False])[1] for k in universe)
        union_n = sum((own[k][0] or carve.get(k, [False, False])[0]) + (own[k][1] or carve.get(k, [False, False])[1])
                      for k in universe)
        absent = sum(1 for k in universe if k not in carve)
        print(f"  universe: {len(universe)} branches ({total} outcomes) in {name}/src, from {own_bins} own-suite binaries"
              f" ({own_profiles} profiles); {absent} of them absent from the carve build")
        print(f"  own suite: {own_n}/{total} {percent(own_n, total)}", flush=True)
        print(f"  carve:     {carve_n}/{total} {percent(carve_n, total)}"
              f" (generate: {executions:,} executions, {seconds:.0f} s, {failures} failing inputs found)", flush=True)
        print(f"  union:     {union_n}/{total} {percent(union_n, total)}", flush=True)
        fuzz_n = None
        if not fuzz_lacking and name in harnesses.HARNESSES:
            budget = max(1, round(seconds))
            fuzzed, fuzz_execs, inputs, crashed = libfuzzer(name, own_dir, budget)
            fuzz_n = sum(fuzzed.get(k, [False, False])[0] + fuzzed.get(k, [False, False])[1] for k in universe)
            print(f"  libFuzzer: {fuzz_n}/{total} {percent(fuzz_n, total)} ({fuzz_execs:,} executions in {budget} s,"
                  f" {inputs} corpus inputs{', stopped on a crash' if crashed else ''})", flush=True)
            if os.environ.get("EFFECT_SHOW_MISSED") == "1":
                for k in universe:
                    sides = [side for i, side in enumerate(("true", "false"))
                             if fuzzed.get(k, [False, False])[i] and not carve.get(k, [False, False])[i]]
                    if sides:
                        print(f"  libFuzzer, not carve: {k[0]}:{k[1]}:{k[2]} {'/'.join(sides)}")
        if os.environ.get("EFFECT_SHOW_MISSED") == "1":
            # Where carve falls short: the outcomes the own suite took and carve did not.
            for k in universe:
                sides = [side for i, side in enumerate(("true", "false"))
                         if own[k][i] and not carve.get(k, [False, False])[i]]
                if sides:
                    print(f"  missed by carve: {k[0]}:{k[1]}:{k[2]} {'/'.join(sides)}")
        print(f"  load average {os.getloadavg()[0]:.1f}", flush=True)
        rows.append((name, crate["version"], own_n, carve_n, union_n, fuzz_n, total, executions, seconds))

    print(f"\n| crate | version | own suite | carve | union | libFuzzer (same time) | executions (generate time) |")
    print("|---|---|---|---|---|---|---|")
    for name, version, own_n, carve_n, union_n, fuzz_n, total, executions, seconds in rows:
        fuzz = "skipped" if fuzz_n is None else f"{percent(fuzz_n, total)} ({fuzz_n}/{total})"
        print(f"| {name} | {version} | {percent(own_n, total)} ({own_n}/{total}) | {percent(carve_n, total)} ({carve_n}/{total})"
              f" | {percent(union_n, total)} | {fuzz} | {executions:,} ({seconds:.0f} s) |")


if __name__ == "__main__":
    main()
