// The target cannot be carved, but it is still defined: its callers compile,
// and carve's error is the only one.
#[carve::target]
pub fn apply(f: fn(u8) -> u8, x: u8) -> u8 {
    f(x)
}

pub fn twice(x: u8) -> u8 {
    apply(|y| y * 2, x)
}

fn main() {
    let _ = twice(1);
}
