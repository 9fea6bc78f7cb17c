//! A value's key: bytes that tell it apart as [`Value`]'s `==` does, made
//! from a [`Value`] ([`encode`]) or straight from a `Serialize` value
//! ([`encode_serialize`]), which gives the bytes [`encode`] gives for its
//! [`Value::capture`] without building the tree.
//!
//! The recorder finds a repeated call by its key: a call that repeats one
//! already carved (most calls of a system test) is keyed from its values
//! directly, and its value tree is built only when the key is new.
//!
//! ```
//! use carve::value::key::{encode, encode_serialize};
//! use carve::value::Value;
//!
//! let value = (Some("a+b"), vec![1u8, 2], 'c');
//! let (mut direct, mut via_tree) = (Vec::new(), Vec::new());
//! assert!(encode_serialize(&value, &mut direct));
//! encode(&Value::capture(&value).unwrap(), &mut via_tree);
//! assert_eq!(direct, via_tree);
//! ```

use std::fmt::{self, Debug, Display, Write as _};

use serde::ser::{self, Serialize};

use crate::value::{in_hash_order, Value};

/// Appends to `out` the bytes of `value` that tell it apart as `Value`'s
/// `==` does: its kind, then its content, names and strings as their
/// length and text (names are compared as text), floats as their bits, a
/// variant's index left out. No value's bytes are the start of another's,
/// so two runs of encodings are equal exactly when each value is.
///
/// A repeated call is told from a new one by its bytes, found by their hash
/// and compared with the first call's in full: one contiguous slice, where
/// comparing with the first call's value tree (and the rebuild check's
/// copy of it) walked a dozen heap blocks gone cold, most of what a
/// repeated call cost (18.8 D1 misses of 1.6 for the plain call,
/// callgrind's cache simulation).
pub fn encode(value: &Value, out: &mut Vec<u8>) {
    use Value::*;
    out.push(value.discriminant());
    match value {
        Unit | None => {}
        Bool(v) => out.push(u8::from(*v)),
        I64(v) => out.extend_from_slice(&v.to_le_bytes()),
        U64(v) => out.extend_from_slice(&v.to_le_bytes()),
        I128(v) => out.extend_from_slice(&v.to_le_bytes()),
        U128(v) => out.extend_from_slice(&v.to_le_bytes()),
        F32(v) => out.extend_from_slice(&v.to_bits().to_le_bytes()),
        F64(v) => out.extend_from_slice(&v.to_bits().to_le_bytes()),
        Char(v) => out.extend_from_slice(&u32::from(*v).to_le_bytes()),
        Str(v) => encode_bytes(v.as_bytes(), out),
        Bytes(v) => encode_bytes(v, out),
        Some(v) => encode(v, out),
        UnitStruct(name) => encode_bytes(name.as_bytes(), out),
        UnitVariant { name, variant, .. } => {
            encode_bytes(name.as_bytes(), out);
            encode_bytes(variant.as_bytes(), out);
        }
        NewtypeStruct(name, v) => {
            encode_bytes(name.as_bytes(), out);
            encode(v, out);
        }
        NewtypeVariant {
            name,
            variant,
            value,
            ..
        } => {
            encode_bytes(name.as_bytes(), out);
            encode_bytes(variant.as_bytes(), out);
            encode(value, out);
        }
        Seq(items) | Tuple(items) => encode_items(items, out),
        TupleStruct(name, items) => {
            encode_bytes(name.as_bytes(), out);
            encode_items(items, out);
        }
        TupleVariant {
            name,
            variant,
            fields,
            ..
        } => {
            encode_bytes(name.as_bytes(), out);
            encode_bytes(variant.as_bytes(), out);
            encode_items(fields, out);
        }
        Map(entries) => {
            encode_len(entries.len(), out);
            for (key, value) in entries {
                encode(key, out);
                encode(value, out);
            }
        }
        Struct(name, fields) => {
            encode_bytes(name.as_bytes(), out);
            encode_fields(fields, out);
        }
        StructVariant {
            name,
            variant,
            fields,
            ..
        } => {
            encode_bytes(name.as_bytes(), out);
            encode_bytes(variant.as_bytes(), out);
            encode_fields(fields, out);
        }
    }
}

