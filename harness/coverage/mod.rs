//! Branch coverage of instrumented functions, with branch distances.
//!
//! The attributes emit, per instrumented function, a static [`Sites`] table
//! (one [`Branch`](crate::registry::Branch) per branch outcome: its kind, condition, location and
//! control-dependence parent) and an instrumented copy of the body that runs
//! only while [`collect`] is collecting on the current thread; otherwise the
//! untouched body runs, so dormant code pays one relaxed load.
//!
//! For every outcome reached during a call, the smallest *branch distance*
//! seen is kept: 0 when the outcome was taken, otherwise how far the
//! condition was from taking it (the search chapter's table: `a == b` is
//! |a−b| from true, `a < b` is a−b+1 from true and b−a from false, …;
//! [`distance`] computes them).
//!
//! ```
//! use carve::coverage::{self, Cmp, Op};
//!
//! // Distances of `x == 2 * (y + 1)` with x = 5, y = 1: 1 from true, 0 from false.
//! assert_eq!(Op::Eq.distances(Cmp::numeric(5.0 - 4.0)), (1.0, 0.0));
//! assert_eq!(coverage::normalize(1.0), 0.5);
//! ```

pub mod arith;
pub mod counters;
pub mod distance;
pub mod fitness;
pub mod goals;
pub mod history;
pub mod html;
pub mod reach;
pub mod report;
pub mod symbols;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use crate::registry::{Arith, Op};
// The distance math has its own module; these names stay here, where the
// runtime that records them is.
pub use distance::{normalize, slot, Cmp, KnownCmp, Probe, UnknownCmp};
use distance::{branch_distances, goal_distances};
use crate::registry::{Sites, UNREGISTERED};

/// The first global outcome index of `sites`, given on first use.
#[inline]
fn base(sites: &'static Sites) -> u32 {
    let base = sites.base.load(Ordering::Acquire);
    if base != UNREGISTERED {
        base
    } else {
        register(sites)
    }
}

/// Gives a table its range of global outcome indices, on first use.
#[cold]
fn register(sites: &'static Sites) -> u32 {
    let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let base = sites.base.load(Ordering::Acquire);
    if base != UNREGISTERED {
        return base;
    }
    let base = registry
        .last()
        .map_or(0, |(b, s): &(u32, &Sites)| b + slots(s));
    registry.push((base, sites));
    REGISTERED.store(registry.len(), Ordering::Release);
    sites.base.store(base, Ordering::Release);
    base
}

/// The id under which entering the function of `sites` is recorded: the
/// slot after its branches.
fn entered_slot(sites: &Sites) -> u32 {
    sites.branches.len() as u32
}

/// Global indices a table takes: its branches, its entered slot, and a
/// block of [`slot::COUNT`] goal slots per comparison.
fn slots(sites: &Sites) -> u32 {
    entered_slot(sites) + 1 + sites.comparisons() * slot::COUNT
}

/// The id of goal slot `slot` of the `index`-th comparison of `sites`.
pub(crate) fn goal_slot(sites: &Sites, index: u32, slot: u32) -> u32 {
    entered_slot(sites) + 1 + index * slot::COUNT + slot
}

