//! Boundary and weak-mutation goals: what a call must do, beyond taking a
//! branch outcome, for a test to tell a faulty condition from the right one.
//!
//! Branch coverage lets `x > limit` pass with `x = 0` and `x = 9`, and so
//! cannot tell it from `x >= limit`. Each instrumented condition therefore
//! also has these goals, reported beside branch coverage and never mixed
//! into it:
//! - **boundaries**, for comparisons of numbers and chars: `<`, `<=`, `>`,
//!   `>=` want equal operands (floats: equal or adjacent); `==` and `!=`
//!   want the left operand one step below the right and one step above;
//! - **weak mutants**: each comparison's operator replaced by each of the
//!   other five (`<` by `<=`, `>`, `>=`, `==`, `!=`), `&&` swapped with
//!   `||`, and every other condition negated. A call *weakly kills* a
//!   mutant when the mutated condition would have had another value than
//!   the real one: for an operator, when the operands came in an order on
//!   which the two operators disagree; for `l && r`, when `r` ran and was
//!   false (`||`: true);
//! - also **weak mutants**: each arithmetic operation (`+ - * / %`) with its
//!   operator replaced as cargo-mutants replaces it
//!   ([`crate::registry::Arith::mutants`]), killed where the replaced
//!   operation has another value or panics where the original does not
//!   ([`crate::coverage::arith`]); and each arm of a `match` above a
//!   catch-all arm deleted, killed by a call that takes the arm.
//!
//! A comparison records how far its operands were from each order, and from
//! its boundaries, in its goal slots ([`crate::coverage::slot`]); every goal
//! is read off those slots or the branch outcomes, with the distance that
//! guides search to it (approach level first, as for branches).
//!
//! Reports count weak kills. Generation also checks a call kept for a
//! mutant against the mutant itself
//! ([`crate::coverage::with_mutant`], [`Goal::mutation`]) and prefers calls
//! whose outcome changes.
//!
//! ```
//! use carve::coverage::goals::{goals, GoalKind};
//! use carve::registry::{Branch, BranchKind, Condition, Form, Op, Side, Sites};
//! static SITES: Sites = Sites::new("c::m", "f", "f.rs", (1, 3), &[
//!     Branch { kind: BranchKind::Condition, condition: "x > limit", side: Side::True, line: 2, col: 8, parent: u32::MAX },
//!     Branch { kind: BranchKind::Condition, condition: "x > limit", side: Side::False, line: 2, col: 8, parent: u32::MAX },
//! ], &[]).with_conditions(&[Condition { branch: 0, form: Form::Compare { op: Op::Gt, index: 0 } }]);
//! let goals = goals(&SITES);
//! // One boundary (x == limit) and five operator replacements.
//! assert_eq!(goals.iter().filter(|g| g.kind == GoalKind::Boundary).count(), 1);
//! assert_eq!(goals.iter().filter(|g| g.kind == GoalKind::Mutant).count(), 5);
//! assert_eq!(goals[0].label, "`x > limit` at its boundary (equal operands)");
//! assert_eq!(goals[1].label, "`>` → `<` in `x > limit`");
//! ```

use std::cmp::Ordering;

use crate::coverage::arith;
use crate::coverage::fitness::{fitness_within, Fitness};
use crate::coverage::{slot, Distances, Mutation, Replacement};
use crate::registry::{Form, Op, Sites};

/// What a goal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GoalKind {
    /// Operands at a comparison's boundary.
    Boundary,
    /// A weak mutant to kill.
    Mutant,
}

impl GoalKind {
    /// `boundary` or `mutant`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GoalKind::Boundary => "boundary",
            GoalKind::Mutant => "mutant",
        }
    }
}

/// A boundary or weak-mutation goal of one instrumented function.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    /// Boundary or mutant.
    pub kind: GoalKind,
    /// The outcome of the function it is located at (its condition's).
    pub branch: u32,
    /// What it asks for, e.g. ``"`>` → `>=` in `x > limit`"``.
    pub label: String,
    test: Test,
    /// The mutant, where it can be run ([`crate::coverage::with_mutant`]).
    mutation: Option<Mutation>,
    /// Its own line and column, where it is not at `branch`'s (an
    /// arithmetic operation).
    at: Option<(u32, u32)>,
}

