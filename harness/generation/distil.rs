//! Distilling: at the end of a target's generation, the calls it kept are cut
//! down to those that cover what all of them covered, as libFuzzer's
//! `-merge=1` does with a corpus.
//!
//! Generation keeps a call when it covers something no earlier call did; a
//! later call often covers that too, and more. Each kept call is a snapshot
//! test someone reads, so the calls are taken again greedily: the call with
//! the most of what is still uncovered first (ties: the smallest arguments,
//! then the first kept), each only while it adds something. What the kept
//! calls cover together stays exactly what it was.
//!
//! ```
//! use carve::generation::distil::{distil, Covers};
//!
//! // The third call covers what the first two do, and one more outcome.
//! let calls = [
//!     (vec![Covers::Goal(0)], 1),
//!     (vec![Covers::Goal(1)], 1),
//!     (vec![Covers::Goal(0), Covers::Goal(1), Covers::Goal(2)], 5),
//! ];
//! assert_eq!(distil(&calls), [2]);
//! ```

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::coverage::counters::Seen;
use crate::coverage::reach::Reach;
use crate::generation::kept::Kept;
use crate::generation::shrink::Size;

/// One thing a kept call covers, as distilling counts it: what the coverage
/// of a generation run is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Covers {
    /// A goal of the target's reach the call meets (a branch outcome, a
    /// boundary, a mutant it weakly kills), that no existing call met.
    Goal(u32),
    /// A mutant goal the call is named for: it strongly kills it (or it
    /// counts as killed after the strong checks ran out). Another call that
    /// only weakly kills the mutant does not stand in for it.
    Strong(u32),
    /// An outcome (or the entry) of an instrumented function outside the
    /// reach the run started from: `(its table's address, outcome id)`.
    /// The reach grows by the functions kept calls enter.
    Outside(usize, u32),
    /// An edge feature of code carve does not instrument
    /// ([`crate::coverage::counters`]) that no existing call reached.
    Edge(u32),
}

/// Which of `calls` (what each covers, its size) to keep: indices in
/// ascending order. The union of what the kept calls cover equals the union
/// over all calls; each kept call, taken in the greedy order, added
/// something the calls taken before it did not cover.
///
/// Greedy set cover: the call that covers the most of what is still
/// uncovered is taken next; ties go to the smaller size, then to the lower
/// index. Gains only shrink as calls are taken, so a call's last computed
/// gain bounds its gain now (lazy greedy): a call is taken when its gain,
/// computed again, is still the largest, which takes the same calls in the
/// same order as recomputing every gain at every step.
pub fn distil<S: Ord>(calls: &[(Vec<Covers>, S)]) -> Vec<usize> {
    let mut covered: BTreeSet<Covers> = BTreeSet::new();
    let gain = |covers: &[Covers], covered: &BTreeSet<Covers>| {
        let distinct: BTreeSet<&Covers> = covers.iter().filter(|c| !covered.contains(c)).collect();
        distinct.len()
    };
    let mut heap: BinaryHeap<(usize, Reverse<&S>, Reverse<usize>)> = calls
        .iter()
        .enumerate()
        .map(|(i, (covers, size))| (gain(covers, &covered), Reverse(size), Reverse(i)))
        .collect();
    let mut taken = Vec::new();
    while let Some((bound, size, Reverse(i))) = heap.pop() {
        if bound == 0 {
            break;
        }
        let now = gain(&calls[i].0, &covered);
        if now == bound {
            covered.extend(calls[i].0.iter().copied());
            taken.push(i);
        } else if now > 0 {
            heap.push((now, size, Reverse(i)));
        }
    }
    taken.sort_unstable();
    taken
}

/// A run's kept calls after distilling.
#[derive(Debug, Clone, Default)]
pub struct Distilled {
    /// The calls kept, in the order generation kept them.
    pub kept: Vec<Kept>,
    /// The calls dropped, in the same order.
    pub dropped: Vec<Kept>,
    /// The calls of `kept` (indices) now named for goals a dropped call was
    /// named for: each such goal goes to the first kept call that meets it.
    pub renamed: Vec<usize>,
}

