#!/usr/bin/env bash
# Mutation score of the dogfood's tests, before and after generation.
#
#     bash benches/mutants.sh
#
# Needs cargo-mutants (`cargo install cargo-mutants`). Not run by CI nor by
# `cargo bench`: two runs take tens of minutes. benches/mutants.md says what
# it measures and records a measurement.
#
# The mutants are those cargo-mutants makes in the dogfood library
# (tests/dogfood/{bank,cgi,maths,url}.rs); the tests are
# `cargo test --test dogfood`, i.e. the system tests plus the replay of every
# call in carved/ against its snapshot.
#   before: carved/ as it is in the working tree (the committed calls);
#   after:  the same once `CARVE=generate cargo test --test dogfood` has added
#           its generated calls (CARVE_SEED and CARVE_BUDGET are passed on),
#           the failures it found marked `expected: true` (the unmutated
#           program is the oracle) and their snapshots recorded.
#
# Everything happens in a copy of the working tree (tracked and untracked,
# not ignored, files) under $MUTANTS_BENCH_OUT (default
# target/mutants-bench): the repository's carved/ is never written.
#
# Variables: MUTANTS_BENCH_OUT (output folder), MUTANTS_JOBS (cargo-mutants
# jobs, default 1), MUTANTS_MIN_TIMEOUT (seconds a test run may take at
# least before it counts as hanging, default 20), CARGO_TARGET_DIR (default
# $MUTANTS_BENCH_OUT/cargo-target, kept between runs so builds are
# incremental), CARVE_SEED, CARVE_BUDGET, MUTANTS_BENCH_BEFORE (0: skip the
# "before" run, e.g. when only generation changed since it was measured).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "benches/mutants.sh needs cargo-mutants: cargo install cargo-mutants" >&2
    exit 1
fi

out="${MUTANTS_BENCH_OUT:-$root/target/mutants-bench}"
jobs="${MUTANTS_JOBS:-1}"
min_timeout="${MUTANTS_MIN_TIMEOUT:-20}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$out/cargo-target}"
tree="$out/tree"

# The library under test; main.rs and browser.rs are the tests themselves.
# cgi_decode_plain (the overhead benchmark's untouched baseline) and
# Account::_audit (private, never called) are not targets and no test calls
# them: their mutants could only be missed, whatever the tests.
file_globs=(-f 'tests/dogfood/*.rs' -e tests/dogfood/main.rs -e tests/dogfood/browser.rs)
not_reachable='cgi_decode_plain|_audit'

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "benches/mutants.sh copies the files git knows of: run it in a git checkout of carve" >&2
    exit 1
fi

echo "mutants bench: $(git describe --always --dirty 2>/dev/null || echo 'no git'), $(cargo mutants --version)"
echo "copying the working tree to $tree"
rm -rf "$tree" "$out/before" "$out/after"
mkdir -p "$tree"
# Tracked and untracked (not ignored) files, so uncommitted work is measured
# too; target/ is ignored, so it is not copied.
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do
        if [ -e "$file" ]; then
            printf '%s\0' "$file"
        fi
    done |
    xargs -0 cp --parents -t "$tree"

# cargo-mutants mutates the sources reachable from a package's lib and bin
# targets, never from a [[test]] target. In the copy only, the dogfood's
# main.rs is declared once more as a bin target that needs a feature nothing
# enables: cargo-mutants walks its modules, and cargo never builds it.
python3 - "$tree/Cargo.toml" <<'EOF'
import sys

path = sys.argv[1]
text = open(path).read()
for old, new in [
    ("[features]\n", "[features]\n_mutants_bench = []\n"),
    (
        "[workspace]",
        "[[bin]]\nname = \"dogfood-mutants-bench\"\npath = \"tests/dogfood/main.rs\"\n"
        "test = false\nbench = false\ndoc = false\nrequired-features = [\"_mutants_bench\"]\n\n"
        "[workspace]",
    ),
]:
    if old not in text:
        sys.exit(f"benches/mutants.sh: {path} has no `{old.strip()}` to extend")
    text = text.replace(old, new, 1)
open(path, "w").write(text)
EOF

# Runs cargo-mutants over the dogfood library in $tree, output in $out/$1.
run_mutants() {
    local name="$1" start=$SECONDS rc=0
    echo
    echo "=== $name: cargo mutants (jobs $jobs), output in $out/$name/mutants.out"
    # CI=true and INSTA_UPDATE=no: carve and insta write nothing, so a
    # changed outcome fails its test and leaves no pending snapshot.
    CI=true INSTA_UPDATE=no cargo mutants \
        --dir "$tree" \
        --output "$out/$name" \
        "${file_globs[@]}" \
        --exclude-re "$not_reachable" \
        --jobs "$jobs" \
        --minimum-test-timeout "$min_timeout" \
        --cap-lints true \
        --test-tool cargo \
        --colors never \
        -- --test dogfood || rc=$?
    # 0: all caught; 2: some missed; 3: some timed out. 1 and 4 (usage, the
    # unmutated baseline failed) leave nothing to count.
    case $rc in
        0 | 2 | 3) ;;
        *)
            echo "cargo mutants failed (exit $rc); see $out/$name/mutants.out" >&2
            exit 1
            ;;
    esac
    echo "$((SECONDS - start))" >"$out/$name/seconds"
}

