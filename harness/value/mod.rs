//! A lossless, owned copy of one value in serde's data model.
//!
//! Recording must be cheap, so a carved argument is not turned into RON text
//! while the system test runs: it is captured into a [`Value`] (a walk of its
//! `Serialize` impl that keeps struct, field and variant names), and written as
//! RON later, once per distinct call. Because [`Value`] serializes back through
//! the same serde calls it was captured from, the RON text is the same as if the
//! original value had been written directly.
//!
//! ```
//! use carve::value::Value;
//!
//! let v = Value::capture(&Some("a+b")).unwrap();
//! assert_eq!(v, Value::Some(Box::new(Value::Str("a+b".into()))));
//! assert_eq!(ron::to_string(&v).unwrap(), r#"Some("a+b")"#);
//! ```

pub mod arrays;
mod de;
mod lend;
pub mod depth;
pub mod form;
pub mod format_spec;
pub mod key;
pub mod leak;
pub mod text;
pub mod tracer;
pub mod types;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::ser::{self, Serialize, SerializeMap as _, SerializeStruct as _, SerializeTuple as _};

/// The newtype name ron's deserializer answers with the borrowed source of
/// the next value (`ron::value::raw::RAW_VALUE_TOKEN`, private to ron; a
/// test in `carving::fragment` checks it against the name ron's public
/// `RawValue` asks for, and if ron changed it, every carve file would also
/// fail to parse, loudly, in carve's own tests). A [`Value`] answers it with
/// its RON text, so that types read from RON text read from values too.
pub(crate) const RAW_VALUE_TOKEN: &str = "$ron::private::RawValue";