/// What `kept` covers beyond the goals `covered` and the edge features
/// `seen` that the existing calls hold, as distilling counts it ([`Covers`]).
pub fn covers(reach: &Reach, covered: &BTreeSet<u32>, seen: &Seen, kept: &Kept) -> Vec<Covers> {
    let mut out: Vec<Covers> = reach
        .covered_goals(&kept.trace)
        .filter(|goal| !covered.contains(goal))
        .map(Covers::Goal)
        .collect();
    out.extend(
        kept.added
            .iter()
            .filter(|goal| reach.mutation(**goal).is_some())
            .map(|&goal| Covers::Strong(goal)),
    );
    out.extend(reach.outside(&kept.trace).map(|(sites, id)| Covers::Outside(sites, id)));
    out.extend(kept.features.iter().filter(|f| !seen.contains(**f)).map(|&f| Covers::Edge(f)));
    out
}

/// Distils the calls a generation run `kept` ([`distil`]), what each covers
/// read by [`covers`]; a kept call's size is its arguments' ([`Size`]); a
/// call kept again with the arguments of an earlier one is dropped. A
/// goal a dropped call was named for (its entry's `added`) goes to the
/// first kept call that meets it, so that every goal the run met is still
/// named by a call; mutants are never handed on (the one call named for a
/// mutant is the only one known to kill it strongly, and is kept).
pub fn distil_kept(reach: &Reach, covered: &BTreeSet<u32>, seen: &Seen, kept: Vec<Kept>) -> Distilled {
    // A call kept again with the same arguments (an edge feature that
    // differs from run to run) is the entry of the first: its parent stores
    // that one only, and counts what it covered. The later ones count for
    // nothing here.
    let calls: Vec<(Vec<Covers>, Size)> = kept
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let again = kept[..i].iter().any(|earlier| earlier.args == k.args);
            let covers = match again {
                true => Vec::new(),
                false => covers(reach, covered, seen, k),
            };
            (covers, Size::of(&k.args))
        })
        .collect();
    let chosen = distil(&calls);
    let mut out = Distilled::default();
    let mut chosen = chosen.into_iter().peekable();
    for (i, call) in kept.into_iter().enumerate() {
        match chosen.next_if_eq(&i) {
            Some(_) => out.kept.push(call),
            None => out.dropped.push(call),
        }
    }
    let mut renamed = BTreeSet::new();
    for dropped in &out.dropped {
        for &goal in dropped.added.iter().filter(|g| reach.mutation(**g).is_none()) {
            let heir = out
                .kept
                .iter()
                .position(|k| reach.covered_goals(&k.trace).any(|g| g == goal));
            if let Some(heir) = heir {
                out.kept[heir].added.push(goal);
                renamed.insert(heir);
            }
        }
    }
    for &i in &renamed {
        out.kept[i].added.sort_unstable();
        out.kept[i].added.dedup();
    }
    out.renamed = renamed.into_iter().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn union<'a>(calls: impl IntoIterator<Item = &'a (Vec<Covers>, u32)>) -> BTreeSet<Covers> {
        calls.into_iter().flat_map(|(c, _)| c.iter().copied()).collect()
    }

    /// A small xorshift: the instances are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A call made redundant by a later one is dropped; one that adds
    /// something only it covers stays, whatever its size.
    #[test]
    fn a_call_a_later_one_covers_is_dropped() {
        let calls = vec![
            (vec![Covers::Goal(0), Covers::Edge(8)], 3),
            (vec![Covers::Strong(40)], 100),
            (vec![Covers::Goal(0), Covers::Goal(1), Covers::Edge(8)], 7),
            (vec![Covers::Edge(8), Covers::Outside(16, 2)], 2),
        ];
        assert_eq!(distil(&calls), [1, 2, 3]);
        let kept: Vec<_> = [1, 2, 3].map(|i| calls[i].clone()).to_vec();
        assert_eq!(union(&kept), union(&calls));
    }

    /// Equal gains go to the smaller call, then to the one kept first; a
    /// call that covers nothing new is never taken.
    #[test]
    fn ties_go_to_the_smaller_then_the_first() {
        let same = vec![Covers::Goal(1), Covers::Edge(3)];
        assert_eq!(distil(&[(same.clone(), 5), (same.clone(), 4), (same.clone(), 4)]), [1]);
        assert_eq!(distil(&[(same.clone(), 4), (same.clone(), 4)]), [0]);
        assert_eq!(distil(&[(vec![], 0), (same, 9)]), [1]);
        assert_eq!(distil::<u32>(&[]), Vec::<usize>::new());
    }

    static SITES: crate::registry::Sites = crate::generation::testing::x_gt_9("f");

    /// A kept call of `f` with argument `x` that took the outcomes `taken`
    /// and reached the edge features `features`, named for `added`.
    fn kept(x: u64, taken: &[u32], features: &[u32], added: &[u32]) -> Kept {
        let args = crate::value::Value::U64(x);
        Kept {
            args: args.clone(),
            observation: crate::outcome::Observation {
                outcome: crate::outcome::Outcome::Returned(crate::value::Value::Unit),
                after: None,
            },
            added: added.to_vec(),
            generated: args,
            trace: crate::coverage::Trace::from_entries(taken.iter().map(|&id| (&SITES, id, 0.0)).collect()),
            features: features.to_vec(),
        }
    }

    /// The goals of a dropped call go to the first kept call that meets
    /// them; what the existing calls cover needs no call.
    #[test]
    fn a_dropped_call_hands_its_goals_on() {
        let reach = Reach::single(&SITES);
        let calls = vec![kept(1, &[0], &[], &[0]), kept(2, &[1], &[], &[1]), kept(30, &[0, 1], &[8], &[])];
        let distilled = distil_kept(&reach, &BTreeSet::new(), &Seen::default(), calls.clone());
        assert_eq!(distilled.kept.len(), 1);
        assert_eq!(distilled.kept[0].args, calls[2].args);
        assert_eq!(distilled.kept[0].added, [0, 1]);
        assert_eq!(distilled.renamed, [0]);
        assert_eq!(distilled.dropped.len(), 2);
        // Existing calls cover outcome 1 and reach feature 8: the first call
        // covers the rest alone.
        let mut seen = Seen::default();
        seen.add(&[8]);
        let distilled = distil_kept(&reach, &[1].into(), &seen, calls);
        let kept: Vec<_> = distilled.kept.iter().map(|k| k.args.clone()).collect();
        assert_eq!(kept, [crate::value::Value::U64(1)]);
    }

    /// A call kept a second time with the same arguments (a feature that
    /// differs from run to run) is the first one's entry: only the first
    /// counts, so the entry is not dropped for the second's sake.
    #[test]
    fn a_call_kept_again_with_the_same_arguments_counts_once() {
        let reach = Reach::single(&SITES);
        let calls = vec![kept(1, &[0], &[8], &[0]), kept(1, &[0], &[8, 16], &[])];
        let distilled = distil_kept(&reach, &BTreeSet::new(), &Seen::default(), calls);
        assert_eq!(distilled.kept.len(), 1);
        assert_eq!(distilled.kept[0].features, [8]);
        assert_eq!(distilled.dropped.len(), 1);
        assert_eq!(distilled.dropped[0].features, [8, 16]);
    }

    /// On random instances, what the kept calls cover is what all calls
    /// covered; each kept call adds something in the greedy order; the
    /// result is the eager greedy's (every gain recomputed at every step).
    #[test]
    fn distilling_keeps_the_coverage_of_all_calls() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let n = rng.below(30) as usize;
            let universe = 1 + rng.below(40) as u32;
            let calls: Vec<(Vec<Covers>, u32)> = (0..n)
                .map(|_| {
                    let k = rng.below(8);
                    let covers = (0..k)
                        .map(|_| {
                            let x = rng.below(u64::from(universe)) as u32;
                            match rng.below(4) {
                                0 => Covers::Goal(x),
                                1 => Covers::Strong(x),
                                2 => Covers::Outside(x as usize, x % 3),
                                _ => Covers::Edge(x),
                            }
                        })
                        .collect();
                    (covers, rng.below(5) as u32)
                })
                .collect();
            let kept = distil(&calls);
            assert!(kept.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(union(kept.iter().map(|&i| &calls[i])), union(&calls));
            // The eager greedy, for reference.
            let mut covered = BTreeSet::new();
            let mut eager = Vec::new();
            loop {
                let best = (0..calls.len())
                    .map(|i| {
                        let gain = union([&calls[i]]).difference(&covered).count();
                        (gain, Reverse(calls[i].1), Reverse(i))
                    })
                    .max();
                match best {
                    Some((gain, _, Reverse(i))) if gain > 0 => {
                        covered.extend(calls[i].0.iter().copied());
                        eager.push(i);
                    }
                    _ => break,
                }
            }
            eager.sort_unstable();
            assert_eq!(kept, eager);
        }
    }
}