/// Registered tables by base index, in registration order.
static REGISTRY: Mutex<Vec<(u32, &'static Sites)>> = Mutex::new(Vec::new());
/// How many tables are in [`REGISTRY`], so that threads refresh their copy
/// only when it grew.
static REGISTERED: AtomicUsize = AtomicUsize::new(0);
/// Threads collecting now: when 0, instrumented bodies are never chosen.
static COLLECTING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// The state of the collection in progress on this thread, owned by the
    /// frame of [`collect`]; null outside it. A plain pointer in a `Cell`
    /// (no destructor, no borrow flag) keeps recording to a few instructions.
    static STATE: Cell<*mut State> = const { Cell::new(std::ptr::null_mut()) };
    /// Buffers of the previous collection, reused.
    static SPARE: RefCell<State> = const {
        RefCell::new(State { distance: Vec::new(), touched: Vec::new(), recording: Vec::new() })
    };
    /// This thread's copy of [`REGISTRY`].
    static TABLES: RefCell<Vec<(u32, &'static Sites)>> = const { RefCell::new(Vec::new()) };
}

#[derive(Default)]
struct State {
    /// Smallest distance per global outcome index; infinity when not reached.
    distance: Vec<f64>,
    touched: Vec<u32>,
    /// Per comparison, at the global index of its first goal slot: what it
    /// records ([`set_recording`]); absent: [`Recording::Full`]. It stays
    /// with the buffers from one collection to the next.
    recording: Vec<Recording>,
}

/// What a comparison records while coverage is collected. Generation lowers
/// a comparison's recording as the goals that read it are met, so that a
/// comparison costs what the open goals need ([`set_recording`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Recording {
    /// Both outcomes with their distances, and every goal slot.
    #[default]
    Full,
    /// Both outcomes with their distances; no goal slot.
    Outcomes,
    /// The outcome taken only: no distance, no goal slot, and the operands'
    /// difference is never computed.
    Taken,
}

/// Whether the current thread collects coverage (generated code checks this
/// to choose the instrumented body).
#[inline(always)]
pub fn active() -> bool {
    COLLECTING.load(Ordering::Relaxed) != 0 && ACTIVE.with(Cell::get)
}

/// Keeps the smallest distance of outcomes `id..id + distances.len()`.
// Always inlined: as a call it passed the distances through memory and was
// most of what recording a branch cost.
#[inline(always)]
fn record<const N: usize>(sites: &'static Sites, id: u32, distances: [f64; N]) {
    let base = base(sites);
    if let Some(state) = state() {
        keep_smallest(state, (base + id) as usize, distances);
    }
}

/// The state of the collection in progress on this thread, if any.
#[inline(always)]
fn state<'a>() -> Option<&'a mut State> {
    let state = STATE.with(Cell::get);
    if state.is_null() {
        return None;
    }
    // SAFETY: `collect` points STATE at a `State` in its own frame, on this
    // thread, only while `f` runs, and resets it (even on unwind) before it
    // touches the `State` again; the recording functions call nothing that
    // could reach the pointer while they hold the reference, so it is the
    // only one while it lives.
    Some(unsafe { &mut *state })
}

