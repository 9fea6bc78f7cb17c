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
mod slots;
pub mod symbols;
pub mod tables;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use crate::registry::{Arith, Op};
// The distance math has its own module; these names stay here, where the
// runtime that records them is.
pub use distance::{normalize, slot, Cmp, KnownCmp, Probe, UnknownCmp};
use distance::{branch_distances, goal_distances};
use crate::registry::{Sites, UNREGISTERED};
use slots::Slots;

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
    /// The state of the collection in progress on this thread, a `Box`
    /// owned by the frame of [`collect`]; null outside it. A plain pointer in a `Cell`
    /// (no destructor, no borrow flag) keeps recording to a few instructions.
    static STATE: Cell<*mut State> = const { Cell::new(std::ptr::null_mut()) };
    /// Buffers of the previous collection, reused; boxed, so that taking
    /// them for a collection moves a pointer.
    static SPARE: RefCell<Option<Box<State>>> = const { RefCell::new(None) };
    /// States a collection inside a paused one made, kept where putting one
    /// back in [`SPARE`] would free another: no `State` is freed before its
    /// thread ends, so even a [`Frame`] kept past its call points at one
    /// that lives.
    // Boxed: frames point at each `State`, which must not move as the
    // `Vec` grows.
    #[allow(clippy::vec_box)]
    static RETIRED: RefCell<Vec<Box<State>>> = const { RefCell::new(Vec::new()) };
    /// This thread's copy of [`REGISTRY`].
    static TABLES: RefCell<Vec<(u32, &'static Sites)>> = const { RefCell::new(Vec::new()) };
    /// The room of a dropped [`Trace`], which the next collection on this
    /// thread fills instead of allocating its own (most traces of a
    /// generation run are dropped as soon as they are read).
    static TRACE_ROOM: Cell<Vec<(&'static Sites, u32, f64)>> = const { Cell::new(Vec::new()) };
    /// The room of a dropped trace's table index, reused as [`TRACE_ROOM`].
    static RUNS_ROOM: Cell<Vec<Run>> = const { Cell::new(Vec::new()) };
    /// Where [`collect`] puts a call's entries in table address order when
    /// the tables' global indices are not (their room changes hands with
    /// the trace's).
    static REORDER_ROOM: Cell<Vec<(&'static Sites, u32, f64)>> = const { Cell::new(Vec::new()) };
}

/// A trace's room kept for reuse at most this large (entries): a call that
/// reached far more does not keep that much memory for the next.
const TRACE_ROOM_MAX: usize = 1 << 12;

#[derive(Default)]
struct State {
    /// Smallest distance per global outcome index, and which were reached.
    slots: Slots,
    /// Per comparison, at the global index of its first goal slot: what it
    /// records ([`set_recording`]); absent: [`Recording::Full`]. It stays
    /// with the buffers from one collection to the next.
    recording: Vec<Recording>,
    /// Per integer comparison that records distances, at the global index
    /// of its first goal slot: the operand differences closest to zero it
    /// saw ([`Closest`]), turned into distances when the call ends.
    integers: Vec<Closest>,
    /// The comparisons with an entry in `integers`, in first-touch order.
    integers_touched: Vec<IntegerSite>,
    /// Where each table's entries are in the trace the call ends with
    /// ([`reached_of`]): kept here for the next call when the trace has
    /// one table, which needs no index.
    runs: Vec<Run>,
}

/// The operand differences `d = l − r` of one integer comparison closest to
/// 0 from each side during a call. Every distance of an integer comparison
/// (both outcomes, every goal slot) is a function of `d` alone, which is a
/// whole number, and each of those functions is smallest, among the `d`s
/// below 0, at the largest, and among those above 0, at the smallest (the
/// table of [`distance`]: `d + 1`, `|d ± 1|`, …). So its smallest value over
/// a call is its value at one of these three, and a comparison keeps three
/// numbers per call where it kept eight smallest distances per evaluation.
#[derive(Debug, Clone, Copy)]
struct Closest {
    /// The largest negative difference; −∞ when none.
    below: f64,
    /// The smallest positive difference; +∞ when none.
    above: f64,
    /// Whether the operands were ever equal.
    zero: bool,
    /// Whether the comparison was evaluated in this call at all.
    seen: bool,
}

impl Closest {
    const NONE: Closest = Closest {
        below: f64::NEG_INFINITY,
        above: f64::INFINITY,
        zero: false,
        seen: false,
    };
}

/// What turning a [`Closest`] into distances needs to know of its comparison.
#[derive(Debug, Clone, Copy)]
struct IntegerSite {
    /// The global index of its first goal slot (its `integers` entry).
    first: u32,
    /// The global index of its true outcome.
    outcome: u32,
    op: Op,
    /// Whether its goal slots are recorded too ([`Recording::Full`]).
    goals: bool,
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

/// Where an instrumented body records: its site table, and this thread's
/// collection. The instrumented twin of a function looks both up once, when
/// it starts ([`Frame::enter`]), and records through the [`Frame`]; code
/// that may run after the call returned (a closure, an `async` block)
/// records through the table itself, which looks them up at each record.
pub trait Site: Copy {
    /// The table, and the collection in progress on this thread now.
    fn frame(self) -> Frame;
}

/// A function's table with the collection it records into, looked up when
/// its instrumented twin started: recording through it reads no
/// thread-local and no atomic.
///
/// ```
/// use carve::coverage::{self, Frame};
/// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
/// // A function without branches: entering it is all there is to record.
/// let (_, trace) = coverage::collect(|| {
///     let frame = Frame::enter(&SITES);
///     let _ = frame.sites();
/// });
/// assert!(trace.entered(&SITES));
/// assert!(!coverage::collect(|| ()).1.entered(&SITES));
/// ```
#[derive(Clone, Copy)]
pub struct Frame {
    sites: &'static Sites,
    /// The collection's state when the twin started; null outside one.
    state: *mut State,
    /// The table's first global outcome index.
    base: u32,
    /// Whether a mutant of this table may run ([`with_mutant`]): for a
    /// frame made at the start of a call, whether this thread ran one then.
    mutating: bool,
    /// Whether every comparison of the table records the outcome taken only
    /// ([`Recording::Taken`], as [`set_recording`] marks a table whose goals
    /// are all met), and no mutant of it runs: a comparison then looks up
    /// nothing more. Only [`Frame::enter`] finds it out.
    taken_only: bool,
}

impl Frame {
    /// Records that the function of `sites` was entered and returns where
    /// its body records. Only an instrumented twin's own body may hold the
    /// frame: it is valid while the call that made it runs.
    #[inline(always)]
    pub fn enter(sites: &'static Sites) -> Frame {
        let mut frame = sites.frame();
        frame.mutating = frame.mutating
            && MUTANT.with(Cell::get).is_some_and(|(table, _)| table == address(sites));
        let entered = entered_slot(sites);
        if let Some(state) = frame.state() {
            let mark = state.recording.get((frame.base + entered) as usize);
            frame.taken_only = !frame.mutating && mark == Some(&Recording::Taken);
        }
        frame.record_taken(entered);
        frame
    }

    /// The table it records into.
    pub fn sites(&self) -> &'static Sites {
        self.sites
    }

    /// The collection's state, if the frame was made inside one.
    #[inline(always)]
    fn state<'a>(&self) -> Option<&'a mut State> {
        if self.state.is_null() {
            return None;
        }
        // SAFETY: a frame is made from STATE, which `collect` points at the
        // `State` in a `Box` (its heap address does not move while the box
        // is held), on this thread; an instrumented body makes it when its
        // call starts and drops it when the call ends, inside `collect`'s `f`.
        // A frame kept longer (`Frame::enter` is public) still points at a
        // live `State`: none is freed before its thread ends (`RETIRED`), and
        // a frame cannot leave its thread (the raw pointer makes it neither
        // `Send` nor `Sync`). The recording functions call nothing that could
        // reach the pointer while they hold the reference, so it is the only
        // one while it lives.
        Some(unsafe { &mut *self.state })
    }

    /// Keeps the smallest distance of outcomes `id..id + distances.len()`.
    // Always inlined: as a call it passed the distances through memory and
    // was most of what recording a branch cost.
    #[inline(always)]
    fn record<const N: usize>(&self, id: u32, distances: [f64; N]) {
        if let Some(state) = self.state() {
            keep_smallest(state, (self.base + id) as usize, distances);
        }
    }

    /// Records that outcome `id` was taken (distance 0).
    #[inline(always)]
    fn record_taken(&self, id: u32) {
        if let Some(state) = self.state() {
            keep_taken(state, (self.base + id) as usize);
        }
    }

    /// The replacement of the condition at `branch`, if this thread runs a
    /// mutant of it.
    #[inline(always)]
    fn mutant(&self, branch: u32) -> Option<Replacement> {
        if self.mutating {
            active_mutant(self.sites, branch)
        } else {
            None
        }
    }
}

impl Site for &'static Sites {
    #[inline(always)]
    fn frame(self) -> Frame {
        Frame {
            sites: self,
            state: STATE.with(Cell::get),
            base: base(self),
            mutating: MUTATING.load(Ordering::Relaxed) != 0,
            taken_only: false,
        }
    }
}

impl Site for &Frame {
    #[inline(always)]
    fn frame(self) -> Frame {
        *self
    }
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
        let levels = &mut spare.get_or_insert_default().recording;
        levels.clear();
        let mut tables: Vec<&'static Sites> = Vec::new();
        for &(sites, index, recording) in comparisons {
            let at = (base(sites) + goal_slot(sites, index, 0)) as usize;
            if at >= levels.len() {
                levels.resize(at + 1, Recording::Full);
            }
            levels[at] = recording;
            if !tables.iter().any(|t| std::ptr::eq(*t, sites)) {
                tables.push(sites);
            }
        }
        // A table whose comparisons all record the outcome taken only is
        // marked so at its entered slot, which no comparison's level uses:
        // its frames read the mark once ([`Frame::taken_only`]).
        for sites in tables {
            let level = |index| levels.get((base(sites) + goal_slot(sites, index, 0)) as usize);
            if (0..sites.comparisons()).all(|index| level(index) == Some(&Recording::Taken)) {
                let at = (base(sites) + entered_slot(sites)) as usize;
                if at >= levels.len() {
                    levels.resize(at + 1, Recording::Full);
                }
                levels[at] = Recording::Taken;
            }
        }
    });
}

