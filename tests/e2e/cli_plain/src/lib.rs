//! A crate that has never heard of carve: `cargo carve init` sets it up.

/// Names the size of `n`.
pub fn classify(n: i32) -> &'static str {
    if n < 0 {
        "negative"
    } else if n == 0 {
        "zero"
    } else if n > 100 {
        "large"
    } else {
        "small"
    }
}
