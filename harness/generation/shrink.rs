//! Smaller versions of a value tree: for minimizing the calls generation
//! keeps and the failing inputs it finds (delta debugging over the value,
//! not over its text).
//!
//! [`Size`] orders values by complexity; [`shrink`] moves a value to ever
//! smaller ones (never to one of equal or greater size) while a test still
//! holds, within a number of attempts:
//! - strings, byte strings, sequences and maps lose chunks of items, halves
//!   first, then quarters, down to single items (ddmin's chunk removal);
//! - the characters left move towards `a` (then `0`, `A`, space);
//! - numbers go to 0, lose their sign, are rounded to fewer significant
//!   digits, and last are binary-searched towards 0;
//! - an option becomes `None`, `true` becomes `false`;
//! - an enum value becomes a variant of lower index holding the simplest
//!   value of its payload (from the traced [`ParamTypes`]).
//!
//! ```
//! use carve::generation::sealed::Sealed;
//! use carve::generation::shrink::shrink;
//! use carve::value::types::ParamTypes;
//! use carve::value::Value;
//!
//! // Interesting: a string with a `%` in it.
//! let start = Value::Str("x7%Qz+/%".into());
//! let mut test = |v: &Value| matches!(v, Value::Str(s) if s.contains('%'));
//! let shrunk = shrink(start, &ParamTypes::default(), &Sealed::default(), 100, &mut test);
//! assert_eq!(shrunk.value, Value::Str("%".into()));
//! ```

use std::ops::Range;

use crate::generation::moves::{get, get_mut};
use crate::generation::sealed::Sealed;
use crate::value::types::{Container, ParamTypes};
use crate::value::Value;

/// How complex a value is. Fields compare in order, so fewer items always
/// wins, then smaller numbers, lower variants, simpler characters, and last
/// signs and fractions. [`shrink`] only ever moves to a strictly smaller
/// size, so what it returns is never larger than any value it saw pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    /// Characters of strings, bytes, items of sequences, entries of maps,
    /// and one per `Some`.
    pub items: u64,
    /// The sum of the magnitudes of all numbers (floats by their integral
    /// part), saturating.
    pub magnitude: u128,
    /// The sum of the variant indices of enum values.
    pub variants: u64,
    /// The sum of the ranks of characters and bytes (see [`char_rank`]).
    pub chars: u64,
    /// One per negative number, NaN and `true`, and per decimal of a float.
    pub details: u64,
}

impl Size {
    /// The size of `value`.
    ///
    /// ```
    /// use carve::generation::shrink::Size;
    /// use carve::value::Value;
    ///
    /// let big = Value::Tuple(vec![Value::U64(4_000_000_000), Value::U64(0)]);
    /// let small = Value::Tuple(vec![Value::U64(0), Value::U64(1_000)]);
    /// assert!(Size::of(&small) < Size::of(&big));
    /// ```
    pub fn of(value: &Value) -> Size {
        let mut size = Size::default();
        size.add(value);
        size
    }

    fn add(&mut self, value: &Value) {
        let magnitude = |size: &mut Size, m: u128, negative: bool| {
            size.magnitude = size.magnitude.saturating_add(m);
            size.details += u64::from(negative);
        };
        match value {
            Value::Bool(b) => self.details += u64::from(*b),
            Value::I64(n) => magnitude(self, u128::from(n.unsigned_abs()), *n < 0),
            Value::U64(n) => magnitude(self, u128::from(*n), false),
            Value::I128(n) => magnitude(self, n.unsigned_abs(), *n < 0),
            Value::U128(n) => magnitude(self, *n, false),
            Value::F32(x) => self.add_float(f64::from(*x)),
            Value::F64(x) => self.add_float(*x),
            Value::Char(c) => self.chars += u64::from(char_rank(*c)),
            Value::Str(s) => {
                for c in s.chars() {
                    self.items += 1;
                    self.chars += u64::from(char_rank(c));
                }
            }
            Value::Bytes(b) => {
                self.items += b.len() as u64;
                self.chars += b.iter().map(|b| u64::from(char_rank(char::from(*b)))).sum::<u64>();
            }
            Value::Some(_) => self.items += 1,
            Value::Seq(items) => self.items += items.len() as u64,
            Value::Map(entries) => self.items += entries.len() as u64,
            Value::UnitVariant { index, .. }
            | Value::NewtypeVariant { index, .. }
            | Value::TupleVariant { index, .. }
            | Value::StructVariant { index, .. } => self.variants += u64::from(*index),
            _ => {}
        }
        for child in value.children() {
            self.add(child);
        }
    }