/// Sets what each comparison records in this thread's collections:
/// `(table, comparison index, recording)`; every comparison not listed
/// records in full, and an empty list makes them all record in full again.
/// Generation lowers the comparisons whose goals it has met for good, so
/// that they cost only what the goals still open read. Call it outside
/// [`collect`] (where it does nothing).
///
/// ```
/// use carve::coverage::{self, slot, Cmp, Op, Recording};
/// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
/// let x_gt_3 = || coverage::compare_with_goals(&SITES, 0, 0, false, Op::Gt, || Some(Cmp::numeric(0.0)), || None);
/// coverage::set_recording(&[(&SITES, 0, Recording::Outcomes)]);
/// let (_, trace) = coverage::collect(x_gt_3);
/// assert_eq!(trace.slot_distance(&SITES, 0, slot::BOUNDARY), None);
/// assert_eq!(trace.entries().len(), 2); // both outcomes, at distances 1 and 0
/// coverage::set_recording(&[(&SITES, 0, Recording::Taken)]);
/// let (_, trace) = coverage::collect(x_gt_3);
/// assert_eq!(trace.entries().len(), 1); // the false outcome, taken
/// coverage::set_recording(&[]);
/// let (_, trace) = coverage::collect(x_gt_3);
/// assert_eq!(trace.slot_distance(&SITES, 0, slot::BOUNDARY), Some(0.0));
/// ```
pub fn set_recording(comparisons: &[(&'static Sites, u32, Recording)]) {
    SPARE.with(|spare| {
        let Ok(mut spare) = spare.try_borrow_mut() else {
            return;
        };
        let levels = &mut spare.recording;
        levels.clear();
        for &(sites, index, recording) in comparisons {
            let at = (base(sites) + goal_slot(sites, index, 0)) as usize;
            if at >= levels.len() {
                levels.resize(at + 1, Recording::Full);
            }
            levels[at] = recording;
        }
    });
}

#[inline(always)]
fn keep_smallest<const N: usize>(state: &mut State, first: usize, distances: [f64; N]) {
    if N == 0 {
        return;
    }
    // One slot (an outcome taken, the common case once goals are met):
    // one bounds check. Growing is out of line and does not check again on
    // the common path.
    if N == 1 {
        let slot = match state.distance.get_mut(first) {
            Some(slot) => slot,
            None => &mut grow(&mut state.distance, first, N)[0],
        };
        if distances[0] < *slot {
            if *slot == f64::INFINITY {
                state.touched.push(first as u32);
            }
            *slot = distances[0];
        }
        return;
    }
    let end = first + N;
    if end > state.distance.len() {
        grow(&mut state.distance, first, N);
    }
    // One bounds check for the whole range; `touched` is a separate field,
    // so pushing to it cannot move the slots.
    let slots = &mut state.distance[first..end];
    for ((offset, distance), slot) in distances.into_iter().enumerate().zip(slots) {
        if distance < *slot {
            if *slot == f64::INFINITY {
                state.touched.push((first + offset) as u32);
            }
            *slot = distance;
        }
    }
}

/// The slots `first..first + n`, made room for (rare: once per table and
/// thread), out of line so that the recording path stays small.
#[cold]
#[inline(never)]
fn grow(distance: &mut Vec<f64>, first: usize, n: usize) -> &mut [f64] {
    let end = first + n;
    if end > distance.len() {
        distance.resize(end, f64::INFINITY);
    }
    &mut distance[first..end]
}

/// Records that the function of `sites` was entered (its instrumented twin
/// starts with this).
#[inline]
pub fn enter(sites: &'static Sites) {
    record(sites, entered_slot(sites), [0.0]);
}

/// Records that outcome `id` was taken.
#[inline]
pub fn hit(sites: &'static Sites, id: u32) {
    record(sites, id, [0.0]);
}

/// Records a boolean condition without a known distance (method calls,
/// variables): 0 for the outcome taken, 1 for the other. Returns `value`.
#[inline]
pub fn boolean(sites: &'static Sites, id: u32, value: bool) -> bool {
    record(sites, id, if value { [0.0, 1.0] } else { [1.0, 0.0] });
    if MUTATING.load(Ordering::Relaxed) != 0 {
        if let Some(Replacement::Negate) = active_mutant(sites, id) {
            return !value;
        }
    }
    value
}

/// A mutant, as [`with_mutant`] runs it: the condition at outcome `branch`
/// of a function evaluated with another operator, negated or with `&&` and
/// `||` swapped; the arithmetic operation with another operator; or the
/// `match` arm deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mutation {
    /// The condition's true outcome; for `&&`/`||`, the first outcome that
    /// tells it from the other operator; for an arm, its outcome; for an
    /// arithmetic operation, its first goal slot's id (past every outcome).
    pub branch: u32,
    /// What it becomes.
    pub to: Replacement,
}

/// What a mutated condition becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// The comparison with this operator.
    Op(Op),
    /// The condition negated.
    Negate,
    /// `&&` evaluated as `||`, or `||` as `&&`.
    Swap,
    /// The arithmetic operation with this operator.
    Arith(Arith),
    /// The `match` arm skipped, as if deleted.
    Delete,
}

/// Threads running a mutant now: when 0, conditions never look for one.
static MUTATING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The mutant this thread runs: its table's address and mutation.
    static MUTANT: Cell<Option<(usize, Mutation)>> = const { Cell::new(None) };
}

/// The replacement of the condition at `branch` of `sites`, if this thread
/// runs a mutant of it.
#[cold]
fn active_mutant(sites: &'static Sites, branch: u32) -> Option<Replacement> {
    MUTANT.with(Cell::get).and_then(|(table, m)| {
        (table == sites as *const Sites as usize && m.branch == branch).then_some(m.to)
    })
}

