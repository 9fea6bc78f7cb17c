//! A target's reach: the instrumented functions its calls enter, and the
//! branch outcomes of all of them numbered as one set of *goals*, with the
//! fitness of a call for each (approach level + normalized branch distance),
//! across function boundaries.
//!
//! Within a function, the approach level counts control-dependence levels
//! between the closest outcome the call reached and the goal. When the call
//! never entered the goal's function, the fitness follows the call sites
//! that lead to it (each instrumented function lists the calls it makes): it
//! is the fitness of reaching the call site's outcome in the caller, plus
//! one level for entering the callee, plus the goal's depth inside it.
//!
//! ```
//! use carve::coverage::reach::Reach;
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! let reach = Reach::single(&SITES);
//! assert_eq!(reach.len(), 0);
//! ```

use std::collections::{BTreeMap, BTreeSet};

use crate::coverage::fitness::{fitness_within, Fitness};
use crate::coverage::goals::{self, Goal, GoalKind};
use crate::coverage::{address, FunctionTrace, Recording, Trace};
use crate::registry::Sites;

/// The functions in a target's reach, their outcomes numbered as goals
/// (the target's own outcomes first, with their own ids), and the call
/// sites between them. With [`Reach::with_goals`], the boundary and
/// weak-mutation goals of those functions ([`crate::coverage::goals`]) are
/// numbered after every branch outcome.
#[derive(Debug, Clone)]
pub struct Reach {
    functions: Vec<&'static Sites>,
    /// First goal of each function.
    offsets: Vec<u32>,
    /// Per function: `(caller, outcome the call is made under)` for every
    /// call site in reach that may call it.
    callers: Vec<Vec<(usize, Option<u32>)>>,
    /// Branch outcomes in reach: goals `0..branches`.
    goals: u32,
    /// Boundary and mutant goals (`branches..`), with their function.
    extra: Vec<(usize, Goal)>,
    /// The functions' table addresses, sorted: whether a trace's entry is
    /// in reach is a binary search ([`Reach::outside`]).
    addresses: Vec<usize>,
}

/// What the fitness of the open goals may read ([`Reach::recording`]).
#[derive(Default)]
struct Read {
    /// `(function, outcome)` whose distance may be read.
    outcomes: BTreeSet<(usize, u32)>,
    /// Functions whose entry fitness may be read.
    entries: BTreeSet<usize>,
}

impl Reach {
    #[cfg(any(test, feature = "_internals"))]
    /// A reach of one function alone.
    pub fn single(sites: &'static Sites) -> Reach {
        Reach::new(sites, [], &[])
    }