    fn add_float(&mut self, x: f64) {
        // `as` saturates: infinities count as the largest magnitude.
        self.magnitude = self.magnitude.saturating_add(x.abs().trunc() as u128);
        // Decimals as written (the shortest text that reads back as `x`).
        let decimals = if x.is_finite() {
            let text = x.abs().to_string();
            text.split_once('.').map_or(0, |(_, fraction)| fraction.len()) as u64
        } else {
            u64::from(x.is_nan())
        };
        self.details += u64::from(x.is_sign_negative() && x != 0.0) + decimals;
    }
}

/// How simple a character is, 0 for the simplest: lower-case letters from
/// `a`, then digits, upper-case letters, space, other printable ASCII, and
/// everything else by code point.
pub fn char_rank(c: char) -> u32 {
    match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + (c as u32 - '0' as u32),
        'A'..='Z' => 36 + (c as u32 - 'A' as u32),
        ' ' => 62,
        '!'..='~' => 63 + (c as u32 - '!' as u32),
        _ => 200 + c as u32,
    }
}

/// Simpler characters to try instead of `c`, simplest first: the first of
/// each class, then within `c`'s own class (letters, digits) halfway to its
/// first and the one just before (repeated passes bisect towards the first
/// that still works: `%ag` rather than `%ar` when `%aa` is a valid escape).
fn simpler_chars(c: char) -> Vec<char> {
    let class_start = match c {
        'a'..='z' => Some('a'),
        '0'..='9' => Some('0'),
        'A'..='Z' => Some('A'),
        _ => None,
    };
    let within = class_start.into_iter().flat_map(|start| {
        let distance = c as u32 - start as u32;
        [start as u32 + distance / 2, (c as u32).saturating_sub(1)]
            .into_iter()
            .filter_map(char::from_u32)
    });
    let mut out: Vec<char> = ['a', '0', 'A', ' ', c.to_ascii_lowercase()]
        .into_iter()
        .chain(within)
        .filter(|s| char_rank(*s) < char_rank(c))
        .collect();
    out.sort_by_key(|s| char_rank(*s));
    out.dedup();
    out
}

/// What [`shrink`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Shrunk {
    /// The smallest value found for which the test held (the start value
    /// if none smaller did).
    pub value: Value,
    /// Candidates tested.
    pub attempts: usize,
}

/// Shrinks `value`, for which `test` holds, to a smaller one for which it
/// still holds, testing at most `limit` candidates. Only candidates
/// strictly smaller by [`Size`] and admitted by `types` (arguments that
/// would deserialize) are tested, in an order that depends on the value
/// alone: the result is the same on every run. Values of `sealed` structs
/// are left as they are (only the API makes them).
pub fn shrink(
    value: Value,
    types: &ParamTypes,
    sealed: &Sealed,
    limit: usize,
    test: &mut dyn FnMut(&Value) -> bool,
) -> Shrunk {
    let mut shrinker = Shrinker {
        size: Size::of(&value),
        current: value,
        types,
        sealed,
        attempts: 0,
        limit,
        test,
    };
    // Coarse passes until they stop gaining, then a fine one (binary
    // searches on numbers), and coarse again if that gained.
    let mut fine = false;
    while !shrinker.spent() {
        let before = shrinker.size;
        shrinker.walk(&mut Vec::new(), fine);
        match (shrinker.size < before, fine) {
            (true, _) => fine = false,
            (false, false) => fine = true,
            (false, true) => break,
        }
    }
    Shrunk {
        value: shrinker.current,
        attempts: shrinker.attempts,
    }
}

