//! What carved calls show of a target's arguments: the [`Shape`] of each
//! position of the argument tree (struct fields, enum variants seen,
//! sequence elements, options, map entries) with the values observed there,
//! merged over every call and, where the parameter's type was traced
//! ([`crate::value::types`]), completed with what the type allows.
//! [`mine`](crate::generation::mine) turns a shape into a grammar.

use std::collections::{BTreeMap, BTreeSet};

use crate::value::types::{Container, IntKind, ParamTypes, PayloadTy, Ty};
use crate::value::Value;

/// What was observed at one position of the argument tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// `()`.
    Unit,
    /// `true`/`false`.
    Bool,
    /// An integer; `signed` when any observed value was serialized as signed.
    Int {
        /// Serialized as signed.
        signed: bool,
        /// Values seen.
        seen: BTreeSet<i128>,
        /// Its type, when traced: alternatives stay inside its range.
        kind: Option<IntKind>,
    },
    /// A float.
    Float {
        /// Serialized as `f32`.
        single: bool,
        /// Values seen (bits, to keep order and equality total).
        seen: BTreeSet<u64>,
    },
    /// A char.
    Char(BTreeSet<char>),
    /// A string.
    Str(BTreeSet<String>),
    /// Byte strings.
    Bytes(BTreeSet<Vec<u8>>),
    /// Byte strings of one length (`[u8; N]`, from its traced type).
    FixedBytes(usize, BTreeSet<Vec<u8>>),
    /// An option: `none` whether `None` was seen, and the shape of `Some`.
    Option {
        /// `None` was observed.
        none: bool,
        /// Shape of the contents, when `Some` was observed.
        some: Option<Box<Shape>>,
    },
    /// A sequence; the shape of its elements when any were seen, and lengths seen.
    Seq(Option<Box<Shape>>, BTreeSet<usize>),
    /// A tuple (or tuple struct) with its name.
    Tuple(Option<&'static str>, Vec<Shape>),
    /// A struct and its fields in order.
    Struct(&'static str, Vec<(&'static str, Shape)>),
    /// A newtype struct.
    Newtype(&'static str, Box<Shape>),
    /// A unit struct.
    UnitStruct(&'static str),
    /// A map: shapes of keys and values, when entries were seen.
    Map(Option<Box<(Shape, Shape)>>),
    /// An enum and the variants seen.
    Enum(&'static str, BTreeMap<&'static str, Variant>),
    /// Values of incompatible shapes were seen here: only they are replayed.
    Mixed(Vec<Value>),
}

/// A variant of an enum as seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub(crate) index: u32,
    pub(crate) payload: Payload,
}

