//! The shapes of a target's parameter types, traced from their
//! `Deserialize` implementations, so that generation makes values of those
//! types only.
//!
//! `#[carve::target]` registers a function that traces each parameter's
//! carved form ([`crate::value::form`]): a serde type with
//! a tracer that deserializes it again and again, each time taking enum
//! variants not traced yet (every struct field, every enum variant, integer
//! widths and signs, floats, chars, strings, bytes, options, sequences,
//! maps, tuples), a byte string as bytes (of a fixed length for `[u8; N]`),
//! a `Display + FromStr` type as text (which strings parse is not known:
//! the mined strings stand for it, and its `FromStr` tells which parse).
//! serde-reflection was tried first: it stops exploring an option, a
//! sequence or a map after its first trace, so an enum inside one never
//! gets all its variants. A type that cannot be traced (an
//! untagged enum, `flatten`, a `Deserialize` that rejects the tracer's
//! sample values) is [`ParamType::Untraced`], and generation falls back to
//! the shape mined from carved calls for that parameter.
//!
//! ```
//! use carve::value::types::{trace, IntKind, ParamType, Ty};
//!
//! #[derive(serde::Deserialize)]
//! #[allow(dead_code)]
//! enum Op { Add(u8), Neg }
//!
//! let mut types = carve::value::types::ParamTypes::default();
//! types.param("op", trace::<Op>());
//! types.param("n", trace::<i16>());
//! assert_eq!(types.get("n"), Some(&ParamType::Typed(Ty::Int(IntKind::I16))));
//! let op = types.container("Op").unwrap();
//! assert!(format!("{op:?}").contains("Neg"), "every variant, carved or not");
//! ```

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::panics::quietly;
use crate::value::Value;

/// An integer type: its width and sign (`usize`/`isize` are serialized as
/// `u64`/`i64`, and traced as such).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntKind {
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64` (and `isize`).
    I64,
    /// `i128`.
    I128,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64` (and `usize`).
    U64,
    /// `u128`.
    U128,
}

impl IntKind {
    /// Whether the type has negative values.
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::I8 | IntKind::I16 | IntKind::I32 | IntKind::I64 | IntKind::I128
        )
    }

    /// The type's smallest and largest values, in `i128` (`u128::MAX` does
    /// not fit: values of a `u128` are generated up to `i128::MAX`, as the
    /// mined grammar holds integers as `i128`).
    pub fn range(self) -> (i128, i128) {
        match self {
            IntKind::I8 => (i8::MIN.into(), i8::MAX.into()),
            IntKind::I16 => (i16::MIN.into(), i16::MAX.into()),
            IntKind::I32 => (i32::MIN.into(), i32::MAX.into()),
            IntKind::I64 => (i64::MIN.into(), i64::MAX.into()),
            IntKind::I128 => (i128::MIN, i128::MAX),
            IntKind::U8 => (0, u8::MAX.into()),
            IntKind::U16 => (0, u16::MAX.into()),
            IntKind::U32 => (0, u32::MAX.into()),
            IntKind::U64 => (0, u64::MAX.into()),
            IntKind::U128 => (0, i128::MAX),
        }
    }

    /// Whether `n` is a value of the type.
    pub fn contains(self, n: i128) -> bool {
        let (min, max) = self.range();
        (min..=max).contains(&n)
    }
}

/// The shape of a type, as its `Deserialize` asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// `()`.
    Unit,
    /// `bool`.
    Bool,
    /// An integer.
    Int(IntKind),
    /// `f32` (`true`) or `f64`.
    Float {
        /// `f32`.
        single: bool,
    },
    /// `char`.
    Char,
    /// A string.
    Str,
    /// A byte string, of exactly `Some(n)` bytes for `[u8; n]`.
    Bytes(Option<usize>),
    /// `Option<T>`.
    Option(Box<Ty>),
    /// A sequence.
    Seq(Box<Ty>),
    /// A map.
    Map(Box<Ty>, Box<Ty>),
    /// A tuple (also `[T; N]`).
    Tuple(Vec<Ty>),
    /// A named struct or enum, described in [`ParamTypes::container`].
    Named(&'static str),
}

/// A named type: a struct of some kind, or an enum with all its variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Container {
    /// `struct S;`.
    UnitStruct,
    /// `struct S(T);`.
    Newtype(Ty),
    /// `struct S(A, B);`.
    TupleStruct(Vec<Ty>),
    /// `struct S { a: A }`, fields in order.
    Struct(Vec<(&'static str, Ty)>),
    /// An enum: every variant, by index.
    Enum(Vec<VariantTy>),
}

/// A variant of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantTy {
    /// Its name as serialized.
    pub name: &'static str,
    /// Its index.
    pub index: u32,
    /// What it holds.
    pub payload: PayloadTy,
}