/// One value of serde's data model, with the names its `Serialize` impl gave.
///
/// Floats compare and hash by their bits, so `Value` is `Eq + Hash` and can be
/// used to find identical calls.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // variants mirror serde's data model one to one
pub enum Value {
    Unit,
    Bool(bool),
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<Value>),
    UnitStruct(&'static str),
    UnitVariant {
        name: &'static str,
        index: u32,
        variant: &'static str,
    },
    NewtypeStruct(&'static str, Box<Value>),
    NewtypeVariant {
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: Box<Value>,
    },
    Seq(Vec<Value>),
    Tuple(Vec<Value>),
    TupleStruct(&'static str, Vec<Value>),
    TupleVariant {
        name: &'static str,
        index: u32,
        variant: &'static str,
        fields: Vec<Value>,
    },
    Map(Vec<(Value, Value)>),
    Struct(&'static str, Vec<(&'static str, Value)>),
    StructVariant {
        name: &'static str,
        index: u32,
        variant: &'static str,
        fields: Vec<(&'static str, Value)>,
    },
}

impl Value {
    /// Captures `value` through its `Serialize` impl.
    ///
    /// The entries of a hash map and the elements of a hash set, at any
    /// depth, are sorted: their iteration order changes from run to run, and
    /// a carved call must be the same text on every run. Other collections
    /// keep their order.
    ///
    /// Fails only when the impl itself reports an error (a custom
    /// `serialize_with` that refuses, for instance).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use carve::value::Value;
    ///
    /// let prices: HashMap<&str, u32> = [("pear", 3), ("apple", 2), ("fig", 5)].into();
    /// let text = Value::capture(&prices).unwrap().to_compact_ron();
    /// assert_eq!(text, r#"{"apple":2,"fig":5,"pear":3}"#);
    /// ```
    pub fn capture<T: Serialize + ?Sized>(value: &T) -> Result<Value, CaptureError> {
        value.serialize(Capture)
    }

    /// The value as compact, single-line RON (used in test descriptions).
    pub fn to_compact_ron(&self) -> String {
        depth::options()
            .to_string(self)
            .unwrap_or_else(|e| format!("<unprintable: {e}>"))
    }

    /// The values directly inside this one, in order (a map's: key, value,
    /// key, …); none for a scalar or an empty container.
    ///
    /// ```
    /// use carve::value::Value;
    ///
    /// let pair = Value::Tuple(vec![Value::U64(1), Value::Str("a".into())]);
    /// assert_eq!(pair.children(), [&Value::U64(1), &Value::Str("a".into())]);
    /// assert!(Value::Seq(vec![]).children().is_empty());
    /// ```
    pub fn children(&self) -> Vec<&Value> {
        self.each_child().collect()
    }

    /// The values directly inside this one, in the order of
    /// [`Value::children`], without collecting them.
    ///
    /// ```
    /// use carve::value::Value;
    ///
    /// let entry = Value::Map(vec![(Value::U64(1), Value::Bool(true))]);
    /// assert!(entry.each_child().eq([&Value::U64(1), &Value::Bool(true)]));
    /// ```
    pub fn each_child(&self) -> impl Iterator<Item = &Value> + '_ {
        (0..).map_while(|i| self.child(i))
    }

    /// Child `i` of [`Value::children`], without listing them.
    ///
    /// ```
    /// use carve::value::Value;
    ///
    /// let pair = Value::Tuple(vec![Value::U64(1), Value::U64(2)]);
    /// assert_eq!(pair.child(1), Some(&Value::U64(2)));
    /// assert_eq!(pair.child(2), None);
    /// ```
    pub fn child(&self, i: usize) -> Option<&Value> {
        match self {
            Value::Some(v) | Value::NewtypeStruct(_, v) | Value::NewtypeVariant { value: v, .. } => {
                (i == 0).then_some(&**v)
            }
            Value::Seq(items)
            | Value::Tuple(items)
            | Value::TupleStruct(_, items)
            | Value::TupleVariant { fields: items, .. } => items.get(i),
            Value::Struct(_, fields) | Value::StructVariant { fields, .. } => fields.get(i).map(|(_, v)| v),
            Value::Map(entries) => entries.get(i / 2).map(|(k, v)| [k, v][i % 2]),
            _ => None,
        }
    }

    /// The values directly inside this one, in the order of
    /// [`Value::children`], to change them.
    ///
    /// ```
    /// use carve::value::Value;
    ///
    /// let mut pair = Value::Tuple(vec![Value::U64(1), Value::U64(2)]);
    /// for child in pair.children_mut() {
    ///     *child = Value::U64(0);
    /// }
    /// assert_eq!(pair, Value::Tuple(vec![Value::U64(0), Value::U64(0)]));
    /// ```
    pub fn children_mut(&mut self) -> Vec<&mut Value> {
        match self {
            Value::Some(v) | Value::NewtypeStruct(_, v) | Value::NewtypeVariant { value: v, .. } => {
                vec![&mut **v]
            }
            Value::Seq(items)
            | Value::Tuple(items)
            | Value::TupleStruct(_, items)
            | Value::TupleVariant { fields: items, .. } => items.iter_mut().collect(),
            Value::Struct(_, fields) | Value::StructVariant { fields, .. } => {
                fields.iter_mut().map(|(_, v)| v).collect()
            }
            Value::Map(entries) => entries.iter_mut().flat_map(|(k, v)| [k, v]).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether this value holds other values: a container, even an empty
    /// one, as opposed to a scalar.
    pub fn is_container(&self) -> bool {
        matches!(
            self,
            Value::Some(_)
                | Value::NewtypeStruct(..)
                | Value::NewtypeVariant { .. }
                | Value::Seq(_)
                | Value::Tuple(_)
                | Value::TupleStruct(..)
                | Value::TupleVariant { .. }
                | Value::Map(_)
                | Value::Struct(..)
                | Value::StructVariant { .. }
        )
    }

    pub(crate) fn discriminant(&self) -> u8 {
        match self {
            Value::Unit => 0,
            Value::Bool(_) => 1,
            Value::I64(_) => 2,
            Value::U64(_) => 3,
            Value::I128(_) => 4,
            Value::U128(_) => 5,
            Value::F32(_) => 6,
            Value::F64(_) => 7,
            Value::Char(_) => 8,
            Value::Str(_) => 9,
            Value::Bytes(_) => 10,
            Value::None => 11,
            Value::Some(_) => 12,
            Value::UnitStruct(_) => 13,
            Value::UnitVariant { .. } => 14,
            Value::NewtypeStruct(..) => 15,
            Value::NewtypeVariant { .. } => 16,
            Value::Seq(_) => 17,
            Value::Tuple(_) => 18,
            Value::TupleStruct(..) => 19,
            Value::TupleVariant { .. } => 20,
            Value::Map(_) => 21,
            Value::Struct(..) => 22,
            Value::StructVariant { .. } => 23,
        }
    }
}

/// Equal exactly when [`Ord`] says so: floats by their bits (so `NaN`
/// equals itself and `-0.0` is not `0.0`), names as text, a variant's
/// index not looked at. Compared field by field rather than through
/// [`Ord`], which compares every name's text: the recorder compares every
/// repeated call with the one it kept, whose names are the same
/// `&'static str`s, equal by address.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        fn name(a: &str, b: &str) -> bool {
            std::ptr::eq(a, b) || a == b
        }
        fn fields(a: &[(&str, Value)], b: &[(&str, Value)]) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|((n, a), (m, b))| name(n, m) && a == b)
        }
        match (self, other) {
            (Unit, Unit) | (None, None) => true,
            (Bool(a), Bool(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (I128(a), I128(b)) => a == b,
            (U128(a), U128(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Some(a), Some(b)) => a == b,
            (UnitStruct(a), UnitStruct(b)) => name(a, b),
            (
                UnitVariant { name: n, variant: v, .. },
                UnitVariant { name: m, variant: w, .. },
            ) => name(n, m) && name(v, w),
            (NewtypeStruct(n, a), NewtypeStruct(m, b)) => name(n, m) && a == b,
            (
                NewtypeVariant { name: n, variant: v, value: a, .. },
                NewtypeVariant { name: m, variant: w, value: b, .. },
            ) => name(n, m) && name(v, w) && a == b,
            (Seq(a), Seq(b)) | (Tuple(a), Tuple(b)) => a == b,
            (TupleStruct(n, a), TupleStruct(m, b)) => name(n, m) && a == b,
            (
                TupleVariant { name: n, variant: v, fields: a, .. },
                TupleVariant { name: m, variant: w, fields: b, .. },
            ) => name(n, m) && name(v, w) && a == b,
            (Map(a), Map(b)) => a == b,
            (Struct(n, a), Struct(m, b)) => name(n, m) && fields(a, b),
            (
                StructVariant { name: n, variant: v, fields: a, .. },
                StructVariant { name: m, variant: w, fields: b, .. },
            ) => name(n, m) && name(v, w) && fields(a, b),
            _ => false,
        }
    }
}

impl Eq for Value {}

/// A total order consistent with `Eq`: by kind, then by content (names as
/// text, floats by [`f64::total_cmp`]). It is what makes a hash map's entries
/// and a hash set's elements canonical when carved (see [`Value::capture`]).
impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        use Value::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a.cmp(b),
            (I64(a), I64(b)) => a.cmp(b),
            (U64(a), U64(b)) => a.cmp(b),
            (I128(a), I128(b)) => a.cmp(b),
            (U128(a), U128(b)) => a.cmp(b),
            (F32(a), F32(b)) => a.total_cmp(b),
            (F64(a), F64(b)) => a.total_cmp(b),
            (Char(a), Char(b)) => a.cmp(b),
            (Str(a), Str(b)) => a.cmp(b),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            (Some(a), Some(b)) => a.cmp(b),
            (UnitStruct(a), UnitStruct(b)) => a.cmp(b),
            (
                UnitVariant {
                    name: n1,
                    variant: v1,
                    ..
                },
                UnitVariant {
                    name: n2,
                    variant: v2,
                    ..
                },
            ) => (n1, v1).cmp(&(n2, v2)),
            (NewtypeStruct(n1, a), NewtypeStruct(n2, b)) => (n1, a).cmp(&(n2, b)),
            (
                NewtypeVariant {
                    name: n1,
                    variant: v1,
                    value: a,
                    ..
                },
                NewtypeVariant {
                    name: n2,
                    variant: v2,
                    value: b,
                    ..
                },
            ) => (n1, v1, a).cmp(&(n2, v2, b)),
            (Seq(a), Seq(b)) | (Tuple(a), Tuple(b)) => a.cmp(b),
            (TupleStruct(n1, a), TupleStruct(n2, b)) => (n1, a).cmp(&(n2, b)),
            (
                TupleVariant {
                    name: n1,
                    variant: v1,
                    fields: a,
                    ..
                },
                TupleVariant {
                    name: n2,
                    variant: v2,
                    fields: b,
                    ..
                },
            ) => (n1, v1, a).cmp(&(n2, v2, b)),
            (Map(a), Map(b)) => a.cmp(b),
            (Struct(n1, a), Struct(n2, b)) => (n1, a).cmp(&(n2, b)),
            (
                StructVariant {
                    name: n1,
                    variant: v1,
                    fields: a,
                    ..
                },
                StructVariant {
                    name: n2,
                    variant: v2,
                    fields: b,
                    ..
                },
            ) => (n1, v1, a).cmp(&(n2, v2, b)),
            // Different kinds, or two of `Unit` or `None`.
            _ => self.discriminant().cmp(&other.discriminant()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        use Value::*;
        state.write_u8(self.discriminant());
        match self {
            Unit | None => {}
            Bool(v) => v.hash(state),
            I64(v) => v.hash(state),
            U64(v) => v.hash(state),
            I128(v) => v.hash(state),
            U128(v) => v.hash(state),
            F32(v) => v.to_bits().hash(state),
            F64(v) => v.to_bits().hash(state),
            Char(v) => v.hash(state),
            Str(v) => v.hash(state),
            Bytes(v) => v.hash(state),
            Some(v) => v.hash(state),
            UnitStruct(n) => n.hash(state),
            UnitVariant { name, variant, .. } => (name, variant).hash(state),
            NewtypeStruct(n, v) => (n, v).hash(state),
            NewtypeVariant {
                name,
                variant,
                value,
                ..
            } => (name, variant, value).hash(state),
            Seq(v) | Tuple(v) => v.hash(state),
            TupleStruct(n, v) => (n, v).hash(state),
            TupleVariant {
                name,
                variant,
                fields,
                ..
            } => (name, variant, fields).hash(state),
            Map(v) => v.hash(state),
            Struct(n, v) => (n, v).hash(state),
            StructVariant {
                name,
                variant,
                fields,
                ..
            } => (name, variant, fields).hash(state),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{
            SerializeSeq, SerializeStructVariant, SerializeTupleStruct, SerializeTupleVariant,
        };
        match self {
            Value::Unit => s.serialize_unit(),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::U64(v) => s.serialize_u64(*v),
            Value::I128(v) => s.serialize_i128(*v),
            Value::U128(v) => s.serialize_u128(*v),
            Value::F32(v) => s.serialize_f32(*v),
            Value::F64(v) => s.serialize_f64(*v),
            Value::Char(v) => s.serialize_char(*v),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(v) => s.serialize_bytes(v),
            Value::None => s.serialize_none(),
            Value::Some(v) => s.serialize_some(v),
            Value::UnitStruct(n) => s.serialize_unit_struct(n),
            Value::UnitVariant {
                name,
                index,
                variant,
            } => s.serialize_unit_variant(name, *index, variant),
            Value::NewtypeStruct(n, v) => s.serialize_newtype_struct(n, v),
            Value::NewtypeVariant {
                name,
                index,
                variant,
                value,
            } => s.serialize_newtype_variant(name, *index, variant, value),
            Value::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Tuple(items) => {
                let mut tup = s.serialize_tuple(items.len())?;
                for item in items {
                    tup.serialize_element(item)?;
                }
                tup.end()
            }
            Value::TupleStruct(n, items) => {
                let mut tup = s.serialize_tuple_struct(n, items.len())?;
                for item in items {
                    tup.serialize_field(item)?;
                }
                tup.end()
            }
            Value::TupleVariant {
                name,
                index,
                variant,
                fields,
            } => {
                let mut tup = s.serialize_tuple_variant(name, *index, variant, fields.len())?;
                for item in fields {
                    tup.serialize_field(item)?;
                }
                tup.end()
            }
            Value::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Value::Struct(n, fields) => {
                let mut st = s.serialize_struct(n, fields.len())?;
                for (k, v) in fields {
                    st.serialize_field(k, v)?;
                }
                st.end()
            }
            Value::StructVariant {
                name,
                index,
                variant,
                fields,
            } => {
                let mut st = s.serialize_struct_variant(name, *index, variant, fields.len())?;
                for (k, v) in fields {
                    st.serialize_field(k, v)?;
                }
                st.end()
            }
        }
    }
}

/// A `Serialize` impl refused to serialize a value being carved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError(String);

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "value could not be captured: {}", self.0)
    }
}