/// A length, as [`encode`] writes it.
pub fn encode_len(len: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

/// A string or byte string (its length, then its bytes), as [`encode`]
/// writes it.
pub fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    encode_len(bytes.len(), out);
    out.extend_from_slice(bytes);
}

fn encode_items(items: &[Value], out: &mut Vec<u8>) {
    encode_len(items.len(), out);
    for item in items {
        encode(item, out);
    }
}

fn encode_fields(fields: &[(&'static str, Value)], out: &mut Vec<u8>) {
    encode_len(fields.len(), out);
    for (name, value) in fields {
        encode_bytes(name.as_bytes(), out);
        encode(value, out);
    }
}

/// Writes a count reserved at `at` (by [`reserve_len`]).
pub fn patch_len(out: &mut [u8], at: usize, len: u64) {
    out[at..at + 8].copy_from_slice(&len.to_le_bytes());
}

/// Reserves a length to be written once known ([`patch_len`]); returns
/// where.
pub fn reserve_len(out: &mut Vec<u8>) -> usize {
    out.extend_from_slice(&[0; 8]);
    out.len() - 8
}

/// Starts [`encode`] of a `Value::Struct` named `name` whose fields are
/// appended next (each its name's [`encode_bytes`], then its value's
/// bytes); returns where their count goes ([`patch_len`]).
pub fn start_struct(name: &str, out: &mut Vec<u8>) -> usize {
    out.push(kind::STRUCT);
    encode_bytes(name.as_bytes(), out);
    reserve_len(out)
}

/// Appends [`encode`] of [`Value::capture`] of `value` to `out`, without
/// building the value: `true` when done. `false` (with `out` as it was)
/// when the key cannot be made on the way: the value's `Serialize` failed,
/// or it holds a hash table, whose entries [`Value::capture`] sorts.
pub fn encode_serialize<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> bool {
    let start = out.len();
    match value.serialize(Encoder { out }) {
        Ok(()) => true,
        Err(Bail) => {
            out.truncate(start);
            false
        }
    }
}

/// Appends [`encode`] of the string `value` writes (`Value::Str` of its
/// `to_string()`) to `out`. `false` (with `out` as it was) when its
/// `Display` fails.
pub fn encode_display<T: Display + ?Sized>(value: &T, out: &mut Vec<u8>) -> bool {
    encode_text(format_args!("{value}"), out)
}

/// Appends [`encode`] of the string `{value:#?}` writes (`Value::Str` of
/// `format!("{value:#?}")`) to `out`. `false` (with `out` as it was) when
/// its `Debug` fails.
pub fn encode_debug<T: Debug + ?Sized>(value: &T, out: &mut Vec<u8>) -> bool {
    encode_text(format_args!("{value:#?}"), out)
}

/// [`encode_display`] of text made by `args`.
fn encode_text(args: fmt::Arguments<'_>, out: &mut Vec<u8>) -> bool {
    let start = out.len();
    out.push(kind::STR);
    let at = reserve_len(out);
    let mut text = Text(out);
    if text.write_fmt(args).is_err() {
        out.truncate(start);
        return false;
    }
    let len = out.len() - at - 8;
    patch_len(out, at, len as u64);
    true
}

/// Starts [`encode`] of a `Value::NewtypeStruct` named `name`: its value's
/// bytes come next.
pub fn start_newtype_struct(name: &str, out: &mut Vec<u8>) {
    out.push(kind::NEWTYPE_STRUCT);
    encode_bytes(name.as_bytes(), out);
}

/// Starts [`encode`] of a `Value::NewtypeVariant` `name::variant`: its
/// value's bytes come next.
pub fn start_newtype_variant(name: &str, variant: &str, out: &mut Vec<u8>) {
    out.push(kind::NEWTYPE_VARIANT);
    encode_bytes(name.as_bytes(), out);
    encode_bytes(variant.as_bytes(), out);
}

/// Appends [`encode`] of `Value::None`.
pub fn encode_none(out: &mut Vec<u8>) {
    out.push(kind::NONE);
}

/// Starts [`encode`] of a `Value::Some`: its value's bytes come next.
pub fn start_some(out: &mut Vec<u8>) {
    out.push(kind::SOME);
}

/// Starts [`encode`] of a `Value::Tuple` of `len` items: their bytes come
/// next.
pub fn start_tuple(len: usize, out: &mut Vec<u8>) {
    out.push(kind::TUPLE);
    encode_len(len, out);
}

/// Appends [`encode`] of `Value::Bytes` of `bytes` to `out`.
pub fn encode_byte_string(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(kind::BYTES);
    encode_bytes(bytes, out);
}

struct Text<'a>(&'a mut Vec<u8>);

impl fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Why [`Encoder`] stopped: the caller builds the value instead.
#[derive(Debug)]
struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not keyed on the way")
    }
}