/// What an enum variant holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadTy {
    /// Nothing.
    Unit,
    /// One value.
    Newtype(Ty),
    /// A tuple.
    Tuple(Vec<Ty>),
    /// Named fields.
    Struct(Vec<(&'static str, Ty)>),
}

/// What is known of one parameter's type.
#[derive(Debug, Clone)]
pub enum ParamType {
    /// Traced: values of this shape deserialize.
    Typed(Ty),
    /// Carved as text (`Display + FromStr`): which strings parse is not
    /// known, so the strings mined from carved calls stand for it, and
    /// `parses` tells those that parse.
    Text {
        /// Whether a string parses into the type.
        parses: fn(&str) -> bool,
    },
    /// Could not be traced, and why.
    Untraced(String),
}

/// Text parameters are equal whatever their parsers (function addresses
/// are not unique).
impl PartialEq for ParamType {
    fn eq(&self, other: &ParamType) -> bool {
        match (self, other) {
            (ParamType::Typed(a), ParamType::Typed(b)) => a == b,
            (ParamType::Text { .. }, ParamType::Text { .. }) => true,
            (ParamType::Untraced(a), ParamType::Untraced(b)) => a == b,
            _ => false,
        }
    }
}

/// The traced types of a target's parameters, with the named types they use.
#[derive(Debug, Clone, Default)]
pub struct ParamTypes {
    params: Vec<(&'static str, ParamType)>,
    containers: BTreeMap<&'static str, Container>,
}

/// The trace of one parameter's type: its shape and the named types in it.
#[derive(Debug, Clone)]
pub struct Traced {
    ty: ParamType,
    containers: BTreeMap<&'static str, Container>,
}

impl Traced {
    /// A type with no named types in it.
    pub fn plain(ty: ParamType) -> Traced {
        Traced {
            ty,
            containers: BTreeMap::new(),
        }
    }
}

impl ParamTypes {
    /// Adds parameter `name`, traced. Two named types of one name (from two
    /// modules) that differ cannot both be told apart by serde's names:
    /// the later parameter is then left untraced.
    pub fn param(&mut self, name: &'static str, traced: Traced) {
        let clash = traced
            .containers
            .iter()
            .find(|(n, c)| self.containers.get(*n).is_some_and(|old| old != *c));
        let ty = match clash {
            Some((n, _)) => ParamType::Untraced(format!(
                "two different types are named `{n}` in the parameters"
            )),
            None => {
                self.containers.extend(traced.containers);
                traced.ty
            }
        };
        self.params.push((name, ty));
    }

    /// What is known of parameter `name`'s type.
    pub fn get(&self, name: &str) -> Option<&ParamType> {
        self.params.iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }

    /// The parameters, in order.
    pub fn params(&self) -> impl Iterator<Item = (&'static str, &ParamType)> {
        self.params.iter().map(|(n, t)| (*n, t))
    }

    /// The named type `name`.
    pub fn container(&self, name: &str) -> Option<&Container> {
        self.containers.get(name)
    }

    /// Whether `args` (`(name: value, …)`) are arguments of these
    /// parameters: each traced one fits its type, each text one parses.
    /// Generation makes no call with other arguments: they would only fail
    /// to deserialize.
    pub fn admits(&self, args: &Value) -> bool {
        let Value::Struct(_, fields) = args else {
            return true;
        };
        fields.iter().all(|(name, value)| match (self.get(name), value) {
            (Some(ParamType::Typed(ty)), value) => self.fits(ty, value),
            (Some(ParamType::Text { parses }), Value::Str(text)) => parses(text),
            (Some(ParamType::Text { .. }), _) => false,
            (Some(ParamType::Untraced(_)) | None, _) => true,
        })
    }

    /// Whether `value` is a value of `ty`: what deserializes (text forms
    /// aside, which may still fail to parse). Generation makes no other.
    pub fn fits(&self, ty: &Ty, value: &Value) -> bool {
        self.fits_depth(ty, value, 0)
    }

    fn fits_depth(&self, ty: &Ty, value: &Value, depth: usize) -> bool {
        // Values this deep come from the carve (search does not nest
        // deeper than what it starts from): trust them.
        if depth > 256 {
            return true;
        }
        let depth = depth + 1;
        let all = |tys: &[Ty], values: &[Value]| {
            tys.len() == values.len()
                && tys
                    .iter()
                    .zip(values)
                    .all(|(t, v)| self.fits_depth(t, v, depth))
        };
        let fields = |tys: &[(&'static str, Ty)], values: &[(&'static str, Value)]| {
            tys.len() == values.len()
                && tys
                    .iter()
                    .zip(values)
                    .all(|((n, t), (m, v))| n == m && self.fits_depth(t, v, depth))
        };
        match (ty, value) {
            (Ty::Unit, Value::Unit) | (Ty::Bool, Value::Bool(_)) => true,
            (Ty::Int(kind), v) => int_of(v).is_some_and(|n| kind.contains(n)),
            (Ty::Float { .. }, Value::F32(_) | Value::F64(_)) => true,
            (Ty::Char, Value::Char(_)) | (Ty::Str, Value::Str(_)) => true,
            (Ty::Bytes(len), Value::Bytes(b)) => len.is_none_or(|n| b.len() == n),
            (Ty::Bytes(None), Value::Seq(items)) => items
                .iter()
                .all(|v| int_of(v).is_some_and(|n| IntKind::U8.contains(n))),
            (Ty::Option(_), Value::None) => true,
            (Ty::Option(inner), Value::Some(v)) => self.fits_depth(inner, v, depth),
            (Ty::Seq(item), Value::Seq(items)) => {
                items.iter().all(|v| self.fits_depth(item, v, depth))
            }
            (Ty::Map(k, v), Value::Map(entries)) => entries
                .iter()
                .all(|(a, b)| self.fits_depth(k, a, depth) && self.fits_depth(v, b, depth)),
            (Ty::Tuple(tys), Value::Tuple(values)) => all(tys, values),
            (Ty::Named(name), value) => match (self.containers.get(name), value) {
                (Some(Container::UnitStruct), Value::UnitStruct(_) | Value::Unit) => true,
                (Some(Container::Newtype(t)), Value::NewtypeStruct(_, v)) => {
                    self.fits_depth(t, v, depth)
                }
                (Some(Container::TupleStruct(tys)), Value::TupleStruct(_, values)) => {
                    all(tys, values)
                }
                (Some(Container::Struct(tys)), Value::Struct(_, values)) => fields(tys, values),
                (Some(Container::Enum(variants)), value) => {
                    let Some((variant, payload)) = variant_of(value) else {
                        return false;
                    };
                    variants.iter().any(|v| {
                        v.name == variant
                            && match (&v.payload, payload) {
                                (PayloadTy::Unit, Payload::Unit) => true,
                                (PayloadTy::Newtype(t), Payload::Newtype(v)) => {
                                    self.fits_depth(t, v, depth)
                                }
                                (PayloadTy::Tuple(tys), Payload::Tuple(values)) => {
                                    all(tys, values)
                                }
                                (PayloadTy::Struct(tys), Payload::Struct(values)) => {
                                    fields(tys, values)
                                }
                                _ => false,
                            }
                    })
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The integer type of the leaf at `path` of `value` (a value of `ty`;
    /// paths as search numbers children: an option's or newtype's content is
    /// child 0, a map's entries are keys and values in turn), if it is one.
    pub fn int_at(&self, ty: &Ty, value: &Value, path: &[usize]) -> Option<IntKind> {
        let mut ty = ty.clone();
        let mut value = value;
        for &i in path {
            let (child_ty, child) = self.child(&ty, value, i)?;
            ty = child_ty;
            value = child;
        }
        match ty {
            Ty::Int(kind) => Some(kind),
            _ => None,
        }
    }

    /// The integer type of the leaf at `path` of the arguments `args`
    /// (`(name: value, …)`; the path's first index is the parameter's).
    pub fn int_in_args(&self, args: &Value, path: &[usize]) -> Option<IntKind> {
        let Value::Struct(_, fields) = args else {
            return None;
        };
        let (first, rest) = path.split_first()?;
        let (name, value) = fields.get(*first)?;
        match self.get(name)? {
            ParamType::Typed(ty) => self.int_at(ty, value, rest),
            _ => None,
        }
    }

    /// The type and value of child `i` of `value`, a value of `ty`.
    fn child<'v>(&self, ty: &Ty, value: &'v Value, i: usize) -> Option<(Ty, &'v Value)> {
        let named = |ty: &Ty| match ty {
            Ty::Named(n) => self.containers.get(n),
            _ => None,
        };
        Some(match (ty, value) {
            (Ty::Option(inner), Value::Some(v)) if i == 0 => ((**inner).clone(), &**v),
            (Ty::Seq(item), Value::Seq(items)) => ((**item).clone(), items.get(i)?),
            (Ty::Tuple(tys), Value::Tuple(items)) => (tys.get(i)?.clone(), items.get(i)?),
            (Ty::Map(k, v), Value::Map(entries)) => {
                let (key, val) = entries.get(i / 2)?;
                if i.is_multiple_of(2) {
                    ((**k).clone(), key)
                } else {
                    ((**v).clone(), val)
                }
            }
            (ty, value) => match (named(ty)?, value) {
                (Container::Newtype(t), Value::NewtypeStruct(_, v)) if i == 0 => (t.clone(), &**v),
                (Container::TupleStruct(tys), Value::TupleStruct(_, items)) => {
                    (tys.get(i)?.clone(), items.get(i)?)
                }
                (Container::Struct(tys), Value::Struct(_, fields)) => {
                    (tys.get(i)?.1.clone(), &fields.get(i)?.1)
                }
                (Container::Enum(variants), value) => {
                    let (name, payload) = variant_of(value)?;
                    let variant = variants.iter().find(|v| v.name == name)?;
                    match (&variant.payload, payload) {
                        (PayloadTy::Newtype(t), Payload::Newtype(v)) if i == 0 => (t.clone(), v),
                        (PayloadTy::Tuple(tys), Payload::Tuple(items)) => {
                            (tys.get(i)?.clone(), items.get(i)?)
                        }
                        (PayloadTy::Struct(tys), Payload::Struct(fields)) => {
                            (tys.get(i)?.1.clone(), &fields.get(i)?.1)
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            },
        })
    }
}

/// An integer leaf's value.
fn int_of(value: &Value) -> Option<i128> {
    match value {
        Value::I64(n) => Some((*n).into()),
        Value::U64(n) => Some((*n).into()),
        Value::I128(n) => Some(*n),
        Value::U128(n) => i128::try_from(*n).ok(),
        _ => None,
    }
}

/// A variant value's parts.
#[derive(Clone, Copy)]
enum Payload<'v> {
    Unit,
    Newtype(&'v Value),
    Tuple(&'v [Value]),
    Struct(&'v [(&'static str, Value)]),
}

fn variant_of(value: &Value) -> Option<(&'static str, Payload<'_>)> {
    Some(match value {
        Value::UnitVariant { variant, .. } => (*variant, Payload::Unit),
        Value::NewtypeVariant { variant, value, .. } => (*variant, Payload::Newtype(value)),
        Value::TupleVariant {
            variant, fields, ..
        } => (*variant, Payload::Tuple(fields)),
        Value::StructVariant {
            variant, fields, ..
        } => (*variant, Payload::Struct(fields)),
        // An enum of unit variants written as its variant's name.
        Value::Str(_) => return None,
        _ => return None,
    })
}

/// Traces `T`'s `Deserialize`. Never panics: a panic in a user's
/// `Deserialize` while tracing, like a type that cannot be traced, gives
/// [`ParamType::Untraced`].
pub fn trace<T: DeserializeOwned>() -> Traced {
    let traced = quietly(|| catch_unwind(AssertUnwindSafe(trace_unguarded::<T>)));
    match traced {
        Ok(Ok(traced)) => traced,
        Ok(Err(why)) => Traced::plain(ParamType::Untraced(why)),
        Err(_) => Traced::plain(ParamType::Untraced(
            "its `Deserialize` panicked while it was traced".into(),
        )),
    }
}

/// Deserializations of a type before giving up (each explores at least
/// one more enum variant).
const MAX_TRACES: usize = 4096;
/// Nesting at which a trace stops: a recursive type whose every variant
/// recurses has no finite value.
const MAX_DEPTH: usize = 128;

fn trace_unguarded<T: DeserializeOwned>() -> Result<Traced, String> {
    // A `Deserialize` that rejects the first sample values (a `NonZeroU32`
    // rejects 0) may accept the second.
    let mut first_error = None;
    for sample in [Sample::Zero, Sample::One] {
        match trace_with::<T>(sample) {
            Ok(traced) => return Ok(traced),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_default())
}

/// The values the tracer hands to visitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sample {
    /// `0`, `""`, `'a'`, `false`.
    Zero,
    /// `1`, `"a"`, `'a'`, `true`.
    One,
}

fn trace_with<T: DeserializeOwned>(sample: Sample) -> Result<Traced, String> {
    let mut tracer = Tracer {
        sample,
        containers: BTreeMap::new(),
        stack: Vec::new(),
        tracing: Vec::new(),
    };
    let mut ty = None;
    for _ in 0..MAX_TRACES {
        let mut slot = None;
        T::deserialize(Probe {
            tracer: &mut tracer,
            slot: &mut slot,
            record: true,
            depth: 0,
        })
        .map_err(|e| e.0)?;
        ty = ty.or(slot);
        if tracer.incomplete().is_none() {
            let ty = ty.ok_or("the type asked for nothing")?;
            return Ok(Traced {
                ty: ParamType::Typed(ty),
                containers: tracer.finish()?,
            });
        }
    }
    Err(match tracer.incomplete() {
        Some(name) => format!("the variants of `{name}` could not all be traced"),
        None => "too many traces".into(),
    })
}

/// What the tracer learnt of a named type.
#[derive(Debug, Clone)]
enum Partial {
    Done(Container),
    /// An enum: its variant names, and the variants traced so far.
    Enum(&'static [&'static str], BTreeMap<usize, PayloadTy>),
}

/// Explores a type by deserializing it again and again, each time taking
/// enum variants not yet traced, and records what each part asks for.
struct Tracer {
    sample: Sample,
    containers: BTreeMap<&'static str, Partial>,
    /// Named types being deserialized, outermost first.
    stack: Vec<&'static str>,
    /// Enum variants being traced (the payloads being deserialized).
    tracing: Vec<(&'static str, usize)>,
}

impl Tracer {
    /// An enum some of whose variants were never traced.
    fn incomplete(&self) -> Option<&'static str> {
        self.containers.iter().find_map(|(name, c)| match c {
            Partial::Enum(names, traced) if traced.len() < names.len() => Some(*name),
            _ => None,
        })
    }

    fn finish(self) -> Result<BTreeMap<&'static str, Container>, String> {
        self.containers
            .into_iter()
            .map(|(name, c)| {
                Ok((
                    name,
                    match c {
                        Partial::Done(c) => c,
                        Partial::Enum(names, traced) => Container::Enum(
                            traced
                                .into_iter()
                                .map(|(i, payload)| VariantTy {
                                    name: names[i],
                                    index: i as u32,
                                    payload,
                                })
                                .collect(),
                        ),
                    },
                ))
            })
            .collect()
    }

    /// Whether a value of `ty` can be made without entering a named type
    /// on the stack (options empty, sequences and maps empty: how the
    /// tracer makes values it does not record).
    fn closed(&self, ty: &Ty, visiting: &mut Vec<&'static str>) -> bool {
        match ty {
            Ty::Named(name) => {
                if self.stack.contains(name) || visiting.contains(name) {
                    return false;
                }
                visiting.push(name);
                let closed = match self.containers.get(name) {
                    Some(Partial::Done(c)) => match c {
                        Container::UnitStruct => true,
                        Container::Newtype(t) => self.closed(t, visiting),
                        Container::TupleStruct(ts) => ts.iter().all(|t| self.closed(t, visiting)),
                        Container::Struct(fs) => fs.iter().all(|(_, t)| self.closed(t, visiting)),
                        Container::Enum(vs) => vs
                            .iter()
                            .any(|v| self.payload_closed(&v.payload, visiting)),
                    },
                    Some(Partial::Enum(_, traced)) => traced
                        .values()
                        .any(|p| self.payload_closed(p, visiting)),
                    None => false,
                };
                visiting.pop();
                closed
            }
            Ty::Tuple(ts) => ts.iter().all(|t| self.closed(t, visiting)),
            _ => true,
        }
    }

    fn payload_closed(&self, payload: &PayloadTy, visiting: &mut Vec<&'static str>) -> bool {
        match payload {
            PayloadTy::Unit => true,
            PayloadTy::Newtype(t) => self.closed(t, visiting),
            PayloadTy::Tuple(ts) => ts.iter().all(|t| self.closed(t, visiting)),
            PayloadTy::Struct(fs) => fs.iter().all(|(_, t)| self.closed(t, visiting)),
        }
    }

    /// Whether `ty` holds an enum with variants left to trace.
    fn reaches_incomplete(&self, ty: &Ty, visiting: &mut Vec<&'static str>) -> bool {
        let payload = |this: &Self, p: &PayloadTy, visiting: &mut Vec<&'static str>| match p {
            PayloadTy::Unit => false,
            PayloadTy::Newtype(t) => this.reaches_incomplete(t, visiting),
            PayloadTy::Tuple(ts) => ts.iter().any(|t| this.reaches_incomplete(t, visiting)),
            PayloadTy::Struct(fs) => fs.iter().any(|(_, t)| this.reaches_incomplete(t, visiting)),
        };
        match ty {
            Ty::Named(name) => {
                if visiting.contains(name) {
                    return false;
                }
                visiting.push(name);
                let reaches = match self.containers.get(name) {
                    Some(Partial::Enum(names, traced)) => {
                        traced.len() < names.len()
                            || traced.values().any(|p| payload(self, p, visiting))
                    }
                    Some(Partial::Done(c)) => match c {
                        Container::UnitStruct => false,
                        Container::Newtype(t) => self.reaches_incomplete(t, visiting),
                        Container::TupleStruct(ts) => {
                            ts.iter().any(|t| self.reaches_incomplete(t, visiting))
                        }
                        Container::Struct(fs) => {
                            fs.iter().any(|(_, t)| self.reaches_incomplete(t, visiting))
                        }
                        Container::Enum(vs) => vs.iter().any(|v| payload(self, &v.payload, visiting)),
                    },
                    None => false,
                };
                visiting.pop();
                reaches
            }
            Ty::Option(t) | Ty::Seq(t) => self.reaches_incomplete(t, visiting),
            Ty::Map(k, v) => {
                self.reaches_incomplete(k, visiting) || self.reaches_incomplete(v, visiting)
            }
            Ty::Tuple(ts) => ts.iter().any(|t| self.reaches_incomplete(t, visiting)),
            _ => false,
        }
    }

    /// The variant of enum `name` to take next. Recording, a variant not
    /// traced yet, else one leading to enums with variants left; inside
    /// itself (recursion) or not recording, a variant that ends.
    fn choose(&self, name: &'static str, variants: &[&str], record: bool) -> usize {
        let traced = match self.containers.get(name) {
            Some(Partial::Enum(_, traced)) => Some(traced),
            _ => None,
        };
        let is_traced = |i: usize| traced.is_some_and(|t| t.contains_key(&i));
        let untraced = (0..variants.len()).find(|i| !is_traced(*i));
        if record {
            if let Some(i) = untraced {
                return i;
            }
            let onward = traced.and_then(|t| {
                t.iter().find_map(|(i, p)| {
                    let ty = match p {
                        PayloadTy::Unit => return None,
                        PayloadTy::Newtype(t) => t.clone(),
                        PayloadTy::Tuple(ts) => Ty::Tuple(ts.clone()),
                        PayloadTy::Struct(fs) => Ty::Tuple(fs.iter().map(|(_, t)| t.clone()).collect()),
                    };
                    self.reaches_incomplete(&ty, &mut Vec::new()).then_some(*i)
                })
            });
            return onward.unwrap_or(0);
        }
        let ends = traced.and_then(|t| {
            t.iter()
                .find(|(_, p)| self.payload_closed(p, &mut Vec::new()))
                .map(|(i, _)| *i)
        });
        // Else a variant not known to recurse: not the one being traced.
        let other = (0..variants.len())
            .find(|i| !is_traced(*i) && !self.tracing.contains(&(name, *i)));
        ends.or(other).or(untraced).unwrap_or(0)
    }
}

/// A tracing error: the message of a `Deserialize` that refused the
/// tracer's values, or what the tracer cannot do.
#[derive(Debug)]
struct TraceError(String);

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceError {}

impl de::Error for TraceError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        TraceError(format!("its `Deserialize` refused the tracer's value: {msg}"))
    }
}

/// The deserializer the tracer hands to a type: it writes what the type
/// asks for into `slot` (when recording) and gives it sample values.
struct Probe<'a> {
    tracer: &'a mut Tracer,
    slot: &'a mut Option<Ty>,
    /// Whether to record: not inside a named type already being traced
    /// (its recursion), where options are empty and sequences too.
    record: bool,
    depth: usize,
}

impl<'a> Probe<'a> {
    fn put(&mut self, ty: Ty) {
        if self.record && self.slot.is_none() {
            *self.slot = Some(ty);
        }
    }

    fn child<'b>(&'b mut self, slot: &'b mut Option<Ty>, record: bool) -> Result<Probe<'b>, TraceError> {
        let (tracer, record, depth) = self.descend(record)?;
        Ok(Probe {
            tracer,
            slot,
            record,
            depth,
        })
    }

    /// The tracer, whether to record and the depth one level down.
    fn descend(&mut self, record: bool) -> Result<(&mut Tracer, bool, usize), TraceError> {
        if self.depth >= MAX_DEPTH {
            return Err(TraceError(
                "it nests without end (a recursive type whose every variant recurses)".into(),
            ));
        }
        Ok((&mut *self.tracer, self.record && record, self.depth + 1))
    }

    fn int<'de, V: Visitor<'de>>(mut self, kind: IntKind, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Int(kind));
        let n = u8::from(self.tracer.sample == Sample::One);
        match kind {
            IntKind::I8 | IntKind::I16 | IntKind::I32 | IntKind::I64 => visitor.visit_i64(n.into()),
            IntKind::I128 => visitor.visit_i128(n.into()),
            IntKind::U128 => visitor.visit_u128(n.into()),
            _ => visitor.visit_u64(n.into()),
        }
    }

    /// A named type: `None` when it is being traced already (recursion:
    /// not recorded again).
    fn enter(&mut self, name: &'static str) -> bool {
        let fresh = self.record && !self.tracer.stack.contains(&name);
        self.put(Ty::Named(name));
        if fresh {
            self.tracer.stack.push(name);
        }
        fresh
    }

    fn leave(&mut self, name: &'static str, fresh: bool, container: Option<Container>) {
        if fresh {
            self.tracer.stack.pop();
            if let Some(c) = container {
                self.tracer.containers.entry(name).or_insert(Partial::Done(c));
            }
        }
    }

    /// Visits `visitor` with a sequence of `slots.len()` elements.
    fn seq<'de, V: Visitor<'de>>(
        &mut self,
        slots: &mut [Option<Ty>],
        record: bool,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let (tracer, record, depth) = self.descend(record)?;
        visitor.visit_seq(Elements {
            tracer,
            slots,
            next: 0,
            record,
            depth,
        })
    }
}

fn all_known(slots: Vec<Option<Ty>>) -> Result<Vec<Ty>, TraceError> {
    slots
        .into_iter()
        .map(|s| s.ok_or_else(|| TraceError("a part was never asked for".into())))
        .collect()
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = TraceError;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, TraceError> {
        Err(TraceError(
            "it asks what the data holds (an untagged or internally tagged enum, \
             `flatten`, or a `Deserialize` written by hand)"
                .into(),
        ))
    }

    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Bool);
        visitor.visit_bool(self.tracer.sample == Sample::One)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::I8, visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::I16, visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::I32, visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::I64, visitor)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::I128, visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::U8, visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::U16, visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::U32, visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::U64, visitor)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.int(IntKind::U128, visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Float { single: true });
        visitor.visit_f32(f32::from(u8::from(self.tracer.sample == Sample::One)))
    }

    fn deserialize_f64<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Float { single: false });
        visitor.visit_f64(f64::from(u8::from(self.tracer.sample == Sample::One)))
    }

    fn deserialize_char<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Char);
        visitor.visit_char('a')
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Str);
        visitor.visit_str(if self.tracer.sample == Sample::One { "a" } else { "" })
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Bytes(None));
        visitor.visit_bytes(if self.tracer.sample == Sample::One { b"a" } else { b"" })
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        if !self.record {
            return visitor.visit_none();
        }
        let mut inner = None;
        let value = visitor.visit_some(self.child(&mut inner, true)?)?;
        if let Some(inner) = inner {
            self.put(Ty::Option(Box::new(inner)));
        }
        Ok(value)
    }

    fn deserialize_unit<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Unit);
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        self.leave(name, fresh, Some(Container::UnitStruct));
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        let mut inner = None;
        let value = visitor.visit_newtype_struct(self.child(&mut inner, fresh)?)?;
        let container = inner.map(Container::Newtype);
        self.leave(name, fresh, container);
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = if self.record { vec![None] } else { Vec::new() };
        let value = self.seq(&mut slots, true, visitor)?;
        if let Some(Some(item)) = slots.pop() {
            self.put(Ty::Seq(Box::new(item)));
        }
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(mut self, len: usize, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; len];
        let value = self.seq(&mut slots, true, visitor)?;
        if self.record {
            self.put(Ty::Tuple(all_known(slots)?));
        }
        Ok(value)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        let mut slots = vec![None; len];
        let value = self.seq(&mut slots, fresh, visitor)?;
        let container = if fresh {
            Some(Container::TupleStruct(all_known(slots)?))
        } else {
            None
        };
        self.leave(name, fresh, container);
        Ok(value)
    }

    fn deserialize_map<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        let record = self.record;
        let mut slots = if record { vec![None, None] } else { Vec::new() };
        let (tracer, record, depth) = self.descend(true)?;
        let value = visitor.visit_map(Entries {
            tracer,
            slots: &mut slots,
            keys: None,
            next: 0,
            record,
            depth,
        })?;
        if let [Some(k), Some(v)] = &slots[..] {
            self.put(Ty::Map(Box::new(k.clone()), Box::new(v.clone())));
        }
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        let mut slots = vec![None; fields.len()];
        let (tracer, record, depth) = self.descend(fresh)?;
        let value = visitor.visit_map(Entries {
            tracer,
            slots: &mut slots,
            keys: Some(fields),
            next: 0,
            record,
            depth,
        })?;
        let container = if fresh {
            Some(Container::Struct(
                fields.iter().copied().zip(all_known(slots)?).collect(),
            ))
        } else {
            None
        };
        self.leave(name, fresh, container);
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        if variants.is_empty() {
            return Err(TraceError(format!("`{name}` has no variants")));
        }
        let fresh = self.enter(name);
        if fresh {
            self.tracer
                .containers
                .entry(name)
                .or_insert_with(|| Partial::Enum(variants, BTreeMap::new()));
        }
        let index = self.tracer.choose(name, variants, fresh);
        let mut payload = None;
        if fresh {
            self.tracer.tracing.push((name, index));
        }
        let (tracer, record, depth) = self.descend(fresh)?;
        let value = visitor.visit_enum(Variant {
            tracer,
            name: variants[index],
            payload: &mut payload,
            record,
            depth,
        });
        if fresh {
            self.tracer.tracing.pop();
        }
        let value = value?;
        if fresh {
            self.tracer.stack.pop();
            if let (Some(payload), Some(Partial::Enum(_, traced))) =
                (payload, self.tracer.containers.get_mut(name))
            {
                traced.entry(index).or_insert(payload);
            }
        }
        Ok(value)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    /// Like RON and carve's values: a version or an address deserializes
    /// from its text.
    fn is_human_readable(&self) -> bool {
        true
    }
}

