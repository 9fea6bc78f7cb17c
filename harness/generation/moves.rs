//! The search space of a call: the variables of its argument [`Value`] tree
//! (integers, floats, chars, bools, the characters of strings, the bytes of
//! byte strings, and string, byte string and sequence lengths) and the moves
//! on them that [`search`](crate::generation::search) makes: steps of a
//! variable, switched enum variants, characters from a dictionary, and the
//! crossover of two trees.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::RngExt;

use crate::generation::sealed::Sealed;
use crate::value::Value;

/// A position in a value tree: child indices from the root.
pub(crate) type Path = Vec<usize>;

/// The last index of a path that moves the float before it in steps of its
/// representation (units in the last place) rather than of its value.
pub(crate) const IN_ULPS: usize = usize::MAX;

/// The leaves of `value` that search can move, with their paths: none
/// inside a value of a sealed struct, which only the API makes.
pub(crate) fn variables(value: &Value, sealed: &Sealed) -> Variables {
    let mut out = Variables::default();
    collect_variables(value, sealed, &mut Vec::new(), &mut out);
    out
}

/// The paths of a value's variables ([`variables`]), in order, kept one
/// after the other in one vector: search lists them for each move it
/// makes, and a vector per path was a third of a semver worker's
/// allocations.
#[derive(Debug, Default)]
pub(crate) struct Variables {
    /// Every path's indices, one path after the other.
    steps: Vec<usize>,
    /// Where each path ends in `steps`.
    ends: Vec<usize>,
}