struct Shrinker<'a> {
    current: Value,
    size: Size,
    types: &'a ParamTypes,
    sealed: &'a Sealed,
    attempts: usize,
    limit: usize,
    test: &'a mut dyn FnMut(&Value) -> bool,
}

/// A list inside a value: a string's characters, a byte string's bytes, a
/// sequence's items or a map's entries.
fn list_len(value: &Value) -> Option<usize> {
    match value {
        Value::Str(s) => Some(s.chars().count()),
        Value::Bytes(b) => Some(b.len()),
        Value::Seq(items) => Some(items.len()),
        Value::Map(entries) => Some(entries.len()),
        _ => None,
    }
}

/// `value` (a list, see [`list_len`]) without the items in `range`.
fn without(value: &Value, range: Range<usize>) -> Option<Value> {
    fn cut<T: Clone>(items: &[T], range: &Range<usize>) -> Vec<T> {
        let mut out = items[..range.start].to_vec();
        out.extend_from_slice(&items[range.end..]);
        out
    }
    Some(match value {
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            Value::Str(cut(&chars, &range).into_iter().collect())
        }
        Value::Bytes(b) => Value::Bytes(cut(b, &range)),
        Value::Seq(items) => Value::Seq(cut(items, &range)),
        Value::Map(entries) => Value::Map(cut(entries, &range)),
        _ => return None,
    })
}