#[inline(always)]
fn keep_smallest<const N: usize>(state: &mut State, first: usize, distances: [f64; N]) {
    state.slots.keep_smallest(first, distances);
}

/// Keeps distance 0 at global index `at`: an outcome taken.
#[inline(always)]
fn keep_taken(state: &mut State, at: usize) {
    state.slots.keep_taken(at);
}

/// `l − r` of an integer comparison `l op r` whose value is `value`, when
/// every distance of it follows from that difference alone: the operands
/// are integers or chars, and their difference agrees with their order and
/// with the value (it may not for 128-bit values too far apart for an f64).
#[inline(always)]
fn integer_difference(op: Op, value: bool, cmp: Cmp) -> Option<f64> {
    let Cmp { diff, dist, order, step } = cmp;
    let agrees = step == distance::Step::Integer
        && dist == diff.abs()
        && order == diff.partial_cmp(&0.0)
        && order.is_some_and(|order| op.holds(order) == value);
    agrees.then_some(diff)
}

/// Keeps `d` in the comparison's [`Closest`] if it is closer to 0 than what
/// the call saw before on its side.
#[inline(always)]
fn keep_closest(state: &mut State, site: IntegerSite, d: f64) {
    let at = site.first as usize;
    let closest = match state.integers.get_mut(at) {
        Some(closest) => closest,
        None => grow_integers(&mut state.integers, at),
    };
    let first_touch = !closest.seen;
    closest.seen = true;
    if d < 0.0 {
        if d > closest.below {
            closest.below = d;
        }
    } else if d > 0.0 {
        if d < closest.above {
            closest.above = d;
        }
    } else {
        closest.zero = true;
    }
    if first_touch {
        state.integers_touched.push(site);
    }
}

/// Room for the [`Closest`] at `at` (rare: once per table and thread).
#[cold]
#[inline(never)]
fn grow_integers(integers: &mut Vec<Closest>, at: usize) -> &mut Closest {
    if at >= integers.len() {
        integers.resize(at + 1, Closest::NONE);
    }
    &mut integers[at]
}

/// Turns the call's [`Closest`] differences into the smallest distances of
/// their outcomes and goal slots, as if each evaluation had recorded its own,
/// and clears them for the next call.
fn settle_integers(state: &mut State) {
    if state.integers_touched.is_empty() {
        return;
    }
    let mut sites = std::mem::take(&mut state.integers_touched);
    for site in sites.drain(..) {
        let closest = std::mem::replace(&mut state.integers[site.first as usize], Closest::NONE);
        let (outcomes, goals) = closest.distances(site.op, site.goals);
        state.slots.keep_smallest(site.outcome as usize, outcomes);
        if site.goals {
            state.slots.keep_smallest(site.first as usize, goals);
        }
    }
    // The emptied list goes back, so that its room is reused.
    state.integers_touched = sites;
}