    /// The reach of `target`: itself, the functions its calls `entered`, and
    /// the functions in `known` that any of those calls by name (and so on,
    /// transitively), so that search can steer into a helper no call has
    /// entered yet.
    pub fn new(
        target: &'static Sites,
        entered: impl IntoIterator<Item = &'static Sites>,
        known: &[&'static Sites],
    ) -> Reach {
        let mut functions = vec![target];
        let mut entered: Vec<&'static Sites> = entered
            .into_iter()
            .filter(|s| !std::ptr::eq(*s, target))
            .collect();
        entered.sort_by_key(|s| (s.name(), s.file, s.lines));
        for sites in entered {
            if !functions.iter().any(|f| std::ptr::eq(*f, sites)) {
                functions.push(sites);
            }
        }
        // Close over the call sites: callees in `known` join, in name order.
        let mut i = 0;
        while i < functions.len() {
            let caller = functions[i];
            let mut callees: Vec<&'static Sites> = known
                .iter()
                .copied()
                .filter(|callee| !functions.iter().any(|f| std::ptr::eq(*f, *callee)))
                .filter(|callee| caller.calls.iter().any(|c| c.may_call_from(caller.function, callee.function)))
                .collect();
            callees.sort_by_key(|s| (s.name(), s.file, s.lines));
            callees.dedup_by(|a, b| std::ptr::eq(*a, *b));
            functions.extend(callees);
            i += 1;
        }
        let callers = functions
            .iter()
            .map(|callee| {
                let mut into = Vec::new();
                for (index, caller) in functions.iter().enumerate() {
                    for call in caller.calls.iter().filter(|c| c.may_call_from(caller.function, callee.function)) {
                        into.push((index, call.parent()));
                    }
                }
                into.dedup();
                into
            })
            .collect();
        let mut offsets = Vec::with_capacity(functions.len());
        let mut goals = 0u32;
        for sites in &functions {
            offsets.push(goals);
            goals += sites.branches.len() as u32;
        }
        let mut addresses: Vec<usize> = functions.iter().map(|f| address(f)).collect();
        addresses.sort_unstable();
        Reach {
            functions,
            offsets,
            callers,
            goals,
            extra: Vec::new(),
            addresses,
        }
    }

    /// The same reach with the boundary and weak-mutation goals of its
    /// functions numbered after the branch outcomes, function by function.
    pub fn with_goals(mut self) -> Reach {
        self.extra = self
            .functions
            .iter()
            .enumerate()
            .flat_map(|(f, sites)| goals::goals(sites).into_iter().map(move |g| (f, g)))
            .collect();
        self
    }

    /// The goals of every kind whose function `pick` picks.
    pub fn goals_of(&self, pick: impl Fn(&'static Sites) -> bool) -> BTreeSet<u32> {
        let picked: Vec<bool> = self.functions.iter().map(|f| pick(f)).collect();
        let branches = self.functions.iter().enumerate().filter(|(f, _)| picked[*f]).flat_map(
            |(f, sites)| self.offsets[f]..self.offsets[f] + sites.branches.len() as u32,
        );
        let extra = self
            .extra
            .iter()
            .enumerate()
            .filter(|(_, (f, _))| picked[*f])
            .map(|(i, _)| self.goals + i as u32);
        branches.chain(extra).collect()
    }

    /// Number of branch goals (branch outcomes of every function in reach).
    pub fn len(&self) -> u32 {
        self.goals
    }

    /// Number of goals of every kind: branch outcomes, then boundaries and
    /// mutants (none without [`Reach::with_goals`]).
    pub fn all_len(&self) -> u32 {
        self.goals + self.extra.len() as u32
    }

    /// The function and mutant of a goal that asks to kill a mutant that can
    /// be run ([`crate::coverage::with_mutant`]).
    pub fn mutation(&self, goal: u32) -> Option<(&'static Sites, crate::coverage::Mutation)> {
        let (f, g) = self.extra_goal(goal)?;
        Some((self.functions[*f], g.mutation()?))
    }

    /// The kind of a boundary or mutant goal; `None` for a branch outcome.
    pub fn kind(&self, goal: u32) -> Option<GoalKind> {
        self.extra_goal(goal).map(|(_, g)| g.kind)
    }

    fn extra_goal(&self, goal: u32) -> Option<&(usize, Goal)> {
        goal.checked_sub(self.goals)
            .and_then(|i| self.extra.get(i as usize))
    }

    /// The boundary and mutant goals that do not apply to their operands'
    /// types, as these calls show (a relational mutant of `==` on a type
    /// without an order): some call evaluated the condition, and none
    /// showed the goal applies. Generation does not aim at them, and
    /// reports do not count them.
    pub fn inapplicable(&self, traces: &[Trace]) -> BTreeSet<u32> {
        self.extra
            .iter()
            .enumerate()
            .filter(|(_, (f, goal))| {
                let sites = self.functions[*f];
                traces.iter().any(|t| goal.evaluated(sites, t))
                    && !traces.iter().any(|t| goal.applies_in(sites, t))
            })
            .map(|(i, _)| self.goals + i as u32)
            .collect()
    }

    /// `(covered, total)` of the goals of `kind` (`None`: branch outcomes)
    /// that are not `excluded`, given the goals `covered`.
    pub fn count(
        &self,
        kind: Option<GoalKind>,
        covered: &BTreeSet<u32>,
        excluded: &BTreeSet<u32>,
    ) -> (usize, usize) {
        let goals: Vec<u32> = match kind {
            None => (0..self.goals).collect(),
            Some(kind) => (self.goals..self.all_len())
                .filter(|g| self.kind(*g) == Some(kind))
                .collect(),
        };
        let goals = goals.into_iter().filter(|g| !excluded.contains(g));
        goals.fold((0, 0), |(c, t), g| (c + usize::from(covered.contains(&g)), t + 1))
    }

    /// What each comparison in reach must record for the goals `open`
    /// names, as [`crate::coverage::set_recording`] takes it: `(table,
    /// comparison index, recording)`, for the comparisons that need less
    /// than [`Recording::Full`]. A comparison records its goal slots while
    /// an open goal reads them, and the distances of its outcomes while an
    /// open goal's fitness may read them: the goal's own outcomes, their
    /// ancestors, and (through the call sites) those of its function's
    /// callers. Otherwise it records the outcome taken only. (Recording more
    /// than open goals read is always right.)
    pub fn recording(&self, open: impl Fn(u32) -> bool) -> Vec<(&'static Sites, u32, Recording)> {
        // Without goals of its own in reach (a reach made without
        // `with_goals`), nothing reads a comparison's slots.
        let mut slots_read: BTreeMap<(usize, u32), bool> = BTreeMap::new();
        for (f, sites) in self.functions.iter().enumerate() {
            for condition in sites.conditions {
                if let crate::registry::Form::Compare { index, .. }
                | crate::registry::Form::Arith { index, .. } = condition.form
                {
                    slots_read.insert((f, index), false);
                }
            }
        }
        let mut read = Read::default();
        for goal in (0..self.goals).filter(|g| open(*g)) {
            let (f, id) = self.index_of(goal);
            self.mark_read(f, id, &mut read);
        }
        for (i, (f, goal)) in self.extra.iter().enumerate() {
            if !open(self.goals + i as u32) {
                continue;
            }
            if let Some(index) = goal.comparison() {
                slots_read.insert((*f, index), true);
            }
            for id in goal.outcomes_read() {
                self.mark_read(*f, id, &mut read);
            }
        }
        let mut recording = Vec::new();
        for (f, sites) in self.functions.iter().enumerate() {
            for condition in sites.conditions {
                let index = match condition.form {
                    crate::registry::Form::Compare { index, .. } => index,
                    // An operation has no outcomes: its slots or nothing.
                    crate::registry::Form::Arith { index, .. } => {
                        if !slots_read.get(&(f, index)).copied().unwrap_or(false) {
                            recording.push((*sites, index, Recording::Taken));
                        }
                        continue;
                    }
                    _ => continue,
                };
                let distances_read = read.outcomes.contains(&(f, condition.branch))
                    || read.outcomes.contains(&(f, condition.branch + 1));
                match (slots_read.get(&(f, index)).copied().unwrap_or(false), distances_read) {
                    (true, _) => {}
                    (false, true) => recording.push((*sites, index, Recording::Outcomes)),
                    (false, false) => recording.push((*sites, index, Recording::Taken)),
                }
            }
        }
        recording
    }

    /// Marks outcome `id` of function `f` and every outcome a fitness for it
    /// may read on its way up: its ancestors, and the call sites that lead
    /// into `f`, with theirs.
    fn mark_read(&self, f: usize, id: u32, read: &mut Read) {
        let sites = self.functions[f];
        let mut node = Some(id);
        while let Some(at) = node {
            if !read.outcomes.insert((f, at)) {
                // Marked before, and so was everything above it.
                return;
            }
            node = sites.branches.get(at as usize).and_then(|b| b.parent());
        }
        self.mark_entry(f, read);
    }

    /// Marks the outcomes a fitness for entering function `f` reads: those
    /// its call sites are made under, up through the callers.
    fn mark_entry(&self, f: usize, read: &mut Read) {
        if !read.entries.insert(f) {
            return;
        }
        for &(caller, parent) in &self.callers[f] {
            match parent {
                Some(p) => self.mark_read(caller, p, read),
                None => self.mark_entry(caller, read),
            }
        }
    }

    /// Whether there is nothing to cover.
    pub fn is_empty(&self) -> bool {
        self.goals == 0
    }

    /// The functions in reach, the target first.
    pub fn functions(&self) -> &[&'static Sites] {
        &self.functions
    }

    /// The branch outcomes and entries a call took in instrumented
    /// functions outside the reach, as `(table address, outcome id)`, in
    /// the trace's order. Such a function joins the reach of the next run
    /// once a kept call enters it (a trait method like `Iterator::next`
    /// that no call site names by type, a method of a target no carved
    /// call made); until then its outcomes count for keeping calls only,
    /// as edge features do, and no search aims at them.
    pub fn outside<'a>(&'a self, trace: &'a Trace) -> impl Iterator<Item = (usize, u32)> + 'a {
        let mut last: Option<(usize, bool)> = None;
        trace.entries().iter().filter_map(move |(sites, id, distance)| {
            let at = address(sites);
            let inside = match last {
                Some((a, inside)) if a == at => inside,
                _ => {
                    let inside = self.addresses.binary_search(&at).is_ok();
                    last = Some((at, inside));
                    inside
                }
            };
            // The branches and the entry slot after them; goal slots are not outcomes.
            let outcome = *id <= sites.branches.len() as u32;
            (!inside && outcome && *distance == 0.0).then_some((at, *id))
        })
    }

    /// The constants the comparisons, patterns and calls of the functions in
    /// reach use, in order, each once.
    pub fn constants(&self) -> std::collections::BTreeSet<crate::registry::Constant> {
        self.functions
            .iter()
            .flat_map(|sites| sites.dictionary())
            .collect()
    }

    #[cfg(any(test, feature = "_internals"))]
    /// The function and outcome id of `goal`.
    pub fn locate(&self, goal: u32) -> (&'static Sites, u32) {
        let (sites, id) = self.index_of(goal);
        (self.functions[sites], id)
    }

    fn index_of(&self, goal: u32) -> (usize, u32) {
        // A function without outcomes shares its offset with the next one:
        // the last function starting at or before `goal` holds it.
        let f = self.offsets.partition_point(|o| *o <= goal) - 1;
        (f, goal - self.offsets[f])
    }

    #[cfg(any(test, feature = "_internals"))]
    fn branch_count(&self, function: usize) -> u32 {
        self.functions[function].branches.len() as u32
    }

    #[cfg(any(test, feature = "_internals"))]
    /// The goal of outcome `id` of `sites`, if that function is in reach.
    pub fn goal(&self, sites: &Sites, id: u32) -> Option<u32> {
        let f = self
            .functions
            .iter()
            .position(|f| std::ptr::eq(*f, sites))?;
        (id < self.branch_count(f)).then(|| self.offsets[f] + id)
    }

    /// The goals a call took.
    pub fn covered(&self, trace: &Trace) -> BTreeSet<u32> {
        self.covered_goals(trace).collect()
    }

    /// The goals a call took, ascending and each once, without building a
    /// set (functions come in goal order, and a trace lists each function's
    /// outcomes by id).
    pub fn covered_goals<'a>(&'a self, trace: &'a Trace) -> impl Iterator<Item = u32> + 'a {
        self.covered_goals_among(trace, |_| true, self.extra_goals())
    }

    /// The boundary and mutant goals: after every branch outcome.
    pub fn extra_goals(&self) -> std::ops::Range<u32> {
        self.goals..self.all_len()
    }

    /// The goals a call took among the open ones, ascending: the branch
    /// outcomes it took that `open` keeps, and of the boundary and mutant
    /// goals those in `open_extra` (ascending, within
    /// [`Reach::extra_goals`]) it met. Callers list the open extra goals
    /// from a bit set, so that a met one costs nothing: looking at every
    /// extra goal to skip the met ones was 3.4% of semver's worker.
    pub fn covered_goals_among<'a>(
        &'a self,
        trace: &'a Trace,
        open: impl Fn(u32) -> bool + 'a,
        open_extra: impl Iterator<Item = u32> + 'a,
    ) -> impl Iterator<Item = u32> + 'a {
        let branches = self
            .functions
            .iter()
            .zip(&self.offsets)
            .flat_map(move |(sites, offset)| trace.covered(sites).map(move |id| offset + id))
            .filter(move |g| open(*g));
        let last = LastFunction::default();
        let extra = open_extra.filter(move |&g| {
            self.extra_goal(g)
                .is_some_and(|(f, goal)| goal.covered(self.functions[*f], &last.get(self, trace, *f)))
        });
        branches.chain(extra)
    }