/// The payload of a variant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Payload {
    Unit,
    Newtype(Shape),
    Tuple(Vec<Shape>),
    Struct(Vec<(&'static str, Shape)>),
}

impl Shape {
    /// The shape of one observed value.
    pub fn of(value: &Value) -> Shape {
        match value {
            Value::Unit => Shape::Unit,
            Value::Bool(_) => Shape::Bool,
            Value::I64(v) => Shape::Int {
                signed: true,
                seen: [i128::from(*v)].into(),
                kind: None,
            },
            Value::I128(v) => Shape::Int {
                signed: true,
                seen: [*v].into(),
                kind: None,
            },
            Value::U64(v) => Shape::Int {
                signed: false,
                seen: [i128::from(*v)].into(),
                kind: None,
            },
            Value::U128(v) => Shape::Int {
                signed: false,
                seen: i128::try_from(*v).into_iter().collect(),
                kind: None,
            },
            Value::F32(v) => Shape::Float {
                single: true,
                seen: [f64::from(*v).to_bits()].into(),
            },
            Value::F64(v) => Shape::Float {
                single: false,
                seen: [v.to_bits()].into(),
            },
            Value::Char(c) => Shape::Char([*c].into()),
            Value::Str(s) => Shape::Str([s.clone()].into()),
            Value::Bytes(b) => Shape::Bytes([b.clone()].into()),
            Value::None => Shape::Option {
                none: true,
                some: None,
            },
            Value::Some(v) => Shape::Option {
                none: false,
                some: Some(Box::new(Shape::of(v))),
            },
            Value::UnitStruct(n) => Shape::UnitStruct(n),
            Value::NewtypeStruct(n, v) => Shape::Newtype(n, Box::new(Shape::of(v))),
            Value::Seq(items) => {
                let element = items
                    .iter()
                    .map(Shape::of)
                    .reduce(Shape::merge)
                    .map(Box::new);
                Shape::Seq(element, [items.len()].into())
            }
            Value::Tuple(items) => Shape::Tuple(None, items.iter().map(Shape::of).collect()),
            Value::TupleStruct(n, items) => {
                Shape::Tuple(Some(n), items.iter().map(Shape::of).collect())
            }
            Value::Map(entries) => Shape::Map(
                entries
                    .iter()
                    .map(|(k, v)| (Shape::of(k), Shape::of(v)))
                    .reduce(|(k1, v1), (k2, v2)| (k1.merge(k2), v1.merge(v2)))
                    .map(Box::new),
            ),
            Value::Struct(n, fields) => {
                Shape::Struct(n, fields.iter().map(|(f, v)| (*f, Shape::of(v))).collect())
            }
            Value::UnitVariant {
                name,
                index,
                variant,
            } => Shape::variant(name, variant, *index, Payload::Unit),
            Value::NewtypeVariant {
                name,
                index,
                variant,
                value,
            } => Shape::variant(name, variant, *index, Payload::Newtype(Shape::of(value))),
            Value::TupleVariant {
                name,
                index,
                variant,
                fields,
            } => Shape::variant(
                name,
                variant,
                *index,
                Payload::Tuple(fields.iter().map(Shape::of).collect()),
            ),
            Value::StructVariant {
                name,
                index,
                variant,
                fields,
            } => Shape::variant(
                name,
                variant,
                *index,
                Payload::Struct(fields.iter().map(|(f, v)| (*f, Shape::of(v))).collect()),
            ),
        }
    }

    /// The shape of enum `name` with the one variant a value has.
    fn variant(name: &'static str, variant: &'static str, index: u32, payload: Payload) -> Shape {
        Shape::Enum(name, [(variant, Variant { index, payload })].into())
    }

    /// The shape covering both `self` and `other`.
    pub fn merge(self, other: Shape) -> Shape {
        use Shape::*;
        match (self, other) {
            (Unit, Unit) => Unit,
            (Bool, Bool) => Bool,
            (
                Int {
                    signed: s1,
                    seen: mut a,
                    kind,
                },
                Int {
                    signed: s2,
                    seen: b,
                    ..
                },
            ) => {
                a.extend(b);
                Int {
                    signed: s1 || s2,
                    seen: a,
                    kind,
                }
            }
            (
                Float {
                    single,
                    seen: mut a,
                },
                Float { seen: b, .. },
            ) => {
                a.extend(b);
                Float { single, seen: a }
            }
            (Char(mut a), Char(b)) => {
                a.extend(b);
                Char(a)
            }
            (Str(mut a), Str(b)) => {
                a.extend(b);
                Str(a)
            }
            (Bytes(mut a), Bytes(b)) => {
                a.extend(b);
                Bytes(a)
            }
            (Option { none: n1, some: s1 }, Option { none: n2, some: s2 }) => Option {
                none: n1 || n2,
                some: merge_optional(s1.map(|b| *b), s2.map(|b| *b)).map(Box::new),
            },
            (Seq(a, mut l1), Seq(b, l2)) => {
                l1.extend(l2);
                Seq(
                    merge_optional(a.map(|b| *b), b.map(|b| *b)).map(Box::new),
                    l1,
                )
            }
            (Tuple(n1, a), Tuple(n2, b)) if n1 == n2 && a.len() == b.len() => {
                Tuple(n1, a.into_iter().zip(b).map(|(x, y)| x.merge(y)).collect())
            }
            (Struct(n1, a), Struct(n2, b)) if n1 == n2 && same_fields(&a, &b) => Struct(
                n1,
                a.into_iter()
                    .zip(b)
                    .map(|((f, x), (_, y))| (f, x.merge(y)))
                    .collect(),
            ),
            (Newtype(n1, a), Newtype(n2, b)) if n1 == n2 => Newtype(n1, Box::new(a.merge(*b))),
            (UnitStruct(n1), UnitStruct(n2)) if n1 == n2 => UnitStruct(n1),
            (Map(a), Map(b)) => Map(match (a, b) {
                (Some(a), Some(b)) => Some(Box::new((a.0.merge(b.0), a.1.merge(b.1)))),
                (a, b) => a.or(b),
            }),
            (Enum(n1, mut a), Enum(n2, b)) if n1 == n2 => {
                for (name, variant) in b {
                    let merged = match a.remove(name) {
                        Some(old) => old.merge(variant),
                        None => variant,
                    };
                    a.insert(name, merged);
                }
                Enum(n1, a)
            }
            (Mixed(mut a), other) | (other, Mixed(mut a)) => {
                for value in other.examples() {
                    if !a.contains(&value) {
                        a.push(value);
                    }
                }
                Mixed(a)
            }
            (a, b) => Mixed(a.examples()).merge(b),
        }
    }

    /// Values observed here, rebuilt, for `Mixed`: shapes of other kinds
    /// meeting at one position are rare (untagged enums, `serialize_with`),
    /// and only the values kept survive such a merge. Scalars give every
    /// value seen; a compound gives one value built from its parts' first
    /// ones (it was seen whole, but is not kept whole).
    fn examples(&self) -> Vec<Value> {
        let first = |shape: &Shape| shape.examples().into_iter().next();
        let firsts = |shapes: &[Shape]| shapes.iter().map(first).collect::<Option<Vec<Value>>>();
        match self {
            Shape::Mixed(values) => values.clone(),
            Shape::Unit => vec![Value::Unit],
            Shape::Bool => vec![Value::Bool(false), Value::Bool(true)],
            Shape::Int { signed, seen, .. } => seen
                .iter()
                .map(|&v| match (signed, i64::try_from(v), u64::try_from(v)) {
                    (true, Ok(v), _) => Value::I64(v),
                    (true, Err(_), _) => Value::I128(v),
                    (false, _, Ok(v)) => Value::U64(v),
                    (false, _, Err(_)) => Value::U128(v as u128),
                })
                .collect(),
            Shape::Float { single, seen } => seen
                .iter()
                .map(|&bits| match single {
                    true => Value::F32(f64::from_bits(bits) as f32),
                    false => Value::F64(f64::from_bits(bits)),
                })
                .collect(),
            Shape::Char(cs) => cs.iter().map(|&c| Value::Char(c)).collect(),
            Shape::Str(ss) => ss.iter().map(|s| Value::Str(s.clone())).collect(),
            Shape::Bytes(bs) | Shape::FixedBytes(_, bs) => {
                bs.iter().map(|b| Value::Bytes(b.clone())).collect()
            }
            Shape::Option { none, some } => {
                let mut values: Vec<Value> = some
                    .iter()
                    .flat_map(|s| s.examples())
                    .map(|v| Value::Some(Box::new(v)))
                    .collect();
                if *none {
                    values.insert(0, Value::None);
                }
                values
            }
            Shape::Seq(element, lengths) => match (lengths.contains(&0), element) {
                (true, _) => vec![Value::Seq(Vec::new())],
                (false, Some(element)) => first(element)
                    .map(|v| vec![Value::Seq(vec![v])])
                    .unwrap_or_default(),
                (false, None) => Vec::new(),
            },
            Shape::Tuple(name, parts) => firsts(parts)
                .map(|parts| match name {
                    Some(name) => Value::TupleStruct(name, parts),
                    None => Value::Tuple(parts),
                })
                .into_iter()
                .collect(),
            Shape::Struct(name, fields) => fields
                .iter()
                .map(|(f, shape)| Some((*f, first(shape)?)))
                .collect::<Option<Vec<_>>>()
                .map(|fields| Value::Struct(name, fields))
                .into_iter()
                .collect(),
            Shape::Newtype(name, inner) => first(inner)
                .map(|v| Value::NewtypeStruct(name, Box::new(v)))
                .into_iter()
                .collect(),
            Shape::UnitStruct(name) => vec![Value::UnitStruct(name)],
            Shape::Map(_) => vec![Value::Map(Vec::new())],
            Shape::Enum(name, variants) => variants
                .iter()
                .filter(|(_, v)| v.payload == Payload::Unit)
                .map(|(variant, v)| Value::UnitVariant {
                    name,
                    index: v.index,
                    variant,
                })
                .collect(),
        }
    }
}

/// How often a named type may nest in itself in a typed shape: deeper, a
/// recursive type keeps only what ends there (or what was carved).
const UNFOLD: usize = 2;

impl Shape {
    /// The shape of the values of `ty` (named types in `types`), with the
    /// values mined at this position (`mined`) as alternatives where they
    /// fit: every enum variant, options both `None` and `Some`, integers in
    /// their type's range. `None` when no value of `ty` can be made within
    /// the nesting bound and nothing was carved here.
    pub fn typed(ty: &Ty, mined: Option<&Shape>, types: &ParamTypes) -> Option<Shape> {
        typed(ty, mined, types, &mut Vec::new())
    }
}

fn typed(
    ty: &Ty,
    mined: Option<&Shape>,
    types: &ParamTypes,
    stack: &mut Vec<&'static str>,
) -> Option<Shape> {
    let parts = |tys: &[Ty], mined: Option<&Vec<Shape>>, stack: &mut Vec<&'static str>| {
        let mined = mined.filter(|m| m.len() == tys.len());
        tys.iter()
            .enumerate()
            .map(|(i, t)| typed(t, mined.map(|m| &m[i]), types, stack))
            .collect::<Option<Vec<Shape>>>()
    };
    let fields = |tys: &[(&'static str, Ty)],
                  mined: Option<&Vec<(&'static str, Shape)>>,
                  stack: &mut Vec<&'static str>| {
        tys.iter()
            .map(|(name, t)| {
                let seen = mined.and_then(|m| m.iter().find(|(f, _)| f == name).map(|(_, s)| s));
                Some((*name, typed(t, seen, types, stack)?))
            })
            .collect::<Option<Vec<_>>>()
    };
    Some(match ty {
        Ty::Unit => Shape::Unit,
        Ty::Bool => Shape::Bool,
        Ty::Int(kind) => Shape::Int {
            signed: kind.signed(),
            seen: match mined {
                Some(Shape::Int { seen, .. }) => {
                    seen.iter().copied().filter(|n| kind.contains(*n)).collect()
                }
                _ => BTreeSet::new(),
            },
            kind: Some(*kind),
        },
        Ty::Float { single } => Shape::Float {
            single: *single,
            seen: match mined {
                Some(Shape::Float { seen, .. }) => seen.clone(),
                _ => BTreeSet::new(),
            },
        },
        Ty::Char => Shape::Char(match mined {
            Some(Shape::Char(seen)) => seen.clone(),
            _ => BTreeSet::new(),
        }),
        Ty::Str | Ty::Text(_) => Shape::Str(match mined {
            Some(Shape::Str(seen)) => seen.clone(),
            _ => BTreeSet::new(),
        }),
        Ty::Bytes(len) => {
            let seen = match mined {
                Some(Shape::Bytes(seen)) => seen.clone(),
                _ => BTreeSet::new(),
            };
            match len {
                None => Shape::Bytes(seen),
                Some(n) => Shape::FixedBytes(*n, seen.into_iter().filter(|b| b.len() == *n).collect()),
            }
        }
        Ty::Option(inner) => {
            let seen = match mined {
                Some(Shape::Option { some, .. }) => some.as_deref(),
                _ => None,
            };
            Shape::Option {
                none: true,
                some: typed(inner, seen, types, stack).map(Box::new),
            }
        }
        Ty::Seq(item) => {
            let (seen, lengths) = match mined {
                Some(Shape::Seq(item, lengths)) => (item.as_deref(), lengths.clone()),
                _ => (None, BTreeSet::new()),
            };
            Shape::Seq(typed(item, seen, types, stack).map(Box::new), lengths)
        }
        Ty::Map(k, v) => {
            let seen = match mined {
                Some(Shape::Map(Some(entry))) => Some(&**entry),
                _ => None,
            };
            let key = typed(k, seen.map(|e| &e.0), types, stack);
            let value = typed(v, seen.map(|e| &e.1), types, stack);
            Shape::Map(key.zip(value).map(Box::new))
        }
        Ty::Tuple(tys) => {
            let seen = match mined {
                Some(Shape::Tuple(None, items)) => Some(items),
                _ => None,
            };
            Shape::Tuple(None, parts(tys, seen, stack)?)
        }
        Ty::Named(name) => {
            let container = types.container(name)?;
            if stack.iter().filter(|n| *n == name).count() >= UNFOLD {
                return mined.cloned();
            }
            stack.push(name);
            let shape = match container {
                Container::UnitStruct => Some(Shape::UnitStruct(name)),
                Container::Newtype(t) => {
                    let seen = match mined {
                        Some(Shape::Newtype(_, inner)) => Some(&**inner),
                        _ => None,
                    };
                    typed(t, seen, types, stack).map(|s| Shape::Newtype(name, Box::new(s)))
                }
                Container::TupleStruct(tys) => {
                    let seen = match mined {
                        Some(Shape::Tuple(Some(_), items)) => Some(items),
                        _ => None,
                    };
                    parts(tys, seen, stack).map(|items| Shape::Tuple(Some(name), items))
                }
                Container::Struct(tys) => {
                    let seen = match mined {
                        Some(Shape::Struct(_, fields)) => Some(fields),
                        _ => None,
                    };
                    fields(tys, seen, stack).map(|fields| Shape::Struct(name, fields))
                }
                Container::Enum(variants) => {
                    let seen = match mined {
                        Some(Shape::Enum(_, seen)) => Some(seen),
                        _ => None,
                    };
                    let variants: BTreeMap<&'static str, Variant> = variants
                        .iter()
                        .filter_map(|v| {
                            let mined = seen.and_then(|s| s.get(v.name)).map(|m| &m.payload);
                            let payload = match &v.payload {
                                PayloadTy::Unit => Payload::Unit,
                                PayloadTy::Newtype(t) => {
                                    let seen = match mined {
                                        Some(Payload::Newtype(s)) => Some(s),
                                        _ => None,
                                    };
                                    Payload::Newtype(typed(t, seen, types, stack)?)
                                }
                                PayloadTy::Tuple(tys) => {
                                    let seen = match mined {
                                        Some(Payload::Tuple(items)) => Some(items),
                                        _ => None,
                                    };
                                    Payload::Tuple(parts(tys, seen, stack)?)
                                }
                                PayloadTy::Struct(tys) => {
                                    let seen = match mined {
                                        Some(Payload::Struct(fields)) => Some(fields),
                                        _ => None,
                                    };
                                    Payload::Struct(fields(tys, seen, stack)?)
                                }
                            };
                            Some((
                                v.name,
                                Variant {
                                    index: v.index,
                                    payload,
                                },
                            ))
                        })
                        .collect();
                    (!variants.is_empty()).then_some(Shape::Enum(name, variants))
                }
            };
            stack.pop();
            return shape.or_else(|| mined.cloned());
        }
    })
}

impl Variant {
    fn merge(self, other: Variant) -> Variant {
        let payload = match (self.payload, other.payload) {
            (Payload::Newtype(a), Payload::Newtype(b)) => Payload::Newtype(a.merge(b)),
            (Payload::Tuple(a), Payload::Tuple(b)) if a.len() == b.len() => {
                Payload::Tuple(a.into_iter().zip(b).map(|(x, y)| x.merge(y)).collect())
            }
            (Payload::Struct(a), Payload::Struct(b)) if same_fields(&a, &b) => Payload::Struct(
                a.into_iter()
                    .zip(b)
                    .map(|((f, x), (_, y))| (f, x.merge(y)))
                    .collect(),
            ),
            (a, _) => a,
        };
        Variant {
            index: self.index,
            payload,
        }
    }
}

fn merge_optional(a: Option<Shape>, b: Option<Shape>) -> Option<Shape> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.merge(b)),
        (a, b) => a.or(b),
    }
}

fn same_fields(a: &[(&'static str, Shape)], b: &[(&'static str, Shape)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((x, _), (y, _))| x == y)
}