impl Closest {
    /// The smallest distances of the comparison's two outcomes and, when
    /// `goals`, of its goal slots ([`slot`]) over the call, as recording
    /// each evaluation with [`branch_distances`] and [`goal_distances`]
    /// would have kept them: their values at the (up to) three differences
    /// kept. The goal slots of an integer comparison have a closed form on
    /// each side of 0 (the table of [`distance`] with a step of 1), written
    /// out here rather than computed through the general table per
    /// difference, which was most of what ending a call cost (callgrind).
    #[inline]
    fn distances(self, op: Op, goals: bool) -> ([f64; 2], [f64; slot::COUNT as usize]) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        const NONE: f64 = f64::INFINITY;
        let below = (self.below > f64::NEG_INFINITY).then_some(self.below);
        let above = (self.above < f64::INFINITY).then_some(self.above);
        let mut outcomes = [NONE; 2];
        let mut each = |d: f64, order| {
            let cmp = Cmp { diff: d, dist: d.abs(), order: Some(order), step: distance::Step::Integer };
            smallest(&mut outcomes, branch_distances(op.holds(order), op, Some(cmp)));
        };
        if let Some(d) = below {
            each(d, Less);
        }
        if self.zero {
            each(0.0, Equal);
        }
        if let Some(d) = above {
            each(d, Greater);
        }
        if !goals {
            return (outcomes, [NONE; slot::COUNT as usize]);
        }
        // [less, equal, greater, boundary, below, above] at each side (d < 0,
        // d = 0, d > 0) are `goal_distances` with `Step::Integer` and K = 1:
        // below, `[0, -d, 1 - d, -d, |d + 1|, |d - 1|]`; at 0, `[1, 0, 1, 0,
        // 1, 1]`; above, `[d + 1, d, 0, d, |d + 1|, |d - 1|]` (the boundary
        // for relational operators, the two steps for the others). Their
        // smallest over the sides seen, written out: a side not seen is at
        // an infinite difference, where each is infinite.
        let (low, high) = (self.below, self.above);
        let at_zero = if self.zero { 1.0 } else { NONE };
        let less = if below.is_some() { 0.0 } else { at_zero.min(high + 1.0) };
        let equal = if self.zero { 0.0 } else { (-low).min(high) };
        let greater = if above.is_some() { 0.0 } else { at_zero.min(-low + 1.0) };
        let kept = if op.is_relational() {
            [less, equal, greater, equal, NONE, NONE]
        } else {
            let step_below = (low + 1.0).abs().min(at_zero).min((high + 1.0).abs());
            let step_above = (low - 1.0).abs().min(at_zero).min((high - 1.0).abs());
            [less, equal, greater, NONE, step_below, step_above]
        };
        (outcomes, kept)
    }
}

/// Records that the function of `sites` was entered (its instrumented twin
/// starts with this).
#[inline]
pub fn enter(sites: &'static Sites) {
    Frame::enter(sites);
}

/// Records that outcome `id` was taken.
#[inline(always)]
pub fn hit(at: impl Site, id: u32) {
    at.frame().record_taken(id);
}

