//! Arithmetic operations as weak-mutation goals: `l + r` with `+` replaced
//! by `-` or `*` (cargo-mutants' replacements, [`Arith::mutants`]) is
//! weakly killed by a call where the replaced operation has another value,
//! or where one of the two panics and the other does not (overflow,
//! division by zero).
//!
//! The derive rewrites `l + r` into a call of [`KnownArith::arith`] or
//! [`UnknownArith::arith`] on [`Operands`], chosen by method resolution
//! (autoref) as [`crate::coverage::Probe`] chooses a comparison's distance:
//! primitive numbers of one type are recorded
//! ([`crate::coverage::arith`]); any other operands (`String + &str`, a
//! user's `Add`) are only marked as seen, and the operation runs as written.
//!
//! ```
//! use carve::coverage::arith::{KnownArith as _, Operands, UnknownArith as _};
//! use carve::registry::{Arith, Sites};
//! static SITES: Sites = Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! assert_eq!(Operands::new(2u8, 3u8).arith(&SITES, 0, Arith::Add, |l, r| l + r), 5);
//! assert_eq!(Operands::new(String::from("a"), "b").arith(&SITES, 0, Arith::Add, |l, r| l + r), "ab");
//! ```

use crate::coverage::Site;
use crate::registry::Arith;

/// The goal slot each replacement's kill is recorded in: 0 where it was
/// killed, 1 where it was computed and not killed.
pub const MUTANT_SLOTS: [u32; 2] = [0, 1];
/// The goal slot recorded when operands of a type carve cannot compute ran
/// the operation: it ran, and its mutants do not apply.
pub const UNKNOWN_SLOT: u32 = 3;

/// A primitive number whose operations carve computes, checked.
pub trait Number: Copy {
    /// `l op r`; `None` where it panics in a build with overflow checks
    /// (overflow, division by zero).
    fn checked(op: Arith, l: Self, r: Self) -> Option<Self>;
    /// Whether two results are the same value (NaN is NaN).
    fn same(a: Self, b: Self) -> bool;
    /// `l op r` as this build computes it: a panic where the operator
    /// written in the source would panic (overflow in a debug build,
    /// division by zero in any).
    fn apply(op: Arith, l: Self, r: Self) -> Self;
}

/// The message of the panic `op` would raise on these operands.
fn panic_message(op: Arith, zero_divisor: bool) -> &'static str {
    match op {
        Arith::Div if zero_divisor => "attempt to divide by zero",
        Arith::Rem if zero_divisor => {
            "attempt to calculate the remainder with a divisor of zero"
        }
        Arith::Add => "attempt to add with overflow",
        Arith::Sub => "attempt to subtract with overflow",
        Arith::Mul => "attempt to multiply with overflow",
        Arith::Div => "attempt to divide with overflow",
        Arith::Rem => "attempt to calculate the remainder with overflow",
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn checked(op: Arith, l: Self, r: Self) -> Option<Self> {
                match op {
                    Arith::Add => l.checked_add(r),
                    Arith::Sub => l.checked_sub(r),
                    Arith::Mul => l.checked_mul(r),
                    Arith::Div => l.checked_div(r),
                    Arith::Rem => l.checked_rem(r),
                }
            }
            #[inline]
            fn same(a: Self, b: Self) -> bool {
                a == b
            }
            fn apply(op: Arith, l: Self, r: Self) -> Self {
                // Division overflows (MIN / -1) or divides by zero in
                // every build; the others overflow only with checks on.
                let checks = cfg!(debug_assertions) || matches!(op, Arith::Div | Arith::Rem);
                match Self::checked(op, l, r) {
                    Some(value) => value,
                    None if checks => panic!("{}", panic_message(op, r == 0)),
                    None => match op {
                        Arith::Add => l.wrapping_add(r),
                        Arith::Sub => l.wrapping_sub(r),
                        _ => l.wrapping_mul(r),
                    },
                }
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn checked(op: Arith, l: Self, r: Self) -> Option<Self> {
                Some(Self::apply(op, l, r))
            }
            #[inline]
            fn same(a: Self, b: Self) -> bool {
                a == b || (a.is_nan() && b.is_nan())
            }
            #[inline]
            fn apply(op: Arith, l: Self, r: Self) -> Self {
                match op {
                    Arith::Add => l + r,
                    Arith::Sub => l - r,
                    Arith::Mul => l * r,
                    Arith::Div => l / r,
                    Arith::Rem => l % r,
                }
            }
        }
    )*};
}
float!(f32, f64);

/// The operands of an arithmetic operation, moved in as the operator would
/// move them.
pub struct Operands<L, R>(Option<(L, R)>);

impl<L, R> Operands<L, R> {
    /// Holds the operands, evaluated (left first) where the operation was.
    #[inline(always)]
    pub fn new(l: L, r: R) -> Self {
        Operands(Some((l, r)))
    }
}

/// Operations of two primitive numbers of one type: recorded, and mutated
/// when a strong check runs one of their mutants. Chosen over
/// [`UnknownArith`] by method resolution.
pub trait KnownArith<T> {
    /// `original(l, r)`, its mutants' kills recorded (the `index`-th goal
    /// slot block of `sites`).
    fn arith(self, at: impl Site, index: u32, op: Arith, original: impl FnOnce(T, T) -> T) -> T;
}

impl<T: Number> KnownArith<T> for Operands<T, T> {
    #[inline(always)]
    fn arith(self, at: impl Site, index: u32, op: Arith, original: impl FnOnce(T, T) -> T) -> T {
        let Operands(Some((l, r))) = self else {
            unreachable!("`Operands::new` holds the operands")
        };
        crate::coverage::arith(at, index, op, l, r, original)
    }
}

/// Any other operation: run as written.
pub trait UnknownArith<L, R> {
    /// `original(l, r)`, marked as run on operands carve cannot compute.
    fn arith<O>(&mut self, at: impl Site, index: u32, op: Arith, original: impl FnOnce(L, R) -> O) -> O;
}

impl<L, R> UnknownArith<L, R> for Operands<L, R> {
    #[inline(always)]
    fn arith<O>(&mut self, at: impl Site, index: u32, _: Arith, original: impl FnOnce(L, R) -> O) -> O {
        let sites = at.frame().sites();
        crate::coverage::hit(at, crate::coverage::goal_slot(sites, index, UNKNOWN_SLOT));
        let Some((l, r)) = self.0.take() else {
            unreachable!("`Operands::new` holds the operands, taken once")
        };
        original(l, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_and_division_by_zero_are_no_values() {
        assert_eq!(u8::checked(Arith::Add, 200, 100), None);
        assert_eq!(u8::checked(Arith::Mul, 20, 2), Some(40));
        assert_eq!(i32::checked(Arith::Rem, 7, 0), None);
        assert_eq!(i32::checked(Arith::Div, i32::MIN, -1), None);
        assert!(f64::same(f64::NAN, f64::INFINITY - f64::INFINITY));
        assert!(!f64::same(1.0, 2.0));
        let zero = std::panic::catch_unwind(|| u8::apply(Arith::Div, 1, 0));
        let message = zero.unwrap_err().downcast::<String>().unwrap();
        assert_eq!(*message, "attempt to divide by zero");
    }
}