impl Variables {
    fn push(&mut self, path: &[usize]) {
        self.steps.extend_from_slice(path);
        self.ends.push(self.steps.len());
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The path of variable `i`.
    pub(crate) fn get(&self, i: usize) -> &[usize] {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.steps[start..self.ends[i]]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &[usize]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

fn collect_variables(value: &Value, sealed: &Sealed, path: &mut Path, out: &mut Variables) {
    if sealed.is_sealed(value) {
        return;
    }
    match value {
        Value::Bool(_)
        | Value::I64(_)
        | Value::U64(_)
        | Value::I128(_)
        | Value::U128(_)
        | Value::F32(_)
        | Value::F64(_)
        | Value::Char(_)
        | Value::Str(_)
        | Value::Bytes(_)
        | Value::Seq(_) => out.push(path),
        _ => {}
    }
    // A float is also moved in steps of its representation, so that search
    // reaches the next float after a bound (a boundary goal of `x != 0.0`
    // is 5e-324 away) as well as far values.
    if matches!(value, Value::F32(_) | Value::F64(_)) {
        path.push(IN_ULPS);
        out.push(path);
        path.pop();
    }
    // A string's characters and a byte string's bytes are variables too.
    let units = match value {
        Value::Str(s) => Some(s.chars().count()),
        Value::Bytes(b) => Some(b.len()),
        _ => None,
    };
    if let Some(units) = units {
        for i in 0..units {
            path.push(i);
            out.push(path);
            path.pop();
        }
        return;
    }
    for (i, child) in value.each_child().enumerate() {
        path.push(i);
        collect_variables(child, sealed, path, out);
        path.pop();
    }
}

pub(crate) fn child_mut(value: &mut Value, index: usize) -> Option<&mut Value> {
    match value {
        Value::Some(v) | Value::NewtypeStruct(_, v) | Value::NewtypeVariant { value: v, .. } => {
            (index == 0).then_some(&mut **v)
        }
        Value::Seq(items)
        | Value::Tuple(items)
        | Value::TupleStruct(_, items)
        | Value::TupleVariant { fields: items, .. } => items.get_mut(index),
        Value::Struct(_, fields) | Value::StructVariant { fields, .. } => {
            fields.get_mut(index).map(|(_, v)| v)
        }
        Value::Map(entries) => {
            entries
                .get_mut(index / 2)
                .map(|(k, v)| if index.is_multiple_of(2) { k } else { v })
        }
        _ => None,
    }
}

/// Moves the variable at `path` by `delta` (a step in its own units); `None`
/// when the move is not possible (out of range, not a variable).
pub(crate) fn moved(value: &Value, path: &[usize], delta: i128) -> Option<Value> {
    let mut out = value.clone();
    let (last, parents) = path
        .split_last()
        .map_or((None, path), |(l, p)| (Some(*l), p));
    let mut node = get_mut(&mut out, parents)?;
    // A string character or a byte: `path` ends with its index.
    match (&mut *node, last) {
        (Value::Str(s), Some(i)) => {
            let mut chars: Vec<char> = s.chars().collect();
            let c = chars.get_mut(i)?;
            *c = shift_char(*c, delta)?;
            *s = chars.into_iter().collect();
            return Some(out);
        }
        (Value::Bytes(bytes), Some(i)) => {
            let b = bytes.get_mut(i)?;
            *b = shift_byte(*b, delta)?;
            return Some(out);
        }
        (Value::F64(x), Some(IN_ULPS)) => {
            let range = (ordered_f64(f64::NEG_INFINITY), ordered_f64(f64::INFINITY));
            *x = f64::from_bits(unordered_f64(shift_ordered(ordered_f64(*x), delta, range)?));
            return Some(out);
        }
        (Value::F32(x), Some(IN_ULPS)) => {
            let range = (ordered_f32(f32::NEG_INFINITY), ordered_f32(f32::INFINITY));
            let range = (u64::from(range.0), u64::from(range.1));
            let o = shift_ordered(u64::from(ordered_f32(*x)), delta, range)?;
            *x = f32::from_bits(unordered_f32(u32::try_from(o).ok()?));
            return Some(out);
        }
        _ => {}
    }
    if let Some(i) = last {
        node = child_mut(node, i)?;
    }
    *node = shifted(node, delta)?;
    Some(out)
}

/// The leaf `value` moved by `delta`, by its kind; `None` when the move
/// changes nothing or `value` is not a variable.
pub(crate) fn shifted(value: &Value, delta: i128) -> Option<Value> {
    Some(match value {
        // Integers saturate at their type's bounds: a jump past the end
        // lands on the boundary, and a move that changes nothing is none.
        Value::I64(n) => {
            let to = i128::from(*n)
                .saturating_add(delta)
                .clamp(i128::from(i64::MIN), i128::from(i64::MAX));
            Value::I64(i64::try_from(to).ok().filter(|to| to != n)?)
        }
        Value::U64(n) => {
            let to = i128::from(*n)
                .saturating_add(delta)
                .clamp(0, i128::from(u64::MAX));
            Value::U64(u64::try_from(to).ok().filter(|to| to != n)?)
        }
        Value::I128(n) => Value::I128(Some(n.saturating_add(delta)).filter(|to| to != n)?),
        Value::U128(n) => {
            let to = i128::try_from(*n)
                .unwrap_or(i128::MAX)
                .saturating_add(delta)
                .max(0);
            Value::U128(u128::try_from(to).ok().filter(|to| to != n)?)
        }
        Value::F64(x) => Value::F64(x + delta as f64 * float_unit(*x)),
        Value::F32(x) => Value::F32(x + (delta as f64 * float_unit(f64::from(*x))) as f32),
        Value::Char(c) => Value::Char(shift_char(*c, delta)?),
        Value::Bool(b) => Value::Bool(if delta == 0 { *b } else { !b }),
        // Lengths: grow by repeating the last item, shrink by dropping it.
        Value::Str(s) => {
            let mut chars: Vec<char> = s.chars().collect();
            resize(&mut chars, delta, 'a')?;
            Value::Str(chars.into_iter().collect())
        }
        Value::Bytes(bytes) => {
            let mut bytes = bytes.clone();
            resize(&mut bytes, delta, b'a')?;
            Value::Bytes(bytes)
        }
        Value::Seq(items) => {
            let mut items = items.clone();
            let filler = items.last().cloned()?;
            resize(&mut items, delta, filler)?;
            Value::Seq(items)
        }
        _ => return None,
    })
}

/// Paths of the enum values inside `value`, outside values of sealed
/// structs.
pub(crate) fn enum_paths(value: &Value, sealed: &Sealed) -> Vec<Path> {
    paths_where(value, sealed, |v| enum_name(v).is_some())
}

/// Paths of the outermost values of sealed structs inside `value`.
pub(crate) fn sealed_paths(value: &Value, sealed: &Sealed) -> Vec<Path> {
    paths_where(value, sealed, |v| sealed.is_sealed(v))
}

/// Paths of the values inside `value` that `wanted` holds for, not looking
/// inside values of sealed structs.
fn paths_where(value: &Value, sealed: &Sealed, wanted: impl Fn(&Value) -> bool) -> Vec<Path> {
    fn walk(
        value: &Value,
        sealed: &Sealed,
        wanted: &dyn Fn(&Value) -> bool,
        path: &mut Path,
        out: &mut Vec<Path>,
    ) {
        if wanted(value) {
            out.push(path.clone());
        }
        if sealed.is_sealed(value) {
            return;
        }
        for (i, child) in value.children().into_iter().enumerate() {
            path.push(i);
            walk(child, sealed, wanted, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(value, sealed, &wanted, &mut Vec::new(), &mut out);
    out
}

/// The enum values inside `value`, in the order of [`enum_paths`].
pub(crate) fn enum_values<'v>(value: &'v Value, sealed: &Sealed) -> impl Iterator<Item = &'v Value> {
    enum_paths(value, sealed)
        .into_iter()
        .filter_map(move |path| get(value, &path))
}

pub(crate) fn enum_name(value: &Value) -> Option<&'static str> {
    match value {
        Value::UnitVariant { name, .. }
        | Value::NewtypeVariant { name, .. }
        | Value::TupleVariant { name, .. }
        | Value::StructVariant { name, .. } => Some(name),
        _ => None,
    }
}

pub(crate) fn variant_name(value: &Value) -> Option<&'static str> {
    match value {
        Value::UnitVariant { variant, .. }
        | Value::NewtypeVariant { variant, .. }
        | Value::TupleVariant { variant, .. }
        | Value::StructVariant { variant, .. } => Some(variant),
        _ => None,
    }
}

/// Characters of the strings, chars and byte strings (as Latin-1) in
/// `values`, with the members of every character class one of them
/// belongs to.
pub(crate) fn dictionary<'a>(values: impl Iterator<Item = &'a Value>) -> Vec<char> {
    const CLASSES: [&str; 4] = [
        "0123456789",
        "0123456789abcdefABCDEF",
        "abcdefghijklmnopqrstuvwxyz",
        "+-%&=.,/:;_ ",
    ];
    let mut seen = BTreeSet::new();
    for value in values {
        collect_chars(value, &mut seen);
    }
    let mut all = seen.clone();
    for class in CLASSES {
        if class.chars().any(|c| seen.contains(&c)) {
            all.extend(class.chars());
        }
    }
    all.into_iter().collect()
}

pub(crate) fn collect_chars(value: &Value, out: &mut BTreeSet<char>) {
    match value {
        Value::Str(s) => out.extend(s.chars()),
        Value::Bytes(b) => out.extend(b.iter().copied().map(char::from)),
        Value::Char(c) => {
            out.insert(*c);
        }
        other => other.children()
            .into_iter()
            .for_each(|c| collect_chars(c, out)),
    }
}

/// `value` with the character (of a string or a `char`) or the byte (of a
/// byte string, when `c` is at most `'\u{ff}'`) at `path` set to `c`.
pub(crate) fn with_char(value: &Value, path: &[usize], c: char) -> Option<Value> {
    let mut out = value.clone();
    let (last, parents) = path.split_last()?;
    let parent = get_mut(&mut out, parents)?;
    match parent {
        Value::Str(s) => {
            let mut chars: Vec<char> = s.chars().collect();
            *chars.get_mut(*last)? = c;
            *s = chars.into_iter().collect();
        }
        Value::Bytes(bytes) => *bytes.get_mut(*last)? = u8::try_from(c).ok()?,
        other => match child_mut(other, *last)? {
            Value::Char(slot) => *slot = c,
            _ => return None,
        },
    }
    Some(out)
}

/// A float's bits as an unsigned integer in the floats' order: adjacent
/// floats are adjacent integers (-0.0 and 0.0 too).
pub(crate) fn ordered_f64(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

pub(crate) fn unordered_f64(o: u64) -> u64 {
    if o >> 63 == 1 {
        o & !(1 << 63)
    } else {
        !o
    }
}

pub(crate) fn ordered_f32(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

pub(crate) fn unordered_f32(o: u32) -> u32 {
    if o >> 31 == 1 {
        o & !(1 << 31)
    } else {
        !o
    }
}

/// `o` moved by `delta` inside `(min, max)` (the infinities: never a NaN),
/// saturating; `None` when that changes nothing (a NaN stays put).
pub(crate) fn shift_ordered(o: u64, delta: i128, (min, max): (u64, u64)) -> Option<u64> {
    if !(min..=max).contains(&o) {
        return None;
    }
    let to = (i128::from(o) + delta).clamp(i128::from(min), i128::from(max)) as u64;
    (to != o).then_some(to)
}

/// The unit step of a float: 1, or a millionth of its magnitude when larger.
pub(crate) fn float_unit(x: f64) -> f64 {
    if x.abs() > 1e6 {
        x.abs() / 1e6
    } else {
        1.0
    }
}

/// The bits of a random jump of the variable at `path` of `value`: `bits`,
/// or at most 8 for a byte (larger jumps would only saturate at 0 or 255).
pub(crate) fn jump_bits(value: &Value, path: &[usize], bits: u32) -> u32 {
    let byte = path
        .split_last()
        .and_then(|(_, parents)| get(value, parents))
        .is_some_and(|parent| matches!(parent, Value::Bytes(_)));
    if byte {
        bits.min(8)
    } else {
        bits
    }
}

/// A byte moved by `delta`, saturating at 0 and 255 as integers do at
/// their bounds; `None` when that changes nothing.
pub(crate) fn shift_byte(b: u8, delta: i128) -> Option<u8> {
    let to = i128::from(b).saturating_add(delta).clamp(0, 255);
    u8::try_from(to).ok().filter(|to| *to != b)
}

pub(crate) fn shift_char(c: char, delta: i128) -> Option<char> {
    let code = i128::from(u32::from(c)).checked_add(delta)?;
    char::from_u32(u32::try_from(code).ok()?)
}

pub(crate) fn resize<T: Clone>(items: &mut Vec<T>, delta: i128, filler: T) -> Option<()> {
    let len = i128::try_from(items.len()).ok()?.checked_add(delta)?;
    let len = usize::try_from(len).ok()?.min(items.len() + 8);
    let fill = items.last().cloned().unwrap_or(filler);
    items.resize(len, fill);
    Some(())
}

/// Uniform crossover of two value trees of the same shape: each child
/// position comes from either parent; trees of different shapes give `a`.
/// A value of a sealed struct travels whole.
pub(crate) fn crossover(a: &Value, b: &Value, sealed: &Sealed, rng: &mut StdRng) -> Value {
    let mut child = a.clone();
    for path in sealed_paths(a, sealed) {
        if rng.random_bool(0.5) {
            take_from(&mut child, b, &path, |from, slot| {
                std::mem::discriminant(from) == std::mem::discriminant(slot)
            });
        }
    }
    // Whole enum values first (variants travel between parents), then leaves.
    for path in enum_paths(a, sealed) {
        if rng.random_bool(0.5) {
            take_from(&mut child, b, &path, |from, slot| {
                enum_name(from).is_some() && enum_name(from) == enum_name(slot)
            });
        }
    }
    let paths = variables(&child, sealed);
    for path in paths.iter() {
        if rng.random_bool(0.5) {
            take_from(&mut child, b, path, |from, slot| {
                std::mem::discriminant(from) == std::mem::discriminant(slot)
            });
        }
    }
    child
}

/// Copies the node at `path` of `from` into `to` when both trees have one
/// there and `fits(from's, to's)` holds.
pub(crate) fn take_from(
    to: &mut Value,
    from: &Value,
    path: &[usize],
    fits: fn(&Value, &Value) -> bool,
) {
    if let (Some(node), Some(slot)) = (get(from, path), get_mut(to, path)) {
        if fits(node, slot) {
            *slot = node.clone();
        }
    }
}

pub(crate) fn get<'a>(value: &'a Value, path: &[usize]) -> Option<&'a Value> {
    let mut node = value;
    for index in path {
        node = node.child(*index)?;
    }
    Some(node)
}

pub(crate) fn get_mut<'a>(value: &'a mut Value, path: &[usize]) -> Option<&'a mut Value> {
    let mut node = value;
    for index in path {
        node = child_mut(node, *index)?;
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_also_move_to_their_neighbours() {
        let v = Value::Tuple(vec![Value::F64(0.0), Value::F32(1.0)]);
        let vars = variables(&v, &Sealed::default());
        let has = |path: &[usize]| vars.iter().any(|var| var == path);
        assert!(has(&[0, IN_ULPS]) && has(&[1, IN_ULPS]));
        let up = moved(&v, &[0, IN_ULPS], 1).unwrap();
        assert_eq!(get(&up, &[0]), Some(&Value::F64(5e-324)));
        let down = moved(&v, &[0, IN_ULPS], -1).unwrap();
        assert_eq!(get(&down, &[0]), Some(&Value::F64(-0.0)));
        let f32_down = moved(&v, &[1, IN_ULPS], -1).unwrap();
        assert_eq!(get(&f32_down, &[1]), Some(&Value::F32(1.0f32.next_down())));
        // Far moves saturate at the infinities, never making a NaN.
        let far = moved(&v, &[0, IN_ULPS], i128::from(u64::MAX)).unwrap();
        assert_eq!(get(&far, &[0]), Some(&Value::F64(f64::INFINITY)));
        let far = moved(&v, &[1, IN_ULPS], -i128::from(u64::MAX)).unwrap();
        assert_eq!(get(&far, &[1]), Some(&Value::F32(f32::NEG_INFINITY)));
        for x in [-2.5f64, -0.0, 0.0, 1e-300, 3.0, f64::MAX] {
            assert_eq!(f64::from_bits(unordered_f64(ordered_f64(x))).to_bits(), x.to_bits());
            assert!(ordered_f64(x) < ordered_f64(x.next_up()));
        }
    }
    #[test]
    fn moves_keep_values_in_range() {
        let v = Value::Struct(
            "args",
            vec![("x", Value::U64(0)), ("s", Value::Str("ab".into()))],
        );
        assert_eq!(moved(&v, &[0], -1), None, "u64 stays non-negative");
        assert_eq!(
            get(&moved(&Value::I64(5), &[], i128::MIN).unwrap(), &[]),
            Some(&Value::I64(i64::MIN)),
            "saturates"
        );
        assert_eq!(
            get(&moved(&v, &[0], 5).unwrap(), &[0]),
            Some(&Value::U64(5))
        );
        assert_eq!(
            get(&moved(&v, &[1, 1], 1).unwrap(), &[1]),
            Some(&Value::Str("ac".into()))
        );
        assert_eq!(
            get(&moved(&v, &[1], 1).unwrap(), &[1]),
            Some(&Value::Str("abb".into()))
        );
        assert_eq!(
            moved(&Value::I64(i64::MAX), &[], 1),
            None,
            "no overflow, no change"
        );
    }
    #[test]
    fn bytes_move_like_characters_within_one_byte() {
        let v = Value::Struct("args", vec![("b", Value::Bytes(b"G\x00\xfa".to_vec()))]);
        let bytes = |v: Option<Value>| match v.as_ref().and_then(|v| get(v, &[0])) {
            Some(Value::Bytes(b)) => b.clone(),
            other => panic!("not bytes: {other:?}"),
        };
        assert_eq!(
            variables(&v, &Sealed::default()).iter().map(<[usize]>::to_vec).collect::<Vec<_>>(),
            vec![vec![0], vec![0, 0], vec![0, 1], vec![0, 2]],
            "the length and each byte"
        );
        assert_eq!(bytes(moved(&v, &[0, 0], 10)), b"Q\x00\xfa");
        assert_eq!(moved(&v, &[0, 1], -1), None, "0 stays 0: no move");
        assert_eq!(bytes(moved(&v, &[0, 2], 1 << 40)), b"G\x00\xff", "saturates");
        assert_eq!(bytes(moved(&v, &[0], 2)), b"G\x00\xfa\xfa\xfa", "grows");
        assert_eq!(bytes(moved(&v, &[0], -2)), b"G", "shrinks");
        assert_eq!(bytes(with_char(&v, &[0, 0], 'P')), b"P\x00\xfa");
        assert_eq!(bytes(with_char(&v, &[0, 1], '\u{ff}')), b"G\xff\xfa");
        assert_eq!(with_char(&v, &[0, 1], '\u{100}'), None, "not a byte");
        assert_eq!((jump_bits(&v, &[0, 1], 20), jump_bits(&v, &[0], 20)), (8, 20));
        let dictionary = dictionary([Value::Bytes(b"GET /a".to_vec())].iter());
        assert!(dictionary.contains(&'G') && dictionary.contains(&'z'), "{dictionary:?}");
    }
    #[test]
    fn variables_include_string_characters_and_lengths() {
        let v = Value::Struct(
            "args",
            vec![("s", Value::Str("ab".into())), ("n", Value::I64(1))],
        );
        assert_eq!(
            variables(&v, &Sealed::default()).iter().map(<[usize]>::to_vec).collect::<Vec<_>>(),
            vec![vec![0], vec![0, 0], vec![0, 1], vec![1]]
        );
    }
}
