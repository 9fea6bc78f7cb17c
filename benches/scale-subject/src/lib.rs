//! The subject of carve's scale bench: one target, called N times with
//! distinct arguments by one system test.

/// Labels a number; one branch per parity.
#[carve::target]
pub fn label(n: u64) -> String {
    if n % 2 == 0 {
        format!("even {n}")
    } else {
        format!("odd {n}")
    }
}