/// How a goal is read off a trace.
#[derive(Debug, Clone, PartialEq)]
enum Test {
    /// One of the slots in `any` (a bit per [`slot`]) of comparison `index`
    /// at distance 0. The goal applies only where one of the slots in
    /// `needs` was ever recorded (0: always): `==` of a type without an
    /// order has no order to mutate towards.
    Slots { index: u32, any: u8, needs: u8 },
    /// The condition at `branch` ran: a negation differs on every value.
    Evaluated,
    /// One of these outcomes was taken.
    Outcomes(&'static [u32]),
    /// Goal slot `slot` of arithmetic operation `index` at distance 0; it
    /// runs under outcome `parent` (none: at the body's top). The goal
    /// applies where the operands were numbers (the slot was recorded).
    Operator { index: u32, slot: u32, parent: Option<u32> },
}

const fn bit(slot: u32) -> u8 {
    1 << slot
}

/// The goal slot holding operands in this order.
const fn order_slot(order: Ordering) -> u32 {
    match order {
        Ordering::Less => slot::LESS,
        Ordering::Equal => slot::EQUAL,
        Ordering::Greater => slot::GREATER,
    }
}

/// The goals of `sites`, condition by condition in source order, each
/// condition's boundaries before its mutants.
pub fn goals(sites: &Sites) -> Vec<Goal> {
    let mut goals = Vec::new();
    for (position, condition) in sites.conditions.iter().enumerate() {
        let first = goals.len();
        let branch = condition.branch;
        let text = sites
            .branches
            .get(branch as usize)
            .map_or("", |b| b.condition);
        match condition.form {
            Form::Compare { op, index } => {
                let boundary = |label: String, slot: u32| Goal {
                    kind: GoalKind::Boundary,
                    branch,
                    label,
                    test: Test::Slots {
                        index,
                        any: bit(slot),
                        needs: bit(slot),
                    },
                    mutation: None,
                    at: None,
                };
                if op.is_relational() {
                    goals.push(boundary(
                        format!("`{text}` at its boundary (equal operands)"),
                        slot::BOUNDARY,
                    ));
                } else {
                    goals.push(boundary(
                        format!("`{text}` with the left operand one below the right"),
                        slot::BELOW,
                    ));
                    goals.push(boundary(
                        format!("`{text}` with the left operand one above the right"),
                        slot::ABOVE,
                    ));
                }
                for mutant in Op::ALL.into_iter().filter(|m| *m != op) {
                    goals.push(Goal {
                        kind: GoalKind::Mutant,
                        branch,
                        label: format!("`{op}` → `{mutant}` in `{text}`"),
                        test: replaced(op, mutant, index),
                        mutation: Some(Mutation {
                            branch,
                            to: Replacement::Op(mutant),
                        }),
                        at: None,
                    });
                }
            }
            Form::Boolean => goals.push(Goal {
                kind: GoalKind::Mutant,
                branch,
                label: format!("`{text}` negated"),
                test: Test::Evaluated,
                mutation: Some(Mutation {
                    branch,
                    to: Replacement::Negate,
                }),
                at: None,
            }),
            Form::Logic { op, text, kills } => {
                if !kills.is_empty() {
                    goals.push(Goal {
                        kind: GoalKind::Mutant,
                        branch,
                        label: format!("`{}` → `{}` in `{text}`", op.as_str(), op.swapped().as_str()),
                        test: Test::Outcomes(kills),
                        // The instrumented twin evaluates the other
                        // operator, short-circuit included.
                        mutation: Some(Mutation {
                            branch,
                            to: Replacement::Swap,
                        }),
                        at: None,
                    });
                }
            }
            Form::Arith {
                op,
                index,
                text,
                at,
            } => {
                let parent = (branch != u32::MAX).then_some(branch);
                for (mutant, slot) in op.mutants().into_iter().zip(arith::MUTANT_SLOTS) {
                    goals.push(Goal {
                        kind: GoalKind::Mutant,
                        branch,
                        label: format!("`{op}` → `{mutant}` in `{text}`"),
                        test: Test::Operator {
                            index,
                            slot,
                            parent,
                        },
                        mutation: Some(Mutation {
                            branch: crate::coverage::goal_slot(sites, index, 0),
                            to: Replacement::Arith(mutant),
                        }),
                        at: Some(at),
                    });
                }
            }
            Form::Arm { text } => goals.push(Goal {
                kind: GoalKind::Mutant,
                branch,
                label: format!("match arm `{text}` deleted"),
                // Deleted, the arm's values go to the arms below: a call
                // that takes it tells the two apart (weakly).
                test: Test::Outcomes(std::slice::from_ref(&condition.branch)),
                mutation: Some(Mutation {
                    branch,
                    to: Replacement::Delete,
                }),
                at: None,
            }),
        }
        // Inside `unsafe`: weak mutants only (see `Sites::unmutated`).
        if sites.unmutated.contains(&(position as u32)) {
            for goal in &mut goals[first..] {
                goal.mutation = None;
            }
        }
    }
    goals
}

/// How the mutant replacing `op` by `mutant` is killed: operands in an
/// order on which the two disagree.
fn replaced(op: Op, mutant: Op, index: u32) -> Test {
    // `==` and `!=` disagree on every value, NaN included.
    if !op.is_relational() && !mutant.is_relational() {
        return Test::Evaluated;
    }
    let any = [Ordering::Less, Ordering::Equal, Ordering::Greater]
        .into_iter()
        .filter(|order| op.holds(*order) != mutant.holds(*order))
        .fold(0, |any, order| any | bit(order_slot(order)));
    // A relational mutant of `==` exists only for ordered operands.
    let needs = match op.is_relational() {
        true => 0,
        false => bit(slot::LESS) | bit(slot::GREATER),
    };
    Test::Slots { index, any, needs }
}

impl Goal {
    /// The mutant this goal asks to kill, where it can be run (not for
    /// boundaries).
    pub fn mutation(&self) -> Option<Mutation> {
        self.mutation
    }

