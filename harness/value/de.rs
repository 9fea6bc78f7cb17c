//! Deserializing a [`Value`] into a typed value, without text in between.
//!
//! Generation builds argument values as [`Value`] trees; this turns them into
//! the target's parameter types directly, so that a generated call costs no
//! RON formatting and parsing.
//!
//! ```
//! use carve::value::Value;
//! use serde::Deserialize;
//!
//! let v = Value::capture(&(3u8, "x")).unwrap();
//! let (n, s): (u8, String) = Deserialize::deserialize(&v).unwrap();
//! assert_eq!((n, s.as_str()), (3, "x"));
//! ```

use std::fmt;

use serde::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};
use serde::forward_to_deserialize_any;

use super::Value;

/// A [`Value`] does not fit the type it is deserialized into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeserializeError(String);

impl fmt::Display for DeserializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeserializeError {}

impl de::Error for DeserializeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeserializeError(msg.to_string())
    }
}

impl<'de> de::Deserializer<'de> for &'de Value {
    type Error = DeserializeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        match self {
            Value::Unit | Value::UnitStruct(_) => visitor.visit_unit(),
            Value::Bool(v) => visitor.visit_bool(*v),
            Value::I64(v) => visitor.visit_i64(*v),
            Value::U64(v) => visitor.visit_u64(*v),
            Value::I128(v) => visitor.visit_i128(*v),
            Value::U128(v) => visitor.visit_u128(*v),
            Value::F32(v) => visitor.visit_f32(*v),
            Value::F64(v) => visitor.visit_f64(*v),
            Value::Char(v) => visitor.visit_char(*v),
            Value::Str(v) => visitor.visit_borrowed_str(v),
            Value::Bytes(v) => visitor.visit_borrowed_bytes(v),
            Value::None => visitor.visit_none(),
            Value::Some(v) => visitor.visit_some(&**v),
            Value::NewtypeStruct(_, v) => visitor.visit_newtype_struct(&**v),
            Value::Seq(items) | Value::Tuple(items) | Value::TupleStruct(_, items) => {
                visitor.visit_seq(Items(items.iter()))
            }
            Value::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
            }),
            Value::Struct(_, fields) => visitor.visit_map(Fields {
                fields: fields.iter(),
                value: None,
            }),
            Value::UnitVariant { .. }
            | Value::NewtypeVariant { .. }
            | Value::TupleVariant { .. }
            | Value::StructVariant { .. } => visitor.visit_enum(self),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        match self {
            Value::None => visitor.visit_none(),
            Value::Some(v) => visitor.visit_some(&**v),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        // Asked for its source as ron's deserializer answers it (a form that
        // reads a borrowing type from text, see `form::BorrowedSerdeForm`):
        // its RON text.
        if name == crate::value::RAW_VALUE_TOKEN {
            let text = super::text::to_ron(self).map_err(de::Error::custom)?;
            return visitor.visit_string(text);
        }
        match self {
            Value::NewtypeStruct(_, v) => visitor.visit_newtype_struct(&**v),
            other => visitor.visit_newtype_struct(other),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self {
            Value::Str(name) => visitor.visit_enum(name.as_str().into_deserializer()),
            other => visitor.visit_enum(other),
        }
    }

    /// A byte string also fits a sequence of `u8` (`Vec<u8>` asks for a
    /// sequence, not for bytes).
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        match self {
            Value::Bytes(bytes) => visitor.visit_seq(Bytes(bytes.iter())),
            other => other.deserialize_any(visitor),
        }
    }

    /// A byte string also fits a tuple of `u8` (`[u8; N]` asks for a tuple).
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        self.deserialize_seq(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple_struct map struct
        identifier ignored_any
    }
}

/// The bytes of a byte string, as a sequence of `u8`.
struct Bytes<'a>(std::slice::Iter<'a, u8>);

impl<'de> SeqAccess<'de> for Bytes<'de> {
    type Error = DeserializeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeserializeError> {
        self.0
            .next()
            .map(|b| seed.deserialize((*b).into_deserializer()))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Items<'a>(std::slice::Iter<'a, Value>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = DeserializeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeserializeError> {
        self.0.next().map(|v| seed.deserialize(v)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries<'a> {
    entries: std::slice::Iter<'a, (Value, Value)>,
    value: Option<&'a Value>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = DeserializeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeserializeError> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(k).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, DeserializeError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("map value without a key"))?;
        seed.deserialize(value)
    }
}

struct Fields<'a> {
    fields: std::slice::Iter<'a, (&'static str, Value)>,
    value: Option<&'a Value>,
}