/// Runs `f` with one condition of `sites` mutated (mutant schemata: the
/// instrumented twin evaluates the mutated condition instead, while
/// coverage is collected). For a strong check: does a call's outcome change
/// under a mutant it weakly kills?
///
/// ```
/// use carve::coverage::{self, Mutation, Op, Replacement};
/// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
/// let gt = Mutation { branch: 0, to: Replacement::Op(Op::Ge) };
/// let (value, _) = coverage::collect(|| {
///     coverage::with_mutant(&SITES, gt, || {
///         // `3 > 3`, mutated to `3 >= 3`.
///         coverage::compare_with_goals(&SITES, 0, 0, false, Op::Gt, || Some(coverage::Cmp::numeric(0.0)), || None)
///     })
/// });
/// assert!(value);
/// ```
pub fn with_mutant<R>(sites: &'static Sites, mutation: Mutation, f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            MUTANT.with(|m| m.set(None));
            MUTATING.fetch_sub(1, Ordering::Relaxed);
        }
    }
    MUTANT.with(|m| m.set(Some((sites as *const Sites as usize, mutation))));
    MUTATING.fetch_add(1, Ordering::Relaxed);
    let _restore = Restore;
    f()
}

#[cfg(any(test, feature = "_internals"))]
/// Records a comparison `l op r` whose result is `value`, with the operands'
/// difference when their type is known. Returns `value`.
// Always inlined: `op` is a constant at every call site, so the table
// folds to the one row used.
#[inline(always)]
pub fn compare(sites: &'static Sites, id: u32, value: bool, op: Op, info: Option<Cmp>) -> bool {
    record(sites, id, branch_distances(value, op, info));
    value
}

/// Records a comparison `l op r` as [`compare`] does, and its goal slots
/// ([`slot`]): the `index`-th comparison of the function. `info` gives the
/// operands' difference where their type is known, and `order` their order
/// where `info` does not (their `PartialOrd`; asked only for `<`, `<=`,
/// `>`, `>=`); each is called only when a distance or a mutant needs it
/// ([`Recording`]). Returns `value`.
///
/// ```
/// use std::cmp::Ordering;
/// use carve::coverage::{self, slot, Cmp, Op};
/// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
/// // `x > 3` with x = 3: false, at its boundary.
/// let (_, trace) = coverage::collect(|| {
///     coverage::compare_with_goals(&SITES, 0, 0, false, Op::Gt, || Some(Cmp::numeric(0.0)), || None)
/// });
/// assert_eq!(trace.slot_distance(&SITES, 0, slot::BOUNDARY), Some(0.0));
/// assert_eq!(trace.slot_distance(&SITES, 0, slot::GREATER), Some(1.0));
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn compare_with_goals(
    sites: &'static Sites,
    id: u32,
    index: u32,
    value: bool,
    op: Op,
    info: impl FnOnce() -> Option<Cmp>,
    order: impl FnOnce() -> Option<std::cmp::Ordering>,
) -> bool {
    let base = base(sites);
    let state = state();
    let first = (base + goal_slot(sites, index, 0)) as usize;
    let recording = match &state {
        Some(state) => state.recording.get(first).copied().unwrap_or_default(),
        None => Recording::Taken,
    };
    let mutating = MUTATING.load(Ordering::Relaxed) != 0;
    // The common case once generation met a comparison's goals: one slot,
    // and the operands are not looked at again.
    if recording == Recording::Taken && !mutating {
        if let Some(state) = state {
            keep_smallest(state, (base + id + u32::from(!value)) as usize, [0.0]);
        }
        return value;
    }
    let info = info();
    let order = match info {
        Some(cmp) => cmp.order,
        None if op.is_relational() => order(),
        None => None,
    };
    if let Some(state) = state {
        match recording {
            Recording::Taken => {
                keep_smallest(state, (base + id + u32::from(!value)) as usize, [0.0])
            }
            Recording::Outcomes => {
                keep_smallest(state, (base + id) as usize, branch_distances(value, op, info))
            }
            Recording::Full => {
                keep_smallest(state, (base + id) as usize, branch_distances(value, op, info));
                keep_smallest(state, first, goal_distances(op, value, info, order));
            }
        }
    }
    if mutating {
        match active_mutant(sites, id) {
            Some(Replacement::Op(mutant)) => {
                return match order {
                    Some(order) => mutant.holds(order),
                    // Unordered operands (NaN): only `!=` holds.
                    None if info.is_some() || op.is_relational() => mutant == Op::Ne,
                    // `==` of a type without an order: `!=` is the
                    // complement, and no other operator applies.
                    None if mutant == op.complement() => !value,
                    None => value,
                };
            }
            Some(Replacement::Negate) => return !value,
            _ => {}
        }
    }
    value
}

