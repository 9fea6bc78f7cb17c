//! Branch distances: how far a comparison's operands were from taking each
//! outcome of the comparison, and from its boundary and mutant goals (the
//! search chapter's table: `a == b` is |a−b| from true, `a < b` is a−b+1
//! from true and b−a from false, …), computed from the operands' types.
//!
//! Pure arithmetic on [`Cmp`]; [`crate::coverage`] records the results while
//! a call runs.
//!
//! ```
//! use carve::coverage::distance::{normalize, Cmp};
//! use carve::coverage::Op;
//!
//! // Distances of `x == 2 * (y + 1)` with x = 5, y = 1: 1 from true, 0 from false.
//! assert_eq!(Op::Eq.distances(Cmp::numeric(5.0 - 4.0)), (1.0, 0.0));
//! assert_eq!(normalize(1.0), 0.5);
//! ```

use crate::registry::Op;

/// The goal slots each comparison records beside its two branch outcomes:
/// how far its operands were from each order and from the values next to
/// each other ([`crate::coverage::goals`] makes boundary and mutant goals of them).
pub mod slot {
    /// `l < r`.
    pub const LESS: u32 = 0;
    /// `l == r`.
    pub const EQUAL: u32 = 1;
    /// `l > r`.
    pub const GREATER: u32 = 2;
    /// The boundary of a relational comparison: equal operands (floats:
    /// equal or adjacent). Numbers and chars only.
    pub const BOUNDARY: u32 = 3;
    /// `l` one step below `r` (integers and chars: `r - 1`; floats: the
    /// adjacent float). Numbers and chars only.
    pub const BELOW: u32 = 4;
    /// `l` one step above `r`.
    pub const ABOVE: u32 = 5;
    /// Slots per comparison.
    pub const COUNT: u32 = 6;
}

/// `[to true, to false]` of a comparison whose value is `value`.
#[inline(always)]
pub(crate) fn branch_distances(value: bool, op: Op, info: Option<Cmp>) -> [f64; 2] {
    let (to_true, to_false) = match info {
        Some(cmp) => op.distances(cmp),
        None => (1.0, 1.0),
    };
    // The outcome taken is at distance 0; the other at least at a positive
    // distance, even where float rounding or NaN make the table disagree.
    let positive = |d: f64| {
        if d.is_nan() || d <= 0.0 {
            1.0
        } else {
            d.min(f64::MAX)
        }
    };
    if value {
        [0.0, positive(to_false)]
    } else {
        [positive(to_true), 0.0]
    }
}

/// The distances of one comparison's goal slots ([`slot`]); infinite
/// (nothing recorded) where a slot does not apply.
#[inline(always)]
pub(crate) fn goal_distances(
    op: Op,
    value: bool,
    info: Option<Cmp>,
    order: Option<std::cmp::Ordering>,
) -> [f64; slot::COUNT as usize] {
    use std::cmp::Ordering::{Equal, Greater, Less};
    const NONE: f64 = f64::INFINITY;
    let Some(order) = order else {
        // `==` of a type without a known order: only equality is known.
        if info.is_none() && !op.is_relational() {
            let equal = value == (op == Op::Eq);
            return [NONE, if equal { 0.0 } else { 1.0 }, NONE, NONE, NONE, NONE];
        }
        // Unordered (NaN): nothing to tell.
        return [NONE; slot::COUNT as usize];
    };
    let Some(Cmp { diff: d, dist, step, .. }) = info else {
        let to = |wanted| if order == wanted { 0.0 } else { 1.0 };
        return [to(Less), to(Equal), to(Greater), NONE, NONE, NONE];
    };
    // The order decides the zeros (the difference of two infinities is
    // NaN); the difference, how far the others are (the chapter's table,
    // with K = 1).
    let less = if order == Less { 0.0 } else { d.max(0.0) + K };
    let equal = if order == Equal { 0.0 } else { dist };
    let greater = if order == Greater { 0.0 } else { (-d).max(0.0) + K };
    let (boundary, below, above) = match step {
        Step::None => (NONE, NONE, NONE),
        Step::Integer if op.is_relational() => (dist, NONE, NONE),
        Step::Integer => (NONE, (d + 1.0).abs(), (d - 1.0).abs()),
        Step::Float(ulp) if op.is_relational() => ((dist - ulp).max(0.0), NONE, NONE),
        // One step below: `d = -ulp`; anything in `[-ulp, 0)` is adjacent.
        Step::Float(ulp) => (
            NONE,
            if d < 0.0 && -d <= ulp { 0.0 } else { (d + ulp).abs() },
            if d > 0.0 && d <= ulp { 0.0 } else { (d - ulp).abs() },
        ),
    };
    [less, equal, greater, boundary, below, above]
}

