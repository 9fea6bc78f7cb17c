//! Edge counters of code carve does not instrument, from LLVM's
//! SanitizerCoverage, as libFuzzer reads them.
//!
//! Built with `-C passes=sancov-module -C llvm-args=-sanitizer-coverage-level=3
//! -C llvm-args=-sanitizer-coverage-inline-8bit-counters -C
//! llvm-args=-sanitizer-coverage-pc-table` (what `cargo carve generate` adds
//! to the user's crates), every module keeps one 8-bit counter per edge of
//! its control flow and, when the program starts, hands their range to
//! [`__sanitizer_cov_8bit_counters_init`] and the address of each counter's
//! edge to [`__sanitizer_cov_pcs_init`], both defined here: the runtime is
//! always linked, so such a build links, and a build without the flags
//! never calls them and pays nothing.
//!
//! Only the counters of the crates' code count ([`super::symbols`]): their
//! functions, and other crates' generics over their types, but not a hash
//! table's (a `HashMap`'s probing, with a hasher seeded at random, differs
//! from run to run) nor generics over other types alone. Which crates are the
//! own: those `cargo carve generate` builds with the counters, named in
//! [`CRATES_VAR`], and those whose functions carve instruments.
//!
//! Generation runs each call of a target in [`around`]: the counters are
//! reset once the call's arguments are rebuilt and read when it ends,
//! and it turns what they show into *features*, laid
//! out as libFuzzer's: a counter's index times 8 plus its hit count's
//! bucket (1, 2, 3, 4–7, 8–15, 16–31, 32–127, 128+ are buckets 0 to 7).
//! Generation reads only the first bucket, whatever the count: a call that
//! reaches a counter no kept call reached covers an edge that carve's own
//! branch coverage cannot see, and is kept; a count alone (a loop run more
//! often) keeps nothing.
//!
//! ```
//! use carve::coverage::counters::Seen;
//!
//! let mut seen = Seen::default();
//! seen.add(&[8 * 3]); // counter 3 reached
//! assert!(seen.contains(8 * 3));
//! assert!(!seen.contains(8 * 4));
//! ```

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

/// The counter regions the modules registered, `(start, end)` addresses,
/// in registration order. Append-only, and the one global of coverage
/// besides the registry of tables: the modules register before `main`, on
/// whatever thread runs their constructors, and the counters themselves
/// are global memory that every thread's code increments.
static REGIONS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
/// Counters registered in all: 0 when nothing is built with the flags.
static TOTAL: AtomicUsize = AtomicUsize::new(0);

/// Called once per instrumented module, before `main`, with its counters.
///
/// # Safety
///
/// `start..end` must be the module's counters, valid for the whole run:
/// only SanitizerCoverage's module constructor calls this.
#[no_mangle]
pub unsafe extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, end: *mut u8) {
    let (start, end) = (start as usize, end as usize);
    if end <= start {
        return;
    }
    let mut regions = REGIONS.lock().unwrap_or_else(|e| e.into_inner());
    // A module registers once; a second registration of the same range
    // (a constructor run twice) would count its edges twice.
    if regions.contains(&(start, end)) {
        return;
    }
    regions.push((start, end));
    TOTAL.fetch_add(end - start, Ordering::Release);
}

/// The tables of edge addresses the modules registered, `(start, end)`
/// addresses, in registration order: a pair of words (the edge's address,
/// flags) per counter, in the counters' order.
static PCS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Called once per instrumented module, before `main`, with the addresses
/// of its counters' edges.
///
/// # Safety
///
/// `start..end` must be the module's table, valid for the whole run: only
/// SanitizerCoverage's module constructor calls this.
#[no_mangle]
pub unsafe extern "C" fn __sanitizer_cov_pcs_init(start: *const usize, end: *const usize) {
    let (start, end) = (start as usize, end as usize);
    if end <= start {
        return;
    }
    let mut tables = PCS.lock().unwrap_or_else(|e| e.into_inner());
    if !tables.contains(&(start, end)) {
        tables.push((start, end));
    }
}