    /// `file:line:col `condition` side` of `goal` (of a boundary or mutant:
    /// its label), with the function's name for goals outside the target.
    pub fn describe(&self, goal: u32) -> String {
        let (f, text) = match self.extra_goal(goal) {
            Some((f, g)) => (*f, g.describe(self.functions[*f])),
            None => {
                let (f, id) = self.index_of(goal);
                (f, self.functions[f].describe(id))
            }
        };
        if f == 0 {
            text
        } else {
            format!("{text} in {}", self.functions[f].name())
        }
    }

    #[cfg(any(test, feature = "_internals"))]
    /// The fitness of a call for `goal`.
    pub fn fitness(&self, goal: u32, trace: &Trace) -> Fitness {
        self.fitnesses(trace).of(goal)
    }

    /// The fitnesses of one call for any of the goals: what they share (how
    /// close the call came to entering each function) is worked out once,
    /// when a goal first needs it.
    pub fn fitnesses<'a>(&'a self, trace: &'a Trace) -> Fitnesses<'a> {
        Fitnesses {
            reach: self,
            trace,
            last: LastFunction::default(),
            entered: std::cell::OnceCell::new(),
            entry: std::cell::OnceCell::new(),
        }
    }

    /// Whether the call entered each function of the reach.
    fn entered(&self, trace: &Trace) -> Vec<bool> {
        self.functions.iter().map(|sites| trace.entered(sites)).collect()
    }

