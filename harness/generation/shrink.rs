//! Smaller versions of a value tree, for minimizing failing inputs (delta
//! debugging over the value, not over its text).
//!
//! ```
//! use carve::generation::shrink::candidates;
//! use carve::value::Value;
//!
//! let smaller = candidates(&Value::Str("ab%".into()));
//! assert_eq!(smaller[0], Value::Str(String::new()));
//! assert!(smaller.contains(&Value::Str("a%".into()))); // one character removed
//! ```

use crate::value::Value;

/// Candidates smaller than `value`, most aggressive first: emptier strings,
/// byte strings and sequences, numbers closer to 0, `None` for options; then
/// the same applied to each part of a composite value.
pub fn candidates(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match value {
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            out.extend(
                shorter(&chars)
                    .into_iter()
                    .map(|c| Value::Str(c.into_iter().collect())),
            );
        }
        Value::Bytes(b) => out.extend(shorter(b).into_iter().map(Value::Bytes)),
        Value::I64(n) => out.extend(
            towards_zero(i128::from(*n))
                .filter_map(|v| i64::try_from(v).ok())
                .map(Value::I64),
        ),
        Value::U64(n) => out.extend(
            towards_zero(i128::from(*n))
                .filter_map(|v| u64::try_from(v).ok())
                .map(Value::U64),
        ),
        Value::I128(n) => out.extend(towards_zero(*n).map(Value::I128)),
        Value::U128(n) => out.extend(
            towards_zero(i128::try_from(*n).unwrap_or(i128::MAX))
                .filter_map(|v| u128::try_from(v).ok())
                .map(Value::U128),
        ),
        Value::F64(x) if *x != 0.0 => out.extend(
            [0.0, x.trunc(), x / 2.0]
                .into_iter()
                .filter(|v| v != x)
                .map(Value::F64),
        ),
        Value::F32(x) if *x != 0.0 => out.extend(
            [0.0, x.trunc(), x / 2.0]
                .into_iter()
                .filter(|v| v != x)
                .map(Value::F32),
        ),
        Value::Some(inner) => {
            out.push(Value::None);
            out.extend(
                candidates(inner)
                    .into_iter()
                    .map(|c| Value::Some(Box::new(c))),
            );
        }
        Value::Seq(items) => {
            out.extend(shorter(items).into_iter().map(Value::Seq));
            out.extend(each_part(items).into_iter().map(Value::Seq));
        }
        Value::Tuple(items) => out.extend(each_part(items).into_iter().map(Value::Tuple)),
        Value::TupleStruct(n, items) => out.extend(
            each_part(items)
                .into_iter()
                .map(|i| Value::TupleStruct(n, i)),
        ),
        Value::NewtypeStruct(n, inner) => out.extend(
            candidates(inner)
                .into_iter()
                .map(|c| Value::NewtypeStruct(n, Box::new(c))),
        ),
        Value::Struct(n, fields) => {
            out.extend(each_field(fields).into_iter().map(|f| Value::Struct(n, f)))
        }
        Value::NewtypeVariant {
            name,
            index,
            variant,
            value,
        } => out.extend(
            candidates(value)
                .into_iter()
                .map(|c| Value::NewtypeVariant {
                    name,
                    index: *index,
                    variant,
                    value: Box::new(c),
                }),
        ),
        Value::TupleVariant {
            name,
            index,
            variant,
            fields,
        } => out.extend(each_part(fields).into_iter().map(|f| Value::TupleVariant {
            name,
            index: *index,
            variant,
            fields: f,
        })),
        Value::StructVariant {
            name,
            index,
            variant,
            fields,
        } => out.extend(
            each_field(fields)
                .into_iter()
                .map(|f| Value::StructVariant {
                    name,
                    index: *index,
                    variant,
                    fields: f,
                }),
        ),
        Value::Map(entries) => {
            out.extend(shorter(entries).into_iter().map(Value::Map));
        }
        _ => {}
    }
    out
}

/// Shorter lists: empty, each half, then each item removed.
fn shorter<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Vec::new()];
    let half = items.len() / 2;
    if half > 0 {
        out.push(items[..half].to_vec());
        out.push(items[half..].to_vec());
    }
    if items.len() > 1 {
        for i in 0..items.len() {
            let mut fewer = items.to_vec();
            fewer.remove(i);
            out.push(fewer);
        }
    }
    out
}

/// 0, then values between 0 and `n` ever closer to `n` (`n − n/2`, `n − n/4`,
/// …, `n ∓ 1`): repeated passes binary-search the smallest magnitude that
/// still fails.
fn towards_zero(n: i128) -> impl Iterator<Item = i128> {
    let mut candidates = vec![0];
    let mut step = n / 2;
    while step != 0 {
        candidates.push(n - step);
        step /= 2;
    }
    candidates.push(n - n.signum());
    let mut seen = Vec::new();
    candidates.into_iter().filter(move |c| {
        let fresh = *c != n && !seen.contains(c);
        seen.push(*c);
        fresh
    })
}

/// The list with one item replaced by a smaller candidate, for each item.
fn each_part(items: &[Value]) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        for candidate in candidates(item) {
            let mut changed = items.to_vec();
            changed[i] = candidate;
            out.push(changed);
        }
    }
    out
}

fn each_field(fields: &[(&'static str, Value)]) -> Vec<Vec<(&'static str, Value)>> {
    let mut out = Vec::new();
    for (i, (_, value)) in fields.iter().enumerate() {
        for candidate in candidates(value) {
            let mut changed = fields.to_vec();
            changed[i].1 = candidate;
            out.push(changed);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_move_towards_zero_without_overflow() {
        let smaller = candidates(&Value::I64(i64::MIN));
        assert_eq!(
            smaller[..3],
            [
                Value::I64(0),
                Value::I64(i64::MIN / 2),
                Value::I64(i64::MIN / 4 * 3)
            ]
        );
        assert_eq!(smaller.last(), Some(&Value::I64(i64::MIN + 1)));
        assert_eq!(candidates(&Value::U64(1)), vec![Value::U64(0)]);
        assert!(candidates(&Value::U64(0)).is_empty());
    }

    #[test]
    fn byte_strings_shrink_as_strings_do() {
        let as_bytes = |v: Value| match v {
            Value::Str(s) => Value::Bytes(s.into_bytes()),
            other => other,
        };
        let text = "GET /%";
        assert_eq!(
            candidates(&Value::Bytes(text.as_bytes().to_vec())),
            candidates(&Value::Str(text.into()))
                .into_iter()
                .map(as_bytes)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn composite_values_shrink_part_by_part() {
        let args = Value::Struct(
            "args",
            vec![("s", Value::Str("%".into())), ("n", Value::U64(2))],
        );
        let smaller = candidates(&args);
        assert!(smaller.contains(&Value::Struct(
            "args",
            vec![("s", Value::Str(String::new())), ("n", Value::U64(2))]
        )));
        assert!(smaller.contains(&Value::Struct(
            "args",
            vec![("s", Value::Str("%".into())), ("n", Value::U64(1))]
        )));
    }
}
