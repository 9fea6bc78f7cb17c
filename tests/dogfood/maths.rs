//! Numeric subjects of the chapters: `my_sqrt`, `power`, the quadratic
//! `roots` of the slides and the search chapter's `test_me`.

use serde::{Deserialize, Serialize};

/// Newton's square root from the introduction chapter (bounded, so that a
/// NaN never loops forever).
#[carve::target]
pub fn my_sqrt(x: f64) -> f64 {
    assert!(x >= 0.0, "my_sqrt of a negative number: {x}");
    if x == 0.0 {
        return 0.0;
    }
    let mut approx = f64::NAN;
    let mut guess = x / 2.0;
    let mut steps = 0;
    while approx != guess && steps < 100 {
        approx = guess;
        guess = (approx + x / approx) / 2.0;
        steps += 1;
    }
    approx
}

/// `x` to the power `y`, by repeated squaring; `None` on overflow.
#[carve::target]
pub fn power(x: i64, y: u32) -> Option<i64> {
    let mut result: i64 = 1;
    let mut base = x;
    let mut exp = y;
    while exp > 0 {
        if exp % 2 == 1 {
            result = result.checked_mul(base)?;
        }
        exp /= 2;
        if exp > 0 {
            base = base.checked_mul(base)?;
        }
    }
    Some(result)
}

/// The real solutions of `a·x² + b·x + c = 0`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Roots {
    /// Two distinct roots.
    Two(f64, f64),
    /// One (double) root.
    One(f64),
    /// No real root.
    None,
}

/// The slides' `roots(a, b, c)`, including its flaw: with `a == 0` and
/// `b == 0` the "one root" branch divides by zero.
#[carve::target]
pub fn roots(a: f64, b: f64, c: f64) -> Roots {
    let q = b * b - 4.0 * a * c;
    if q > 0.0 && a != 0.0 {
        let s = q.sqrt();
        Roots::Two((-b + s) / (2.0 * a), (-b - s) / (2.0 * a))
    } else if q == 0.0 {
        Roots::One(-b / (2.0 * a))
    } else {
        Roots::None
    }
}

/// The search chapter's `test_me`, written with an `if` on purpose: its
/// branches are what coverage and search are about.
#[allow(clippy::needless_bool)]
#[carve::target]
pub fn test_me(x: i64, y: i64) -> bool {
    // In i128, so that any i64 x and y work (generation found the overflow).
    if i128::from(x) == 2 * (i128::from(y) + 1) {
        true
    } else {
        false
    }
}

/// A needle: nested conditions that only search with branch distances
/// reaches (written so that nothing overflows). The example used
/// `0x5a`, which no input reaches: `x ^ (3x - 7)` is always odd.
#[carve::target]
pub fn needle(x: i64, y: i64) -> u8 {
    if x > 1_000_000 {
        if y == x.wrapping_mul(3).wrapping_sub(7) {
            if (x ^ y) & 0xff == 0x59 {
                return 3;
            }
            return 2;
        }
        return 1;
    }
    0
}