    /// How close the call came to entering each function it did not enter:
    /// the best over the paths of callers that lead to it from a function
    /// the call entered.
    ///
    /// Each step of a path adds at least one level, so the best path is a
    /// shortest path, found for every function at once by relaxing the
    /// callers until nothing improves (Bellman–Ford): linear in the call
    /// graph per round, where walking every path was exponential in it (a
    /// crate whose functions call each other densely never finished a call's
    /// fitness).
    fn entry_fitnesses(&self, trace: &Trace, entered: &[bool]) -> Vec<Fitness> {
        let mut entry = vec![Fitness::WORST; self.functions.len()];
        loop {
            let mut improved = false;
            for (g, callers) in self.callers.iter().enumerate() {
                for &(caller, parent) in callers {
                    let candidate = self.through_caller(caller, parent, trace, entered[caller], &entry);
                    if candidate.better_than(entry[g]) {
                        entry[g] = candidate;
                        improved = true;
                    }
                }
            }
            if !improved {
                return entry;
            }
        }
    }

    /// The fitness for entering a function through its call in `caller`,
    /// made under outcome `parent` (`None`: at the caller's top level),
    /// given the entry fitness found so far of each function (`entry`).
    fn through_caller(
        &self,
        caller: usize,
        parent: Option<u32>,
        trace: &Trace,
        entered: bool,
        entry: &[Fitness],
    ) -> Fitness {
        let sites = self.functions[caller];
        match parent {
            Some(p) if entered || caller == 0 => fitness_within(sites, p, trace),
            Some(p) => entry[caller].deeper(sites.depth(p) + 1),
            // Called at the caller's top level: entering the caller is
            // the step before.
            None if entered => Fitness {
                level: 0,
                distance: 1.0,
            },
            None => entry[caller].deeper(1),
        }
    }
}