/// The elements of a traced sequence or tuple, one per slot.
struct Elements<'a> {
    tracer: &'a mut Tracer,
    slots: &'a mut [Option<Ty>],
    next: usize,
    record: bool,
    depth: usize,
}

impl<'de> SeqAccess<'de> for Elements<'_> {
    type Error = TraceError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, TraceError> {
        let Some(slot) = self.slots.get_mut(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(Probe {
            tracer: &mut *self.tracer,
            slot,
            record: self.record,
            depth: self.depth,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.slots.len() - self.next)
    }
}

/// The fields of a traced struct (`keys`), or one entry of a traced map
/// (slots: key, value).
struct Entries<'a> {
    tracer: &'a mut Tracer,
    slots: &'a mut [Option<Ty>],
    keys: Option<&'static [&'static str]>,
    next: usize,
    record: bool,
    depth: usize,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = TraceError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceError> {
        match self.keys {
            Some(keys) => match keys.get(self.next) {
                Some(key) => seed.deserialize(Name(key)).map(Some),
                None => Ok(None),
            },
            None if self.next == 0 && self.slots.len() == 2 => {
                let (key, _) = self.slots.split_at_mut(1);
                seed.deserialize(Probe {
                    tracer: &mut *self.tracer,
                    slot: &mut key[0],
                    record: self.record,
                    depth: self.depth,
                })
                .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, TraceError> {
        let index = match self.keys {
            Some(_) => self.next,
            None => 1,
        };
        self.next += 1;
        let slot = self
            .slots
            .get_mut(index)
            .ok_or_else(|| TraceError("a value without its key".into()))?;
        seed.deserialize(Probe {
            tracer: &mut *self.tracer,
            slot,
            record: self.record,
            depth: self.depth,
        })
    }
}

/// A field or variant name, as identifiers are deserialized.
struct Name(&'static str);

impl<'de> Deserializer<'de> for Name {
    type Error = TraceError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The variant the tracer chose, and what its payload asks for.
struct Variant<'a> {
    tracer: &'a mut Tracer,
    name: &'static str,
    payload: &'a mut Option<PayloadTy>,
    record: bool,
    depth: usize,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = TraceError;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self), TraceError> {
        let name = seed.deserialize(Name(self.name))?;
        Ok((name, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_> {
    type Error = TraceError;

    fn unit_variant(self) -> Result<(), TraceError> {
        *self.payload = Some(PayloadTy::Unit);
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, TraceError> {
        let mut inner = None;
        let value = seed.deserialize(Probe {
            tracer: self.tracer,
            slot: &mut inner,
            record: self.record,
            depth: self.depth,
        })?;
        *self.payload = inner.map(PayloadTy::Newtype);
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; len];
        let value = visitor.visit_seq(Elements {
            tracer: self.tracer,
            slots: &mut slots,
            next: 0,
            record: self.record,
            depth: self.depth,
        })?;
        if self.record {
            *self.payload = Some(PayloadTy::Tuple(all_known(slots)?));
        }
        Ok(value)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; fields.len()];
        let value = visitor.visit_map(Entries {
            tracer: self.tracer,
            slots: &mut slots,
            keys: Some(fields),
            next: 0,
            record: self.record,
            depth: self.depth,
        })?;
        if self.record {
            *self.payload = Some(PayloadTy::Struct(
                fields.iter().copied().zip(all_known(slots)?).collect(),
            ));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Date {
        year: i16,
        month: u8,
        zone: Option<Zone>,
        tags: Vec<char>,
        raw: [u8; 2],
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Zone {
        Utc,
        Offset(i8),
        Named { name: String, dst: bool },
        Pair(u16, f32),
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Expr {
        Num(i64),
        Add(Box<Expr>, Box<Expr>),
        Neg(Box<Expr>),
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Loose {
        N(u8),
        S(String),
    }

    /// Accepts numbers from `MIN` only.
    struct Picky<const MIN: u32>;
    impl<'de, const MIN: u32> Deserialize<'de> for Picky<MIN> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let n = u32::deserialize(d)?;
            if n < MIN {
                return Err(serde::de::Error::custom("too small"));
            }
            Ok(Picky)
        }
    }

    fn types_of(traced: Traced) -> ParamTypes {
        let mut types = ParamTypes::default();
        types.param("p", traced);
        types
    }

    #[test]
    fn structs_trace_fields_widths_and_nested_enum_variants() {
        let types = types_of(trace::<Date>());
        assert_eq!(types.get("p"), Some(&ParamType::Typed(Ty::Named("Date"))));
        assert_eq!(
            types.container("Date"),
            Some(&Container::Struct(vec![
                ("year", Ty::Int(IntKind::I16)),
                ("month", Ty::Int(IntKind::U8)),
                ("zone", Ty::Option(Box::new(Ty::Named("Zone")))),
                ("tags", Ty::Seq(Box::new(Ty::Char))),
                ("raw", Ty::Tuple(vec![Ty::Int(IntKind::U8); 2])),
            ]))
        );
        // The nested enum has every variant, though only the struct was traced.
        let Some(Container::Enum(variants)) = types.container("Zone") else {
            panic!("Zone is an enum: {:?}", types.container("Zone"));
        };
        let names: Vec<(&str, u32)> = variants.iter().map(|v| (v.name, v.index)).collect();
        assert_eq!(
            names,
            [("Utc", 0), ("Offset", 1), ("Named", 2), ("Pair", 3)]
        );
        assert_eq!(
            variants[3].payload,
            PayloadTy::Tuple(vec![Ty::Int(IntKind::U16), Ty::Float { single: true }])
        );
    }

    #[test]
    fn recursive_enums_and_primitives_trace() {
        let types = types_of(trace::<Expr>());
        let Some(Container::Enum(variants)) = types.container("Expr") else {
            panic!("Expr is an enum");
        };
        assert_eq!(variants.len(), 3);
        for (ty, expected) in [
            (trace::<u128>(), Ty::Int(IntKind::U128)),
            (trace::<usize>(), Ty::Int(IntKind::U64)),
            (trace::<String>(), Ty::Str),
            (trace::<(bool, ())>(), Ty::Tuple(vec![Ty::Bool, Ty::Unit])),
            (
                trace::<BTreeMap<String, f64>>(),
                Ty::Map(Box::new(Ty::Str), Box::new(Ty::Float { single: false })),
            ),
        ] {
            assert_eq!(ty.ty, ParamType::Typed(expected));
        }
    }

    #[test]
    fn untraceable_types_say_why_and_do_not_panic() {
        for (traced, why) in [
            (trace::<Loose>(), "untagged"),
            (trace::<Picky<10>>(), "refused the tracer's value: too small"),
        ] {
            match traced.ty {
                ParamType::Untraced(message) => assert!(message.contains(why), "{message}"),
                other => panic!("traced: {other:?}"),
            }
        }
        // A type that refuses 0 but takes 1 (a `NonZeroU32`) is traced.
        assert_eq!(trace::<Picky<1>>().ty, ParamType::Typed(Ty::Int(IntKind::U32)));
        assert_eq!(
            trace::<std::num::NonZeroU8>().ty,
            ParamType::Typed(Ty::Int(IntKind::U8))
        );
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum List {
        Cons(u8, Box<List>),
        Nil,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Tree {
        children: Vec<Tree>,
        kinds: BTreeMap<String, Vec<Zone>>,
    }

    #[test]
    fn recursion_through_first_variants_and_sequences_ends() {
        let types = types_of(trace::<List>());
        let Some(Container::Enum(variants)) = types.container("List") else {
            panic!("List is an enum");
        };
        assert_eq!(variants.len(), 2);
        let types = types_of(trace::<Tree>());
        assert!(matches!(types.container("Tree"), Some(Container::Struct(f)) if f.len() == 2));
        // The enum inside a map inside a recursive struct: every variant.
        assert!(matches!(types.container("Zone"), Some(Container::Enum(v)) if v.len() == 4));
    }

    #[test]
    fn values_fit_their_types_only() {
        let types = types_of(trace::<Date>());
        let date = |month: Value, zone: Value| {
            Value::Struct(
                "Date",
                vec![
                    ("year", Value::I64(-3)),
                    ("month", month),
                    ("zone", zone),
                    ("tags", Value::Seq(vec![Value::Char('x')])),
                    ("raw", Value::Tuple(vec![Value::U64(1), Value::U64(2)])),
                ],
            )
        };
        let named = Value::Some(Box::new(Value::StructVariant {
            name: "Zone",
            index: 2,
            variant: "Named",
            fields: vec![("name", Value::Str("CET".into())), ("dst", Value::Bool(true))],
        }));
        let ty = Ty::Named("Date");
        assert!(types.fits(&ty, &date(Value::U64(12), Value::None)));
        assert!(types.fits(&ty, &date(Value::U64(255), named.clone())));
        assert!(!types.fits(&ty, &date(Value::U64(256), Value::None)), "past u8");
        assert!(!types.fits(&ty, &date(Value::I64(-1), Value::None)), "negative u8");
        let unknown = Value::Some(Box::new(Value::UnitVariant {
            name: "Zone",
            index: 9,
            variant: "Mars",
        }));
        assert!(!types.fits(&ty, &date(Value::U64(1), unknown)));
        assert_eq!(
            types.int_at(&ty, &date(Value::U64(1), named.clone()), &[1]),
            Some(IntKind::U8)
        );
        assert_eq!(
            types.int_at(&ty, &date(Value::U64(1), named), &[4, 1]),
            Some(IntKind::U8)
        );
        assert_eq!(
            types.int_at(&ty, &date(Value::U64(1), Value::None), &[0]),
            Some(IntKind::I16)
        );
    }
}