impl std::error::Error for Bail {}

impl ser::Error for Bail {
    fn custom<T: Display>(_msg: T) -> Self {
        Bail
    }
}

/// The serializer that writes [`encode`]'s bytes of what `Value`'s
/// `Capture` would build, serde call by serde call.
struct Encoder<'a> {
    out: &'a mut Vec<u8>,
}

/// Discriminants of [`Value`]'s kinds, as [`encode`] writes them.
mod kind {
    pub const UNIT: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const I64: u8 = 2;
    pub const U64: u8 = 3;
    pub const I128: u8 = 4;
    pub const U128: u8 = 5;
    pub const F32: u8 = 6;
    pub const F64: u8 = 7;
    pub const CHAR: u8 = 8;
    pub const STR: u8 = 9;
    pub const BYTES: u8 = 10;
    pub const NONE: u8 = 11;
    pub const SOME: u8 = 12;
    pub const UNIT_STRUCT: u8 = 13;
    pub const UNIT_VARIANT: u8 = 14;
    pub const NEWTYPE_STRUCT: u8 = 15;
    pub const NEWTYPE_VARIANT: u8 = 16;
    pub const SEQ: u8 = 17;
    pub const TUPLE: u8 = 18;
    pub const TUPLE_STRUCT: u8 = 19;
    pub const TUPLE_VARIANT: u8 = 20;
    pub const MAP: u8 = 21;
    pub const STRUCT: u8 = 22;
    pub const STRUCT_VARIANT: u8 = 23;
}

/// A compound being written: its count is patched in at `len_at` when it
/// ends. A map's key is written when it comes and dropped again if no
/// value follows it, as `Capture` keeps an entry only once its value came.
struct Compound<'a> {
    out: &'a mut Vec<u8>,
    len_at: usize,
    count: u64,
    /// Where the key waiting for its value starts.
    pending_key: Option<usize>,
}

impl<'a> Compound<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        let len_at = reserve_len(out);
        Compound {
            out,
            len_at,
            count: 0,
            pending_key: None,
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        value.serialize(Encoder { out: self.out })?;
        self.count += 1;
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Bail> {
        encode_bytes(name.as_bytes(), self.out);
        self.item(value)
    }

    fn end(self) -> Result<(), Bail> {
        if let Some(start) = self.pending_key {
            self.out.truncate(start);
        }
        patch_len(self.out, self.len_at, self.count);
        Ok(())
    }
}

impl<'a> Encoder<'a> {
    fn names(self, kind: u8, names: &[&str]) -> &'a mut Vec<u8> {
        self.out.push(kind);
        for name in names {
            encode_bytes(name.as_bytes(), self.out);
        }
        self.out
    }

    fn compound(self, kind: u8, names: &[&str]) -> Compound<'a> {
        Compound::new(self.names(kind, names))
    }

    fn scalar(self, kind: u8, bytes: &[u8]) -> Result<(), Bail> {
        self.out.push(kind);
        self.out.extend_from_slice(bytes);
        Ok(())
    }
}