/// One call's fitnesses for the goals of a [`Reach`] ([`Reach::fitnesses`]).
pub struct Fitnesses<'a> {
    reach: &'a Reach,
    trace: &'a Trace,
    /// What the call recorded in the function whose goal was asked last.
    last: LastFunction<'a>,
    /// Per function of the reach, whether the call entered it: asked for
    /// every goal, and for every caller in each round of
    /// [`Reach::entry_fitnesses`].
    entered: std::cell::OnceCell<Vec<bool>>,
    /// Per function of the reach, how close the call came to entering it.
    entry: std::cell::OnceCell<Vec<Fitness>>,
}

impl<'a> Fitnesses<'a> {
    /// The call's fitness for `goal`.
    pub fn of(&self, goal: u32) -> Fitness {
        let reach = self.reach;
        if let Some((f, g)) = reach.extra_goal(goal) {
            let sites = reach.functions[*f];
            if *f == 0 || self.entered(*f) {
                return g.fitness(sites, &self.function(*f));
            }
            // An operation at the body's top (`u32::MAX`) runs whenever the
            // function does.
            let levels = match g.branch {
                u32::MAX => 0,
                branch => sites.depth(branch) + 1,
            };
            return self.entry(*f).deeper(levels);
        }
        let (f, id) = reach.index_of(goal);
        let sites = reach.functions[f];
        if f == 0 || self.entered(f) {
            return fitness_within(sites, id, &self.function(f));
        }
        // Not entered: how close did the call come to a call site of it?
        self.entry(f).deeper(sites.depth(id) + 1)
    }