/// Records a boolean condition without a known distance (method calls,
/// variables): 0 for the outcome taken, 1 for the other. Returns `value`.
#[inline(always)]
pub fn boolean(at: impl Site, id: u32, value: bool) -> bool {
    let frame = at.frame();
    frame.record(id, if value { [0.0, 1.0] } else { [1.0, 0.0] });
    if let Some(Replacement::Negate) = frame.mutant(id) {
        return !value;
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
    /// How many more conditions of the mutated function the call run
    /// against [`MUTANT`] may evaluate ([`MUTANT_FUEL`] at its start).
    static FUEL: Cell<u32> = const { Cell::new(0) };
}

/// How many conditions, `match` arms and arithmetic operations of the
/// mutated function a call run against a mutant ([`with_mutant`]) may
/// evaluate: the next one panics, and the mutant's outcome (that panic)
/// kills it. A mutant that turns a loop endless (`c != Some(' ')` in a
/// loop that skips spaces) is then killed in a fixed number of steps, the
/// same on every run, where the call timeout waited a quarter of a second
/// and a fresh worker confirmed the hang for a second more. 100,000 is
/// far beyond what one call of a function evaluates on generated inputs
/// (semver's parser: hundreds), and well within the quarter second: a
/// test build's evaluations under a mutant take about 0.2 µs each (a
/// million took 0.22 s, and ran past the timeout on the dogfood's
/// `my_sqrt`). A call that evaluates more (a loop over a megabyte-long
/// carved argument) kills every mutant of that function it is checked
/// against, as a timeout would. A loop the mutant makes endless elsewhere
/// (in a caller that no longer calls the mutated function) is still a
/// hang, told by the call timeout.
pub const MUTANT_FUEL: u32 = 100_000;

/// The text of the panic that ends a call whose mutant ran out of
/// [`MUTANT_FUEL`].
pub const OUT_OF_FUEL: &str = "carve: the mutated function evaluated its conditions 100,000 times in one call: \
                               a mutant that never ends, killed";

/// The replacement of the condition at `branch` of `sites`, if this thread
/// runs a mutant of it. Each condition of the mutated function asked burns
/// one unit of [`FUEL`].
#[cold]
fn active_mutant(sites: &'static Sites, branch: u32) -> Option<Replacement> {
    let (table, m) = MUTANT.with(Cell::get)?;
    if table != address(sites) {
        return None;
    }
    let left = FUEL.with(|fuel| {
        let left = fuel.get().saturating_sub(1);
        fuel.set(left);
        left
    });
    // Not while unwinding: a `Drop` that evaluates a condition would
    // abort the process with a second panic.
    if left == 0 && !std::thread::panicking() {
        panic!("{OUT_OF_FUEL}");
    }
    (m.branch == branch).then_some(m.to)
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
    MUTANT.with(|m| m.set(Some((address(sites), mutation))));
    FUEL.with(|fuel| fuel.set(MUTANT_FUEL));
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
pub fn compare(at: impl Site, id: u32, value: bool, op: Op, info: Option<Cmp>) -> bool {
    at.frame().record(id, branch_distances(value, op, info));
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
    at: impl Site,
    id: u32,
    index: u32,
    value: bool,
    op: Op,
    info: impl FnOnce() -> Option<Cmp>,
    order: impl FnOnce() -> Option<std::cmp::Ordering>,
) -> bool {
    let frame = at.frame();
    if frame.taken_only {
        if let Some(state) = frame.state() {
            keep_taken(state, (frame.base + id + u32::from(!value)) as usize);
        }
        return value;
    }
    let (sites, base) = (frame.sites, frame.base);
    let mut state = frame.state();
    let first = (base + goal_slot(sites, index, 0)) as usize;
    let recording = match &state {
        Some(state) => state.recording.get(first).copied().unwrap_or_default(),
        None => Recording::Taken,
    };
    let mutating = frame.mutating;
    // The common case once generation met a comparison's goals: one slot,
    // and the operands are not looked at again.
    if recording == Recording::Taken && !mutating {
        if let Some(state) = state {
            keep_taken(state, (base + id + u32::from(!value)) as usize);
        }
        return value;
    }
    let info = info();
    // Integers keep the differences closest to 0 and turn them into
    // distances once, when the call ends ([`Closest`]).
    if !mutating {
        let difference = info.and_then(|cmp| integer_difference(op, value, cmp));
        if let (Some(state), Some(d)) = (state.as_deref_mut(), difference) {
            let site = IntegerSite {
                first: first as u32,
                outcome: base + id,
                op,
                goals: recording == Recording::Full,
            };
            keep_closest(state, site, d);
            return value;
        }
    }
    let order = match info {
        Some(cmp) => cmp.order,
        // The type's own `partial_cmp`, which the operator as written need
        // not have called (ordered-float's `<` calls its `lt`): paused, so
        // that what it runs is not the call's coverage, and a `partial_cmp`
        // that calls `cmp`, whose `<` carve instruments, does not ask for
        // the order again until the stack overflows.
        None if op.is_relational() => paused(order),
        None => None,
    };
    if let Some(state) = state {
        match recording {
            Recording::Taken => {
                keep_taken(state, (base + id + u32::from(!value)) as usize)
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
        match frame.mutant(id) {
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
    at: impl Site,
    index: u32,
    op: Arith,
    l: T,
    r: T,
    original: impl FnOnce(T, T) -> T,
) -> T {
    let frame = at.frame();
    if frame.taken_only {
        return original(l, r);
    }
    let first_slot = goal_slot(frame.sites, index, 0);
    if let Some(Replacement::Arith(to)) = frame.mutant(first_slot) {
        return T::apply(to, l, r);
    }
    let first = (frame.base + first_slot) as usize;
    if let Some(state) = frame.state() {
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
pub fn swapped(at: impl Site, branch: u32) -> bool {
    at.frame().mutant(branch) == Some(Replacement::Swap)
}

/// Whether the `match` arm of outcome `arm` is there: false only while
/// this thread runs the mutant deleting it (the instrumented twin guards
/// the arm with this).
#[inline(always)]
pub fn kept(at: impl Site, arm: u32) -> bool {
    at.frame().mutant(arm) != Some(Replacement::Delete)
}

/// A `for` loop's iterator that records, per item, whether the body was
/// entered (`Some`) or the loop left (`None`).
pub struct Loop<I, S> {
    inner: I,
    at: S,
    id: u32,
}

impl<I, S: Site> Loop<I, S> {
    /// Wraps the loop's iterator; `id` is "entered", `id + 1` "left".
    pub fn new(inner: I, at: S, id: u32) -> Self {
        Loop { inner, at, id }
    }
}

impl<I: Iterator, S: Site> Iterator for Loop<I, S> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next();
        hit(self.at, if item.is_some() { self.id } else { self.id + 1 });
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
    /// Where each table's entries are in `reached`, by table address:
    /// generation looks up about a hundred goals per execution on semver,
    /// and a search over the whole trace for each was 13% of a worker's
    /// instructions. Empty for a trace of one table (most of the dogfood's),
    /// which needs none ([`Trace::table`]).
    tables: TableIndex,
}

/// Where each table's entries are in a trace's `reached`, by table
/// address, and which table was looked up last: the goals of one function
/// are read one after the other, so most lookups find their table there
/// instead of searching (a search per lookup was 10% of semver's worker).
#[derive(Debug, Default)]
struct TableIndex {
    /// One run per table, by address.
    runs: Vec<Run>,
    /// The [`Position`] of the table looked up last. Only a hint: a lookup
    /// checks that it holds the table it wants, so threads that share a
    /// trace may overwrite each other's.
    last: AtomicUsize,
}

impl Clone for TableIndex {
    fn clone(&self) -> Self {
        TableIndex {
            runs: self.runs.clone(),
            last: AtomicUsize::new(self.last.load(Ordering::Relaxed)),
        }
    }
}

impl TableIndex {
    /// The index of the tables' `runs` (by address); none for one table
    /// or none, whose runs' room is kept for the next trace.
    #[inline]
    fn new(runs: Vec<Run>) -> TableIndex {
        if runs.len() <= 1 {
            Run::recycle(runs);
            return TableIndex::default();
        }
        TableIndex {
            runs,
            last: AtomicUsize::new(0),
        }
    }

    /// The range in `reached` of the table at `key`.
    #[inline]
    fn range(&self, key: usize) -> std::ops::Range<usize> {
        let starts = &*self.runs;
        // Where `key` is or would be in `starts`, and whether it is there.
        let (i, present) = match Position::from(self.last.load(Ordering::Relaxed)) {
            Position { at, present: true } if starts.get(at).is_some_and(|r| r.table == key) => (at, true),
            Position { at, present: false }
                if (at == 0 || starts.get(at - 1).is_some_and(|r| r.table < key))
                    && starts.get(at).is_none_or(|r| r.table > key) =>
            {
                (at, false)
            }
            _ => {
                let at = starts.partition_point(|r| r.table < key);
                let present = starts.get(at).is_some_and(|r| r.table == key);
                self.last.store(Position { at, present }.into(), Ordering::Relaxed);
                (at, present)
            }
        };
        match present {
            true => starts[i].start..starts[i].end,
            false => 0..0,
        }
    }
}

/// Where one table's entries are in a trace: `reached[start..end]`.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// The table's address.
    table: usize,
    start: usize,
    end: usize,
}

impl Run {
    /// The runs of `reached` (sorted by table address), in the room a
    /// dropped trace left.
    fn of(reached: &[(&'static Sites, u32, f64)]) -> Vec<Run> {
        let mut runs = RUNS_ROOM.with(Cell::take);
        for (at, (s, _, _)) in reached.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.table == address(s) => run.end = at + 1,
                _ => runs.push(Run { table: address(s), start: at, end: at + 1 }),
            }
        }
        runs
    }

    /// Keeps the room of `runs` for the next trace on this thread (unless
    /// it has none, or more than a trace's room may keep).
    fn recycle(mut runs: Vec<Run>) {
        if runs.capacity() > 0 && runs.capacity() <= TRACE_ROOM_MAX {
            runs.clear();
            let _ = RUNS_ROOM.try_with(|r| r.set(runs));
        }
    }
}

/// Where a table is, or would be, in a [`TableIndex`]: a function the call
/// did not enter is looked up as often as one it did (fitnesses ask
/// whether each goal's function was entered).
#[derive(Clone, Copy)]
struct Position {
    at: usize,
    present: bool,
}

impl From<usize> for Position {
    fn from(packed: usize) -> Position {
        Position {
            at: packed >> 1,
            present: packed & 1 == 1,
        }
    }
}

impl From<Position> for usize {
    fn from(position: Position) -> usize {
        position.at << 1 | usize::from(position.present)
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        Run::recycle(std::mem::take(&mut self.tables.runs));
        let room = self.reached.capacity();
        if room == 0 || room > TRACE_ROOM_MAX {
            return;
        }
        let mut reached = std::mem::take(&mut self.reached);
        reached.clear();
        // Kept for the next collection on this thread (as it ends, a thread
        // drops what it still holds; the room of a trace dropped after that
        // is freed here).
        let _ = TRACE_ROOM.try_with(|r| r.set(reached));
    }
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
        // A search among the table's entries: fitnesses ask this of every
        // goal's function, for every call.
        self.function(sites).entered(sites)
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
        self.table(sites).iter().map(|(_, id, d)| (*id, *d))
    }

    /// Everything recorded: `(table, outcome id, distance)`, sorted.
    pub fn entries(&self) -> &[(&'static Sites, u32, f64)] {
        &self.reached
    }

    /// A trace of these outcomes (as [`Trace::entries`] gives them, in any
    /// order): a generation worker reads traces back from its journal.
    pub fn from_entries(mut reached: Vec<(&'static Sites, u32, f64)>) -> Trace {
        reached.sort_by_key(|(sites, id, _)| (*sites as *const Sites, *id));
        Trace::sorted(reached)
    }

    /// A trace of `reached`, sorted by table address and id.
    fn sorted(reached: Vec<(&'static Sites, u32, f64)>) -> Trace {
        let runs = Run::of(&reached);
        Trace::indexed(reached, runs)
    }

    /// A trace of `reached`, sorted by table address and id, whose tables'
    /// entries are where `runs` says.
    #[inline]
    fn indexed(reached: Vec<(&'static Sites, u32, f64)>, runs: Vec<Run>) -> Trace {
        Trace {
            reached,
            tables: TableIndex::new(runs),
        }
    }

    /// The smallest distance to outcome `id` of `sites`, if reached.
    pub fn distance(&self, sites: &Sites, id: u32) -> Option<f64> {
        self.function(sites).distance(sites, id)
    }

    /// The entries of `sites`, found through the index of the trace's
    /// tables.
    fn table(&self, sites: &Sites) -> &[(&'static Sites, u32, f64)] {
        // Entries are sorted by table: when the first and the last are of
        // one table, all are, and the trace has no index (made and cloned
        // with every trace, one was 4% of the in-process generation loop
        // on cgi_decode, whose calls enter one function).
        match (self.reached.first(), self.reached.last()) {
            (None, _) | (_, None) => return &[],
            (Some((first, ..)), Some((last, ..))) if std::ptr::eq(*first, *last) => {
                return match std::ptr::eq(*first, sites) {
                    true => &self.reached,
                    false => &[],
                };
            }
            _ => {}
        }
        &self.reached[self.tables.range(address(sites))]
    }

    /// The smallest distance recorded in goal slot `slot` ([`slot`]) of the
    /// `index`-th comparison of `sites`, if it was recorded.
    pub fn slot_distance(&self, sites: &Sites, index: u32, slot: u32) -> Option<f64> {
        self.function(sites).slot_distance(sites, index, slot)
    }

    /// What the call recorded in the function of `sites`, found once for
    /// the goals of that function to read.
    ///
    /// ```
    /// use carve::coverage::{self, Distances};
    /// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
    /// let (_, trace) = coverage::collect(|| coverage::enter(&SITES));
    /// let function = trace.function(&SITES);
    /// assert!(trace.entered(&SITES));
    /// assert_eq!(function.distance(&SITES, 0), trace.distance(&SITES, 0));
    /// ```
    pub fn function(&self, sites: &Sites) -> FunctionTrace<'_> {
        FunctionTrace {
            entries: self.table(sites),
        }
    }
}

/// What a goal of one function reads of a call: the distances its table
/// recorded. A [`Trace`] answers for every function; a [`FunctionTrace`]
/// for the one it was made for, without looking for its table again.
///
/// ```
/// use carve::coverage::{self, Distances, Trace};
/// # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
/// fn reached(trace: &impl Distances, id: u32) -> bool {
///     trace.distance(&SITES, id).is_some()
/// }
/// let trace = Trace::default();
/// assert!(!reached(&trace, 0) && !reached(&trace.function(&SITES), 0));
/// ```
pub trait Distances {
    /// The smallest distance to outcome `id` of `sites`, if reached.
    fn distance(&self, sites: &Sites, id: u32) -> Option<f64>;
    /// The smallest distance recorded in goal slot `slot` ([`slot`]) of
    /// the `index`-th comparison of `sites`, if it was recorded.
    fn slot_distance(&self, sites: &Sites, index: u32, slot: u32) -> Option<f64>;
}

impl Distances for Trace {
    fn distance(&self, sites: &Sites, id: u32) -> Option<f64> {
        Trace::distance(self, sites, id)
    }
    fn slot_distance(&self, sites: &Sites, index: u32, slot: u32) -> Option<f64> {
        Trace::slot_distance(self, sites, index, slot)
    }
}

/// The entries one function's table recorded in a call ([`Trace::function`]):
/// what its goals read, a search among its own entries each (a goal's
/// lookups each looked for the table in the trace first: 10% of semver's
/// worker's instructions).
#[derive(Debug, Clone, Copy)]
pub struct FunctionTrace<'a> {
    entries: &'a [(&'static Sites, u32, f64)],
}

impl FunctionTrace<'_> {
    /// Whether the call entered the function of `sites`.
    fn entered(&self, sites: &Sites) -> bool {
        self.lookup(entered_slot(sites)).is_some()
    }

    /// What was recorded at `id` (the entries are all of one table, by id).
    fn lookup(&self, id: u32) -> Option<f64> {
        let at = self.entries.binary_search_by_key(&id, |&(_, i, _)| i).ok()?;
        Some(self.entries[at].2)
    }
}

impl Distances for FunctionTrace<'_> {
    fn distance(&self, sites: &Sites, id: u32) -> Option<f64> {
        if id >= sites.branches.len() as u32 {
            return None;
        }
        self.lookup(id)
    }
    fn slot_distance(&self, sites: &Sites, index: u32, slot: u32) -> Option<f64> {
        self.lookup(goal_slot(sites, index, slot))
    }
}

/// A table's address: how a function is told apart within one process
/// (a trace's entries are sorted by it).
pub(crate) fn address(sites: &Sites) -> usize {
    sites as *const Sites as usize
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
    // Nor do the edge counters of code carve does not instrument show it.
    outside_collection(|| counters::paused(f))
}

/// [`paused`] for what runs before a call's body (rebuilding its
/// arguments): the edge counters then start from zero, as if the call
/// started there, instead of being put back as they were. Nothing before
/// the body counts for the call, so there is nothing to put back: saving
/// and restoring the counted counters around it was 16% of semver's
/// generation worker.
///
/// ```
/// # use carve::coverage;
/// let (paused, _) = coverage::collect(|| coverage::paused_before_call(coverage::active));
/// assert!(!paused);
/// ```
pub fn paused_before_call<R>(f: impl FnOnce() -> R) -> R {
    outside_collection(|| counters::restarted(f))
}

/// Runs `f` with this thread's collection, if any, set aside.
fn outside_collection<R>(f: impl FnOnce() -> R) -> R {
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
    f()
}

/// Each of `kept` made the smaller of it and its counterpart in `new`.
#[inline(always)]
fn smallest<const N: usize>(kept: &mut [f64; N], new: [f64; N]) {
    for (kept, new) in kept.iter_mut().zip(new) {
        if new < *kept {
            *kept = new;
        }
    }
}

/// Appends what the call reached to `reached`, `(table, outcome id,
/// distance)` in ascending global index (table by table, ids ascending),
/// and to `runs` where each table's entries are; the slots reset for the
/// next call.
fn reached_of(
    tables: &[(u32, &'static Sites)],
    slots: &mut Slots,
    reached: &mut Vec<(&'static Sites, u32, f64)>,
    runs: &mut Vec<Run>,
) {
    let count = slots.count();
    reached.reserve(count);
    let start = reached.len();
    let first_run = runs.len();
    // Written into the room reserved, counted in a local: pushed, each
    // entry loaded and stored the vector's length and checked its capacity
    // (callgrind: about a third of what an entry cost).
    let room = &mut reached.spare_capacity_mut()[..count];
    let mut written = 0;
    // Indices ascend, so they come table by table (bases ascend): a table
    // is looked up when an index passes the end of the last one's.
    let (mut base, mut end, mut sites) = (0, 0, None);
    slots.drain(|index, d| {
        if index >= end {
            let at = tables.partition_point(|(b, _)| *b <= index).saturating_sub(1);
            let Some(&(b, s)) = tables.get(at) else {
                sites = None;
                return;
            };
            base = b;
            end = tables.get(at + 1).map_or(u32::MAX, |(b, _)| *b);
            sites = Some(s);
            // Its end is the next one's start, set below.
            runs.push(Run { table: address(s), start: start + written, end: 0 });
        }
        if let (Some(sites), Some(entry)) = (sites, room.get_mut(written)) {
            entry.write((sites, index - base, d));
            written += 1;
        }
    });
    // SAFETY: the `written` entries after `start` were written just above,
    // in the vector's spare capacity (`written <= count`, which was reserved).
    unsafe { reached.set_len(start + written) };
    let mut end = start + written;
    for run in runs[first_run..].iter_mut().rev() {
        run.end = end;
        end = run.start;
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
    let mut state = SPARE.with(|s| s.borrow_mut().take()).unwrap_or_default();
    COLLECTING.fetch_add(1, Ordering::Relaxed);
    ACTIVE.with(|a| a.set(true));
    STATE.with(|s| s.set(std::ptr::addr_of_mut!(*state)));
    let stop = Stop(false);
    let value = f();
    drop(stop);
    settle_integers(&mut state);
    let mut reached = TRACE_ROOM.with(Cell::take);
    TABLES.with(|tables| {
        let mut tables = tables.borrow_mut();
        if tables.len() != REGISTERED.load(Ordering::Acquire) {
            tables.clone_from(&REGISTRY.lock().unwrap_or_else(|e| e.into_inner()));
        }
        let State { slots, runs, .. } = &mut *state;
        reached_of(&tables, slots, &mut reached, runs);
    });
    let mut runs = match state.runs.len() {
        0 | 1 => {
            state.runs.clear();
            Vec::new()
        }
        _ => std::mem::replace(&mut state.runs, RUNS_ROOM.with(Cell::take)),
    };
    SPARE.with(|s| {
        if let Some(other) = s.borrow_mut().replace(state) {
            RETIRED.with(|r| r.borrow_mut().push(other));
        }
    });
    // The trace is ordered by table address, then id: the entries came
    // table by table in the order of the tables' global indices, so where
    // that is not the address order, the tables' runs are moved into it
    // (a sort of every entry by address was 2.4% of humantime's worker),
    // and the runs are the trace's table index, made here at no cost.
    if !runs.is_sorted_by_key(|run| run.table) {
        reached = in_address_order(reached, &mut runs);
    }
    (value, Trace::indexed(reached, runs))
}

/// `reached` (a call's entries, table by table, each table's ids in
/// order, where `runs` says) with its tables' runs in address order, and
/// `runs` made to say where they are now.
fn in_address_order(
    mut reached: Vec<(&'static Sites, u32, f64)>,
    runs: &mut [Run],
) -> Vec<(&'static Sites, u32, f64)> {
    runs.sort_unstable_by_key(|run| run.table);
    let mut ordered = REORDER_ROOM.with(Cell::take);
    ordered.reserve(reached.len());
    for run in runs {
        let start = ordered.len();
        ordered.extend_from_slice(&reached[run.start..run.end]);
        (run.start, run.end) = (start, ordered.len());
    }
    if reached.capacity() <= TRACE_ROOM_MAX {
        reached.clear();
        REORDER_ROOM.with(|r| r.set(reached));
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Branch, BranchKind, Side};

    #[test]
    fn a_frame_of_a_table_whose_comparisons_are_all_met_records_the_outcome_taken_only() {
        use crate::registry::{Condition, Form};
        const fn compare(branch: u32, index: u32) -> Condition {
            Condition {
                branch,
                form: Form::Compare { op: Op::Gt, index },
            }
        }
        const fn side(side: Side) -> Branch {
            Branch {
                kind: BranchKind::Condition,
                condition: "x > 3",
                side,
                line: 1,
                col: 1,
                parent: u32::MAX,
            }
        }
        const SIDES: [Branch; 4] = [side(Side::True), side(Side::False), side(Side::True), side(Side::False)];
        static TWO: Sites = Sites::new("t::m", "two", "f.rs", (1, 1), &SIDES, &[])
            .with_conditions(&[compare(0, 0), compare(2, 1)]);
        // `x > 3` at x = 3 and `y > 3` at y = 9, through a frame.
        let call = || {
            let frame = Frame::enter(&TWO);
            let gt = |id, index, d: f64| {
                compare_with_goals(&frame, id, index, d > 0.0, Op::Gt, || Some(Cmp::numeric(d)), || None)
            };
            (gt(0, 0, 0.0), gt(2, 1, 6.0))
        };
        let slots = |trace: &Trace| trace.entries().len();
        let (_, full) = collect(call);
        // One comparison still open: both record as before.
        set_recording(&[(&TWO, 0, Recording::Taken)]);
        let (_, one_open) = collect(call);
        assert!(slots(&one_open) > 4, "{:?}", one_open.entries());
        assert_eq!(one_open.distance(&TWO, 2), Some(0.0));
        // Both met: the taken outcomes and the entered slot, nothing more.
        set_recording(&[(&TWO, 0, Recording::Taken), (&TWO, 1, Recording::Taken)]);
        let (values, met) = collect(call);
        assert_eq!(values, (false, true));
        assert_eq!(slots(&met), 3, "{:?}", met.entries());
        assert_eq!(met.covered(&TWO).collect::<Vec<_>>(), [1, 2]);
        assert!(met.entered(&TWO));
        // Under a mutant of the table, a comparison evaluates it.
        let ge = Mutation {
            branch: 0,
            to: Replacement::Op(Op::Ge),
        };
        let (mutated, _) = collect(|| with_mutant(&TWO, ge, call));
        assert_eq!(mutated, (true, true));
        set_recording(&[]);
        assert_eq!(collect(call).1, full);
    }

    #[test]
    fn a_mutant_that_never_ends_runs_out_of_fuel_and_the_next_starts_full() {
        static LOOP: Sites = Sites::new("t::m", "spin", "f.rs", (1, 1), &[], &[]);
        // `loop { if n >= 10 { break } if n < 20 { n += 1 } }`: negating
        // the second condition leaves `n` at 0 for ever.
        let spin = || {
            let mut n = 0u32;
            let mut steps = 0u32;
            loop {
                steps += 1;
                if boolean(&LOOP, 0, n >= 10) {
                    return steps;
                }
                if boolean(&LOOP, 2, n < 20) {
                    n += 1;
                }
            }
        };
        let negate = |branch| Mutation {
            branch,
            to: Replacement::Negate,
        };
        assert_eq!(collect(spin).0, 11);
        let ended = crate::panics::quietly(|| {
            std::panic::catch_unwind(|| collect(|| with_mutant(&LOOP, negate(2), spin)))
        });
        let payload = ended.expect_err("the endless mutant panics");
        assert_eq!(crate::panics::panic_message(&*payload), OUT_OF_FUEL);
        // A mutant that ends is unaffected, on a full tank again.
        let ends = || with_mutant(&LOOP, negate(0), || boolean(&LOOP, 0, false));
        assert!(collect(ends).0);
        assert_eq!(collect(spin).0, 11, "no mutant once it unwound");
    }

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

    /// A condition's outcome, for tables made in tests.
    const BRANCH: Branch = Branch {
        kind: BranchKind::Condition,
        condition: "c",
        side: Side::True,
        line: 1,
        col: 1,
        parent: u32::MAX,
    };

    #[test]
    fn a_trace_lists_what_each_table_reached_in_order_whatever_the_order_of_the_calls() {
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
    }

    #[test]
    fn tables_registered_out_of_address_order_come_out_in_it_and_are_looked_up() {
        static TABLES: [Sites; 6] = [
            Sites::new("t::o", "f0", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::o", "f1", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::o", "f2", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::o", "f3", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::o", "f4", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::o", "f5", "f.rs", (1, 1), &[BRANCH; 4], &[]),
        ];
        // Registered (given their global indices) in this order, which is
        // not the order of their addresses.
        collect(|| [3, 0, 5, 1, 4, 2].into_iter().for_each(|t| enter(&TABLES[t])));
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..50 {
            let hits: Vec<(usize, u32)> = (0..rng.random_range(0..12))
                .map(|_| (rng.random_range(0..6), rng.random_range(0..4)))
                .collect();
            let (_, trace) = collect(|| hits.iter().for_each(|&(t, id)| hit(&TABLES[t], id)));
            let mut expected: Vec<(*const Sites, u32)> =
                hits.iter().map(|&(t, id)| (&TABLES[t] as *const Sites, id)).collect();
            expected.sort();
            expected.dedup();
            let entries: Vec<(*const Sites, u32)> =
                trace.entries().iter().map(|(s, id, _)| (*s as *const Sites, *id)).collect();
            assert_eq!(entries, expected, "hits {hits:?}");
            for (t, table) in TABLES.iter().enumerate() {
                for id in 0..4 {
                    let hit = hits.contains(&(t, id)).then_some(0.0);
                    assert_eq!(trace.distance(table, id), hit, "table {t}, outcome {id}, hits {hits:?}");
                }
            }
        }
    }

    #[test]
    fn lookups_answer_the_same_in_any_order_of_tables_reached_or_not() {
        static TABLES: [Sites; 5] = [
            Sites::new("t::m", "f0", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::m", "f1", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::m", "f2", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::m", "f3", "f.rs", (1, 1), &[BRANCH; 4], &[]),
            Sites::new("t::m", "f4", "f.rs", (1, 1), &[BRANCH; 4], &[]),
        ];
        // Tables 1 and 3 reached (outcomes 1 and 3 at distance 0); 0, 2 and 4
        // not: every lookup order moves the remembered position differently.
        let trace = Trace::from_entries(vec![(&TABLES[3], 3, 0.0), (&TABLES[1], 1, 0.0)]);
        let expected = |t: usize, id: u32| ((t == 1 || t == 3) && id == t as u32).then_some(0.0);
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..500 {
            let (t, id) = (rng.random_range(0..5), rng.random_range(0..4));
            assert_eq!(trace.distance(&TABLES[t], id), expected(t, id), "table {t}, outcome {id}");
        }
        let copy = trace.clone();
        assert_eq!(copy.distance(&TABLES[0], 0), None);
        assert_eq!(copy.distance(&TABLES[3], 3), Some(0.0));
        // One table reached (looked up without an index), and none.
        let one = Trace::from_entries(vec![(&TABLES[2], 2, 0.0), (&TABLES[2], 0, 1.0)]);
        for (t, table) in TABLES.iter().enumerate() {
            for id in 0..4 {
                let expected = (t == 2).then(|| [Some(1.0), None, Some(0.0), None][id as usize]).flatten();
                assert_eq!(one.distance(table, id), expected, "table {t}, outcome {id}");
                assert_eq!(Trace::default().distance(table, id), None);
            }
            assert!(!one.entered(table));
        }
    }

    #[test]
    fn a_trace_made_in_the_room_of_a_dropped_one_holds_only_its_own_call() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        static ONE: Sites = Sites::new("t::m", "one", "f.rs", (1, 1), &[BRANCH; 70], &[]);
        static TWO: Sites = Sites::new("t::m", "two", "f.rs", (1, 1), &[BRANCH; 3], &[]);
        let mut rng = StdRng::seed_from_u64(9);
        let mut kept = Vec::new();
        for round in 0..300 {
            let hits: Vec<(&'static Sites, u32)> = (0..rng.random_range(0..40))
                .map(|_| match rng.random_range(0..3) {
                    0 => (&TWO, rng.random_range(0..3)),
                    _ => (&ONE, rng.random_range(0..70)),
                })
                .collect();
            let (_, trace) = collect(|| hits.iter().for_each(|&(sites, id)| hit(sites, id)));
            // Each outcome once, at distance 0, whatever the order of the hits.
            let mut once: Vec<(&'static Sites, u32, f64)> = Vec::new();
            for &(sites, id) in &hits {
                if !once.iter().any(|(s, i, _)| std::ptr::eq(*s, sites) && *i == id) {
                    once.push((sites, id, 0.0));
                }
            }
            let expected = Trace::from_entries(once);
            assert_eq!(trace, expected, "round {round}");
            // Some traces are kept past the next call, most are dropped
            // (their room reused), some cloned.
            match round % 3 {
                0 => kept.push((trace.clone(), expected)),
                1 => kept.push((trace, expected)),
                _ => drop(trace),
            }
        }
        // What was kept is what its call reached, whatever the calls after it.
        for (trace, expected) in &kept {
            assert_eq!(trace, expected);
        }
    }

    #[test]
    fn integer_comparisons_record_what_each_evaluation_would_have_recorded() {
        use crate::registry::{Condition, Form};
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        const BRANCH: Branch = Branch {
            kind: BranchKind::Condition,
            condition: "l op r",
            side: Side::True,
            line: 1,
            col: 1,
            parent: u32::MAX,
        };
        // Three comparisons: outcomes 0..6, goal slots from 7 on (their
        // operators here only reserve the slots).
        const fn compare(branch: u32, index: u32) -> Condition {
            Condition { branch, form: Form::Compare { op: Op::Eq, index } }
        }
        static SITES: Sites = Sites::new("t::m", "ints", "f.rs", (1, 1), &[BRANCH; 6], &[])
            .with_conditions(&[compare(0, 0), compare(2, 1), compare(4, 2)]);
        const OPS: [Op; 6] = [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge];
        const LEVELS: [Recording; 3] = [Recording::Full, Recording::Outcomes, Recording::Taken];
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..500 {
            let ops: [Op; 3] = std::array::from_fn(|_| OPS[rng.random_range(0..OPS.len())]);
            let levels: [Recording; 3] =
                std::array::from_fn(|_| LEVELS[rng.random_range(0..LEVELS.len())]);
            let evaluations: Vec<(u32, i64, i64)> = (0..rng.random_range(0..12))
                .map(|_| {
                    let wide = rng.random_range(0..8) == 0;
                    let span = if wide { i64::MAX / 2 } else { 3 };
                    (rng.random_range(0..3), rng.random_range(-span..=span), rng.random_range(-3..=3))
                })
                .collect();
            // What recording each evaluation on its own and keeping the
            // smallest distance per slot gives.
            let mut expected = std::collections::BTreeMap::<u32, f64>::new();
            let mut keep = |at: u32, d: f64| {
                if d.is_finite() {
                    let slot = expected.entry(at).or_insert(f64::INFINITY);
                    *slot = slot.min(d);
                }
            };
            for &(k, l, r) in &evaluations {
                let op = ops[k as usize];
                let cmp = Cmp::numeric((l - r) as f64);
                let value = op.holds(l.cmp(&r));
                let outcome = 2 * k;
                match levels[k as usize] {
                    Recording::Taken => keep(outcome + u32::from(!value), 0.0),
                    level => {
                        let [t, f] = branch_distances(value, op, Some(cmp));
                        keep(outcome, t);
                        keep(outcome + 1, f);
                        if level == Recording::Full {
                            let goals = goal_distances(op, value, Some(cmp), cmp.order);
                            for (slot, d) in (0..).zip(goals) {
                                keep(goal_slot(&SITES, k, slot), d);
                            }
                        }
                    }
                }
            }
            let levels: Vec<_> = (0..3).map(|k| (&SITES, k, levels[k as usize])).collect();
            set_recording(&levels);
            let (_, trace) = collect(|| {
                for &(k, l, r) in &evaluations {
                    let op = ops[k as usize];
                    let value = op.holds(l.cmp(&r));
                    compare_with_goals(&SITES, 2 * k, k, value, op, || Some(Cmp::numeric((l - r) as f64)), || None);
                }
            });
            set_recording(&[]);
            let got: Vec<(u32, f64)> = trace.entries().iter().map(|&(_, id, d)| (id, d)).collect();
            let expected: Vec<(u32, f64)> = expected.into_iter().collect();
            assert_eq!(got, expected, "{ops:?} {evaluations:?}");
        }
    }
}