/// What a comparison's distance is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cmp {
    /// `a − b` (for strings: the first differing character's code points,
    /// or the length difference), giving the order.
    pub diff: f64,
    /// How far `a` is from being equal to `b` (|a − b| for numbers).
    pub dist: f64,
    /// The operands' order (`None`: unordered, as NaN is).
    pub order: Option<std::cmp::Ordering>,
    /// The step between neighbouring values of the operands' type, for
    /// boundary goals.
    pub step: Step,
}

/// The step between neighbouring values of a comparison's operands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// No boundary goals: strings, `bool`.
    None,
    /// Integers and `char`: 1.
    Integer,
    /// Floats: the distance to the next float after the right operand.
    Float(f64),
}

impl Cmp {
    /// For integers and chars: `diff = a − b`, `dist = |a − b|`.
    #[inline]
    pub fn numeric(diff: f64) -> Cmp {
        Cmp {
            diff,
            dist: diff.abs(),
            order: diff.partial_cmp(&0.0),
            step: Step::Integer,
        }
    }

    /// For floats `a` and `b`, whose type's next value after `b` is `ulp` away.
    #[inline]
    pub fn float(a: f64, b: f64, ulp: f64) -> Cmp {
        let diff = a - b;
        Cmp {
            diff,
            dist: diff.abs(),
            order: a.partial_cmp(&b),
            step: Step::Float(ulp),
        }
    }
}

/// The constant K of the chapter's table: the distance added when a strict
/// comparison must move past equality.
const K: f64 = 1.0;

impl Op {
    /// `(distance to true, distance to false)` of `a op b`.
    #[inline]
    pub fn distances(self, cmp: Cmp) -> (f64, f64) {
        let Cmp { diff: d, dist, .. } = cmp;
        let at_least = |x: f64| x.max(0.0);
        match self {
            Op::Eq => (dist, if dist == 0.0 { K } else { 0.0 }),
            Op::Ne => (if dist == 0.0 { K } else { 0.0 }, dist),
            Op::Lt => (if d < 0.0 { 0.0 } else { d + K }, at_least(-d)),
            Op::Le => (at_least(d), if d > 0.0 { 0.0 } else { -d + K }),
            Op::Gt => (if d > 0.0 { 0.0 } else { -d + K }, at_least(d)),
            Op::Ge => (at_least(-d), if d < 0.0 { 0.0 } else { d + K }),
        }
    }
}

#[cfg(any(test, feature = "_internals"))]
/// The distance of a conjunction: both operands must change.
pub fn and(a: f64, b: f64) -> f64 {
    a + b
}

#[cfg(any(test, feature = "_internals"))]
/// The distance of a disjunction: the closer operand suffices.
pub fn or(a: f64, b: f64) -> f64 {
    a.min(b)
}

/// A distance mapped into `[0, 1)`: d / (d + 1).
pub fn normalize(distance: f64) -> f64 {
    if distance.is_infinite() {
        1.0
    } else {
        distance / (distance + 1.0)
    }
}