impl std::error::Error for CaptureError {}

impl ser::Error for CaptureError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CaptureError(msg.to_string())
    }
}

/// The serializer that builds a [`Value`].
struct Capture;

/// Whether iterating an `I` yields a hash table's order, which changes from
/// run to run (std's `HashMap`, `HashSet` and their iterators, hashbrown's,
/// and `…HashMap`/`…HashSet` types of other crates). Only the outermost
/// type counts: a `Vec` of hash maps keeps its order.
pub(crate) fn in_hash_order<I>() -> bool {
    let name = std::any::type_name::<I>();
    let outer = name.trim_start_matches('&').trim_start_matches("mut ");
    let outer = outer.split('<').next().unwrap_or(outer);
    outer.contains("::hash::map::")
        || outer.contains("::hash::set::")
        || outer.starts_with("hashbrown::")
        || outer.ends_with("HashMap")
        || outer.ends_with("HashSet")
}

/// Collects the parts of a compound value; `kind` says which [`Value`] to build.
struct Compound {
    kind: CompoundKind,
    items: Vec<Value>,
    fields: Vec<(&'static str, Value)>,
    entries: Vec<(Value, Value)>,
    pending_key: Option<Value>,
}

enum CompoundKind {
    Seq,
    Tuple,
    TupleStruct(&'static str),
    TupleVariant(&'static str, u32, &'static str),
    Map,
    Struct(&'static str),
    StructVariant(&'static str, u32, &'static str),
}

impl Compound {
    fn new(kind: CompoundKind, len: usize) -> Self {
        Compound {
            kind,
            items: Vec::with_capacity(len),
            fields: Vec::new(),
            entries: Vec::new(),
            pending_key: None,
        }
    }

    fn finish(self) -> Value {
        match self.kind {
            CompoundKind::Seq => Value::Seq(self.items),
            CompoundKind::Tuple => Value::Tuple(self.items),
            CompoundKind::TupleStruct(n) => Value::TupleStruct(n, self.items),
            CompoundKind::TupleVariant(name, index, variant) => Value::TupleVariant {
                name,
                index,
                variant,
                fields: self.items,
            },
            CompoundKind::Map => Value::Map(self.entries),
            CompoundKind::Struct(n) => Value::Struct(n, self.fields),
            CompoundKind::StructVariant(name, index, variant) => Value::StructVariant {
                name,
                index,
                variant,
                fields: self.fields,
            },
        }
    }
}

impl ser::Serializer for Capture {
    type Ok = Value;
    type Error = CaptureError;
    type SerializeSeq = Compound;
    type SerializeTuple = Compound;
    type SerializeTupleStruct = Compound;
    type SerializeTupleVariant = Compound;
    type SerializeMap = Compound;
    type SerializeStruct = Compound;
    type SerializeStructVariant = Compound;

    fn serialize_bool(self, v: bool) -> Result<Value, CaptureError> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, CaptureError> {
        Ok(Value::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, CaptureError> {
        Ok(Value::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, CaptureError> {
        Ok(Value::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, CaptureError> {
        Ok(Value::I64(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, CaptureError> {
        Ok(Value::I128(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, CaptureError> {
        Ok(Value::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, CaptureError> {
        Ok(Value::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, CaptureError> {
        Ok(Value::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, CaptureError> {
        Ok(Value::U64(v))
    }
    fn serialize_u128(self, v: u128) -> Result<Value, CaptureError> {
        Ok(Value::U128(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, CaptureError> {
        Ok(Value::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, CaptureError> {
        Ok(Value::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, CaptureError> {
        Ok(Value::Char(v))
    }
    fn serialize_str(self, v: &str) -> Result<Value, CaptureError> {
        Ok(Value::Str(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, CaptureError> {
        Ok(Value::Bytes(v.to_owned()))
    }
    fn serialize_none(self) -> Result<Value, CaptureError> {
        Ok(Value::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, CaptureError> {
        Ok(Value::Some(Box::new(value.serialize(Capture)?)))
    }
    fn serialize_unit(self) -> Result<Value, CaptureError> {
        Ok(Value::Unit)
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Value, CaptureError> {
        Ok(Value::UnitStruct(name))
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<Value, CaptureError> {
        Ok(Value::UnitVariant {
            name,
            index,
            variant,
        })
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value, CaptureError> {
        Ok(Value::NewtypeStruct(
            name,
            Box::new(value.serialize(Capture)?),
        ))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, CaptureError> {
        let value = Box::new(value.serialize(Capture)?);
        Ok(Value::NewtypeVariant {
            name,
            index,
            variant,
            value,
        })
    }
    // serde serializes every std collection through these two; overriding
    // them is how the capture learns which collection it is walking.
    fn collect_seq<I>(self, iter: I) -> Result<Value, CaptureError>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        let mut items = iter
            .into_iter()
            .map(|item| item.serialize(Capture))
            .collect::<Result<Vec<_>, _>>()?;
        if in_hash_order::<I>() {
            items.sort();
        }
        Ok(Value::Seq(items))
    }
    fn collect_map<K, V, I>(self, iter: I) -> Result<Value, CaptureError>
    where
        K: Serialize,
        V: Serialize,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut entries = iter
            .into_iter()
            .map(|(k, v)| Ok((k.serialize(Capture)?, v.serialize(Capture)?)))
            .collect::<Result<Vec<_>, CaptureError>>()?;
        if in_hash_order::<I>() {
            entries.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Ok(Value::Map(entries))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound, CaptureError> {
        Ok(Compound::new(CompoundKind::Seq, len.unwrap_or(0)))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound, CaptureError> {
        Ok(Compound::new(CompoundKind::Tuple, len))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Compound, CaptureError> {
        Ok(Compound::new(CompoundKind::TupleStruct(name), len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound, CaptureError> {
        Ok(Compound::new(
            CompoundKind::TupleVariant(name, index, variant),
            len,
        ))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound, CaptureError> {
        Ok(Compound::new(CompoundKind::Map, 0))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound, CaptureError> {
        let mut c = Compound::new(CompoundKind::Struct(name), 0);
        c.fields.reserve(len);
        Ok(c)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound, CaptureError> {
        let mut c = Compound::new(CompoundKind::StructVariant(name, index, variant), 0);
        c.fields.reserve(len);
        Ok(c)
    }
}

/// The four serde traits of positional compounds differ only in names.
macro_rules! positional {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound {
            type Ok = Value;
            type Error = CaptureError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CaptureError> {
                self.items.push(value.serialize(Capture)?);
                Ok(())
            }
            fn end(self) -> Result<Value, CaptureError> {
                Ok(self.finish())
            }
        }
    )*};
}

positional!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound {
    type Ok = Value;
    type Error = CaptureError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), CaptureError> {
        self.pending_key = Some(key.serialize(Capture)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CaptureError> {
        let key = self
            .pending_key
            .take()
            .ok_or_else(|| CaptureError("map value serialized before its key".into()))?;
        self.entries.push((key, value.serialize(Capture)?));
        Ok(())
    }
    fn end(self) -> Result<Value, CaptureError> {
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for Compound {
    type Ok = Value;
    type Error = CaptureError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), CaptureError> {
        self.fields.push((key, value.serialize(Capture)?));
        Ok(())
    }
    fn end(self) -> Result<Value, CaptureError> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for Compound {
    type Ok = Value;
    type Error = CaptureError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), CaptureError> {
        self.fields.push((key, value.serialize(Capture)?));
        Ok(())
    }
    fn end(self) -> Result<Value, CaptureError> {
        Ok(self.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Account {
        owner: String,
        balance: u64,
        tags: Vec<char>,
        limits: BTreeMap<String, f32>,
        kind: Kind,
    }

    #[derive(Serialize)]
    enum Kind {
        Savings { rate: f64 },
    }

    #[test]
    fn round_trips_to_the_same_ron_as_direct_serialization() {
        let account = Account {
            owner: "ada".into(),
            balance: 7,
            tags: vec!['a', '%'],
            limits: [("daily".to_string(), 0.1f32)].into_iter().collect(),
            kind: Kind::Savings { rate: 1.5 },
        };
        let direct = ron::ser::to_string_pretty(&account, Default::default()).unwrap();
        let via_value =
            ron::ser::to_string_pretty(&Value::capture(&account).unwrap(), Default::default())
                .unwrap();
        assert_eq!(direct, via_value);
    }

    /// byteorder's `read_u128_into(src, dst: &mut [u128])`: generation
    /// stopped with "u128 is not supported" before ron's `integer128`.
    #[test]
    fn integers_of_128_bits_are_written_and_read_back() {
        let wide = (u128::MAX, i128::MIN, vec![1u128 << 100]);
        let text = crate::value::text::to_ron(&Value::capture(&wide).unwrap()).unwrap();
        assert!(text.contains(&u128::MAX.to_string()), "{text}");
        assert_eq!(ron::from_str::<(u128, i128, Vec<u128>)>(&text).unwrap(), wide);
    }

    #[test]
    fn equal_values_hash_equal_and_floats_compare_by_bits() {
        use std::collections::hash_map::DefaultHasher;
        let h = |v: &Value| {
            let mut s = DefaultHasher::new();
            v.hash(&mut s);
            s.finish()
        };
        let a = Value::capture(&(1u8, "x", f64::NAN)).unwrap();
        let b = Value::capture(&(1u8, "x", f64::NAN)).unwrap();
        assert_eq!(a, b);
        assert_eq!(h(&a), h(&b));
        assert_ne!(a, Value::capture(&(1u8, "y", f64::NAN)).unwrap());
    }

    #[derive(Serialize)]
    struct Basket {
        items: std::collections::HashSet<u32>,
        prices: std::collections::HashMap<String, Vec<u32>>,
        nested: Vec<std::collections::HashSet<char>>,
        order: Vec<u32>,
    }

    fn basket(keys: impl Iterator<Item = u32> + Clone) -> Basket {
        Basket {
            items: keys.clone().collect(),
            prices: keys.clone().map(|k| (format!("k{k}"), vec![k, 0])).collect(),
            nested: vec![keys.clone().map(|k| char::from(b'a' + k as u8)).collect()],
            order: keys.collect(),
        }
    }

    /// Hash tables iterate in a different order in each instance (each gets
    /// its own random keys): the captures are the same all the same, sorted,
    /// while a `Vec` keeps its order.
    #[test]
    fn hash_maps_and_sets_are_captured_sorted_at_any_depth() {
        let forward = Value::capture(&basket(0..20)).unwrap();
        let backward = Value::capture(&basket((0..20).rev())).unwrap();
        let strip_order = |v: &Value| match v {
            Value::Struct(_, fields) => fields[..3].to_vec(),
            _ => unreachable!(),
        };
        assert_eq!(strip_order(&forward), strip_order(&backward));
        let text = forward.to_compact_ron();
        assert!(text.starts_with("(items:[0,1,2,3,"), "{text}");
        assert!(text.contains("prices:{\"k0\":[0,0],\"k1\":[1,0],\"k10\":"), "{text}");
        assert!(text.contains("nested:[['a','b','c',"), "{text}");
        let backward = backward.to_compact_ron();
        assert!(backward.ends_with("order:[19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0])"), "{backward}");
    }

    #[test]
    fn the_order_of_values_is_total_and_agrees_with_eq() {
        let values = [
            Value::capture(&1.5f64).unwrap(),
            Value::capture(&f64::NAN).unwrap(),
            Value::capture(&-0.0f64).unwrap(),
            Value::capture(&0.0f64).unwrap(),
            Value::capture(&"b").unwrap(),
            Value::capture(&Some(2u8)).unwrap(),
            Value::capture(&None::<u8>).unwrap(),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(a.cmp(b) == Ordering::Equal, a == b, "{a:?} {b:?}");
                assert_eq!(a.cmp(b), b.cmp(a).reverse());
            }
        }
    }

    #[test]
    fn only_the_outermost_collection_decides() {
        use std::collections::{BTreeSet, HashMap, HashSet};
        assert!(in_hash_order::<&HashMap<u8, u8>>());
        assert!(in_hash_order::<&HashSet<u8>>());
        assert!(in_hash_order::<std::collections::hash_set::Iter<'_, u8>>());
        assert!(!in_hash_order::<&Vec<HashSet<u8>>>());
        assert!(!in_hash_order::<&BTreeSet<u8>>());
    }
}