/// The variable `cargo carve generate` names the crates it builds with the
/// counters in (comma-separated library names, `-` as `_`): their
/// functions' counters count.
pub const CRATES_VAR: &str = "CARVE_EDGE_CRATES";

/// Which counters count, decided once per process: by the generating
/// parent from the executable's symbols, and taken over by its workers
/// (the same executable) from their setup ([`adopt`]), which need not
/// read and demangle the symbols again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    /// The counters registered when it was decided: a worker takes a
    /// decision over only for as many counters.
    total: usize,
    /// Ranges of counter indices (over all regions, in order) that are in
    /// the crates' own functions; `None`: all of them.
    ranges: Option<Vec<(usize, usize)>>,
    /// What generation says about it, once.
    summary: String,
}

#[cfg(test)]
impl Counted {
    pub(crate) fn for_tests(total: usize, ranges: Option<Vec<(usize, usize)>>, summary: &str) -> Counted {
        Counted {
            total,
            ranges,
            summary: summary.to_owned(),
        }
    }
}

/// This process's decision ([`counted`], [`adopt`]).
static COUNTED: OnceLock<Counted> = OnceLock::new();

fn counted() -> &'static Counted {
    COUNTED.get_or_init(decide_here)
}

/// Decides from the running executable's symbols (about 0.8 s on a
/// humantime test binary: every function with counters demangled).
fn decide_here() -> Counted {
    let anchor = __sanitizer_cov_pcs_init as *const () as usize;
    decide(&own_crates(), total(), &pcs(), |pcs, crates| {
        super::symbols::owned(pcs, anchor, "__sanitizer_cov_pcs_init", crates)
    })
}

/// Which counters count, as this process decided it, for its generation
/// workers ([`adopt`]); `None` when the program has no counters.
pub fn decision() -> Option<Counted> {
    (total() > 0).then(|| counted().clone())
}

/// Decides which counters count before a generation worker's first call,
/// if the program has any: `parent`'s decision ([`decision`]) when it was
/// made for as many counters (the parent runs the same executable), else
/// from the symbols.
pub fn adopt(parent: Option<Counted>) {
    if total() > 0 {
        settle(&COUNTED, total(), parent, decide_here);
    }
}

/// Sets `cell` to `parent` when it was decided for `total` counters, else
/// to what `decide` says; a cell already set stays.
fn settle(cell: &OnceLock<Counted>, total: usize, parent: Option<Counted>, decide: impl FnOnce() -> Counted) {
    cell.get_or_init(|| match parent {
        Some(parent) if parent.total == total => parent,
        _ => decide(),
    });
}

/// Which of `total` counters count, with their edges' addresses `pcs`:
/// those `owned` tells are in `crates`' code, or all (and why) when that
/// cannot be told.
fn decide(
    crates: &[String],
    total: usize,
    pcs: &[usize],
    owned: impl FnOnce(&[usize], &[String]) -> Result<Vec<bool>, String>,
) -> Counted {
    let all = |why: String| Counted {
        total,
        ranges: None,
        summary: format!(
            "carve: edge counters: all {total} counted, std's and other crates' generics \
             compiled into the crate too, whose paths can differ from run to run (the same seed \
             may then keep other calls): {why}"
        ),
    };
    if crates.is_empty() {
        return all(format!(
            "no crate is known as the crate's: {CRATES_VAR} is not set (`cargo carve generate` \
             sets it) and carve instruments no function"
        ));
    }
    if pcs.len() != total {
        return all(format!(
            "the table of their edges' addresses has {} entries (a build without `-C \
             llvm-args=-sanitizer-coverage-pc-table`? `cargo carve generate` adds it)",
            pcs.len()
        ));
    }
    match owned(pcs, crates) {
        Ok(own) => {
            let ranges = runs(&own);
            let kept: usize = ranges.iter().map(|(lo, hi)| hi - lo).sum();
            Counted {
                total,
                summary: format!(
                    "carve: edge counters: {kept} of {total} counted, those of the functions of \
                     {} and of other crates' generics over their types (hash tables' and the \
                     rest left out)",
                    crates.join(", ")
                ),
                ranges: Some(ranges),
            }
        }
        Err(why) => all(why),
    }
}