    /// The branch outcomes whose distances the goal's fitness reads (beside
    /// their ancestors, which [`fitness_within`] walks up to).
    pub fn outcomes_read(&self) -> impl Iterator<Item = u32> + '_ {
        let kills = match self.test {
            Test::Outcomes(kills) => kills,
            _ => &[],
        };
        // An operation at the body's top is under no outcome.
        std::iter::once(self.branch)
            .filter(|b| *b != u32::MAX)
            .chain(kills.iter().copied())
    }

    /// The comparison whose goal slots the goal is read off; `None` for a
    /// goal read off branch outcomes only.
    pub fn comparison(&self) -> Option<u32> {
        match self.test {
            Test::Slots { index, .. } | Test::Operator { index, .. } => Some(index),
            _ => None,
        }
    }

    /// The line and column it is shown at: its condition's, or its
    /// operation's.
    pub fn at(&self, sites: &Sites) -> Option<(u32, u32)> {
        self.at.or_else(|| {
            sites
                .branches
                .get(self.branch as usize)
                .map(|b| (b.line, b.col))
        })
    }

    /// `file:line:col` and the label.
    pub fn describe(&self, sites: &Sites) -> String {
        let location = match self.at(sites) {
            Some((line, col)) => format!("{}:{line}:{col}", sites.file),
            None => sites.file.to_owned(),
        };
        format!("{location} {}", self.label)
    }

    /// Whether a call (its `trace`) met the goal: as its fitness tells,
    /// without working out how close a call whose condition did not run
    /// came to it (asked of every open goal for every call).
    pub fn covered(&self, sites: &Sites, trace: &impl Distances) -> bool {
        match self.test {
            // The fold `fitness` makes, over the kills reached only: one not
            // reached is a level or more away, so it never decides whether
            // the best is at distance 0, and its approach level (a walk up
            // its parents, for every unmet mutant after every call) is not
            // needed.
            Test::Outcomes(kills) => {
                kills
                    .iter()
                    .filter_map(|kill| trace.distance(sites, *kill))
                    .reduce(|best, distance| if distance < best { distance } else { best })
                    == Some(0.0)
            }
            // Met at distance 0 in its slot; anything else is a distance
            // above 0 or levels away.
            Test::Operator { index, slot, .. } => trace.slot_distance(sites, index, slot) == Some(0.0),
            _ => self.evaluated(sites, trace) && self.distance_evaluated(sites, trace) == 0.0,
        }
    }

