//! A set of goal ids in order whose membership costs one bit: generation
//! looks up every goal a call covers, and every boundary and mutant goal
//! of the reach, after each execution (in the goals met, and in search's
//! goals still uncovered), where a tree search each cost real crates
//! ~20,000 instructions per execution (humantime). Read as the
//! `BTreeSet` it keeps (in order, for what iterates it); changed only
//! through its methods, which keep the bits with it.
//!
//! ```
//! use carve::generation::goal_set::GoalSet;
//! let mut met: GoalSet = [3, 70].into_iter().collect();
//! assert!(met.has(70) && !met.has(4));
//! met.remove(70);
//! assert_eq!(met.iter().copied().collect::<Vec<_>>(), [3]);
//! assert_eq!(met.absent_in(2..5).collect::<Vec<_>>(), [2, 4]);
//! ```

use std::collections::BTreeSet;
use std::ops::Range;

/// A set of goals in order, whose membership is one bit each.
#[derive(Debug, Clone, Default)]
pub struct GoalSet {
    set: BTreeSet<u32>,
    bits: Vec<u64>,
}

impl GoalSet {
    /// Whether `goal` is in.
    #[inline]
    pub fn has(&self, goal: u32) -> bool {
        let (word, bit) = ((goal / 64) as usize, goal % 64);
        self.bits.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `goal`; whether it was not in.
    pub fn insert(&mut self, goal: u32) -> bool {
        let word = (goal / 64) as usize;
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (goal % 64);
        self.set.insert(goal)
    }

    /// How many goals below `end` are in, counted in the bits: generation
    /// reports the branch outcomes covered after each execution, and
    /// walking the tree for them was 5% of humantime's worker.
    pub fn count_below(&self, end: u32) -> usize {
        let (full, rest) = ((end / 64) as usize, end % 64);
        let whole: u32 = self.bits.iter().take(full).map(|w| w.count_ones()).sum();
        let part = match self.bits.get(full) {
            Some(w) if rest > 0 => (w & ((1 << rest) - 1)).count_ones(),
            _ => 0,
        };
        (whole + part) as usize
    }

    /// The goals in, ascending, read off the bits: search measures a call
    /// against every uncovered goal, and walking the tree for them was 4%
    /// of humantime's worker.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros();
                    word &= word - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }

    /// The goals in `range` that are in, ascending, read a word at a time.
    pub fn ids_in(&self, range: Range<u32>) -> impl Iterator<Item = u32> + '_ {
        self.bits_in(range, false)
    }

    /// The goals in `range` that are not in, ascending, read a word at a
    /// time (generation: the boundary and mutant goals still open).
    pub fn absent_in(&self, range: Range<u32>) -> impl Iterator<Item = u32> + '_ {
        self.bits_in(range, true)
    }

    /// The goals of `range` whose bit is set, or clear if `flip`.
    fn bits_in(&self, range: Range<u32>, flip: bool) -> impl Iterator<Item = u32> + '_ {
        let Range { start, end } = range;
        let words = (start / 64)..end.div_ceil(64);
        words.flat_map(move |i| {
            let stored = self.bits.get(i as usize).copied().unwrap_or(0);
            let base = i * 64;
            // Only the bits of `range` within this word.
            let low = start.saturating_sub(base).min(64);
            let high = (end - base).min(64);
            let mask = mask_below(high) & !mask_below(low);
            let mut word = if flip { !stored } else { stored } & mask;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros();
                    word &= word - 1;
                    base + bit
                })
            })
        })
    }

    /// Removes `goal`; whether it was in.
    pub fn remove(&mut self, goal: u32) -> bool {
        if let Some(w) = self.bits.get_mut((goal / 64) as usize) {
            *w &= !(1 << (goal % 64));
        }
        self.set.remove(&goal)
    }
}

/// A word with the bits below `n` set (`n` ≤ 64).
fn mask_below(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

impl std::ops::Deref for GoalSet {
    type Target = BTreeSet<u32>;
    fn deref(&self) -> &BTreeSet<u32> {
        &self.set
    }
}

impl FromIterator<u32> for GoalSet {
    fn from_iter<I: IntoIterator<Item = u32>>(goals: I) -> GoalSet {
        let mut set = GoalSet::default();
        set.extend(goals);
        set
    }
}

impl Extend<u32> for GoalSet {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, goals: I) {
        for goal in goals {
            self.insert(goal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Goal sets answer as the set they keep, through any sequence of
    /// goals met and opened again, across words and past the last one.
    #[test]
    fn goal_sets_answer_as_their_btree_sets() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for round in 0..200 {
            let span = rng.random_range(1..300u32);
            let mut met: GoalSet = (0..rng.random_range(0..20))
                .map(|_| rng.random_range(0..span))
                .collect();
            let mut set: BTreeSet<u32> = met.iter().copied().collect();
            for _ in 0..100 {
                let goal = rng.random_range(0..span);
                match rng.random_bool(0.5) {
                    true => assert_eq!(met.insert(goal), set.insert(goal)),
                    false => assert_eq!(met.remove(goal), set.remove(&goal)),
                }
                for probe in 0..span + 70 {
                    assert_eq!(met.has(probe), set.contains(&probe), "round {round}, goal {probe}");
                    assert_eq!(met.count_below(probe), set.range(..probe).count(), "round {round}, below {probe}");
                }
                assert_eq!(*met, set);
                assert!(met.ids().eq(set.iter().copied()));
                let (a, b) = (rng.random_range(0..span + 70), rng.random_range(0..span + 70));
                let range = a.min(b)..a.max(b);
                assert!(met.ids_in(range.clone()).eq(set.range(range.clone()).copied()), "round {round}, in {range:?}");
                let absent = range.clone().filter(|g| !set.contains(g));
                assert!(met.absent_in(range.clone()).eq(absent), "round {round}, absent in {range:?}");
            }
        }
    }
}