/// The crates whose counters count: named in [`CRATES_VAR`], and those
/// with a function carve instruments.
fn own_crates() -> Vec<String> {
    let mut crates: Vec<String> = std::env::var(CRATES_VAR)
        .unwrap_or_default()
        .split(',')
        .map(|c| c.trim().replace('-', "_"))
        .filter(|c| !c.is_empty())
        .collect();
    for sites in crate::registry::all_sites() {
        let name = sites.module_path.split("::").next().unwrap_or_default();
        crates.push(name.to_owned());
    }
    crates.sort();
    crates.dedup();
    crates
}

/// The edge addresses of all tables, in order: one per counter.
fn pcs() -> Vec<usize> {
    let tables = PCS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut pcs = Vec::new();
    for (start, end) in tables {
        let words = (end - start) / std::mem::size_of::<usize>();
        // SAFETY: the table SanitizerCoverage registered, alive for the
        // whole program and never written to.
        let table = unsafe { std::slice::from_raw_parts(start as *const usize, words) };
        pcs.extend(table.chunks_exact(2).map(|entry| entry[0]));
    }
    pcs
}

/// The ranges of indices whose flag is set, in order.
fn runs(flags: &[bool]) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (i, _) in flags.iter().enumerate().filter(|(_, &own)| own) {
        match ranges.last_mut() {
            Some((_, end)) if *end == i => *end = i + 1,
            _ => ranges.push((i, i + 1)),
        }
    }
    ranges
}

/// What generation prints once about the counters (how many count, or why
/// all do), or `None` when the program has none.
pub fn summary() -> Option<&'static str> {
    (total() > 0).then(|| counted().summary.as_str())
}

/// How many edge counters the program has: 0 unless its crates were built
/// with SanitizerCoverage's 8-bit counters.
pub fn total() -> usize {
    TOTAL.load(Ordering::Acquire)
}

/// The features some calls reached: per counter, a bit per bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    buckets: Vec<u8>,
}

impl Seen {
    /// Whether `feature` (a counter's index times 8 plus its bucket) is in.
    pub fn contains(&self, feature: u32) -> bool {
        let (index, bit) = ((feature / 8) as usize, feature % 8);
        self.buckets.get(index).is_some_and(|b| b & (1 << bit) != 0)
    }

    /// Adds `features`.
    pub fn add(&mut self, features: &[u32]) {
        for &feature in features {
            let (index, bit) = ((feature / 8) as usize, feature % 8);
            if index >= self.buckets.len() {
                self.buckets.resize(index + 1, 0);
            }
            self.buckets[index] |= 1 << bit;
        }
    }

    /// The counters of `counters` (counter `i` of all regions at `offset +
    /// i`) that are not 0 and whose first bucket is not in, as that
    /// feature (the counter's index times 8), in ascending order. Only a
    /// counter's first bucket counts for keeping a call: a call that only
    /// runs an edge more often than the kept calls did is not kept for it
    /// (on semver, distilled calls fell from 337 to 214, edges alone from
    /// 132 to 32, with llvm-cov's coverage 86.5% against 86.1%).
    fn new_in(&self, offset: usize, counters: &[u8], out: &mut Vec<u32>) {
        // Most counters are 0 after a call: skip a block of them with one
        // comparison, a `memcmp` that is fast in every profile (this runs
        // after every call, in the test profile's unoptimized code too,
        // where looping a word at a time over humantime's 27,928 counted
        // counters cost about 10 µs more of a 170 µs execution).
        for (i, block) in counters.chunks(BLOCK).enumerate() {
            if !all_zero(block) {
                self.new_in_block(offset + i * BLOCK, block, out);
            }
        }
    }