/// The operands of a comparison, for picking a distance by their types.
pub struct Probe<'a, L: ?Sized, R: ?Sized>(pub &'a L, pub &'a R);

/// Comparisons whose operand types carve knows: numbers, `char`, `bool`,
/// strings. Chosen over [`UnknownCmp`] by method resolution (autoref).
pub trait KnownCmp {
    /// The operands' difference.
    fn cmp_info(&self) -> Option<Cmp>;
}

/// Any other comparison: distance 0 or 1 only.
pub trait UnknownCmp {
    /// Nothing known.
    fn cmp_info(&self) -> Option<Cmp> {
        None
    }
}

impl<L: ?Sized, R: ?Sized> UnknownCmp for &Probe<'_, L, R> {}

macro_rules! numeric_cmp {
    ($($t:ty => $via:ident),* $(,)?) => {$(
        impl KnownCmp for Probe<'_, $t, $t> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(Cmp::numeric($via(*self.0, *self.1)))
            }
        }
        impl KnownCmp for Probe<'_, &$t, &$t> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(Cmp::numeric($via(**self.0, **self.1)))
            }
        }
    )*};
}

/// `a − b` of operands of up to 32 bits (`char` and `bool` too), exact in
/// i64.
#[inline(always)]
fn narrow<T: Into<i64>>(a: T, b: T) -> f64 {
    (a.into() - b.into()) as f64
}

/// `a − b` of 64-bit integers, rounded once to the nearest f64: the
/// magnitude never overflows, and rounding is symmetric around 0. (Through
/// i128 it was the same value, but `i128 as f64` is a library routine that
/// cost a fifth of a recorded call.)
macro_rules! wide_diff {
    ($($name:ident: $t:ty),*) => {$(
        #[inline(always)]
        fn $name(a: $t, b: $t) -> f64 {
            let magnitude = a.abs_diff(b) as f64;
            if a >= b {
                magnitude
            } else {
                -magnitude
            }
        }
    )*};
}

wide_diff!(wide_i64: i64, wide_u64: u64, wide_isize: isize, wide_usize: usize);

#[inline(always)]
fn char_diff(a: char, b: char) -> f64 {
    narrow(u32::from(a), u32::from(b))
}

#[inline(always)]
fn bool_diff(a: bool, b: bool) -> f64 {
    narrow(u8::from(a), u8::from(b))
}

numeric_cmp! {
    i8 => narrow, i16 => narrow, i32 => narrow, i64 => wide_i64, isize => wide_isize,
    u8 => narrow, u16 => narrow, u32 => narrow, u64 => wide_u64, usize => wide_usize,
    char => char_diff,
}

macro_rules! float_cmp {
    ($($t:ty),*) => {$(
        impl KnownCmp for Probe<'_, $t, $t> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(float_info(*self.0, *self.1))
            }
        }
        impl KnownCmp for Probe<'_, &$t, &$t> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(float_info(**self.0, **self.1))
            }
        }
    )*};
}

float_cmp!(f32, f64);

/// Floats of one type: their step is that type's, next to `b`.
trait Float: Copy + Into<f64> {
    fn ulp(self) -> f64;
}

impl Float for f32 {
    fn ulp(self) -> f64 {
        let m = self.abs();
        f64::from(m.next_up()) - f64::from(m)
    }
}

impl Float for f64 {
    fn ulp(self) -> f64 {
        let m = self.abs();
        m.next_up() - m
    }
}

#[inline(always)]
fn float_info<T: Float>(a: T, b: T) -> Cmp {
    Cmp::float(a.into(), b.into(), b.ulp())
}

/// `bool`s are ordered, but have no boundaries.
fn bool_info(a: bool, b: bool) -> Cmp {
    Cmp {
        step: Step::None,
        ..Cmp::numeric(bool_diff(a, b))
    }
}

impl KnownCmp for Probe<'_, bool, bool> {
    #[inline]
    fn cmp_info(&self) -> Option<Cmp> {
        Some(bool_info(*self.0, *self.1))
    }
}