    /// What the call recorded in function `f` of the reach.
    fn function(&self, f: usize) -> FunctionTrace<'a> {
        self.last.get(self.reach, self.trace, f)
    }

    fn entered(&self, f: usize) -> bool {
        self.entered.get_or_init(|| self.reach.entered(self.trace))[f]
    }

    fn entry(&self, f: usize) -> Fitness {
        let entered = self.entered.get_or_init(|| self.reach.entered(self.trace));
        self.entry.get_or_init(|| self.reach.entry_fitnesses(self.trace, entered))[f]
    }
}

/// The function of a [`Reach`] whose goal was read last, and what a call
/// recorded in it: goals are read function by function, so each function's
/// table is looked for in the trace once for all its goals.
#[derive(Default)]
struct LastFunction<'a>(std::cell::Cell<Option<(usize, FunctionTrace<'a>)>>);

impl<'a> LastFunction<'a> {
    /// What `trace` recorded in function `f` of `reach`.
    fn get(&self, reach: &Reach, trace: &'a Trace, f: usize) -> FunctionTrace<'a> {
        match self.0.get() {
            Some((at, function)) if at == f => function,
            _ => {
                let function = trace.function(reach.functions[f]);
                self.0.set(Some((f, function)));
                function
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{self, collect};
    use crate::registry::{Branch, BranchKind, CallSite, Side};

    const fn branch(side: Side, parent: u32) -> Branch {
        Branch {
            kind: BranchKind::Condition,
            condition: "x",
            side,
            line: 1,
            col: 1,
            parent,
        }
    }

    // helper: `if x { if y { … } }`: outcomes 0/1 (x), 2/3 (y under x true).
    static HELPER: Sites = Sites::new(
        "k::m",
        "helper",
        "m.rs",
        (1, 5),
        &[
            branch(Side::True, u32::MAX),
            branch(Side::False, u32::MAX),
            branch(Side::True, 0),
            branch(Side::False, 0),
        ],
        &[],
    );
    // target: `if a { helper() }`: outcomes 0/1 (a), calls helper under 0.
    static TARGET: Sites = Sites::new(
        "k::m",
        "target",
        "m.rs",
        (6, 9),
        &[branch(Side::True, u32::MAX), branch(Side::False, u32::MAX)],
        &[CallSite {
            callee: "helper",
            parent: 0,
        }],
    );
    static UNRELATED: Sites = Sites::new(
        "k::m",
        "other",
        "m.rs",
        (10, 11),
        &[branch(Side::True, u32::MAX)],
        &[],
    );

    #[test]
    fn goals_number_the_target_first_then_its_callees() {
        let reach = Reach::new(&TARGET, [], &[&UNRELATED, &HELPER]);
        assert_eq!(reach.len(), 6);
        assert_eq!(reach.functions().len(), 2, "`other` is never called");
        assert_eq!(reach.locate(1).1, 1);
        assert!(std::ptr::eq(reach.locate(2).0, &HELPER));
        assert_eq!(reach.goal(&HELPER, 3), Some(5));
        assert!(reach.describe(5).ends_with("in m::helper"));
    }

    #[test]
    fn outside_lists_what_a_call_took_in_functions_out_of_reach_only() {
        let reach = Reach::single(&TARGET);
        let (_, trace) = collect(|| {
            coverage::enter(&TARGET);
            coverage::hit(&TARGET, 0);
            coverage::enter(&HELPER);
            coverage::compare(&HELPER, 0, true, coverage::Op::Eq, None);
            coverage::compare(&HELPER, 2, false, coverage::Op::Eq, None)
        });
        let helper = address(&HELPER);
        // The entry (slot 4) and the outcomes taken; not the sides only
        // approached (1, 2), not the target's.
        let outside: Vec<(usize, u32)> = reach.outside(&trace).collect();
        assert_eq!(outside, [(helper, 0), (helper, 3), (helper, 4)]);
        let wider = Reach::new(&TARGET, [&HELPER], &[]);
        assert_eq!(wider.outside(&trace).count(), 0);
    }

    #[test]
    fn a_helper_never_entered_is_approached_through_its_call_site() {
        let reach = Reach::new(&TARGET, [], &[&HELPER]);
        // The call took `a` false (1 away from true): the helper's inner
        // outcome is its depth (1) + entering it (1) + 0 levels in the target.
        let (_, trace) = collect(|| {
            coverage::enter(&TARGET);
            coverage::compare(&TARGET, 0, false, coverage::Op::Eq, None)
        });
        let inner = reach.goal(&HELPER, 2).unwrap();
        assert_eq!(
            reach.fitness(inner, &trace),
            Fitness {
                level: 2,
                distance: 1.0
            }
        );
        // Once the helper is entered, only its own levels count.
        let (_, trace) = collect(|| {
            coverage::enter(&TARGET);
            coverage::hit(&TARGET, 0);
            coverage::enter(&HELPER);
            coverage::compare(&HELPER, 0, false, coverage::Op::Eq, None)
        });
        assert_eq!(
            reach.fitness(inner, &trace),
            Fitness {
                level: 1,
                distance: 1.0
            }
        );
        assert_eq!(reach.covered(&trace), BTreeSet::from([0, 3]));
    }

    /// A goal of an operation at a helper's top (no branch above it) in a
    /// helper the call did not enter is approached through the call site,
    /// where its fitness used to index the helper's branches with `u32::MAX`
    /// (semver's `digits`, first contact).
    #[test]
    fn a_goal_at_the_top_of_a_helper_never_entered_is_approached_through_its_call_site() {
        use crate::registry::{Arith, Condition, Form};
        static TOP: Sites = Sites::new("k::m", "helper", "m.rs", (1, 5), &[branch(Side::True, u32::MAX), branch(Side::False, u32::MAX)], &[])
            .with_conditions(&[Condition { branch: u32::MAX, form: Form::Arith { op: Arith::Add, index: 0, text: "a + b", at: (2, 5) } }]);
        let reach = Reach::new(&TARGET, [], &[&TOP]).with_goals();
        let top = (reach.len()..reach.all_len())
            .find(|&g| reach.extra_goal(g).is_some_and(|(f, _)| *f != 0))
            .expect("a goal of the helper's `a + b`");
        let (_, trace) = collect(|| {
            coverage::enter(&TARGET);
            coverage::compare(&TARGET, 0, false, coverage::Op::Eq, None)
        });
        // `a` false, 1 away from the call under its true outcome; the
        // operation is 0 levels into the helper.
        assert_eq!(reach.fitness(top, &trace), Fitness { level: 0, distance: 1.0 });
    }

    #[test]
    fn comparisons_record_what_the_open_goals_read() {
        use crate::coverage::{slot, Cmp, Op};
        use crate::registry::{Condition, Form};
        // `if x > limit { if y == 0 {…} }`: one boundary and five operator
        // mutants of `x > limit`; `y == 0` is nested under its true outcome.
        static GT: Sites = Sites::new("k::m", "gt", "m.rs", (1, 2), &[branch(Side::True, u32::MAX), branch(Side::False, u32::MAX), branch(Side::True, 0), branch(Side::False, 0)], &[])
            .with_conditions(&[
                Condition { branch: 0, form: Form::Compare { op: Op::Gt, index: 0 } },
                Condition { branch: 2, form: Form::Compare { op: Op::Eq, index: 1 } },
            ]);
        let reach = Reach::single(&GT).with_goals();
        let boundary = reach.len();
        let recording = |open: &dyn Fn(u32) -> bool| {
            reach.recording(open).into_iter().map(|(_, index, r)| (index, r)).collect::<Vec<_>>()
        };
        assert_eq!(recording(&|_| true), [], "every goal open: all in full");
        let gt_slots_read = |g: u32| reach.kind(g).is_some() && reach.extra_goal(g).is_some_and(|(_, goal)| goal.comparison() == Some(0));
        assert_eq!(recording(&gt_slots_read), [(1, Recording::Taken)], "only `x > limit`'s goals are open");
        assert_eq!(recording(&|g| g == boundary), [(1, Recording::Taken)], "the boundary is open");
        // An open outcome reads its own and its ancestors' distances.
        assert_eq!(recording(&|g| g == 3), [(0, Recording::Outcomes), (1, Recording::Outcomes)]);
        assert_eq!(recording(&|g| g == 1), [(0, Recording::Outcomes), (1, Recording::Taken)]);
        assert_eq!(recording(&|_| false), [(0, Recording::Taken), (1, Recording::Taken)]);
        let branches_only = Reach::single(&GT);
        assert_eq!(branches_only.recording(|g| g == 1).len(), 2, "no goal reads the slots");
        // Collections record as told until told otherwise.
        let x_gt_3 = || coverage::compare_with_goals(&GT, 0, 0, false, Op::Gt, || Some(Cmp::numeric(0.0)), || None);
        coverage::set_recording(&reach.recording(|g| g == 1));
        let (_, outcomes) = collect(x_gt_3);
        coverage::set_recording(&reach.recording(|_| false));
        let (_, taken) = collect(x_gt_3);
        coverage::set_recording(&[]);
        let (_, full) = collect(x_gt_3);
        assert_eq!(outcomes.entries().len(), 2, "{outcomes:?}");
        assert_eq!((outcomes.distance(&GT, 0), outcomes.distance(&GT, 1)), (Some(1.0), Some(0.0)));
        assert_eq!(outcomes.slot_distance(&GT, 0, slot::BOUNDARY), None);
        assert_eq!(taken.entries().len(), 1, "{taken:?}");
        assert_eq!((taken.distance(&GT, 0), taken.distance(&GT, 1)), (None, Some(0.0)));
        assert_eq!(full.slot_distance(&GT, 0, slot::BOUNDARY), Some(0.0));
        assert!(reach.covered(&full).contains(&boundary));
    }

    /// Twenty-five functions, each calling every later one: 2^23 paths of
    /// calls lead from the target to the last, and its fitness is the
    /// shortest of them (called straight from the entered target).
    #[test]
    fn entry_fitness_of_a_dense_call_graph_is_its_shortest_path() {
        const N: usize = 25;
        let names: Vec<&'static str> = (0..N).map(|i| &*format!("f{i}").leak()).collect();
        let calls = |i: usize| -> &'static [CallSite] {
            let calls: Vec<CallSite> = names[i + 1..]
                .iter()
                .map(|&callee| CallSite { callee, parent: u32::MAX })
                .collect();
            calls.leak()
        };
        let tables: Vec<&'static Sites> = (0..N)
            .map(|i| {
                let branches = [branch(Side::True, u32::MAX), branch(Side::False, u32::MAX)];
                let sites = Sites::new("k::m", names[i], "m.rs", (1, 5), Vec::from(branches).leak(), calls(i));
                &*Box::leak(Box::new(sites))
            })
            .collect();
        let reach = Reach::new(tables[0], [], &tables[1..]);
        let last = reach.goal(tables[N - 1], 0).expect("the last function is in reach");
        let (_, trace) = collect(|| coverage::enter(tables[0]));
        // Entered the target, which calls the last function at its top
        // level (one step), whose outcome is one level into it.
        assert_eq!(reach.fitness(last, &trace), Fitness { level: 1, distance: 1.0 });
        // Nothing entered: no path starts anywhere.
        assert_eq!(reach.fitness(last, &Trace::default()), Fitness::WORST);
    }
}
