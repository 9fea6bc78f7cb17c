//! The smallest distance per global outcome index of one collection, and
//! which indices the call reached: one bit each, in words listed as they
//! are first set, so that the end of a call walks what it reached in
//! ascending order without sorting it (the indices come from the words'
//! bits, and a call's words are few: one per 64 indices).

/// Distances of one collection, kept from one call to the next with every
/// slot at infinity and every bit clear between calls.
#[derive(Default)]
pub(super) struct Slots {
    /// Smallest distance per global index; infinity when not reached.
    distance: Vec<f64>,
    /// Bit `i % 64` of word `i / 64`: index `i` was reached in this call
    /// (exactly the slots of `distance` below infinity). At least as many
    /// words as `distance` needs.
    bits: Vec<u64>,
    /// The nonzero words of `bits`, each once, in the order they were
    /// first set.
    words: Vec<u32>,
}

impl Slots {
    /// Keeps the smallest distance of indices `first..first + N`.
    // Always inlined: as a call it passed the distances through memory and
    // was most of what recording a branch cost.
    #[inline(always)]
    pub(super) fn keep_smallest<const N: usize>(&mut self, first: usize, distances: [f64; N]) {
        if N == 0 {
            return;
        }
        // One slot (an outcome taken, the common case once goals are met):
        // one bounds check. Growing is out of line and does not check again
        // on the common path.
        if N == 1 {
            let slot = match self.distance.get_mut(first) {
                Some(slot) => slot,
                None => &mut self.grow(first, N)[0],
            };
            if distances[0] < *slot {
                let first_time = *slot == f64::INFINITY;
                *slot = distances[0];
                if first_time {
                    mark(&mut self.bits, &mut self.words, first);
                }
            }
            return;
        }
        let end = first + N;
        if end > self.distance.len() {
            self.grow(first, N);
        }
        // One bounds check for the whole range; the bits are apart from
        // the slots. An index loop, not iterator adapters: this is inlined
        // into the crate's instrumented code, which `cargo carve generate`
        // builds unoptimized, where each adapter's `next` is a call (4% of
        // humantime's generation worker).
        let Slots { distance, bits, words } = self;
        let slots = &mut distance[first..end];
        let mut offset = 0;
        while offset < N {
            let (distance, slot) = (distances[offset], &mut slots[offset]);
            if distance < *slot {
                let first_time = *slot == f64::INFINITY;
                *slot = distance;
                if first_time {
                    mark(bits, words, first + offset);
                }
            }
            offset += 1;
        }
    }

    /// Keeps distance 0 at `index`: an outcome taken, the common case once
    /// goals are met. As `keep_smallest(index, [0.0])`, with one integer
    /// test where that compared floats: a slot holds a distance, which is
    /// never below 0, so it is above 0 exactly when its bits are not 0's.
    #[inline(always)]
    pub(super) fn keep_taken(&mut self, index: usize) {
        let slot = match self.distance.get_mut(index) {
            Some(slot) => slot,
            None => &mut self.grow(index, 1)[0],
        };
        // One integer load for both tests (as floats, the slot was loaded
        // into a vector register and moved out).
        let bits = slot.to_bits();
        if bits != 0 {
            *slot = 0.0;
            if bits == f64::INFINITY.to_bits() {
                mark(&mut self.bits, &mut self.words, index);
            }
        }
    }

    /// The slots `first..first + n`, made room for (rare: once per table and
    /// thread), out of line so that the recording path stays small.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, first: usize, n: usize) -> &mut [f64] {
        let end = first + n;
        if end > self.distance.len() {
            self.distance.resize(end, f64::INFINITY);
            self.bits.resize(end.div_ceil(64), 0);
        }
        &mut self.distance[first..end]
    }

    /// How many indices the call reached.
    pub(super) fn count(&self) -> usize {
        self.words.iter().map(|&w| self.bits[w as usize].count_ones() as usize).sum()
    }

    /// Calls `each` with every reached index and its distance, in ascending
    /// order, and resets them for the next call.
    // Always inlined: as a function of its own it kept what `each` captures
    // (the current table, the trace's length) in memory, loaded and stored
    // per index.
    #[inline(always)]
    pub(super) fn drain(&mut self, mut each: impl FnMut(u32, f64)) {
        let Slots { distance, bits, words } = self;
        sort_small(words);
        for &at in words.iter() {
            let mut word = std::mem::take(&mut bits[at as usize]);
            let first = at as usize * 64;
            while word != 0 {
                let index = first + word.trailing_zeros() as usize;
                word &= word - 1;
                let d = std::mem::replace(&mut distance[index], f64::INFINITY);
                each(index as u32, d);
            }
        }
        words.clear();
    }
}