impl KnownCmp for Probe<'_, &bool, &bool> {
    #[inline]
    fn cmp_info(&self) -> Option<Cmp> {
        Some(bool_info(**self.0, **self.1))
    }
}

macro_rules! wide_cmp {
    ($($t:ty),*) => {$(
        impl KnownCmp for Probe<'_, $t, $t> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                // Exact while the difference fits in i128 (small differences
                // of huge values stay exact); in f64 beyond.
                let exact = i128::try_from(*self.0).ok().zip(i128::try_from(*self.1).ok()).and_then(|(a, b)| a.checked_sub(b));
                let order = Some(self.0.cmp(self.1));
                Some(Cmp { order, ..Cmp::numeric(exact.map_or(*self.0 as f64 - *self.1 as f64, |d| d as f64)) })
            }
        }
    )*};
}

wide_cmp!(i128, u128);

/// The distance between two strings: the order from the first differing
/// character; the equality distance sums the differences of aligned
/// characters plus 128 per missing or extra character.
fn str_cmp(a: &str, b: &str) -> Cmp {
    let mut dist = 0.0;
    let mut diff = None;
    let (mut ai, mut bi) = (a.chars(), b.chars());
    loop {
        match (ai.next(), bi.next()) {
            (Some(x), Some(y)) => {
                let d = f64::from(x as u32) - f64::from(y as u32);
                dist += d.abs();
                if diff.is_none() && d != 0.0 {
                    diff = Some(d);
                }
            }
            (Some(_), None) => {
                dist += 128.0;
                diff.get_or_insert(1.0);
            }
            (None, Some(_)) => {
                dist += 128.0;
                diff.get_or_insert(-1.0);
            }
            (None, None) => break,
        }
    }
    let diff = diff.unwrap_or(0.0);
    Cmp {
        diff,
        dist,
        order: diff.partial_cmp(&0.0),
        step: Step::None,
    }
}

macro_rules! str_cmp_impls {
    ($($l:ty, $r:ty);* $(;)?) => {$(
        impl KnownCmp for Probe<'_, $l, $r> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(str_cmp(AsRef::<str>::as_ref(self.0), AsRef::<str>::as_ref(self.1)))
            }
        }
    )*};
}

str_cmp_impls! {
    str, str; str, String; String, str; String, String;
    &str, &str; &str, String; String, &str; &str, str; str, &str;
    &String, &String; &String, &str; &str, &String;
}

/// How far a `None` is from a `Some`: farther than the contents of two
/// `Some`s of the types below ever are (2^53, past which an f64 no longer
/// counts by ones), so that a search moving towards `Some(b'.')` prefers
/// `Some(b'-')` to `None`.
const NONE_APART: f64 = 9_007_199_254_740_992.0;

/// Two `Option`s: two `Some`s by their contents (`inner`), a `None` beside
/// a `Some` [`NONE_APART`] from it and, as `Option` orders them, below it.
#[inline(always)]
fn option_cmp<T>(a: Option<T>, b: Option<T>, inner: impl FnOnce(T, T) -> Cmp) -> Cmp {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (diff, order) = match (a, b) {
        (Some(a), Some(b)) => return inner(a, b),
        (None, None) => (0.0, Equal),
        (None, Some(_)) => (-NONE_APART, Less),
        (Some(_), None) => (NONE_APART, Greater),
    };
    Cmp {
        diff,
        dist: diff.abs(),
        order: Some(order),
        step: Step::None,
    }
}