count() {
    local file="$out/$1/mutants.out/$2.txt"
    if [ -f "$file" ]; then
        grep -c . "$file" || true
    else
        echo 0
    fi
}

if [ "${MUTANTS_BENCH_BEFORE:-1}" != 0 ]; then
    run_mutants before
fi

echo
echo "=== generating: CARVE=generate cargo test --test dogfood in $tree"
gen_start=$SECONDS
# carve refuses to generate under CI, so CI is unset for this step only. The
# run fails when generation found failing inputs (their tests fail until the
# panic is marked intended), so its status is reported, not fatal.
gen_rc=0
(cd "$tree" && env -u CI CARVE=generate cargo test --test dogfood) >"$out/generate.log" 2>&1 || gen_rc=$?
if ! grep -q '^carve: generating calls with seed' "$out/generate.log"; then
    tail -40 "$out/generate.log" >&2
    echo "generation did not run; full log: $out/generate.log" >&2
    exit 1
fi
grep -E '^carve: (generating calls with seed|[^ ]+: (branch coverage|found a failing|skipped))' \
    "$out/generate.log" || true
echo "generation took $((SECONDS - gen_start)) s (exit $gen_rc); log: $out/generate.log"

# Mutation analysis takes the unmutated program as the oracle: a panic that
# generation found is today's behaviour, which a mutant must keep. Marking
# the `Found` entries `expected: true` makes their replay compare the panic
# with a snapshot instead of failing; CARVE=record writes those snapshots
# (it keeps generated and found entries as they are).
found=$(grep -rl 'expected: false' "$tree/carved" || true)
if [ -n "$found" ]; then
    echo "marking $(grep -rc 'expected: false' "$tree/carved" | awk -F: '{ n += $NF } END { print n }')" \
        "found failure(s) expected: true, then CARVE=record writes their snapshots"
    # shellcheck disable=SC2086 # one path a line, none with spaces (carve's layout)
    sed -i 's/^\([[:space:]]*\)expected: false,$/\1expected: true,/' $found
    if ! (cd "$tree" && env -u CI CARVE=record cargo test --test dogfood) >"$out/record.log" 2>&1; then
        tail -40 "$out/record.log" >&2
        echo "recording the found failures' snapshots failed; log: $out/record.log" >&2
        exit 1
    fi
fi
if ! (cd "$tree" && CI=true INSTA_UPDATE=no cargo test --test dogfood) >"$out/replay.log" 2>&1; then
    tail -40 "$out/replay.log" >&2
    echo "the dogfood fails after generation; log: $out/replay.log" >&2
    exit 1
fi
echo "generated entries now in $tree/carved: $(grep -rhoE 'origin: (Generated|Found)' "$tree/carved" | sort | uniq -c | awk '{ printf "%s %s  ", $1, $3 }')"

run_mutants after

echo
echo "=== mutation score of cargo test --test dogfood"
echo "killed = caught + timeout (a mutant that makes the tests hang is detected);"
echo "score = killed / (killed + missed); unviable mutants (do not build) are left out"
printf '%-8s %7s %7s %7s %9s %8s %7s %8s\n' run mutants caught missed unviable timeout score seconds
runs=(after)
if [ -d "$out/before" ]; then
    runs=(before after)
fi
for name in "${runs[@]}"; do
    caught=$(count "$name" caught)
    missed=$(count "$name" missed)
    unviable=$(count "$name" unviable)
    timeout=$(count "$name" timeout)
    total=$((caught + missed + unviable + timeout))
    killed=$((caught + timeout))
    if [ $((killed + missed)) -gt 0 ]; then
        score=$(awk -v k="$killed" -v m="$missed" 'BEGIN { printf "%.1f%%", 100 * k / (k + m) }')
    else
        score=-
    fi
    printf '%-8s %7d %7d %7d %9d %8d %7s %8s\n' "$name" "$total" "$caught" "$missed" "$unviable" \
        "$timeout" "$score" "$(cat "$out/$name/seconds")"
done
for name in "${runs[@]}"; do
    echo
    echo "--- missed ($name):"
    cat "$out/$name/mutants.out/missed.txt" 2>/dev/null || true
    if [ -s "$out/$name/mutants.out/timeout.txt" ]; then
        echo "--- timed out ($name):"
        cat "$out/$name/mutants.out/timeout.txt"
    fi
done
echo
echo "outputs: $out/{before,after}/mutants.out, the generated calls in $tree/carved"