    /// [`Seen::new_in`] of one block, eight counters at a time: the
    /// counters that are not 0 against the first buckets seen, one
    /// comparison of two words (most counters a call reaches were reached
    /// before: looking each up cost humantime's worker 12% of its
    /// instructions).
    fn new_in_block(&self, offset: usize, block: &[u8], out: &mut Vec<u32>) {
        let mut words = block.chunks_exact(8);
        let mut at = offset;
        for word in &mut words {
            let counts = word_at(word, 0);
            if counts != 0 {
                let mut new = nonzero_bytes(counts) & !(self.first_buckets_at(at) << 7);
                while new != 0 {
                    out.push(((at + new.trailing_zeros() as usize / 8) * 8) as u32);
                    new &= new - 1;
                }
            }
            at += 8;
        }
        for (i, &count) in words.remainder().iter().enumerate() {
            let feature = ((at + i) * 8) as u32;
            if count != 0 && !self.contains(feature) {
                out.push(feature);
            }
        }
    }

    /// Bit 0 of byte `i` set where the first bucket of counter `at + i` is
    /// in, for eight counters.
    fn first_buckets_at(&self, at: usize) -> u64 {
        word_at(&self.buckets, at) & LOW_BITS
    }
}

/// `bytes[at..at + 8]` as a little-endian word, 0 past the end. One load
/// where all eight are there (a copy of a length known only at run time
/// was a call to `memcpy` per word).
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    if let Some(word) = bytes.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        return u64::from_le_bytes(word);
    }
    let mut word = [0; 8];
    let rest = bytes.get(at..).unwrap_or_default();
    let n = rest.len().min(8);
    word[..n].copy_from_slice(&rest[..n]);
    u64::from_le_bytes(word)
}

/// Bit 0 of every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// Bit 7 of each byte of `word` that is not 0, the other bits 0: the low
/// seven bits added to `0x7f` carry into bit 7 (and no further) unless
/// they are all 0, and bit 7 is the byte's own.
fn nonzero_bytes(word: u64) -> u64 {
    const SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (((word & SEVEN) + SEVEN) | word) & !SEVEN
}

/// The counters [`Seen::new_in`] skips at once when they are all 0, and
/// [`paused`] saves or leaves alone at once.
const BLOCK: usize = 512;

/// Whether `block` (at most [`BLOCK`] counters) is all 0: one `memcmp`.
#[inline]
fn all_zero(block: &[u8]) -> bool {
    static ZEROS: [u8; BLOCK] = [0; BLOCK];
    block == &ZEROS[..block.len()]
}

thread_local! {
    /// Whether this thread runs a call inside [`around`]: only then do
    /// [`paused`] stretches save and restore the counters.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// Whether the call [`around`] runs set the counters to 0 in a
    /// [`restarted`] stretch.
    static RESTARTED: Cell<bool> = const { Cell::new(false) };
    /// This thread's copy of the counted counters' spans ([`Spans`]).
    static MINE: RefCell<Spans> = const { RefCell::new(Spans { total: 0, spans: Vec::new() }) };
    /// The buffer [`paused`] saves the counters in, reused.
    static SAVED: Cell<Saved> = const { Cell::new(Saved { blocks: Vec::new(), bytes: Vec::new() }) };
}

/// The counters that count, as address spans `(start, len, index)` (the
/// index of its first counter over all regions): those of the counted
/// ranges, clipped to each region. Only these are reset as a call starts,
/// read after it and saved around [`paused`] stretches: the others are
/// never read, so what they hold does not matter (humantime: 27,502 of
/// 67,164 counters count).
struct Spans {
    /// The counters registered when the spans were made (they only grow).
    total: usize,
    spans: Vec<(usize, usize, usize)>,
}

impl Spans {
    fn of(regions: &[(usize, usize)], counted: &Counted) -> Spans {
        let mut spans = Vec::new();
        let mut offset = 0;
        for &(start, end) in regions {
            let len = end - start;
            match &counted.ranges {
                None => spans.push((start, len, offset)),
                Some(ranges) => spans.extend(
                    within(ranges, offset, offset + len).map(|(lo, hi)| (start + lo - offset, hi - lo, lo)),
                ),
            }
            offset += len;
        }
        Spans { total: offset, spans }
    }
}