    /// How close a call that entered the function came to the goal: the
    /// approach level to its condition, then the smallest distance among
    /// the slots that would meet it.
    pub fn fitness(&self, sites: &Sites, trace: &impl Distances) -> Fitness {
        if let Test::Outcomes(kills) = self.test {
            return kills
                .iter()
                .map(|kill| fitness_within(sites, *kill, trace))
                .fold(Fitness::WORST, |best, f| if f.better_than(best) { f } else { best });
        }
        if let Test::Operator { index, slot, parent } = self.test {
            return match trace.slot_distance(sites, index, slot) {
                Some(distance) => Fitness { level: 0, distance },
                // Operands carve cannot compute: nothing meets it.
                None if self.evaluated(sites, trace) => Fitness {
                    level: 0,
                    distance: f64::INFINITY,
                },
                None => match parent {
                    // Under an outcome: one level below it, as a branch is
                    // (taken, the operation still did not run).
                    Some(parent) => fitness_within(sites, parent, trace).deeper(1),
                    None => Fitness {
                        level: 1,
                        distance: f64::INFINITY,
                    },
                },
            };
        }
        if !self.evaluated(sites, trace) {
            return fitness_within(sites, self.branch, trace);
        }
        Fitness {
            level: 0,
            distance: self.distance_evaluated(sites, trace),
        }
    }

    /// The distance to the goal of a call whose condition ran (not for
    /// [`Test::Outcomes`] and [`Test::Operator`] goals).
    fn distance_evaluated(&self, sites: &Sites, trace: &impl Distances) -> f64 {
        match self.test {
            // Where the goal does not apply (no order), nothing meets it.
            Test::Slots { .. } if !self.applies_in(sites, trace) => f64::INFINITY,
            Test::Slots { index, any, .. } => slots(any)
                .filter_map(|slot| trace.slot_distance(sites, index, slot))
                .fold(f64::INFINITY, f64::min),
            _ => 0.0,
        }
    }

    /// Whether the goal's condition ran in the call.
    pub fn evaluated(&self, sites: &Sites, trace: &impl Distances) -> bool {
        match self.test {
            Test::Outcomes(kills) => kills.iter().any(|k| trace.distance(sites, *k).is_some()),
            Test::Operator { index, slot, .. } => [slot, arith::UNKNOWN_SLOT]
                .into_iter()
                .any(|s| trace.slot_distance(sites, index, s).is_some()),
            _ => trace.distance(sites, self.branch).is_some(),
        }
    }

    /// Whether the call showed that the goal applies to the operands' type
    /// (a boundary of a number, a relational mutant of ordered operands).
    /// A goal applies when some call showed it, or no call evaluated its
    /// condition (nothing is known then, and it counts as missed).
    pub fn applies_in(&self, sites: &Sites, trace: &impl Distances) -> bool {
        match self.test {
            Test::Slots { index, needs, .. } if needs != 0 => {
                slots(needs).any(|slot| trace.slot_distance(sites, index, slot).is_some())
            }
            Test::Operator { index, slot, .. } => trace.slot_distance(sites, index, slot).is_some(),
            _ => true,
        }
    }
}