/// `l op r` computed by `original` (the operator as written), recording
/// whether each of its mutants ([`Arith::mutants`]) would have had another
/// value, or panicked where it does not (the `index`-th goal slot block
/// of `sites`; only while an open goal reads it: [`Recording::Full`]). Under
/// a strong check of one of them ([`with_mutant`]) it is the mutant's value.
#[inline(always)]
pub fn arith<T: arith::Number>(
    sites: &'static Sites,
    index: u32,
    op: Arith,
    l: T,
    r: T,
    original: impl FnOnce(T, T) -> T,
) -> T {
    let first_slot = goal_slot(sites, index, 0);
    if MUTATING.load(Ordering::Relaxed) != 0 {
        if let Some(Replacement::Arith(to)) = active_mutant(sites, first_slot) {
            return T::apply(to, l, r);
        }
    }
    let first = (base(sites) + first_slot) as usize;
    if let Some(state) = state() {
        if state.recording.get(first).copied().unwrap_or_default() == Recording::Full {
            let value = T::checked(op, l, r);
            let distance = |mutant| match (value, T::checked(mutant, l, r)) {
                (Some(v), Some(m)) if T::same(v, m) => 1.0,
                // Both panic: the same way, for all a test can tell.
                (None, None) => 1.0,
                _ => 0.0,
            };
            let [a, b] = op.mutants();
            keep_smallest(state, first, [distance(a), distance(b)]);
        }
    }
    original(l, r)
}

/// Whether this thread runs the mutant swapping `&&` and `||` of the
/// condition told apart at `branch` (the instrumented twin evaluates the
/// other operator then).
#[inline(always)]
pub fn swapped(sites: &'static Sites, branch: u32) -> bool {
    MUTATING.load(Ordering::Relaxed) != 0
        && active_mutant(sites, branch) == Some(Replacement::Swap)
}

/// Whether the `match` arm of outcome `arm` is there: false only while
/// this thread runs the mutant deleting it (the instrumented twin guards
/// the arm with this).
#[inline(always)]
pub fn kept(sites: &'static Sites, arm: u32) -> bool {
    MUTATING.load(Ordering::Relaxed) == 0
        || active_mutant(sites, arm) != Some(Replacement::Delete)
}

/// A `for` loop's iterator that records, per item, whether the body was
/// entered (`Some`) or the loop left (`None`).
pub struct Loop<I> {
    inner: I,
    sites: &'static Sites,
    id: u32,
}

impl<I> Loop<I> {
    /// Wraps the loop's iterator; `id` is "entered", `id + 1` "left".
    pub fn new(inner: I, sites: &'static Sites, id: u32) -> Self {
        Loop { inner, sites, id }
    }
}

impl<I: Iterator> Iterator for Loop<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next();
        hit(
            self.sites,
            if item.is_some() { self.id } else { self.id + 1 },
        );
        item
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// The branch outcomes one call reached, with their smallest distances.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// `(table, outcome id, distance)`, sorted by table address and id.
    reached: Vec<(&'static Sites, u32, f64)>,
}

