#!/usr/bin/env python3
"""Mutation score of record + generate on a field crate (one carve was not tuned on).

    python3 benches/field/mutants.py <crate> [crate ...]   # crates of field.py

For each crate of the field test (benches/field/field.py: pinned version,
public-API annotations, one small system test), in a fresh annotated copy
under $FIELD_OUT/mutants/<crate>/tree:

  1. `CARVE=record`, then `CARVE=generate` (seed `CARVE_SEED`, default 1;
     budget `CARVE_BUDGET`, default carve's own, 20,000 per target);
  2. the failing inputs generation found (`expected: false`) are marked
     `expected: true` and `CARVE=record` writes their snapshots: mutation
     analysis takes the unmutated program as the oracle, so a mutant must
     reproduce the same panic (as benches/mutants.sh does for the dogfood);
  3. the replay must be green with `CI=true INSTA_UPDATE=no`;
  4. cargo-mutants mutates the crate's `src/` and runs carve's test binary
     only (`cargo test --features carve --test carve`: the system test plus
     the replay of `carved/`, not the crate's own tests), with
     `CI=true INSTA_UPDATE=no` (a changed outcome fails its test and nothing
     is written), `--in-place`, so one mutant at a time (the copy is
     throwaway, and one folder means one build: see below).

It prints caught, missed, timeout and unviable, the score
(caught + timeout) / (caught + timeout + missed), and the missed mutants.
Outputs: $FIELD_OUT/mutants/<crate>/mutants.out (cargo-mutants' missed.txt,
caught.txt, outcomes.json, a log and diff per mutant), the generated calls
in .../tree/carved, and generate.log beside them.

The builds go to $CARGO_TARGET_DIR/mutants (default $FIELD_OUT/target):
a folder of its own, because a copy with the same package name as
field.py's sharing a target folder would run the other copy's test binary
(and read its carved/). Not run by CI: tens of minutes per crate on 2 cores.
Variables: FIELD_OUT, CARGO_TARGET_DIR, CARVE_SEED, CARVE_BUDGET,
MUTANTS_MIN_TIMEOUT (seconds a test run may take
at least before it counts as hanging, default 20).
"""
import os, pathlib, re, shutil, subprocess, sys, time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import field  # noqa: E402

OUT = field.OUT / "mutants"
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", str(field.OUT / "target"))) / "mutants"
TEST = ["cargo", "test", "--features", "carve", "--test", "carve"]
# Replay as CI does: insta and carve write nothing, a changed outcome fails.
STRICT = {"CI": "true", "INSTA_UPDATE": "no"}
KINDS = ["caught", "missed", "timeout", "unviable"]


def generate(name, tree, env):
    """Record, generate, and make the found failures today's behaviour."""
    field.run(TEST, tree, {**env, "CARVE": "record"})
    gen_env = {**env, "CARVE": "generate", "CARVE_SEED": os.environ.get("CARVE_SEED", "1")}
    if "CARVE_BUDGET" in os.environ:
        gen_env["CARVE_BUDGET"] = os.environ["CARVE_BUDGET"]
    start = time.monotonic()
    p = field.only_found_failures(field.run(TEST, tree, gen_env, check=False), name, "generate")
    (tree.parent / "generate.log").write_text(p.stdout + p.stderr)
    for line in (p.stdout + p.stderr).splitlines():
        if line.startswith("carve: ") and ("->" in line or "generating calls with seed" in line):
            print("  " + line)
    print(f"  generation took {time.monotonic() - start:.0f} s", flush=True)
    marked = 0
    for ron in sorted((tree / "carved").rglob("*.ron")):
        text = ron.read_text()
        new, n = re.subn(r"(?m)^(\s*)expected: false,$", r"\1expected: true,", text)
        if n:
            ron.write_text(new)
            marked += n
    if marked:
        print(f"  marked {marked} found failure(s) expected: true; CARVE=record writes their snapshots")
        field.run(TEST, tree, {**env, "CARVE": "record"})
    field.run(TEST, tree, {**env, **STRICT})
    origins = re.findall(r"origin: (\w+)", "".join(r.read_text() for r in (tree / "carved").rglob("*.ron")))
    print("  entries in carved/: " + ", ".join(f"{origins.count(o)} {o}" for o in sorted(set(origins))))


