use std::collections::HashMap;

#[carve::target]
pub fn total(counts: HashMap<&str, u32>) -> u32 {
    counts.values().sum()
}

fn main() {}