impl Shrinker<'_> {
    fn spent(&self) -> bool {
        self.attempts >= self.limit
    }

    fn node(&self, path: &[usize]) -> Option<&Value> {
        get(&self.current, path)
    }

    /// Tries the current value with the node at `path` replaced; keeps it
    /// if it is smaller and the test holds. `None` once the attempts are
    /// spent.
    fn attempt(&mut self, path: &[usize], replacement: Value) -> Option<bool> {
        if self.spent() {
            return None;
        }
        let mut candidate = self.current.clone();
        let Some(slot) = get_mut(&mut candidate, path) else {
            return Some(false);
        };
        *slot = replacement;
        let size = Size::of(&candidate);
        // Neither larger nor equal values are tried, nor values outside the
        // parameter types: those cost no attempt.
        if size >= self.size || !self.types.admits(&candidate) {
            return Some(false);
        }
        self.attempts += 1;
        if (self.test)(&candidate) {
            self.current = candidate;
            self.size = size;
            Some(true)
        } else {
            Some(false)
        }
    }

    /// Tries `replacements` of the node at `path` in order and keeps the
    /// first that works. `None` once the attempts are spent.
    fn first(&mut self, path: &[usize], replacements: Vec<Value>) -> Option<bool> {
        for replacement in replacements {
            if self.attempt(path, replacement)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Shrinks the node at `path`, then its children. `None` once the
    /// attempts are spent.
    fn walk(&mut self, path: &mut Vec<usize>, fine: bool) -> Option<()> {
        if self.node(path).is_some_and(|n| self.sealed.is_sealed(n)) {
            return Some(());
        }
        self.shrink_node(path, fine)?;
        let count = self.node(path).map_or(0, |n| n.children().len());
        for i in 0..count {
            path.push(i);
            let walked = self.walk(path, fine);
            path.pop();
            walked?;
        }
        Some(())
    }

    fn shrink_node(&mut self, path: &[usize], fine: bool) -> Option<()> {
        let Some(node) = self.node(path).cloned() else {
            return Some(());
        };
        match &node {
            Value::Some(_) => {
                self.attempt(path, Value::None)?;
            }
            Value::Bool(true) => {
                self.attempt(path, Value::Bool(false))?;
            }
            Value::UnitVariant { .. }
            | Value::NewtypeVariant { .. }
            | Value::TupleVariant { .. }
            | Value::StructVariant { .. } => {
                let simpler = simpler_variants(&node, self.types);
                self.first(path, simpler)?;
            }
            Value::Str(_) | Value::Bytes(_) | Value::Seq(_) | Value::Map(_) => {
                self.ddmin(path)?;
                self.simplify_units(path)?;
            }
            Value::I64(_) | Value::U64(_) | Value::I128(_) | Value::U128(_) => {
                self.shrink_int(path, fine)?;
            }
            Value::F32(_) | Value::F64(_) => {
                self.first(path, float_candidates(&node))?;
            }
            Value::Char(c) => {
                let simpler = simpler_chars(*c).into_iter().map(Value::Char).collect();
                self.first(path, simpler)?;
            }
            _ => {}
        }
        Some(())
    }

    /// Removes chunks of the list at `path`: all of it, then halves,
    /// quarters, … single items, each chunk tried once per granularity
    /// (ddmin's chunk removal).
    fn ddmin(&mut self, path: &[usize]) -> Option<()> {
        let Some(mut len) = self.node(path).and_then(list_len) else {
            return Some(());
        };
        let mut chunk = len;
        while len > 0 && chunk > 0 {
            let mut start = 0;
            while start < len {
                let end = (start + chunk).min(len);
                let Some(smaller) = self.node(path).and_then(|n| without(n, start..end)) else {
                    return Some(());
                };
                if self.attempt(path, smaller)? {
                    len -= end - start;
                } else {
                    start = end;
                }
            }
            chunk /= 2;
        }
        Some(())
    }

    /// Moves each character of a string (or byte of a byte string) at
    /// `path` towards simpler ones.
    fn simplify_units(&mut self, path: &[usize]) -> Option<()> {
        let Some(len) = self.node(path).and_then(list_len) else {
            return Some(());
        };
        for i in 0..len {
            let replacements: Vec<Value> = match self.node(path) {
                Some(Value::Str(s)) => {
                    let chars: Vec<char> = s.chars().collect();
                    simpler_chars(chars[i])
                        .into_iter()
                        .map(|c| {
                            let mut changed = chars.clone();
                            changed[i] = c;
                            Value::Str(changed.into_iter().collect())
                        })
                        .collect()
                }
                Some(Value::Bytes(b)) => simpler_chars(char::from(b[i]))
                    .into_iter()
                    .map(|c| {
                        let mut changed = b.clone();
                        // Simpler characters are ASCII.
                        changed[i] = c as u8;
                        Value::Bytes(changed)
                    })
                    .collect(),
                _ => return Some(()),
            };
            self.first(path, replacements)?;
        }
        Some(())
    }

    /// Moves the integer at `path` towards 0: 0, its absolute value, fewer
    /// significant digits; then (`fine`) a binary search between 0 and it.
    fn shrink_int(&mut self, path: &[usize], fine: bool) -> Option<()> {
        loop {
            let Some(node) = self.node(path).cloned() else {
                return Some(());
            };
            let Some(n) = int_of(&node) else {
                return Some(());
            };
            let candidates = round_towards_zero(n)
                .into_iter()
                .filter_map(|m| with_int(&node, m))
                .collect();
            if !self.first(path, candidates)? {
                break;
            }
        }
        if !fine {
            return Some(());
        }
        let Some(node) = self.node(path).cloned() else {
            return Some(());
        };
        let Some(n) = int_of(&node) else {
            return Some(());
        };
        // 0 failed (it was tried first): search the smallest magnitude that
        // passes, in `(low, high]`, assuming it is monotone; the result
        // passes whether it is or not.
        let sign = n.signum();
        let (mut low, mut high) = (0u128, n.unsigned_abs());
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            let Some(candidate) = i128::try_from(mid)
                .ok()
                .and_then(|m| with_int(&node, sign * m))
            else {
                break;
            };
            if self.attempt(path, candidate)? {
                high = mid;
            } else {
                low = mid;
            }
        }
        Some(())
    }
}