def mutants(tree, out, env):
    """Runs cargo-mutants over the crate's src/ with carve's test binary as the tests."""
    min_timeout = os.environ.get("MUTANTS_MIN_TIMEOUT", "20")
    cmd = ["cargo", "mutants", "--dir", str(tree), "--output", str(out), "--in-place",
           "--minimum-test-timeout", min_timeout, "--cap-lints", "true", "--test-tool", "cargo",
           "--colors", "never", "--features", "carve",
           # For the baseline build too (`cargo test --no-run`), which would
           # otherwise build the crate's own unit tests, whose
           # dev-dependencies field.py's manifest drops (hex's
           # pretty_assertions).
           "--cargo-arg=--test=carve"]
    start = time.monotonic()
    p = field.run(cmd, tree, {**env, **STRICT}, check=False)
    (out / "cargo-mutants.log").write_text(p.stdout + p.stderr)
    # 0: all caught; 2: some missed; 3: some timed out. Anything else (usage,
    # the unmutated baseline failed) leaves nothing to count.
    if p.returncode not in (0, 2, 3):
        sys.stdout.write(p.stdout[-4000:] + p.stderr[-4000:])
        raise SystemExit(f"mutants: cargo mutants failed ({p.returncode}); see {out}/mutants.out")
    return time.monotonic() - start


def listed(out, kind):
    path = out / "mutants.out" / f"{kind}.txt"
    return [l for l in path.read_text().splitlines() if l.strip()] if path.exists() else []


def main():
    names = sys.argv[1:]
    if not names or any(n not in field.CRATES for n in names):
        raise SystemExit(f"usage: mutants.py <crate> [crate ...], crates of field.py: {', '.join(field.CRATES)}")
    p = subprocess.run(["cargo", "mutants", "--version"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("mutants.py needs cargo-mutants: cargo install cargo-mutants")
    print(f"mutants: {p.stdout.strip()}, builds in {TARGET}", flush=True)
    rows = []
    for name in names:
        crate = field.CRATES[name]
        out = OUT / name
        tree = field.prepare(name, out / "tree")
        shutil.rmtree(out / "mutants.out", ignore_errors=True)
        env = {"CARGO_TARGET_DIR": str(TARGET)}
        print(f"== {name} {crate['version']}", flush=True)
        generate(name, tree, env)
        print(f"  cargo mutants (output in {out}/mutants.out)", flush=True)
        seconds = mutants(tree, out, env)
        counts = {k: len(listed(out, k)) for k in KINDS}
        killed = counts["caught"] + counts["timeout"]
        score = f"{100 * killed / (killed + counts['missed']):.1f}%" if killed + counts["missed"] else "-"
        rows.append((name, sum(counts.values()), *(counts[k] for k in KINDS), score, seconds))
        for kind in ["missed", "timeout"]:
            if listed(out, kind):
                print(f"--- {kind} ({name}):")
                print("\n".join(listed(out, kind)))
    print()
    print("killed = caught + timeout; score = killed / (killed + missed); unviable mutants are left out")
    print(f"{'crate':<14} {'mutants':>7} {'caught':>7} {'missed':>7} {'timeout':>8} {'unviable':>9} {'score':>7} {'seconds':>8}")
    for name, total, caught, missed, timeout, unviable, score, seconds in rows:
        print(f"{name:<14} {total:>7} {caught:>7} {missed:>7} {timeout:>8} {unviable:>9} {score:>7} {seconds:>8.0f}")


if __name__ == "__main__":
    main()