/// Sets the bit of `index`, reached for the first time in this call, and
/// lists its word if it is the word's first.
#[inline(always)]
fn mark(bits: &mut [u64], words: &mut Vec<u32>, index: usize) {
    let at = index / 64;
    if let Some(word) = bits.get_mut(at) {
        if *word == 0 {
            words.push(at as u32);
        }
        *word |= 1 << (index % 64);
    }
}

/// Sorts the touched words: an insertion sort, as a call touches few, often
/// in order.
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use std::collections::BTreeMap;

    #[test]
    fn reached_indices_come_out_ascending_with_their_smallest_distance_and_reset() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut slots = Slots::default();
        // The same slots over calls, as a collection keeps them: whatever a
        // call reached, the next starts empty.
        for call in 0..400 {
            let span = [3, 64, 130, 1000][call % 4];
            let mut expected = BTreeMap::<u32, f64>::new();
            for _ in 0..rng.random_range(0..90) {
                let first = rng.random_range(0..span);
                let distances: [f64; 6] = std::array::from_fn(|_| match rng.random_range(0..4) {
                    0 => f64::INFINITY,
                    1 => 0.0,
                    _ => f64::from(rng.random_range(0..50u8)),
                });
                let mut keep = |at: usize, d: f64| {
                    if d.is_finite() {
                        let slot = expected.entry(at as u32).or_insert(d);
                        *slot = slot.min(d);
                    }
                };
                match rng.random_range(0..4) {
                    0 => {
                        slots.keep_smallest(first, [distances[0]]);
                        keep(first, distances[0]);
                    }
                    1 => {
                        slots.keep_smallest(first, [distances[0], distances[1]]);
                        (0..2).for_each(|i| keep(first + i, distances[i]));
                    }
                    2 => {
                        slots.keep_smallest(first, [distances[0], distances[1], distances[2]]);
                        (0..3).for_each(|i| keep(first + i, distances[i]));
                    }
                    // A comparison's goal block, across a word's end too.
                    _ => {
                        slots.keep_smallest(first, distances);
                        (0..6).for_each(|i| keep(first + i, distances[i]));
                    }
                }
            }
            assert_eq!(slots.count(), expected.len());
            let mut got = Vec::new();
            slots.drain(|index, d| got.push((index, d)));
            assert_eq!(got, expected.into_iter().collect::<Vec<_>>(), "call {call}");
            assert!(slots.distance.iter().all(|d| *d == f64::INFINITY));
            assert!(slots.bits.iter().all(|w| *w == 0) && slots.words.is_empty());
            assert!(slots.bits.len() * 64 >= slots.distance.len());
        }
    }

    #[test]
    fn keeping_a_taken_outcome_is_keeping_distance_zero() {
        let mut rng = StdRng::seed_from_u64(8);
        let (mut taken, mut smallest) = (Slots::default(), Slots::default());
        for call in 0..300 {
            for _ in 0..rng.random_range(0..60) {
                let at = rng.random_range(0..[5, 70, 300][call % 3]);
                if rng.random_range(0..3) == 0 {
                    taken.keep_taken(at);
                    smallest.keep_smallest(at, [0.0]);
                } else {
                    let d = f64::from(rng.random_range(0..4u8));
                    taken.keep_smallest(at, [d]);
                    smallest.keep_smallest(at, [d]);
                }
            }
            assert_eq!(taken.count(), smallest.count());
            let (mut got, mut expected) = (Vec::new(), Vec::new());
            taken.drain(|index, d| got.push((index, d)));
            smallest.drain(|index, d| expected.push((index, d)));
            assert_eq!(got, expected, "call {call}");
        }
    }

    #[test]
    fn touched_words_sort_whatever_their_order() {
        let mut rng = StdRng::seed_from_u64(3);
        let descending: Vec<u32> = (0..40).rev().collect();
        let random: Vec<Vec<u32>> =
            (0..200).map(|_| (0..rng.random_range(0..80)).map(|_| rng.random_range(0..50)).collect()).collect();
        for indices in [vec![], vec![5], descending].into_iter().chain(random) {
            let mut expected = indices.clone();
            expected.sort_unstable();
            let mut sorted = indices;
            sort_small(&mut sorted);
            assert_eq!(sorted, expected);
        }
    }
}