/// Runs `g` on the counted counters, as slices with the index of their
/// first counter.
fn with_counted<R>(counted: &Counted, g: impl FnOnce(&mut dyn Iterator<Item = (usize, &mut [u8])>) -> R) -> R {
    MINE.with(|mine| {
        let mut mine = mine.borrow_mut();
        if mine.total != total() {
            *mine = Spans::of(&REGIONS.lock().unwrap_or_else(|e| e.into_inner()), counted);
        }
        let mut slices = mine.spans.iter().map(|&(start, len, index)| {
            // SAFETY: each span is within a module's counter array,
            // registered by its constructor and alive for the whole
            // program. Other threads may increment counters meanwhile (the
            // same race libFuzzer's counters have); a torn count only
            // makes a feature less exact, never unsound for `u8`s.
            (index, unsafe { std::slice::from_raw_parts_mut(start as *mut u8, len) })
        });
        g(&mut slices)
    })
}

/// Runs `f`, a call that rebuilds its arguments in a [`restarted`]
/// stretch (as every replay does), and reads the counters after: returns
/// its value and the counters it reached from the end of that stretch on
/// whose first bucket `seen` does not hold, as those features
/// ([`Seen::new_in`]; empty, at no cost, when nothing is built with the
/// counters). What runs in [`paused`] stretches meanwhile does not count.
/// A call that never restarted (its arguments did not rebuild) reaches no
/// feature: the counters are set to 0 only there, once per call, where a
/// reset before the call too was a second pass over all of them.
pub fn around<R>(seen: &Seen, f: impl FnOnce() -> R) -> (R, Vec<u32>) {
    if total() == 0 {
        return (f(), Vec::new());
    }
    struct Disarm(bool);
    impl Drop for Disarm {
        fn drop(&mut self) {
            ARMED.with(|a| a.set(self.0));
        }
    }
    // Decided before the call (it reads the executable's symbols once).
    let counted = counted();
    RESTARTED.with(|r| r.set(false));
    let disarm = Disarm(ARMED.with(|a| a.replace(true)));
    let value = f();
    drop(disarm);
    if !RESTARTED.with(Cell::get) {
        return (value, Vec::new());
    }
    (value, read(counted, seen))
}

// The work on the counters is in functions that are not generic, compiled
// with carve in its profile: [`around`] and [`paused`] are generic over the
// call, so they are compiled in the crate under test, unoptimized in the
// test profile (semver's spans saved a block at a time there took 180,000
// instructions per paused stretch).

/// Sets the counted counters to 0.
#[inline(never)]
fn reset(counted: &Counted) {
    with_counted(counted, |spans| spans.for_each(|(_, span)| span.fill(0)));
}

/// The first-bucket features of the counted counters that `seen` does
/// not hold.
#[inline(never)]
fn read(counted: &Counted, seen: &Seen) -> Vec<u32> {
    with_counted(counted, |spans| {
        let mut features = Vec::new();
        for (index, span) in spans {
            seen.new_in(index, span, &mut features);
        }
        features
    })
}

/// Saves the counted counters in `saved`.
#[inline(never)]
fn save(counted: &Counted, saved: &mut Saved) {
    with_counted(counted, |spans| saved.save(&mut spans.map(|(_, span)| span)));
}

/// Puts the counted counters back as `saved` holds them.
#[inline(never)]
fn restore(counted: &Counted, saved: &Saved) {
    with_counted(counted, |spans| saved.restore(&mut spans.map(|(_, span)| span)));
}

/// The parts of `ranges` (sorted, disjoint) inside `start..end`.
fn within(ranges: &[(usize, usize)], start: usize, end: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let first = ranges.partition_point(|&(_, hi)| hi <= start);
    ranges[first..]
        .iter()
        .take_while(move |&&(lo, _)| lo < end)
        .map(move |&(lo, hi)| (lo.max(start), hi.min(end)))
}