/// 0, `-n`, then `n` rounded towards 0 to 1, 2, … significant decimal
/// digits: the simplest numbers first.
fn round_towards_zero(n: i128) -> Vec<i128> {
    let mut out = vec![0];
    if n < 0 {
        out.push(n.checked_neg().unwrap_or(i128::MAX));
    }
    let mut power = 10i128;
    let mut rounded = Vec::new();
    while let Some(next) = power.checked_mul(10) {
        if n.unsigned_abs() < power.unsigned_abs() {
            break;
        }
        rounded.push(n - n % power);
        power = next;
    }
    // Coarsest rounding first: 1000 before 1200 for 1234.
    out.extend(rounded.into_iter().rev().filter(|r| *r != n));
    out.dedup();
    out
}

fn int_of(value: &Value) -> Option<i128> {
    match value {
        Value::I64(n) => Some(i128::from(*n)),
        Value::U64(n) => Some(i128::from(*n)),
        Value::I128(n) => Some(*n),
        Value::U128(n) => i128::try_from(*n).ok(),
        _ => None,
    }
}

/// `n` in the same kind of value as `like`, if it fits.
fn with_int(like: &Value, n: i128) -> Option<Value> {
    Some(match like {
        Value::I64(_) => Value::I64(i64::try_from(n).ok()?),
        Value::U64(_) => Value::U64(u64::try_from(n).ok()?),
        Value::I128(_) => Value::I128(n),
        Value::U128(_) => Value::U128(u128::try_from(n).ok()?),
        _ => return None,
    })
}

/// 0, the absolute value, the integral part, then the value with fewer
/// decimals.
fn float_candidates(value: &Value) -> Vec<Value> {
    let x = match value {
        Value::F32(x) => f64::from(*x),
        Value::F64(x) => *x,
        _ => return Vec::new(),
    };
    let mut out = vec![0.0, x.abs(), x.trunc()];
    if x.is_finite() {
        out.extend((0..3).map(|digits| {
            let scale = 10f64.powi(digits);
            (x * scale).trunc() / scale
        }));
    }
    let mut values: Vec<Value> = Vec::new();
    for y in out {
        let v = match value {
            Value::F32(_) => Value::F32(y as f32),
            _ => Value::F64(y),
        };
        if v != *value && !values.contains(&v) {
            values.push(v);
        }
    }
    values
}