// `Option`s of the integers, `char`s and strings above, as parsers compare
// them: `b.get(19) == Some(&b'.')`, `chars.next() == Some('x')`,
// `iter.peek() == Some(&&b'-')`, `parts.next() == Some("ms")`.
macro_rules! option_cmp_impls {
    ($($t:ty => $via:ident),* $(,)?) => {$(
        impl KnownCmp for Probe<'_, Option<$t>, Option<$t>> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(option_cmp(*self.0, *self.1, |a, b| Cmp::numeric($via(a, b))))
            }
        }
        impl KnownCmp for Probe<'_, Option<&$t>, Option<&$t>> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(option_cmp(*self.0, *self.1, |a, b| Cmp::numeric($via(*a, *b))))
            }
        }
        impl KnownCmp for Probe<'_, Option<&&$t>, Option<&&$t>> {
            #[inline]
            fn cmp_info(&self) -> Option<Cmp> {
                Some(option_cmp(*self.0, *self.1, |a, b| Cmp::numeric($via(**a, **b))))
            }
        }
    )*};
}

option_cmp_impls! {
    i8 => narrow, i16 => narrow, i32 => narrow, i64 => wide_i64, isize => wide_isize,
    u8 => narrow, u16 => narrow, u32 => narrow, u64 => wide_u64, usize => wide_usize,
    char => char_diff,
}