impl<'a> ser::Serializer for Encoder<'a> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Bail> {
        self.scalar(kind::BOOL, &[u8::from(v)])
    }
    fn serialize_i8(self, v: i8) -> Result<(), Bail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Bail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Bail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Bail> {
        self.scalar(kind::I64, &v.to_le_bytes())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Bail> {
        self.scalar(kind::I128, &v.to_le_bytes())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Bail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Bail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Bail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Bail> {
        self.scalar(kind::U64, &v.to_le_bytes())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Bail> {
        self.scalar(kind::U128, &v.to_le_bytes())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Bail> {
        self.scalar(kind::F32, &v.to_bits().to_le_bytes())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Bail> {
        self.scalar(kind::F64, &v.to_bits().to_le_bytes())
    }
    fn serialize_char(self, v: char) -> Result<(), Bail> {
        self.scalar(kind::CHAR, &u32::from(v).to_le_bytes())
    }
    fn serialize_str(self, v: &str) -> Result<(), Bail> {
        self.out.push(kind::STR);
        encode_bytes(v.as_bytes(), self.out);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Bail> {
        self.out.push(kind::BYTES);
        encode_bytes(v, self.out);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Bail> {
        self.scalar(kind::NONE, &[])
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Bail> {
        self.out.push(kind::SOME);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Bail> {
        self.scalar(kind::UNIT, &[])
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<(), Bail> {
        self.names(kind::UNIT_STRUCT, &[name]);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Bail> {
        self.names(kind::UNIT_VARIANT, &[name, variant]);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        let out = self.names(kind::NEWTYPE_STRUCT, &[name]);
        value.serialize(Encoder { out })
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        let out = self.names(kind::NEWTYPE_VARIANT, &[name, variant]);
        value.serialize(Encoder { out })
    }
    // As `Capture`'s: a hash table's entries are sorted there, which
    // needs the values; their key is made from those.
    fn collect_seq<I>(self, iter: I) -> Result<(), Bail>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        if in_hash_order::<I>() {
            return Err(Bail);
        }
        let mut seq = self.compound(kind::SEQ, &[]);
        for item in iter {
            seq.item(&item)?;
        }
        seq.end()
    }
    fn collect_map<K, V, I>(self, iter: I) -> Result<(), Bail>
    where
        K: Serialize,
        V: Serialize,
        I: IntoIterator<Item = (K, V)>,
    {
        if in_hash_order::<I>() {
            return Err(Bail);
        }
        let mut map = self.compound(kind::MAP, &[]);
        for (k, v) in iter {
            k.serialize(Encoder { out: map.out })?;
            map.item(&v)?;
        }
        map.end()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::SEQ, &[]))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::TUPLE, &[]))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::TUPLE_STRUCT, &[name]))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::TUPLE_VARIANT, &[name, variant]))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::MAP, &[]))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::STRUCT, &[name]))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Bail> {
        Ok(self.compound(kind::STRUCT_VARIANT, &[name, variant]))
    }
}