/// The slots whose bits are set in `mask`.
fn slots(mask: u8) -> impl Iterator<Item = u32> {
    (0..slot::COUNT).filter(move |slot| mask & bit(*slot) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::report::FunctionCoverage;
    use crate::coverage::Trace;

    /// The goals of `sites` the report finds missed over passing calls.
    struct GoalTally {
        /// `(kind, branch, file:line:col label)` of the goals missed.
        missed: Vec<(GoalKind, u32, String)>,
    }

    fn tally_of(sites: &'static Sites, traces: &[&Trace]) -> GoalTally {
        let mut coverage = FunctionCoverage::new(sites);
        for (i, trace) in traces.iter().enumerate() {
            coverage.add(&format!("call {i}"), trace, true);
        }
        GoalTally {
            missed: coverage
                .missed_goals()
                .map(|g| (g.goal.kind, g.goal.branch, g.goal.describe(sites)))
                .collect(),
        }
    }
    use crate::coverage::{collect, compare_with_goals, Cmp};
    use crate::registry::{Branch, BranchKind, Condition, Logic, Side};

    const fn branch(condition: &'static str, side: Side, parent: u32) -> Branch {
        Branch {
            kind: BranchKind::Condition,
            condition,
            side,
            line: 1,
            col: 1,
            parent,
        }
    }

    // `if x > limit { .. }` then `if a == b && ok { .. }`.
    static SITES: Sites = Sites::new(
        "k::m",
        "f",
        "m.rs",
        (1, 9),
        &[
            branch("x > limit", Side::True, u32::MAX),
            branch("x > limit", Side::False, u32::MAX),
            branch("a == b", Side::True, u32::MAX),
            branch("a == b", Side::False, u32::MAX),
            branch("ok", Side::True, 2),
            branch("ok", Side::False, 2),
        ],
        &[],
    )
    .with_conditions(&[
        Condition {
            branch: 0,
            form: Form::Compare {
                op: Op::Gt,
                index: 0,
            },
        },
        Condition {
            branch: 2,
            form: Form::Compare {
                op: Op::Eq,
                index: 1,
            },
        },
        Condition {
            branch: 4,
            form: Form::Boolean,
        },
        Condition {
            branch: 4,
            form: Form::Logic {
                op: Logic::And,
                text: "a == b && ok",
                kills: &[5],
            },
        },
    ]);

    fn gt(x: i64, limit: i64) -> Trace {
        collect(|| {
            crate::coverage::enter(&SITES);
            compare_with_goals(&SITES, 0, 0, x > limit, Op::Gt, || Some(Cmp::numeric((x - limit) as f64)), || None)
        })
        .1
    }

    fn labels(kind: GoalKind, tally: &GoalTally) -> Vec<String> {
        tally
            .missed
            .iter()
            .filter(|m| m.0 == kind)
            .map(|m| m.2.clone())
            .collect()
    }

    #[test]
    fn every_condition_has_its_boundaries_and_mutants() {
        let goals = goals(&SITES);
        let count = |kind| goals.iter().filter(|g| g.kind == kind).count();
        // `>`: 1 boundary, 5 mutants; `==`: 2 boundaries, 5 mutants;
        // `ok` negated; `&&` → `||`.
        assert_eq!(count(GoalKind::Boundary), 3);
        assert_eq!(count(GoalKind::Mutant), 12);
    }

    #[test]
    fn only_a_call_at_the_boundary_kills_the_off_by_one_mutant() {
        let far = [gt(0, 5), gt(9, 5)];
        let tally = tally_of(&SITES, &far.iter().collect::<Vec<_>>());
        // Both branches taken, yet `>=` and the boundary are missed.
        let missed = labels(GoalKind::Mutant, &tally);
        assert!(missed.iter().any(|l| l.ends_with("`>` → `>=` in `x > limit`")), "{missed:?}");
        assert!(!missed.iter().any(|l| l.contains("`>` → `<` ")), "{missed:?}");
        assert_eq!(labels(GoalKind::Boundary, &tally).len(), 3);
        let mut with_boundary = far.to_vec();
        with_boundary.push(gt(5, 5));
        let tally = tally_of(&SITES, &with_boundary.iter().collect::<Vec<_>>());
        let missed = labels(GoalKind::Mutant, &tally);
        assert!(!missed.iter().any(|l| l.contains("in `x > limit`")), "{missed:?}");
        assert_eq!(
            labels(GoalKind::Boundary, &tally).len(),
            2,
            "only `a == b`'s two remain"
        );
    }

    #[test]
    fn distances_guide_to_the_boundary() {
        let goal = goals(&SITES).remove(0);
        assert_eq!(goal.kind, GoalKind::Boundary);
        assert_eq!(goal.fitness(&SITES, &gt(9, 5)), Fitness { level: 0, distance: 4.0 });
        assert_eq!(goal.fitness(&SITES, &gt(6, 5)), Fitness { level: 0, distance: 1.0 });
        assert!(goal.covered(&SITES, &gt(5, 5)));
        // Not evaluated at all: one level above, as for a branch.
        let (_, none) = collect(|| crate::coverage::enter(&SITES));
        assert_eq!(goal.fitness(&SITES, &none).level, 1);
    }

    #[test]
    fn the_order_of_operands_without_a_known_distance_is_asked_outside_the_call() {
        // ordered-float 5.5.1: `partial_cmp` calls `cmp`, whose `self <
        // other` carve instruments. Asking that comparison's order inside
        // the collection ran `cmp` instrumented again, which asked again,
        // until the stack overflowed.
        let (inside, trace) = collect(|| {
            crate::coverage::enter(&SITES);
            let mut inside = None;
            let value = compare_with_goals(&SITES, 0, 0, false, Op::Gt, || None, || {
                inside = Some(crate::coverage::active());
                Some(std::cmp::Ordering::Less)
            });
            (value, inside)
        });
        assert_eq!(inside, (false, Some(false)), "asked once, with the collection paused");
        // The comparison itself is recorded, with its order.
        let goal = goals(&SITES).remove(0);
        assert_eq!(goal.kind, GoalKind::Boundary);
        assert_eq!(goal.fitness(&SITES, &trace).level, 0);
    }

    #[test]
    fn equality_of_unordered_operands_has_no_relational_mutants() {
        // `a == b` where the type has no known order: only `!=` applies.
        let (_, trace) = collect(|| {
            compare_with_goals(&SITES, 2, 1, false, Op::Eq, || None, || None)
        });
        let tally = tally_of(&SITES, &[&trace]);
        let missed = labels(GoalKind::Mutant, &tally);
        assert!(!missed.iter().any(|l| l.contains("in `a == b`")), "{missed:?}");
        assert!(!labels(GoalKind::Boundary, &tally).iter().any(|l| l.contains("a == b")));
    }

    #[test]
    fn equality_boundaries_are_one_step_either_side() {
        let eq = |a: i64, b: i64| {
            collect(|| {
                compare_with_goals(&SITES, 2, 1, a == b, Op::Eq, || Some(Cmp::numeric((a - b) as f64)), || None)
            })
            .1
        };
        let traces = [eq(4, 5), eq(6, 5)];
        let tally = tally_of(&SITES, &traces.iter().collect::<Vec<_>>());
        assert!(!labels(GoalKind::Boundary, &tally).iter().any(|l| l.contains("a == b")));
        let tally = tally_of(&SITES, &[&traces[0]]);
        assert_eq!(
            labels(GoalKind::Boundary, &tally)
                .iter()
                .filter(|l| l.contains("a == b"))
                .count(),
            1
        );
    }

    #[test]
    fn float_boundaries_accept_adjacent_values() {
        let gt = |x: f64, limit: f64| {
            collect(|| {
                compare_with_goals(&SITES, 0, 0, x > limit, Op::Gt, || Some(Cmp::float(x, limit, limit.abs().next_up() - limit.abs())), || None)
            })
            .1
        };
        let goal = goals(&SITES).remove(0);
        assert!(goal.covered(&SITES, &gt(0.1f64.next_up(), 0.1)));
        assert!(goal.covered(&SITES, &gt(0.1, 0.1)));
        assert!(!goal.covered(&SITES, &gt(0.2, 0.1)));
    }

    /// The arms of `match s { "ms" => …, _ => … }`.
    const MS_OR_ELSE: &[Branch] = &[
        Branch {
            kind: BranchKind::MatchArm,
            ..branch("\"ms\"", Side::Taken, u32::MAX)
        },
        Branch {
            kind: BranchKind::MatchArm,
            ..branch("_", Side::Taken, u32::MAX)
        },
    ];

    #[test]
    fn a_goal_is_covered_exactly_where_its_fitness_says() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for sites in [&SITES, &OPS, &TWO_KILLS] {
            let ids = crate::coverage::goal_slot(sites, sites.comparisons(), 0);
            let goals = goals(sites);
            for _ in 0..2000 {
                let mut entries = Vec::new();
                for id in 0..ids {
                    if rng.random_bool(0.5) {
                        // NaN too: `fitness` folds distances with a partial order.
                        entries.push((sites, id, [0.0, 0.0, 0.5, 1.0, f64::NAN][rng.random_range(0..5)]));
                    }
                }
                let trace = Trace::from_entries(entries);
                for goal in &goals {
                    let covered = goal.fitness(sites, &trace).covered();
                    assert_eq!(goal.covered(sites, &trace), covered, "{} in {:?}", goal.label, trace.entries());
                    assert_eq!(goal.covered(sites, &trace.function(sites)), covered, "{}", goal.label);
                }
            }
        }
    }

    // `a || b`, whose swap to `&&` either outcome of `b` may kill: a
    // mutant goal with two kills, folded as `fitness` folds them.
    static TWO_KILLS: Sites = Sites::new(
        "k::m",
        "h",
        "m.rs",
        (1, 3),
        &[
            branch("a", Side::True, u32::MAX),
            branch("a", Side::False, u32::MAX),
            branch("b", Side::True, 1),
            branch("b", Side::False, 1),
        ],
        &[],
    )
    .with_conditions(&[Condition {
        branch: 2,
        form: Form::Logic {
            op: Logic::Or,
            text: "a || b",
            kills: &[3, 2],
        },
    }]);

    // `let n = a + b;` at the top, then `match s { "ms" => 1, _ => n }`.
    static OPS: Sites = Sites::new(
        "k::m",
        "g",
        "m.rs",
        (1, 9),
        MS_OR_ELSE,
        &[],
    )
    .with_conditions(&[
        Condition {
            branch: u32::MAX,
            form: Form::Arith {
                op: crate::registry::Arith::Add,
                index: 0,
                text: "a + b",
                at: (2, 13),
            },
        },
        Condition {
            branch: 0,
            form: Form::Arm { text: "\"ms\"" },
        },
    ]);

    fn add<T: crate::coverage::arith::Number + std::ops::Add<Output = T>>(a: T, b: T) -> Trace {
        collect(|| {
            crate::coverage::enter(&OPS);
            crate::coverage::arith(&OPS, 0, crate::registry::Arith::Add, a, b, |l, r| l + r)
        })
        .1
    }

    /// Labels of the goals of `OPS` that `trace` meets.
    fn met(trace: &Trace) -> Vec<String> {
        goals(&OPS)
            .into_iter()
            .filter(|g| g.covered(&OPS, trace))
            .map(|g| g.describe(&OPS))
            .collect()
    }

    #[test]
    fn an_operator_is_killed_where_its_replacement_has_another_value_or_panics() {
        assert_eq!(
            goals(&OPS).iter().map(|g| g.describe(&OPS)).collect::<Vec<_>>(),
            [
                "m.rs:2:13 `+` → `-` in `a + b`",
                "m.rs:2:13 `+` → `*` in `a + b`",
                "m.rs:1:1 match arm `\"ms\"` deleted",
            ]
        );
        // 2 + 2 is 2 * 2: only `-` differs.
        assert_eq!(met(&add(2u8, 2)), ["m.rs:2:13 `+` → `-` in `a + b`"]);
        assert!(met(&add(0i64, 0)).is_empty());
        // `200 - 100` runs, `200 + 100` and `200 * 100` overflow: the
        // panic where the other does not kills `-` only.
        let overflow = std::panic::catch_unwind(|| add(200u8, 100));
        assert!(overflow.is_err(), "the operation itself still panics");
        let (_, trace) = collect(|| {
            crate::coverage::arith(&OPS, 0, crate::registry::Arith::Add, 200u8, 100, u8::wrapping_add)
        });
        assert_eq!(met(&trace), ["m.rs:2:13 `+` → `-` in `a + b`"]);
        assert_eq!(met(&add(0.5f64, 1.5)).len(), 2);
        // Not reached at all: one level above the body.
        let (_, none) = collect(|| crate::coverage::enter(&OPS));
        assert_eq!(goals(&OPS)[0].fitness(&OPS, &none).level, 1);
        assert_eq!(goals(&OPS)[0].fitness(&OPS, &add(2u8, 2)).distance, 0.0);
        assert_eq!(goals(&OPS)[1].fitness(&OPS, &add(2u8, 2)).distance, 1.0);
    }

    #[test]
    fn an_operator_under_an_outcome_taken_that_did_not_run_is_one_level_away() {
        // `match s { "ms" => { f()?; a + b } _ => 0 }`: the arm taken, and
        // `f()?` returned before the addition.
        static NESTED: Sites = Sites::new(
            "k::m",
            "h",
            "m.rs",
            (1, 9),
            MS_OR_ELSE,
            &[],
        )
        .with_conditions(&[Condition {
            branch: 0,
            form: Form::Arith {
                op: crate::registry::Arith::Add,
                index: 0,
                text: "a + b",
                at: (3, 9),
            },
        }]);
        let (_, trace) = collect(|| {
            crate::coverage::enter(&NESTED);
            crate::coverage::hit(&NESTED, 0);
        });
        let goal = goals(&NESTED).remove(0);
        assert!(!goal.covered(&NESTED, &trace), "the mutant never ran: not killed");
        assert_eq!(goal.fitness(&NESTED, &trace), Fitness { level: 1, distance: 0.0 });
        let (_, ran) = collect(|| {
            crate::coverage::enter(&NESTED);
            crate::coverage::hit(&NESTED, 0);
            crate::coverage::arith(&NESTED, 0, crate::registry::Arith::Add, 2u8, 1, |l, r| l + r)
        });
        assert!(goal.covered(&NESTED, &ran));
    }

    #[test]
    fn operands_carve_cannot_compute_make_no_goal() {
        use crate::coverage::arith::{KnownArith as _, Operands, UnknownArith as _};
        let (text, trace) = collect(|| {
            Operands::new(String::from("a"), "b").arith(&OPS, 0, crate::registry::Arith::Add, |l, r| l + r)
        });
        assert_eq!(text, "ab");
        let goal = goals(&OPS).remove(0);
        assert!(goal.evaluated(&OPS, &trace));
        assert!(!goal.applies_in(&OPS, &trace));
        let (sum, trace) = collect(|| Operands::new(1u8, 2).arith(&OPS, 0, crate::registry::Arith::Add, |l, r| l + r));
        assert_eq!(sum, 3);
        assert!(goal.applies_in(&OPS, &trace));
    }

    #[test]
    fn conditions_inside_unsafe_keep_their_goals_but_no_mutant_runs() {
        // smallvec 1.16.6's `insert`: `index > len` guards `ptr.add(index)`;
        // run with `>` mutated, the call writes past its buffer.
        static UNSAFE: Sites = Sites::new(
            "k::m",
            "insert",
            "m.rs",
            (1, 9),
            &[
                branch("index > len", Side::True, u32::MAX),
                branch("index > len", Side::False, u32::MAX),
                branch("ok", Side::True, u32::MAX),
                branch("ok", Side::False, u32::MAX),
            ],
            &[],
        )
        .with_conditions(&[
            Condition {
                branch: 0,
                form: Form::Compare {
                    op: Op::Gt,
                    index: 0,
                },
            },
            Condition {
                branch: 2,
                form: Form::Boolean,
            },
        ])
        .with_unmutated(&[0]);
        let all = goals(&UNSAFE);
        let of = |branch| all.iter().filter(move |g| g.branch == branch);
        assert_eq!(of(0).filter(|g| g.kind == GoalKind::Mutant).count(), 5);
        assert!(of(0).all(|g| g.mutation().is_none()));
        assert!(of(2).all(|g| g.mutation().is_some()));
    }

    #[test]
    fn strong_checks_run_the_replaced_operator_the_swapped_logic_and_the_deleted_arm() {
        use crate::coverage::{arith::Number, with_mutant};
        let goals = goals(&OPS);
        let run = |goal: &Goal, a: u8, b: u8| {
            let mutation = goal.mutation().unwrap();
            collect(|| with_mutant(&OPS, mutation, || crate::coverage::arith(&OPS, 0, crate::registry::Arith::Add, a, b, |l, r| l + r))).0
        };
        assert_eq!(run(&goals[0], 5, 3), 2);
        assert_eq!(run(&goals[1], 5, 3), 15);
        let sub_overflows = std::panic::catch_unwind(|| run(&goals[0], 3, 5));
        assert_eq!(sub_overflows.is_err(), cfg!(debug_assertions));
        assert_eq!(u8::apply(crate::registry::Arith::Sub, 5, 3), 2);
        // The arm is kept but while its own mutant runs.
        let arm = goals[2].mutation().unwrap();
        assert!(crate::coverage::kept(&OPS, 0));
        assert!(!with_mutant(&OPS, arm, || crate::coverage::kept(&OPS, 0)));
        assert!(with_mutant(&OPS, arm, || crate::coverage::kept(&OPS, 1)));
        // A deleted arm is killed (weakly) by a call that takes it.
        let (_, trace) = collect(|| crate::coverage::hit(&OPS, 0));
        assert!(goals[2].covered(&OPS, &trace));
        let (_, trace) = collect(|| crate::coverage::hit(&OPS, 1));
        assert!(!goals[2].covered(&OPS, &trace));
        // `&&` → `||` runs as `||` under its mutant.
        let swap = super::goals(&SITES).pop().unwrap().mutation().unwrap();
        assert_eq!(swap.to, crate::coverage::Replacement::Swap);
        assert!(!crate::coverage::swapped(&SITES, swap.branch));
        assert!(with_mutant(&SITES, swap, || crate::coverage::swapped(&SITES, swap.branch)));
    }

    #[test]
    fn and_swapped_with_or_is_killed_when_the_right_operand_runs_false() {
        let goal = goals(&SITES).pop().unwrap();
        assert!(goal.label.starts_with("`&&` → `||`"));
        let (_, trace) = collect(|| {
            crate::coverage::compare(&SITES, 2, true, Op::Eq, None);
            crate::coverage::boolean(&SITES, 4, false)
        });
        assert!(goal.covered(&SITES, &trace));
        let (_, trace) = collect(|| crate::coverage::compare(&SITES, 2, false, Op::Eq, None));
        assert!(!goal.covered(&SITES, &trace));
    }
}