impl KnownCmp for Probe<'_, Option<&str>, Option<&str>> {
    #[inline]
    fn cmp_info(&self) -> Option<Cmp> {
        Some(option_cmp(*self.0, *self.1, str_cmp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_compare_by_their_contents_and_a_none_is_farthest() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let byte = |a: Option<&u8>, b: Option<&u8>| Probe(&a, &b).cmp_info().expect("known");
        // `b.get(19) == Some(&b'.')` on a `-` there: one away.
        let near = byte(Some(&b'-'), Some(&b'.'));
        assert_eq!((near.diff, near.dist, near.order), (-1.0, 1.0, Some(Less)));
        assert_eq!(near.step, Step::Integer);
        let far = byte(Some(&b'a'), Some(&b'.'));
        let none = byte(None, Some(&b'.'));
        assert!(none.dist > far.dist && far.dist > near.dist);
        assert_eq!(none.order, Some(Less), "as `None < Some(_)`");
        assert_eq!(byte(Some(&0), None).order, Some(Greater));
        assert_eq!(byte(None, None).order, Some(Equal));
        let peeked = Probe(&Some(&&'x'), &Some(&&'z')).cmp_info();
        assert_eq!(peeked.map(|c| c.diff), Some(-2.0));
        let word = Probe(&Some("ms"), &Some("ns")).cmp_info();
        assert_eq!(word.map(|c| c.dist), Some(1.0));
    }

    fn d(op: Op, a: f64, b: f64) -> (f64, f64) {
        op.distances(Cmp::numeric(a - b))
    }

    #[test]
    fn distance_table_of_the_search_chapter() {
        // a == b: |a−b| to true; K to false when equal.
        assert_eq!(d(Op::Eq, 5.0, 3.0), (2.0, 0.0));
        assert_eq!(d(Op::Eq, 3.0, 3.0), (0.0, 1.0));
        assert_eq!(d(Op::Ne, 3.0, 3.0), (1.0, 0.0));
        assert_eq!(d(Op::Ne, 1.0, 3.0), (0.0, 2.0));
        // a < b: a−b+K to true; b−a to false.
        assert_eq!(d(Op::Lt, 5.0, 3.0), (3.0, 0.0));
        assert_eq!(d(Op::Lt, 3.0, 3.0), (1.0, 0.0));
        assert_eq!(d(Op::Lt, 1.0, 3.0), (0.0, 2.0));
        // a <= b: a−b to true; b−a+K to false.
        assert_eq!(d(Op::Le, 5.0, 3.0), (2.0, 0.0));
        assert_eq!(d(Op::Le, 3.0, 3.0), (0.0, 1.0));
        // a > b: b−a+K to true; a−b to false.
        assert_eq!(d(Op::Gt, 3.0, 3.0), (1.0, 0.0));
        assert_eq!(d(Op::Gt, 5.0, 3.0), (0.0, 2.0));
        // a >= b: b−a to true; a−b+K to false.
        assert_eq!(d(Op::Ge, 1.0, 3.0), (2.0, 0.0));
        assert_eq!(d(Op::Ge, 3.0, 3.0), (0.0, 1.0));
    }

    #[test]
    fn compound_conditions_sum_and_take_the_minimum() {
        assert_eq!(and(2.0, 3.0), 5.0);
        assert_eq!(or(2.0, 3.0), 2.0);
    }

    #[test]
    fn normalization_maps_into_the_unit_interval() {
        assert_eq!(normalize(0.0), 0.0);
        assert_eq!(normalize(1.0), 0.5);
        assert_eq!(normalize(3.0), 0.75);
        assert_eq!(normalize(f64::INFINITY), 1.0);
        assert!(normalize(1e300) < 1.0 || normalize(1e300) == 1.0);
    }

    #[test]
    // The explicit borrow is what picks `KnownCmp` over `UnknownCmp`.
    #[allow(clippy::needless_borrow)]
    fn known_types_give_differences_without_overflow() {
        use super::{KnownCmp as _, UnknownCmp as _};
        assert_eq!(
            (&Probe(&i64::MAX, &i64::MIN)).cmp_info().unwrap().diff,
            2f64.powi(64) - 1.0
        );
        assert_eq!(
            (&Probe(&u8::MIN, &u8::MAX)).cmp_info().unwrap().diff,
            -255.0
        );
        assert_eq!((&Probe(&'+', &'%')).cmp_info().unwrap().dist, 6.0);
        assert_eq!((&Probe(&true, &false)).cmp_info().unwrap().diff, 1.0);
        let info = (&Probe("ab", "ad")).cmp_info().unwrap();
        assert_eq!((info.diff, info.dist), (-2.0, 2.0));
        assert_eq!(info.order, Some(std::cmp::Ordering::Less));
        let info = (&Probe(&String::from("abc"), &"ab")).cmp_info().unwrap();
        assert_eq!((info.diff, info.dist), (1.0, 128.0));
        assert_eq!(info.step, Step::None, "strings have no boundaries");
        let info = (&Probe(&f64::INFINITY, &f64::INFINITY)).cmp_info().unwrap();
        assert_eq!(info.order, Some(std::cmp::Ordering::Equal), "inf - inf is NaN, yet equal");
        assert_eq!((&Probe(&1.0f32, &1.0f32)).cmp_info().unwrap().step, Step::Float(f64::from(f32::EPSILON)));
        assert_eq!(
            (&Probe(&[1u8], &[1u8])).cmp_info(),
            None,
            "unknown types get no distance"
        );
    }

    #[test]
    fn differences_round_like_exact_i128_arithmetic() {
        // The fast paths must give the very f64 that `(a − b) as f64` over
        // i128 gives: distances steer search, and runs must not change.
        let signed = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 53) - 1,
            -(1 << 53),
            -3,
            -1,
            0,
            1,
            2,
            (1 << 53) + 1,
            (1 << 54) + 3,
            i64::MAX - 1,
            i64::MAX,
        ];
        for a in signed {
            for b in signed {
                let exact = (i128::from(a) - i128::from(b)) as f64;
                assert_eq!(wide_i64(a, b).to_bits(), exact.to_bits(), "{a} - {b}");
            }
        }
        let unsigned = [0, 1, 2, (1 << 53) + 1, u64::MAX / 2 + 1, u64::MAX - 1, u64::MAX];
        for a in unsigned {
            for b in unsigned {
                let exact = (i128::from(a) - i128::from(b)) as f64;
                assert_eq!(wide_u64(a, b).to_bits(), exact.to_bits(), "{a} - {b}");
            }
        }
        assert_eq!(char_diff('\u{10ffff}', '\0'), 1_114_111.0);
        assert_eq!(narrow(i32::MIN, i32::MAX), -4_294_967_295.0);
        assert_eq!(bool_diff(false, true), -1.0);
    }
}
