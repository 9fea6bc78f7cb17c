//! A deserializer that lends for `'static` what the one it wraps hands out
//! as owned or short-lived: strings and byte buffers are leaked and given to
//! the visitor as borrowed.
//!
//! A type that borrows from its input (`Parse<'a> { input: &'a [u8] }`, as
//! form_urlencoded's) reads its `&'a [u8]` with `deserialize_bytes` and
//! accepts only borrowed bytes; serde writes a `[u8]` as a sequence
//! (`[97, 61]`), which ron hands out as an owned buffer, and a string or
//! byte string with an escape is owned too. [`super::form::BorrowedSerdeForm`]
//! already leaks the text it reads such a type from; through this wrapper
//! those values are leaked as well, so they fit too.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};

/// Wraps a deserializer; see the module.
pub struct Lend<D>(pub D);

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak_bytes(b: Vec<u8>) -> &'static [u8] {
    Box::leak(b.into_boxed_slice())
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(fn $method<V: Visitor<'static>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* LendVisitor(visitor))
        })*
    };
}

impl<D: Deserializer<'static>> Deserializer<'static> for Lend<D> {
    type Error = D::Error;

    forward! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize), deserialize_map(),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

struct LendVisitor<V>(V);

macro_rules! visit {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        })*
    };
}

impl<V: Visitor<'static>> Visitor<'static> for LendVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    visit! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_char(char),
        visit_borrowed_str(&'static str), visit_borrowed_bytes(&'static [u8]),
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(leak_str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(leak_str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.0.visit_borrowed_bytes(leak_bytes(v.to_owned()))
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.0.visit_borrowed_bytes(leak_bytes(v))
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_some<D: Deserializer<'static>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Lend(d))
    }
    fn visit_newtype_struct<D: Deserializer<'static>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Lend(d))
    }
    fn visit_seq<A: SeqAccess<'static>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Lend(seq))
    }
    fn visit_map<A: MapAccess<'static>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Lend(map))
    }
    fn visit_enum<A: EnumAccess<'static>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Lend(data))
    }
}

/// A seed whose deserializer is wrapped.
struct LendSeed<S>(S);

impl<S: DeserializeSeed<'static>> DeserializeSeed<'static> for LendSeed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'static>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Lend(d))
    }
}

impl<A: SeqAccess<'static>> SeqAccess<'static> for Lend<A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(LendSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<A: MapAccess<'static>> MapAccess<'static> for Lend<A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(LendSeed(seed))
    }
    fn next_value_seed<T: DeserializeSeed<'static>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(LendSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<A: EnumAccess<'static>> EnumAccess<'static> for Lend<A> {
    type Error = A::Error;
    type Variant = Lend<A::Variant>;
    fn variant_seed<T: DeserializeSeed<'static>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        self.0
            .variant_seed(LendSeed(seed))
            .map(|(value, variant)| (value, Lend(variant)))
    }
}

impl<A: VariantAccess<'static>> VariantAccess<'static> for Lend<A> {
    type Error = A::Error;
    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'static>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(LendSeed(seed))
    }
    fn tuple_variant<V: Visitor<'static>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, LendVisitor(visitor))
    }
    fn struct_variant<V: Visitor<'static>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, LendVisitor(visitor))
    }
}