/// Variants of the enum of `value` with a lower index than its own, each
/// holding the simplest value of its payload, lowest index first. Empty
/// when the enum's type was not traced.
fn simpler_variants(value: &Value, types: &ParamTypes) -> Vec<Value> {
    let (name, index) = match value {
        Value::UnitVariant { name, index, .. }
        | Value::NewtypeVariant { name, index, .. }
        | Value::TupleVariant { name, index, .. }
        | Value::StructVariant { name, index, .. } => (*name, *index),
        _ => return Vec::new(),
    };
    let Some(Container::Enum(variants)) = types.container(name) else {
        return Vec::new();
    };
    let mut lower: Vec<_> = variants.iter().filter(|v| v.index < index).collect();
    lower.sort_by_key(|v| v.index);
    lower
        .into_iter()
        .filter_map(|v| types.simplest_variant(name, v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tracer::trace;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Shrinks `value` with no types, counting the attempts made.
    fn shrunk(value: Value, mut test: impl FnMut(&Value) -> bool) -> Shrunk {
        shrink(value, &ParamTypes::default(), &Sealed::default(), 10_000, &mut test)
    }

    fn text(v: &Value) -> &str {
        match v {
            Value::Str(s) => s,
            _ => "",
        }
    }

    #[test]
    fn strings_lose_chunks_not_one_character_at_a_time() {
        // A needle in 1,000 characters: removing one at a time would take
        // 1,000 attempts at least.
        let hay: String = (0..1_000)
            .map(|i| if i == 613 { '%' } else { char::from(b'b' + (i % 20) as u8) })
            .collect();
        let result = shrunk(Value::Str(hay), |v| text(v).contains('%'));
        assert_eq!(result.value, Value::Str("%".into()));
        assert!(result.attempts < 60, "{} attempts", result.attempts);
    }

    #[test]
    fn strings_keep_what_the_test_needs_in_order_and_simplify_the_rest() {
        let start = Value::Str("Zq%9x/Ly&+%k".into());
        // Needs a `%`, then a `+` later, and five characters at least.
        let result = shrunk(start, |v| {
            let s = text(v);
            s.chars().count() >= 5 && s.find('%').zip(s.rfind('+')).is_some_and(|(a, b)| a < b)
        });
        assert_eq!(result.value, Value::Str("a%+aa".into()));
    }

    #[test]
    fn byte_strings_and_sequences_shrink_like_strings() {
        let bytes = Value::Bytes(b"GET /index.html HTTP/1.1".to_vec());
        let result = shrunk(bytes, |v| matches!(v, Value::Bytes(b) if b.contains(&b'/')));
        assert_eq!(result.value, Value::Bytes(b"/".to_vec()));

        let items = Value::Seq((0..40).map(|i| Value::U64(i * 37)).collect());
        // Needs an item of 100 at least.
        let result = shrunk(items, |v| {
            matches!(v, Value::Seq(items) if items.iter().any(|i| matches!(i, Value::U64(n) if *n >= 100)))
        });
        assert_eq!(result.value, Value::Seq(vec![Value::U64(100)]));
    }

    #[test]
    fn numbers_go_to_zero_lose_their_sign_and_round() {
        assert_eq!(round_towards_zero(1234), [0, 1000, 1200, 1230]);
        assert_eq!(round_towards_zero(-1234), [0, 1234, -1000, -1200, -1230]);
        assert_eq!(round_towards_zero(7), [0]);
        assert_eq!(round_towards_zero(i128::MIN)[1], i128::MAX);

        let n = |v: &Value| int_of(v).unwrap_or(0);
        assert_eq!(shrunk(Value::I64(-5), |v| n(v) != 0).value, Value::I64(1));
        // Rounding first: 987,654 becomes 900,000, not a number found by
        // bisecting.
        let result = shrunk(Value::U64(987_654), |v| n(v) % 100_000 == 0 && n(v) > 0);
        assert_eq!(result.value, Value::U64(900_000));
        // A bound is found exactly.
        let result = shrunk(Value::U64(4_000_000_000), |v| n(v) >= 253_402);
        assert_eq!(result.value, Value::U64(253_402));
        // The value's kind stays.
        let result = shrunk(Value::I128(-(1 << 100)), |v| n(v) < -3);
        assert_eq!(result.value, Value::I128(-4));
    }

    #[test]
    fn floats_lose_their_fraction() {
        let x = |v: &Value| match v {
            Value::F64(x) => *x,
            _ => f64::NAN,
        };
        assert_eq!(shrunk(Value::F64(-3.75), |v| x(v) != 0.0).value, Value::F64(3.0));
        assert_eq!(shrunk(Value::F64(4.56789), |v| x(v) > 4.0).value, Value::F64(4.5));
    }

    #[test]
    fn options_become_none_and_booleans_false() {
        let some = Value::Some(Box::new(Value::Str("abc".into())));
        assert_eq!(shrunk(some.clone(), |_| true).value, Value::None);
        let result = shrunk(some, |v| matches!(v, Value::Some(_)));
        assert_eq!(result.value, Value::Some(Box::new(Value::Str(String::new()))));
        assert_eq!(shrunk(Value::Bool(true), |_| true).value, Value::Bool(false));
    }

    #[test]
    fn characters_move_towards_simple_ones() {
        assert_eq!(shrunk(Value::Char('Q'), |_| true).value, Value::Char('a'));
        let digit = |v: &Value| matches!(v, Value::Char(c) if c.is_ascii_digit());
        assert_eq!(shrunk(Value::Char('7'), digit).value, Value::Char('0'));
        // Within a class, towards its first: the first lower-case letter
        // past the hex digits.
        let not_hex = |v: &Value| matches!(v, Value::Char(c) if c.is_ascii_lowercase() && !c.is_ascii_hexdigit());
        assert_eq!(shrunk(Value::Char('r'), not_hex).value, Value::Char('g'));
        let upper = |v: &Value| matches!(v, Value::Char(c) if c.is_uppercase());
        assert_eq!(shrunk(Value::Char('Ж'), upper).value, Value::Char('A'));
        assert_eq!(
            shrunk(Value::Str("XYZ".into()), |v| text(v).len() == 3).value,
            Value::Str("aaa".into())
        );
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    #[allow(dead_code)] // only traced and captured
    enum Shape {
        Dot,
        Circle(u32),
        Rect { w: u32, h: Option<u32> },
    }

    fn shape_types() -> ParamTypes {
        let mut types = ParamTypes::default();
        types.param("shape", trace::<Shape>());
        types
    }

    fn args(shape: &Shape) -> Value {
        Value::Struct("args", vec![("shape", Value::capture(shape).unwrap())])
    }

    fn variant(args: &Value) -> &'static str {
        match args {
            Value::Struct(_, fields) => match &fields[0].1 {
                Value::UnitVariant { variant, .. }
                | Value::NewtypeVariant { variant, .. }
                | Value::StructVariant { variant, .. } => variant,
                _ => "",
            },
            _ => "",
        }
    }

    #[test]
    fn enum_values_become_lower_variants_holding_the_simplest_payload() {
        let types = shape_types();
        let rect = args(&Shape::Rect { w: 5, h: Some(7) });
        let mut any = |_: &Value| true;
        assert_eq!(shrink(rect.clone(), &types, &Sealed::default(), 100, &mut any).value, args(&Shape::Dot));
        let mut round = |v: &Value| variant(v) != "Dot";
        assert_eq!(shrink(rect.clone(), &types, &Sealed::default(), 100, &mut round).value, args(&Shape::Circle(0)));
        let mut rect_only = |v: &Value| variant(v) == "Rect";
        assert_eq!(
            shrink(rect, &types, &Sealed::default(), 100, &mut rect_only).value,
            args(&Shape::Rect { w: 0, h: None })
        );
    }

    #[test]
    fn candidates_outside_the_types_are_not_tried() {
        use crate::value::types::{ParamType, Traced};
        let mut types = ParamTypes::default();
        let parses = |s: &str| s.parse::<u32>().is_ok();
        types.param("n", Traced::plain(ParamType::Text { parses }));
        let start = Value::Struct("args", vec![("n", Value::Str("12345".into()))]);
        let mut tried = Vec::new();
        let result = shrink(start, &types, &Sealed::default(), 100, &mut |v: &Value| {
            tried.push(v.clone());
            true
        });
        assert!(tried.iter().all(|v| types.admits(v)), "{tried:?}");
        assert_eq!(result.value, Value::Struct("args", vec![("n", Value::Str("0".into()))]));
    }

    #[test]
    fn the_limit_bounds_the_attempts() {
        let start = Value::Str("abcdefghijklmnopqrstuvwxyz".into());
        let mut calls = 0;
        let result = shrink(start, &ParamTypes::default(), &Sealed::default(), 7, &mut |_: &Value| {
            calls += 1;
            false
        });
        assert_eq!((calls, result.attempts), (7, 7));
    }

    /// A random value tree, `depth` levels at most.
    fn random_value(rng: &mut StdRng, depth: u32) -> Value {
        let leaf = depth == 0 || rng.random_bool(0.4);
        let pick = if leaf {
            rng.random_range(0..8)
        } else {
            rng.random_range(8..12)
        };
        let items = |rng: &mut StdRng| {
            (0..rng.random_range(0..6))
                .map(|_| random_value(rng, depth - 1))
                .collect::<Vec<_>>()
        };
        match pick {
            0 => Value::Bool(rng.random()),
            1 => Value::I64(rng.random_range(-1_000_000..1_000_000)),
            2 => Value::U64(rng.random::<u64>() >> rng.random_range(0..64)),
            3 => Value::Char(rng.random_range('!'..='~')),
            4 => Value::Str(
                (0..rng.random_range(0..30))
                    .map(|_| rng.random_range(' '..='~'))
                    .collect(),
            ),
            5 => Value::Bytes((0..rng.random_range(0..20)).map(|_| rng.random()).collect()),
            6 => Value::F64(rng.random_range(-1e6..1e6)),
            7 => Value::None,
            8 => Value::Some(Box::new(random_value(rng, depth - 1))),
            9 => Value::Seq(items(rng)),
            10 => Value::Tuple(items(rng)),
            _ => Value::Struct("args", vec![("a", random_value(rng, depth - 1)), ("b", random_value(rng, depth - 1))]),
        }
    }

    /// Facts about a value that random tests ask for.
    #[derive(Default)]
    struct Facts {
        chars: Vec<char>,
        numbers: Vec<i128>,
        longest: usize,
        somes: usize,
    }

    fn facts(value: &Value, out: &mut Facts) {
        match value {
            Value::Str(s) => {
                out.chars.extend(s.chars());
                out.longest = out.longest.max(s.chars().count());
            }
            Value::Char(c) => out.chars.push(*c),
            Value::Seq(items) => out.longest = out.longest.max(items.len()),
            Value::Some(_) => out.somes += 1,
            v => out.numbers.extend(int_of(v)),
        }
        for child in value.children() {
            facts(child, out);
        }
    }

    #[test]
    fn shrinking_never_returns_more_than_any_value_it_saw_pass() {
        let mut rng = StdRng::seed_from_u64(10);
        for case in 0..300 {
            let start = random_value(&mut rng, 4);
            let mut start_facts = Facts::default();
            facts(&start, &mut start_facts);
            // A test the start passes: keep one of its facts.
            let c = start_facts.chars.first().copied();
            let big = start_facts.numbers.iter().map(|n| n.abs()).max().map(|n| n / 2);
            let (longest, somes) = (start_facts.longest, start_facts.somes);
            let kind = case % 4;
            let test = move |v: &Value| {
                let mut f = Facts::default();
                facts(v, &mut f);
                match kind {
                    0 => c.is_none_or(|c| f.chars.contains(&c)),
                    1 => big.is_none_or(|b| f.numbers.iter().any(|n| n.abs() >= b)),
                    2 => f.longest >= longest / 2,
                    _ => f.somes >= somes,
                }
            };
            assert!(test(&start));
            let mut passed = vec![start.clone()];
            let result = shrink(start.clone(), &ParamTypes::default(), &Sealed::default(), 500, &mut |v: &Value| {
                let ok = test(v);
                if ok {
                    passed.push(v.clone());
                }
                ok
            });
            assert!(test(&result.value), "case {case}: {:?} fails", result.value);
            let size = Size::of(&result.value);
            for seen in &passed {
                assert!(size <= Size::of(seen), "case {case}: {result:?} is larger than {seen:?}");
            }
            assert_eq!(passed.last(), Some(&result.value), "case {case}");
            // The same start shrinks the same way.
            let again = shrink(start, &ParamTypes::default(), &Sealed::default(), 500, &mut |v: &Value| test(v));
            assert_eq!(again, result, "case {case}");
        }
    }

    #[test]
    fn sizes_order_the_issue_example() {
        // `(253402300800, 0)` fails where `4000000000` nanoseconds was kept:
        // with both fields, the one with fewer and smaller parts is smaller.
        let time = |secs: u64, nanos: u64| {
            Value::Struct("t", vec![("secs", Value::U64(secs)), ("nanos", Value::U64(nanos))])
        };
        assert!(Size::of(&time(253_402_300_800, 0)) < Size::of(&time(253_402_300_800, 4_000_000_000)));
        assert!(Size::of(&Value::Str("ab".into())) < Size::of(&Value::Str("a b".into())));
        assert!(Size::of(&Value::None) < Size::of(&Value::Some(Box::new(Value::Unit))));
        assert!(Size::of(&Value::Char('a')) < Size::of(&Value::Char('%')));
        assert!(Size::of(&Value::I64(5)) < Size::of(&Value::I64(-5)));
    }
}