impl<'de> MapAccess<'de> for Fields<'de> {
    type Error = DeserializeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeserializeError> {
        match self.fields.next() {
            Some((name, v)) => {
                self.value = Some(v);
                seed.deserialize((*name).into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, DeserializeError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("field value without a name"))?;
        seed.deserialize(value)
    }
}

impl<'de> EnumAccess<'de> for &'de Value {
    type Error = DeserializeError;
    type Variant = &'de Value;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, &'de Value), DeserializeError> {
        let variant = match self {
            Value::UnitVariant { variant, .. }
            | Value::NewtypeVariant { variant, .. }
            | Value::TupleVariant { variant, .. }
            | Value::StructVariant { variant, .. } => *variant,
            other => {
                return Err(de::Error::custom(format!(
                    "expected an enum variant, found {other:?}"
                )))
            }
        };
        let name: de::value::StrDeserializer<'_, DeserializeError> = variant.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> VariantAccess<'de> for &'de Value {
    type Error = DeserializeError;

    fn unit_variant(self) -> Result<(), DeserializeError> {
        match self {
            Value::UnitVariant { .. } => Ok(()),
            other => Err(de::Error::custom(format!(
                "expected a unit variant, found {other:?}"
            ))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, DeserializeError> {
        match self {
            Value::NewtypeVariant { value, .. } => seed.deserialize(&**value),
            other => Err(de::Error::custom(format!(
                "expected a newtype variant, found {other:?}"
            ))),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self {
            Value::TupleVariant { fields, .. } => visitor.visit_seq(Items(fields.iter())),
            other => Err(de::Error::custom(format!(
                "expected a tuple variant, found {other:?}"
            ))),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self {
            Value::StructVariant { fields, .. } => visitor.visit_map(Fields {
                fields: fields.iter(),
                value: None,
            }),
            other => Err(de::Error::custom(format!(
                "expected a struct variant, found {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Shape {
        Dot,
        Circle(f64),
        Rect(u8, u8),
        Named { name: String, sides: Option<u32> },
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Drawing {
        shapes: Vec<Shape>,
        tags: BTreeMap<String, i16>,
        id: Wrapper,
        glyph: char,
        raw: (u128, i128),
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Wrapper(u64);

    #[test]
    fn every_shape_round_trips_through_value() {
        let drawing = Drawing {
            shapes: vec![
                Shape::Dot,
                Shape::Circle(1.5),
                Shape::Rect(2, 3),
                Shape::Named {
                    name: "tri".into(),
                    sides: Some(3),
                },
                Shape::Named {
                    name: "blob".into(),
                    sides: None,
                },
            ],
            tags: [("a".to_string(), -4)].into_iter().collect(),
            id: Wrapper(9),
            glyph: '%',
            raw: (u128::MAX, i128::MIN),
        };
        let value = Value::capture(&drawing).unwrap();
        assert_eq!(Drawing::deserialize(&value).unwrap(), drawing);
    }

    /// Bytes as a visitor that takes only bytes sees them (`serde_bytes`).
    #[derive(Debug, PartialEq)]
    struct Raw(Vec<u8>);

    impl<'de> Deserialize<'de> for Raw {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
            struct RawVisitor;
            impl Visitor<'_> for RawVisitor {
                type Value = Raw;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Raw, E> {
                    Ok(Raw(v.to_vec()))
                }
            }
            d.deserialize_byte_buf(RawVisitor)
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Packet {
        payload: Vec<u8>,
        magic: [u8; 4],
        raw: Raw,
    }

    #[test]
    fn byte_strings_fit_byte_sequences_arrays_and_byte_visitors() {
        let elf = Value::Bytes(b"\x7fELF".to_vec());
        assert_eq!(Vec::<u8>::deserialize(&elf).unwrap(), b"\x7fELF");
        assert_eq!(<[u8; 4]>::deserialize(&elf).unwrap(), *b"\x7fELF");
        assert_eq!(Raw::deserialize(&elf).unwrap(), Raw(b"\x7fELF".to_vec()));
        let packet = Value::Struct(
            "Packet",
            vec![
                ("payload", Value::Bytes(b"GET /a HTTP/1.1".to_vec())),
                ("magic", elf.clone()),
                ("raw", Value::Bytes(vec![0, 255])),
            ],
        );
        assert_eq!(
            Packet::deserialize(&packet).unwrap(),
            Packet {
                payload: b"GET /a HTTP/1.1".to_vec(),
                magic: *b"\x7fELF",
                raw: Raw(vec![0, 255]),
            }
        );
        // Sequences of integers (carve files written before byte strings) still fit.
        let seq = Value::capture(&vec![1u8, 2]).unwrap();
        assert_eq!(Vec::<u8>::deserialize(&seq).unwrap(), [1, 2]);
        assert!(
            String::deserialize(&Value::Bytes(vec![0xff])).is_err(),
            "bytes that are not UTF-8 are no string"
        );
    }

    #[test]
    fn values_that_do_not_fit_are_errors() {
        let value = Value::capture(&300u32).unwrap();
        assert!(u8::deserialize(&value).is_err());
        let value = Value::capture(&"x").unwrap();
        assert!(Shape::deserialize(&value).is_err(), "no variant named x");
    }
}