/// The four serde traits of positional compounds differ only in names.
macro_rules! positional {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Bail;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
                self.item(value)
            }
            fn end(self) -> Result<(), Bail> {
                Compound::end(self)
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

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Bail;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Bail> {
        // A key after a key replaces it, as in `Capture`.
        if let Some(start) = self.pending_key.take() {
            self.out.truncate(start);
        }
        let start = self.out.len();
        key.serialize(Encoder { out: self.out })?;
        self.pending_key = Some(start);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        // A value before its key is `Capture`'s error.
        self.pending_key.take().ok_or(Bail)?;
        self.item(value)
    }
    fn end(self) -> Result<(), Bail> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Bail;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Bail> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Bail;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Bail> {
        Compound::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use serde::ser::SerializeMap as _;
    use std::collections::{BTreeMap, HashMap, HashSet};

    /// The key made on the way, or `None` where it bails.
    fn direct<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
        let mut out = vec![7];
        let done = encode_serialize(value, &mut out);
        if !done {
            assert_eq!(out, [7], "a bail leaves the key as it was");
            return None;
        }
        Some(out[1..].to_vec())
    }

    /// The key of the value tree `Value::capture` builds.
    fn via_tree<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        encode(&Value::capture(value).unwrap(), &mut out);
        out
    }

    #[derive(serde::Serialize)]
    struct Unit;
    #[derive(serde::Serialize)]
    struct Meters(f64);
    #[derive(serde::Serialize)]
    struct Pair(i8, u16);
    #[derive(serde::Serialize)]
    struct Account {
        owner: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        limits: BTreeMap<String, f32>,
    }
    #[derive(serde::Serialize)]
    enum Shape {
        Empty,
        Circle(f32),
        Rect(u32, u32),
        Named { name: &'static str, sides: u8 },
    }

    #[test]
    fn the_key_made_on_the_way_is_the_key_of_the_captured_tree() {
        fn same<T: Serialize + ?Sized>(value: &T) {
            assert_eq!(direct(value).as_deref(), Some(&via_tree(value)[..]));
        }
        same(&());
        same(&true);
        same(&-3i8);
        same(&i64::MIN);
        same(&u128::MAX);
        same(&-1i128);
        same(&250u8);
        same(&f32::NAN);
        same(&-0.0f64);
        same(&'é');
        same("a+b");
        same(&Some(Some(0u32)));
        same(&None::<u8>);
        same(&Unit);
        same(&Meters(1.5));
        same(&Pair(-1, 2));
        same(&(1u8, "x", [1u16, 2]));
        same(&vec![vec!['a'], vec![]]);
        same(&serde_bytes_like(&[0, 255]));
        same(&Account {
            owner: "ada".into(),
            note: None,
            limits: [("day".to_string(), 0.5f32)].into(),
        });
        same(&Account {
            owner: String::new(),
            note: Some("n".into()),
            limits: BTreeMap::new(),
        });
        for shape in [
            Shape::Empty,
            Shape::Circle(-0.0),
            Shape::Rect(1, 2),
            Shape::Named {
                name: "tri",
                sides: 3,
            },
        ] {
            same(&shape);
        }
        let hashed: HashMap<u8, u8> = [(1, 2)].into();
        let set: HashSet<&str> = ["a", "b"].into();
        // A hash table's entries are sorted in the tree: keyed from it.
        assert_eq!(direct(&hashed), None);
        assert_eq!(direct(&set), None);
        assert_eq!(direct(&vec![hashed]), None);
    }

    /// A byte string as serde writes one (`serialize_bytes`).
    fn serde_bytes_like(bytes: &[u8]) -> impl Serialize + '_ {
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        Bytes(bytes)
    }

    #[test]
    fn a_map_written_by_hand_is_keyed_as_the_tree_keeps_it() {
        /// Entries as a hand-written `Serialize` may make them: a key
        /// with no value (dropped by the tree), a key replaced.
        struct Odd(u8);
        impl Serialize for Odd {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(None)?;
                map.serialize_entry("a", &1)?;
                match self.0 {
                    0 => map.serialize_key("dangling")?,
                    1 => {
                        map.serialize_key("replaced")?;
                        map.serialize_key("b")?;
                        map.serialize_value(&2)?;
                    }
                    _ => map.serialize_value(&3)?,
                }
                map.end()
            }
        }
        assert_eq!(direct(&Odd(0)).as_deref(), Some(&via_tree(&Odd(0))[..]));
        assert_eq!(direct(&Odd(1)).as_deref(), Some(&via_tree(&Odd(1))[..]));
        // A value before its key: the tree's capture fails, the key bails.
        assert!(Value::capture(&Odd(2)).is_err());
        assert_eq!(direct(&Odd(2)), None);
    }

    #[test]
    fn text_and_byte_strings_are_keyed_as_their_values() {
        let mut text = Vec::new();
        assert!(encode_display(&std::net::Ipv4Addr::new(10, 0, 0, 1), &mut text));
        let mut tree = Vec::new();
        encode(&Value::Str("10.0.0.1".into()), &mut tree);
        assert_eq!(text, tree);
        let (mut bytes, mut tree) = (Vec::new(), Vec::new());
        encode_byte_string(b"ab", &mut bytes);
        encode(&Value::Bytes(b"ab".to_vec()), &mut tree);
        assert_eq!(bytes, tree);
    }

    /// A random value tree, names from a small set (equal in text at other
    /// addresses too), floats among the odd ones.
    fn random_value(rng: &mut StdRng, depth: u32) -> Value {
        let names: [&'static str; 3] = ["A", "B", String::leak("A".to_owned())];
        let name = |rng: &mut StdRng| names[rng.random_range(0..names.len())];
        let floats = [0.0, -0.0, f64::NAN, -f64::NAN, 1.5, f64::INFINITY];
        let leaf = depth == 0 || rng.random_range(0..3) == 0;
        let kind = match leaf {
            true => rng.random_range(0..15),
            false => rng.random_range(15..24),
        };
        let items = |rng: &mut StdRng| {
            (0..rng.random_range(0..3))
                .map(|_| random_value(rng, depth - 1))
                .collect::<Vec<_>>()
        };
        match kind {
            0 => Value::Unit,
            1 => Value::Bool(rng.random()),
            2 => Value::I64(rng.random_range(-2..2)),
            3 => Value::U64(rng.random_range(0..3)),
            4 => Value::I128(rng.random_range(-2..2)),
            5 => Value::U128(rng.random_range(0..3)),
            6 => Value::F32(floats[rng.random_range(0..floats.len())] as f32),
            7 => Value::F64(floats[rng.random_range(0..floats.len())]),
            8 => Value::Char(['a', 'é', '\0'][rng.random_range(0..3)]),
            9 => Value::Str(["", "a", "ab"][rng.random_range(0..3)].into()),
            10 => Value::Bytes(vec![0; rng.random_range(0..3)]),
            11 => Value::None,
            12 => Value::UnitStruct(name(rng)),
            13 | 14 => Value::UnitVariant {
                name: name(rng),
                index: rng.random_range(0..2),
                variant: name(rng),
            },
            15 => Value::Some(Box::new(random_value(rng, depth - 1))),
            16 => Value::NewtypeStruct(name(rng), Box::new(random_value(rng, depth - 1))),
            17 => Value::NewtypeVariant {
                name: name(rng),
                index: 0,
                variant: name(rng),
                value: Box::new(random_value(rng, depth - 1)),
            },
            18 => Value::Seq(items(rng)),
            19 => Value::Tuple(items(rng)),
            20 => Value::TupleStruct(name(rng), items(rng)),
            21 => Value::Map(items(rng).into_iter().map(|v| (v.clone(), v)).collect()),
            22 => Value::Struct(name(rng), items(rng).into_iter().map(|v| (name(rng), v)).collect()),
            _ => Value::StructVariant {
                name: name(rng),
                index: 1,
                variant: name(rng),
                fields: items(rng).into_iter().map(|v| (name(rng), v)).collect(),
            },
        }
    }

    /// The invariant the recorder relies on: keys are equal exactly when
    /// values are, whichever way each key was made.
    #[test]
    fn keys_made_either_way_are_equal_exactly_when_the_values_are() {
        let mut rng = StdRng::seed_from_u64(25);
        let values: Vec<Value> = (0..400).map(|_| random_value(&mut rng, 3)).collect();
        let keys: Vec<Vec<u8>> = values.iter().map(|v| direct(v).unwrap()).collect();
        let mut equal = 0;
        for (a, key_a) in values.iter().zip(&keys) {
            assert_eq!(key_a, &via_tree(a), "{a:?}");
            for (b, key_b) in values.iter().zip(&keys) {
                assert_eq!(a == b, key_a == key_b, "{a:?} and {b:?}");
                equal += usize::from(a == b);
            }
        }
        assert!(equal > values.len() + 50, "too few equal pairs: {equal}");
    }
}