/// What [`paused`] saved: the blocks of [`BLOCK`] counters (the last of a
/// span shorter) that were not all 0, by span and block number in order,
/// and their bytes one after the other. Most counters are 0 in a call:
/// saving them is reading them, not copying them all (on humantime, copying
/// every counter there and back was 28% of a worker's instructions).
#[derive(Default)]
struct Saved {
    blocks: Vec<(usize, usize)>,
    bytes: Vec<u8>,
}

impl Saved {
    /// Saves the blocks of `spans` that are not all 0.
    fn save(&mut self, spans: &mut dyn Iterator<Item = &mut [u8]>) {
        self.blocks.clear();
        self.bytes.clear();
        for (s, span) in spans.enumerate() {
            for (b, block) in span.chunks(BLOCK).enumerate() {
                if !all_zero(block) {
                    self.blocks.push((s, b));
                    self.bytes.extend_from_slice(block);
                }
            }
        }
    }

    /// Puts `spans` back as [`Saved::save`] found them: the blocks saved
    /// copied back, every other block 0 again.
    fn restore(&self, spans: &mut dyn Iterator<Item = &mut [u8]>) {
        let mut saved = self.blocks.iter().peekable();
        let mut bytes = self.bytes.as_slice();
        for (s, span) in spans.enumerate() {
            for (b, block) in span.chunks_mut(BLOCK).enumerate() {
                if saved.next_if_eq(&&(s, b)).is_some() {
                    let (was, rest) = bytes.split_at(block.len());
                    block.copy_from_slice(was);
                    bytes = rest;
                } else if !all_zero(block) {
                    block.fill(0);
                }
            }
        }
    }
}