impl PartialEq for Trace {
    fn eq(&self, other: &Self) -> bool {
        self.reached.len() == other.reached.len()
            && self
                .reached
                .iter()
                .zip(&other.reached)
                .all(|(a, b)| std::ptr::eq(a.0, b.0) && a.1 == b.1 && a.2 == b.2)
    }
}

impl Trace {
    /// Outcomes of `sites` that were taken.
    pub fn covered<'a>(&'a self, sites: &'a Sites) -> impl Iterator<Item = u32> + 'a {
        self.reached(sites)
            .filter(|(_, d)| *d == 0.0)
            .map(|(id, _)| id)
    }

    /// Branches of `sites` that were reached, with their distances.
    pub fn reached<'a>(&'a self, sites: &'a Sites) -> impl Iterator<Item = (u32, f64)> + 'a {
        let branches = sites.branches.len() as u32;
        self.of(sites).filter(move |(id, _)| *id < branches)
    }

    /// Whether the call entered the function of `sites`.
    pub fn entered(&self, sites: &Sites) -> bool {
        let entered = entered_slot(sites);
        self.of(sites).any(|(id, _)| id == entered)
    }

    /// The instrumented functions the call entered, directly or through
    /// others, each once.
    pub fn functions(&self) -> impl Iterator<Item = &'static Sites> + '_ {
        self.reached
            .iter()
            .filter(|(sites, id, _)| *id == entered_slot(sites))
            .map(|(sites, _, _)| *sites)
    }

    /// Everything recorded for `sites`: branches and the entered slot.
    fn of<'a>(&'a self, sites: &'a Sites) -> impl Iterator<Item = (u32, f64)> + 'a {
        let start = self
            .reached
            .partition_point(|(s, _, _)| (*s as *const Sites) < (sites as *const Sites));
        self.reached[start..]
            .iter()
            .take_while(move |(s, _, _)| std::ptr::eq(*s, sites))
            .map(|(_, id, d)| (*id, *d))
    }

