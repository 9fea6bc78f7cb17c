//! The shapes of a target's parameter types, so that generation makes
//! values of those types only: integer widths and signs, struct fields,
//! every enum variant (carved or not), byte strings, and `Display + FromStr`
//! types as text.
//!
//! `#[carve::target]` registers a function that fills a target's
//! [`ParamTypes`], one [`Traced`] parameter at a time, from
//! [`tracer`](crate::value::tracer), which finds the shapes in the
//! parameters' `Deserialize` implementations. A type that cannot be traced
//! is [`ParamType::Untraced`], and generation falls back to the shape mined
//! from carved calls for that parameter.
//!
//! ```
//! use carve::value::tracer::trace;
//! use carve::value::types::{IntKind, ParamType, ParamTypes, Ty};
//!
//! let mut types = ParamTypes::default();
//! types.param("n", trace::<i16>());
//! assert_eq!(types.get("n"), Some(&ParamType::Typed(Ty::Int(IntKind::I16))));
//! assert!(types.fits(&Ty::Int(IntKind::I16), &carve::value::Value::I64(-3)));
//! ```

use std::collections::{BTreeMap, BTreeSet};

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
    /// A `Display + FromStr`-like type inside another value (an address
    /// in a `Vec`, a field): read from a string that not every text parses
    /// into, named by the type its `Deserialize` makes. Generated as text,
    /// from the texts carved at its position; which texts parse is known
    /// only of the whole parameter ([`ParamTypes::admits`]).
    Text(&'static str),
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

/// Whether a whole argument value deserializes into its parameter's type.
pub type Check = fn(&Value) -> bool;

/// The traced types of a target's parameters, with the named types they use.
#[derive(Debug, Clone, Default)]
pub struct ParamTypes {
    params: Vec<(&'static str, ParamType)>,
    containers: BTreeMap<&'static str, Container>,
    /// Per parameter whose type holds a [`Ty::Text`], whether a value of it
    /// deserializes (its texts parse).
    checks: Vec<(&'static str, Check)>,
}

/// The trace of one parameter's type: its shape and the named types in it.
#[derive(Debug, Clone)]
pub struct Traced {
    pub(crate) ty: ParamType,
    pub(crate) containers: BTreeMap<&'static str, Container>,
    /// Whether a value deserializes: for a type holding a [`Ty::Text`].
    pub(crate) check: Option<Check>,
}

impl Traced {
    /// A type with no named types in it.
    pub fn plain(ty: ParamType) -> Traced {
        Traced {
            ty,
            containers: BTreeMap::new(),
            check: None,
        }
    }

    /// Whether the type holds a text-form value ([`Ty::Text`]) somewhere.
    pub fn holds_text(&self) -> bool {
        let ParamType::Typed(ty) = &self.ty else {
            return false;
        };
        let mut types = ParamTypes::default();
        types.containers.clone_from(&self.containers);
        types.holds_text(ty, &mut BTreeSet::new())
    }

    /// With `check` telling which values deserialize, when the type holds
    /// a text-form value (whose texts may not parse).
    pub fn checked_by(mut self, check: Check) -> Traced {
        if self.holds_text() {
            self.check = Some(check);
        }
        self
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
                if let Some(check) = traced.check {
                    self.checks.push((name, check));
                }
                traced.ty
            }
        };
        self.params.push((name, ty));
    }

    /// Whether `ty` holds a [`Ty::Text`] at any depth.
    fn holds_text(&self, ty: &Ty, seen: &mut BTreeSet<&'static str>) -> bool {
        let payload = |this: &Self, p: &PayloadTy, seen: &mut BTreeSet<&'static str>| match p {
            PayloadTy::Unit => false,
            PayloadTy::Newtype(t) => this.holds_text(t, seen),
            PayloadTy::Tuple(tys) => tys.iter().any(|t| this.holds_text(t, seen)),
            PayloadTy::Struct(fields) => fields.iter().any(|(_, t)| this.holds_text(t, seen)),
        };
        match ty {
            Ty::Text(_) => true,
            Ty::Option(t) | Ty::Seq(t) => self.holds_text(t, seen),
            Ty::Map(k, v) => self.holds_text(k, seen) || self.holds_text(v, seen),
            Ty::Tuple(tys) => tys.iter().any(|t| self.holds_text(t, seen)),
            Ty::Named(n) if seen.insert(n) => match self.container(n) {
                Some(Container::Newtype(t)) => self.holds_text(t, seen),
                Some(Container::TupleStruct(tys)) => tys.iter().any(|t| self.holds_text(t, seen)),
                Some(Container::Struct(fields)) => fields.iter().any(|(_, t)| self.holds_text(t, seen)),
                Some(Container::Enum(variants)) => variants.iter().any(|v| payload(self, &v.payload, seen)),
                Some(Container::UnitStruct) | None => false,
            },
            _ => false,
        }
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

    /// The simplest value of `ty`: `false`, zero, `'a'`, empty, `None`, and
    /// of an enum its lowest variant, where variants that hold the enum
    /// itself come last, so a recursive enum's simplest value is a leaf.
    /// `None` for a type with no finite value. Shrinking moves values toward
    /// it; generation seeds a parameter nothing was carved for with it.
    pub fn simplest(&self, ty: &Ty) -> Option<Value> {
        self.simplest_within(ty, 0)
    }

    /// Variant `v` of the enum `name`, holding the simplest value of its
    /// payload ([`ParamTypes::simplest`]).
    pub fn simplest_variant(&self, name: &'static str, v: &VariantTy) -> Option<Value> {
        self.variant_within(name, v, 0)
    }

    fn simplest_within(&self, ty: &Ty, depth: usize) -> Option<Value> {
        // Recursive types end in an option, a sequence or a leaf variant
        // long before this; deeper means no finite value was found.
        if depth > 32 {
            return None;
        }
        let depth = depth + 1;
        let all = |tys: &[Ty]| -> Option<Vec<Value>> {
            tys.iter().map(|t| self.simplest_within(t, depth)).collect()
        };
        Some(match ty {
            Ty::Unit => Value::Unit,
            Ty::Bool => Value::Bool(false),
            Ty::Int(IntKind::I128) => Value::I128(0),
            Ty::Int(IntKind::U128) => Value::U128(0),
            Ty::Int(kind) if kind.signed() => Value::I64(0),
            Ty::Int(_) => Value::U64(0),
            Ty::Float { single: true } => Value::F32(0.0),
            Ty::Float { single: false } => Value::F64(0.0),
            Ty::Char => Value::Char('a'),
            // Which texts parse is not known: the empty one stands for it
            // (what does not parse is not run).
            Ty::Str | Ty::Text(_) => Value::Str(String::new()),
            Ty::Bytes(len) => Value::Bytes(vec![0; len.unwrap_or(0)]),
            Ty::Option(_) => Value::None,
            Ty::Seq(_) => Value::Seq(Vec::new()),
            Ty::Map(..) => Value::Map(Vec::new()),
            Ty::Tuple(tys) => Value::Tuple(all(tys)?),
            Ty::Named(name) => match self.container(name)? {
                Container::UnitStruct => Value::UnitStruct(name),
                Container::Newtype(t) => {
                    Value::NewtypeStruct(name, Box::new(self.simplest_within(t, depth)?))
                }
                Container::TupleStruct(tys) => Value::TupleStruct(name, all(tys)?),
                Container::Struct(fields) => Value::Struct(name, self.fields_within(fields, depth)?),
                Container::Enum(variants) => {
                    let mut order: Vec<&VariantTy> = variants.iter().collect();
                    order.sort_by_key(|v| (self.holds(&v.payload, name), v.index));
                    order
                        .into_iter()
                        .find_map(|v| self.variant_within(name, v, depth))?
                }
            },
        })
    }

    fn variant_within(&self, name: &'static str, v: &VariantTy, depth: usize) -> Option<Value> {
        let (index, variant) = (v.index, v.name);
        Some(match &v.payload {
            PayloadTy::Unit => Value::UnitVariant {
                name,
                index,
                variant,
            },
            PayloadTy::Newtype(t) => Value::NewtypeVariant {
                name,
                index,
                variant,
                value: Box::new(self.simplest_within(t, depth)?),
            },
            PayloadTy::Tuple(tys) => Value::TupleVariant {
                name,
                index,
                variant,
                fields: tys
                    .iter()
                    .map(|t| self.simplest_within(t, depth))
                    .collect::<Option<_>>()?,
            },
            PayloadTy::Struct(fields) => Value::StructVariant {
                name,
                index,
                variant,
                fields: self.fields_within(fields, depth)?,
            },
        })
    }

    fn fields_within(
        &self,
        fields: &[(&'static str, Ty)],
        depth: usize,
    ) -> Option<Vec<(&'static str, Value)>> {
        fields
            .iter()
            .map(|(n, t)| Some((*n, self.simplest_within(t, depth)?)))
            .collect()
    }

    /// Whether `payload` holds a value of the named type `name`, at any
    /// depth (other than behind an option, a sequence or a map, which are
    /// empty at their simplest).
    fn holds(&self, payload: &PayloadTy, name: &str) -> bool {
        let mut seen = BTreeSet::new();
        match payload {
            PayloadTy::Unit => false,
            PayloadTy::Newtype(t) => self.ty_holds(t, name, &mut seen),
            PayloadTy::Tuple(tys) => tys.iter().any(|t| self.ty_holds(t, name, &mut seen)),
            PayloadTy::Struct(fields) => fields.iter().any(|(_, t)| self.ty_holds(t, name, &mut seen)),
        }
    }

    fn ty_holds(&self, ty: &Ty, name: &str, seen: &mut BTreeSet<&'static str>) -> bool {
        match ty {
            Ty::Tuple(tys) => tys.iter().any(|t| self.ty_holds(t, name, seen)),
            Ty::Named(n) if *n == name => true,
            Ty::Named(n) if seen.insert(n) => match self.container(n) {
                Some(Container::Newtype(t)) => self.ty_holds(t, name, seen),
                Some(Container::TupleStruct(tys)) => tys.iter().any(|t| self.ty_holds(t, name, seen)),
                Some(Container::Struct(fields)) => fields.iter().any(|(_, t)| self.ty_holds(t, name, seen)),
                // An enum holds `name` only if each of its variants does;
                // one leaf is enough to end there.
                Some(Container::Enum(variants)) => {
                    !variants.is_empty()
                        && variants.iter().all(|v| match &v.payload {
                            PayloadTy::Unit => false,
                            PayloadTy::Newtype(t) => self.ty_holds(t, name, seen),
                            PayloadTy::Tuple(tys) => tys.iter().any(|t| self.ty_holds(t, name, seen)),
                            PayloadTy::Struct(fields) => {
                                fields.iter().any(|(_, t)| self.ty_holds(t, name, seen))
                            }
                        })
                }
                Some(Container::UnitStruct) | None => false,
            },
            _ => false,
        }
    }

    /// Whether `args` (`(name: value, …)`) are arguments of these
    /// parameters: each traced one fits its type (and, when it holds
    /// texts, deserializes: they parse), each text one parses.
    /// Generation makes no call with other arguments: they would only fail
    /// to deserialize.
    pub fn admits(&self, args: &Value) -> bool {
        let Value::Struct(_, fields) = args else {
            return true;
        };
        let parses = |name: &str, value: &Value| {
            self.checks
                .iter()
                .filter(|(n, _)| *n == name)
                .all(|(_, check)| check(value))
        };
        fields.iter().all(|(name, value)| match (self.get(name), value) {
            (Some(ParamType::Typed(ty)), value) => self.fits(ty, value) && parses(name, value),
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
            (Ty::Char, Value::Char(_)) | (Ty::Str | Ty::Text(_), Value::Str(_)) => true,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tracer::trace;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Circle(u8),
        Dot,
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    enum Tree {
        Node(Box<Tree>, Box<Tree>),
        Leaf(u8),
    }

    fn simplest<T: serde::de::DeserializeOwned>() -> Option<Value> {
        let mut types = ParamTypes::default();
        types.param("x", trace::<T>());
        let Some(ParamType::Typed(ty)) = types.get("x") else {
            panic!("not traced: {:?}", types.get("x"))
        };
        types.simplest(&ty.clone())
    }

    #[test]
    fn the_simplest_value_is_the_lowest_variant_and_a_recursive_enum_s_leaf() {
        // The lowest variant, even when a later one holds less.
        assert_eq!(
            simplest::<Shape>(),
            Some(Value::NewtypeVariant {
                name: "Shape",
                index: 0,
                variant: "Circle",
                value: Box::new(Value::U64(0)),
            })
        );
        // Variants that hold the enum itself come last: the leaf.
        assert_eq!(
            simplest::<Tree>(),
            Some(Value::NewtypeVariant {
                name: "Tree",
                index: 1,
                variant: "Leaf",
                value: Box::new(Value::U64(0)),
            })
        );
        assert_eq!(simplest::<(bool, String, Vec<u8>)>(), Some(Value::Tuple(vec![
            Value::Bool(false),
            Value::Str(String::new()),
            Value::Seq(Vec::new()),
        ])));
    }
}
