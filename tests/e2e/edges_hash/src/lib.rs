//! Letter counts in std's `HashMap`, whose hasher is seeded at random in
//! each run: how its probing goes (which slots a key's tag matches by
//! chance, how many groups it looks at) differs from run to run, while what
//! the target returns does not. The helper that tells texts with a
//! repeated letter or pair from the others is not instrumented: only the
//! edge counters of `cargo carve generate` see its branches.

use std::collections::HashMap;

/// How often the most frequent letter and pair of letters of `text` occur.
#[cfg_attr(feature = "carve", carve::target)]
pub fn repeats(text: &str) -> String {
    let mut letters: HashMap<char, usize> = HashMap::new();
    let mut pairs: HashMap<(char, char), usize> = HashMap::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        *letters.entry(c).or_default() += 1;
        if let Some(&next) = chars.get(i + 1) {
            *pairs.entry((c, next)).or_default() += 1;
        }
    }
    let letter = letters.values().copied().max().unwrap_or(0);
    let pair = pairs.values().copied().max().unwrap_or(0);
    verdict(letters.len(), letter, pair)
}

/// Not instrumented: no branch of it is a goal of carve's own.
fn verdict(distinct: usize, letter: usize, pair: usize) -> String {
    if pair > 1 {
        format!("{distinct} letters, a pair {pair} times")
    } else if letter > 1 {
        format!("{distinct} letters, one {letter} times")
    } else {
        format!("{distinct} letters, none repeated")
    }
}