/// Runs `f` so that the counters do not show it: saved before, restored
/// after (only inside [`around`]).
pub(crate) fn paused<R>(f: impl FnOnce() -> R) -> R {
    if !ARMED.with(Cell::get) {
        return f();
    }
    // Armed only inside `around`, which decided.
    let counted = counted();
    struct Restore(Saved, &'static Counted);
    impl Drop for Restore {
        fn drop(&mut self) {
            restore(self.1, &self.0);
            SAVED.with(|s| s.set(std::mem::take(&mut self.0)));
        }
    }
    let mut saved = SAVED.with(Cell::take);
    save(counted, &mut saved);
    let _restore = Restore(saved, counted);
    f()
}

/// Runs `f`, then sets the counted counters to 0 (only inside
/// [`around`]): what ran before and in it does not show, as if the call
/// started as it returned. For what runs before a call's body.
pub(crate) fn restarted<R>(f: impl FnOnce() -> R) -> R {
    if !ARMED.with(Cell::get) {
        return f();
    }
    // Armed only inside `around`, which decided.
    struct Restart(&'static Counted);
    impl Drop for Restart {
        fn drop(&mut self) {
            reset(self.0);
            RESTARTED.with(|r| r.set(true));
        }
    }
    let _restart = Restart(counted());
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The global regions are left alone here: a registered region would
    // make every other test's generation read (and reset) it.
    #[test]
    fn a_call_reaches_the_counters_no_kept_call_reached_whatever_their_count() {
        let mut counters = [0u8; 20];
        counters[0] = 1;
        counters[9] = 5;
        counters[19] = 200;
        let mut seen = Seen::default();
        let mut first = Vec::new();
        seen.new_in(100, &counters, &mut first);
        assert_eq!(first, [800, 109 * 8, 119 * 8]);
        seen.add(&first);
        let mut again = Vec::new();
        seen.new_in(100, &counters, &mut again);
        assert_eq!(again, Vec::<u32>::new(), "the same counters reach nothing new");
        // A counter hit more often is nothing new (its first bucket is
        // in); a counter past the first eight-byte chunk is new, and so is
        // one that only another bucket of was seen.
        counters[9] = 8;
        counters[16] = 1;
        counters[17] = 1;
        seen.add(&[117 * 8 + 2]);
        let mut more = Vec::new();
        seen.new_in(100, &counters, &mut more);
        assert_eq!(more, [116 * 8, 117 * 8]);
    }

    #[test]
    fn nonzero_bytes_are_told_in_every_lane() {
        for byte in 0..=255u8 {
            for lane in 0..8 {
                let word = u64::from(byte) << (8 * lane);
                let expected = if byte == 0 { 0 } else { 0x80 << (8 * lane) };
                assert_eq!(nonzero_bytes(word), expected, "{byte} in lane {lane}");
            }
        }
        assert_eq!(nonzero_bytes(u64::MAX), 0x8080_8080_8080_8080);
    }

    #[test]
    fn counters_in_blocks_of_zeros_and_at_their_edges_are_all_seen_in_order() {
        // Nonzero counters at a block's first and last byte, alone in a
        // block, in the last short block, and none in the blocks between.
        let mut counters = vec![0u8; 5 * BLOCK + 37];
        let hits = [0, BLOCK - 1, BLOCK, 3 * BLOCK + 100, 5 * BLOCK, 5 * BLOCK + 36];
        for (n, &at) in hits.iter().enumerate() {
            counters[at] = n as u8 + 1;
        }
        // From an unaligned start too: the blocks follow the slice.
        for skip in [0, 3] {
            let mut features = Vec::new();
            Seen::default().new_in(1000, &counters[skip..], &mut features);
            let expected: Vec<u32> = hits
                .iter()
                .filter(|&&at| at >= skip)
                .map(|&at| ((1000 + at - skip) * 8) as u32)
                .collect();
            assert_eq!(features, expected, "from {skip}");
        }
    }

    #[test]
    fn the_counted_counters_are_the_runs_of_own_ones_clipped_to_each_region() {
        let own = [true, true, false, false, true, false, true, true, true];
        let ranges = runs(&own);
        assert_eq!(ranges, [(0, 2), (4, 5), (6, 9)]);
        // Regions 0..3, 3..7 and 7..9 of all counters.
        let clipped = |start, end| within(&ranges, start, end).collect::<Vec<_>>();
        assert_eq!(clipped(0, 3), [(0, 2)]);
        assert_eq!(clipped(3, 7), [(4, 5), (6, 7)]);
        assert_eq!(clipped(7, 9), [(7, 9)]);
        assert_eq!(runs(&[false, false]), []);
    }

    #[test]
    fn the_crates_counters_count_and_all_do_when_the_symbols_cannot_tell_saying_why() {
        let crates = ["strsim".to_owned()];
        let own = |_: &[usize], _: &[String]| Ok(vec![false, true, true, false]);
        let counted = decide(&crates, 4, &[10, 20, 30, 40], own);
        assert_eq!(counted.ranges, Some(vec![(1, 3)]));
        insta::assert_snapshot!(counted.summary, @"carve: edge counters: 2 of 4 counted, those of the functions of strsim and of other crates' generics over their types (hash tables' and the rest left out)");

        let stripped = |_: &[usize], _: &[String]| Err("/t/carve-1 has no symbol table".to_owned());
        let counted = decide(&crates, 4, &[10, 20, 30, 40], stripped);
        assert_eq!(counted.ranges, None);
        insta::assert_snapshot!(counted.summary, @r#"carve: edge counters: all 4 counted, std's and other crates' generics compiled into the crate too, whose paths can differ from run to run (the same seed may then keep other calls): /t/carve-1 has no symbol table"#);

        let counted = decide(&crates, 4, &[], own);
        assert_eq!(counted.ranges, None);
        insta::assert_snapshot!(counted.summary, @r#"carve: edge counters: all 4 counted, std's and other crates' generics compiled into the crate too, whose paths can differ from run to run (the same seed may then keep other calls): the table of their edges' addresses has 0 entries (a build without `-C llvm-args=-sanitizer-coverage-pc-table`? `cargo carve generate` adds it)"#);

        let counted = decide(&[], 4, &[10, 20, 30, 40], own);
        assert_eq!(counted.ranges, None);
        insta::assert_snapshot!(counted.summary, @r#"carve: edge counters: all 4 counted, std's and other crates' generics compiled into the crate too, whose paths can differ from run to run (the same seed may then keep other calls): no crate is known as the crate's: CARVE_EDGE_CRATES is not set (`cargo carve generate` sets it) and carve instruments no function"#);
    }

    /// A worker takes over its parent's decision, which cost the parent
    /// about 0.8 s of reading and demangling symbols (humantime), rather
    /// than decide again at each worker start; one made for another count
    /// of counters is not taken.
    #[test]
    fn a_worker_takes_over_the_parents_decision_made_for_as_many_counters() {
        let parent = Counted::for_tests(4, Some(vec![(1, 3)]), "from the parent");
        let here = || Counted::for_tests(4, None, "decided here");
        let cell = OnceLock::new();
        settle(&cell, 4, Some(parent.clone()), || panic!("decided again"));
        assert_eq!(cell.get(), Some(&parent));
        // Once decided, it stays.
        settle(&cell, 4, None, here);
        assert_eq!(cell.get(), Some(&parent));

        let cell = OnceLock::new();
        settle(&cell, 4, Some(Counted::for_tests(5, None, "another build")), here);
        assert_eq!(cell.get(), Some(&here()));
        let cell = OnceLock::new();
        settle(&cell, 4, None, here);
        assert_eq!(cell.get(), Some(&here()));
    }

    /// A paused stretch leaves the counters as it found them: the blocks
    /// that held counts, and those that were all 0 (not saved) and were
    /// counted into meanwhile, over spans of any length.
    #[test]
    fn a_paused_stretch_leaves_the_counters_as_they_were() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for round in 0..200 {
            let lens = [3 * BLOCK + 17, BLOCK, 1, 2 * BLOCK - 5, next() as usize % (4 * BLOCK)];
            let mut spans: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0; n]).collect();
            for span in spans.iter_mut().filter(|s| !s.is_empty()) {
                for _ in 0..next() % 4 {
                    let at = next() as usize % span.len();
                    span[at] = next() as u8;
                }
            }
            let before = spans.clone();
            let mut saved = Saved::default();
            saved.save(&mut spans.iter_mut().map(|s| s.as_mut_slice()));
            assert!(saved.bytes.len() <= before.iter().map(Vec::len).sum(), "round {round}");
            // The stretch counts into blocks with counts and without.
            for span in spans.iter_mut().filter(|s| !s.is_empty()) {
                for _ in 0..next() % 6 {
                    let at = next() as usize % span.len();
                    span[at] = span[at].wrapping_add(1 + next() as u8 % 9);
                }
            }
            saved.restore(&mut spans.iter_mut().map(|s| s.as_mut_slice()));
            assert_eq!(spans, before, "round {round}");
        }
    }

    /// Only the counted counters are reset, read and saved: their spans are
    /// the counted ranges clipped to each region, at their addresses.
    #[test]
    fn the_spans_are_the_counted_ranges_in_each_region_at_their_addresses() {
        let regions = [(1000, 1003), (2000, 2004), (3000, 3002)];
        let counted = Counted::for_tests(9, Some(vec![(0, 2), (4, 5), (6, 9)]), "");
        let spans = Spans::of(&regions, &counted);
        assert_eq!(spans.total, 9);
        assert_eq!(spans.spans, [(1000, 2, 0), (2001, 1, 4), (2003, 1, 6), (3000, 2, 7)]);
        let all = Spans::of(&regions, &Counted::for_tests(9, None, ""));
        assert_eq!(all.spans, [(1000, 3, 0), (2000, 4, 3), (3000, 2, 7)]);
    }

    #[test]
    fn without_the_counters_a_call_reaches_no_feature_and_pays_nothing() {
        // The unit tests are not built with SanitizerCoverage.
        assert_eq!(total(), 0);
        let (value, features) = around(&Seen::default(), || paused(|| 7));
        assert_eq!((value, features), (7, vec![]));
    }
}