    /// Everything recorded: `(table, outcome id, distance)`, sorted.
    pub fn entries(&self) -> &[(&'static Sites, u32, f64)] {
        &self.reached
    }

    /// A trace of these outcomes (as [`Trace::entries`] gives them, in any
    /// order): a generation worker reads traces back from its journal.
    pub fn from_entries(mut reached: Vec<(&'static Sites, u32, f64)>) -> Trace {
        reached.sort_by_key(|(sites, id, _)| (*sites as *const Sites, *id));
        Trace { reached }
    }

    /// The smallest distance to outcome `id` of `sites`, if reached.
    pub fn distance(&self, sites: &Sites, id: u32) -> Option<f64> {
        if id >= sites.branches.len() as u32 {
            return None;
        }
        self.lookup(sites, id)
    }

    /// What was recorded at `id` of `sites` (a binary search: entries are
    /// sorted by table address and id).
    fn lookup(&self, sites: &Sites, id: u32) -> Option<f64> {
        let key = (sites as *const Sites, id);
        self.reached
            .binary_search_by(|(s, i, _)| (*s as *const Sites, *i).cmp(&key))
            .ok()
            .map(|at| self.reached[at].2)
    }

    /// The smallest distance recorded in goal slot `slot` ([`slot`]) of the
    /// `index`-th comparison of `sites`, if it was recorded.
    pub fn slot_distance(&self, sites: &Sites, index: u32, slot: u32) -> Option<f64> {
        self.lookup(sites, goal_slot(sites, index, slot))
    }
}

/// Runs `f` with this thread's collection, if any, paused: what it runs is
/// not part of the collected call. Replay rebuilds a call's arguments
/// (their `FromStr`, their `Deserialize`) this way, so that a parser the
/// target never calls does not count for it.
///
/// ```
/// # use carve::coverage;
/// let (paused, _) = coverage::collect(|| coverage::paused(coverage::active));
/// assert!(!paused);
/// ```
pub fn paused<R>(f: impl FnOnce() -> R) -> R {
    struct Resume(bool, *mut State);
    impl Drop for Resume {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
            STATE.with(|s| s.set(self.1));
        }
    }
    let _resume = Resume(
        ACTIVE.with(|a| a.replace(false)),
        STATE.with(|s| s.replace(std::ptr::null_mut())),
    );
    // Nor do the edge counters of code carve does not instrument show it.
    counters::paused(f)
}

/// Sorts the touched indices: an insertion sort, as a call touches few
/// outcomes, often in the order of their ids.
fn sort_small(indices: &mut [u32]) {
    if indices.len() > 32 {
        indices.sort_unstable();
        return;
    }
    for i in 1..indices.len() {
        let mut j = i;
        while j > 0 && indices[j - 1] > indices[j] {
            indices.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Runs `f` with coverage collected on this thread and returns what it reached.
///
/// ```
/// # use carve::coverage;
/// let (value, trace) = coverage::collect(|| 1 + 1);
/// assert_eq!(value, 2);
/// assert_eq!(trace, coverage::Trace::default()); // nothing instrumented ran
/// ```
pub fn collect<R>(f: impl FnOnce() -> R) -> (R, Trace) {
    struct Stop(bool);
    impl Drop for Stop {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
            if !self.0 {
                STATE.with(|s| s.set(std::ptr::null_mut()));
            }
            COLLECTING.fetch_sub(1, Ordering::Relaxed);
        }
    }
    // Nested collection (a collected call inside another) reports to the
    // outermost, which owns the state.
    if ACTIVE.with(Cell::get) {
        COLLECTING.fetch_add(1, Ordering::Relaxed);
        let _stop = Stop(true);
        return (f(), Trace::default());
    }
    let mut state = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
    COLLECTING.fetch_add(1, Ordering::Relaxed);
    ACTIVE.with(|a| a.set(true));
    STATE.with(|s| s.set(std::ptr::addr_of_mut!(state)));
    let stop = Stop(false);
    let value = f();
    drop(stop);
    let mut reached: Vec<(&'static Sites, u32, f64)> = TABLES.with(|tables| {
        let mut tables = tables.borrow_mut();
        if tables.len() != REGISTERED.load(Ordering::Acquire) {
            tables.clone_from(&REGISTRY.lock().unwrap_or_else(|e| e.into_inner()));
        }
        let State { distance, touched, .. } = &mut state;
        // Sorted indices come table by table (bases ascend), ids ascending
        // within each: one walk over the tables, from the first index's,
        // finds each index's table.
        sort_small(touched);
        let mut reached = Vec::with_capacity(touched.len());
        let first = touched.first().copied().unwrap_or(0);
        let mut table = tables.partition_point(|(base, _)| *base <= first).saturating_sub(1);
        for &index in touched.iter() {
            while tables.get(table + 1).is_some_and(|(base, _)| *base <= index) {
                table += 1;
            }
            let (base, sites) = tables[table];
            let d = std::mem::replace(&mut distance[index as usize], f64::INFINITY);
            reached.push((sites, index - base, d));
        }
        touched.clear();
        reached
    });
    SPARE.with(|s| *s.borrow_mut() = state);
    // The trace is ordered by table address, then id: a stable sort by
    // address keeps the ids in order, and is not needed at all when the
    // tables were registered in address order (one table always is).
    if !reached.is_sorted_by_key(|(sites, _, _)| *sites as *const Sites) {
        reached.sort_by_key(|(sites, _, _)| *sites as *const Sites);
    }
    (value, Trace { reached })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Branch, BranchKind, Side};

    #[test]
    fn a_mutant_changes_only_its_condition_and_only_while_it_runs() {
        static TWO: Sites = Sites::new("t::m", "f", "f.rs", (1, 1), &[], &[]);
        let negate = |branch| Mutation {
            branch,
            to: Replacement::Negate,
        };
        let (values, _) = collect(|| {
            with_mutant(&TWO, negate(2), || {
                (boolean(&TWO, 0, true), boolean(&TWO, 2, true))
            })
        });
        assert_eq!(values, (true, false), "only the condition at 2 is negated");
        let (after, _) = collect(|| boolean(&TWO, 2, true));
        assert!(after, "no mutant once `with_mutant` returned");
        let unwound = std::panic::catch_unwind(|| {
            with_mutant(&TWO, negate(0), || panic!("the call panics"))
        });
        assert!(unwound.is_err());
        assert!(collect(|| boolean(&TWO, 0, true)).0, "nor after it unwound");
        // NaN: every relational operator is false, `!=` true.
        let lt = |to| Mutation {
            branch: 0,
            to: Replacement::Op(to),
        };
        let nan = Some(Cmp::float(f64::NAN, 1.0, f64::EPSILON));
        for (to, expected) in [(Op::Le, false), (Op::Ge, false), (Op::Ne, true), (Op::Eq, false)] {
            let (value, _) = collect(|| {
                with_mutant(&TWO, lt(to), || compare_with_goals(&TWO, 0, 0, false, Op::Lt, || nan, || None))
            });
            assert_eq!(value, expected, "NaN {to} 1.0");
        }
    }

    #[test]
    fn taken_outcomes_are_at_distance_zero_even_for_nan() {
        static SITES: Sites = Sites::new(
            "t::m",
            "f",
            "f.rs",
            (1, 1),
            &[
                Branch {
                    kind: BranchKind::Condition,
                    condition: "x < y",
                    side: Side::True,
                    line: 1,
                    col: 1,
                    parent: u32::MAX,
                },
                Branch {
                    kind: BranchKind::Condition,
                    condition: "x < y",
                    side: Side::False,
                    line: 1,
                    col: 1,
                    parent: u32::MAX,
                },
            ],
            &[],
        );
        let (_, trace) =
            collect(|| compare(&SITES, 0, false, Op::Lt, Some(Cmp::numeric(f64::NAN))));
        assert_eq!(trace.distance(&SITES, 0), Some(1.0));
        assert_eq!(trace.distance(&SITES, 1), Some(0.0));
        assert_eq!(trace.covered(&SITES).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn a_trace_lists_what_each_table_reached_in_order_whatever_the_order_of_the_calls() {
        const BRANCH: Branch = Branch {
            kind: BranchKind::Condition,
            condition: "c",
            side: Side::True,
            line: 1,
            col: 1,
            parent: u32::MAX,
        };
        static FIRST: Sites = Sites::new("t::m", "first", "f.rs", (1, 1), &[BRANCH; 6], &[]);
        static SECOND: Sites = Sites::new("t::m", "second", "f.rs", (1, 1), &[BRANCH; 6], &[]);
        // Outcomes of two tables reached out of order and again, with the
        // calls in both orders.
        let hits: Vec<(&'static Sites, u32)> = (0..6)
            .rev()
            .flat_map(|id| [(&SECOND, id), (&FIRST, id)])
            .chain((0..30).map(|i| (&FIRST, i % 6)))
            .collect();
        for calls in [hits.clone(), hits.iter().rev().copied().collect()] {
            let (_, trace) = collect(|| {
                for &(sites, id) in &calls {
                    hit(sites, id);
                }
                enter(&SECOND);
            });
            let mut expected: Vec<(*const Sites, u32)> = [&FIRST, &SECOND]
                .into_iter()
                .flat_map(|sites| (0..6).map(move |id| (sites as *const Sites, id)))
                .chain([(&SECOND as *const Sites, 6)])
                .collect();
            expected.sort();
            let entries: Vec<(*const Sites, u32)> =
                trace.entries().iter().map(|(s, id, _)| (*s as *const Sites, *id)).collect();
            assert_eq!(entries, expected);
            assert!(trace.entries().iter().all(|(_, _, d)| *d == 0.0));
            assert_eq!(trace.functions().collect::<Vec<_>>().len(), 1, "only `second` was entered");
        }
        let mut many: Vec<u32> = (0..40).rev().chain([7, 3, 3]).collect();
        sort_small(&mut many[..5]);
        assert_eq!(many[..5], [35, 36, 37, 38, 39]);
        sort_small(&mut many);
        assert!(many.is_sorted());
    }
}
