#[carve::target]
pub fn apply(f: fn(u8) -> u8, x: u8) -> u8 {
    f(x)
}

fn main() {}
