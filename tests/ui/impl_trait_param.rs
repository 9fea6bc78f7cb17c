#[carve::target]
pub fn total(items: impl Iterator<Item = u32>) -> u32 {
    items.sum()
}

fn main() {}
