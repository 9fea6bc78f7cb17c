//! How a value of a given type is carved, chosen at compile time.
//!
//! A parameter is carved as its serde form when its type is
//! `Serialize + DeserializeOwned`, else as its text when it is
//! `Display + FromStr` (a version or an address type); byte strings
//! (`&[u8]`, `Vec<u8>`, `[u8; N]`) are carved as RON byte strings. A return
//! value is carved as its serde form when it is `Serialize`; else as its
//! `Display` text when it has one (an error, a formatter: its text is what
//! users check, so its formatting runs and is checked), beside its `Debug`
//! text when it has that too; else as its `Debug` text.
//!
//! Rust has no specialization, so the choice is made by *autoref-based
//! specialization* in code `#[carve::target]` generates, where every type is
//! concrete: a probe such as `(&&&&ArgProbe::<T>::new()).arg_form()`
//! resolves to the first of [`ViaSerde`], [`ViaText`], [`ViaSerializeOnly`],
//! [`ViaNothing`] whose bounds `T` meets, because method lookup tries the
//! receiver with the most references first. Each returns a zero-sized *form* whose methods do the work. The last
//! resort, [`Unsupported`], compiles but fails its `check`, so an unsupported
//! type is exactly one compile error, carve's own, at the type's span.
//!
//! ```
//! use carve::value::form::{ArgProbe, ViaNothing, ViaSerde, ViaSerializeOnly, ViaText};
//! use carve::value::Value;
//! use std::net::Ipv4Addr;
//!
//! // A serde type is carved as itself…
//! let form = (&&&&ArgProbe::<Vec<u32>>::new()).arg_form();
//! assert_eq!(form.capture(&vec![1u32]).unwrap(), Value::Seq(vec![Value::U64(1)]));
//! // …a `Display + FromStr` type as its text.
//! let form = (&&&&ArgProbe::<Ipv4Addr>::new()).arg_form();
//! let home = Ipv4Addr::new(127, 0, 0, 1);
//! assert_eq!(form.capture(&home).unwrap(), Value::Str("127.0.0.1".into()));
//! ```

use std::fmt::{self, Debug, Display};
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::value::tracer;
use crate::value::types::{ParamType, Traced, Ty};
use crate::value::text::shorten;
use crate::value::{CaptureError, Value};

/// Parameter types must have a carvable form; carve implements this for no
/// type: the bound only fails, with this message, for a type that has none.
#[diagnostic::on_unimplemented(
    message = "carve cannot carve a parameter of type `{Self}`",
    label = "`{Self}` is neither `serde::Serialize + serde::Deserialize` nor `Display + FromStr`",
    note = "ways out: derive `serde::Serialize` and `serde::Deserialize` for it \
            (`#[cfg_attr(feature = \"carve\", derive(serde::Serialize, serde::Deserialize))]`); \
            or implement `Display` and `FromStr` so carve stores it as text; \
            or mark the function `#[carve::instrument]` instead of `#[carve::target]` \
            to measure its coverage without carving its calls"
)]
pub trait CarvableArg {}

/// A serde type that is only half one; carve implements this for no type
/// (see [`CarvableArg`]).
#[diagnostic::on_unimplemented(
    message = "carve cannot carve a parameter of type `{Self}`: it is `serde::Serialize` but not `serde::Deserialize` (from owned data: `DeserializeOwned`)",
    label = "`{Self}` does not implement `serde::de::DeserializeOwned`, so carved calls cannot be replayed",
    note = "ways out: derive `serde::Deserialize` for it too \
            (`#[cfg_attr(feature = \"carve\", derive(serde::Serialize, serde::Deserialize))]`); \
            or mark the function `#[carve::instrument]` instead of `#[carve::target]` \
            to measure its coverage without carving its calls",
    note = "a type that derives `serde::Deserialize` but holds a `&'static str` or another \
            borrowed field (roxmltree's `Error`) deserializes only from data that outlives it, \
            not from carve's files: derive it where every field owns its data (`String`, \
            `Cow<'static, str>`), or leave the function uncarved"
)]
pub trait DeserializableArg {}

/// Return types must have a carvable form; carve implements this for no
/// type (see [`CarvableArg`]).
#[diagnostic::on_unimplemented(
    message = "carve cannot record a return value of type `{Self}`",
    label = "`{Self}` implements neither `serde::Serialize`, `Display` nor `Debug`",
    note = "ways out: derive `Debug` for it (carve then stores its `Debug` text), \
            or implement `Display` (carve then stores its text), \
            or `serde::Serialize` (`#[cfg_attr(feature = \"carve\", derive(serde::Serialize))]`); \
            or mark the function `#[carve::instrument]` instead of `#[carve::target]` \
            to measure its coverage without carving its calls"
)]
pub trait CarvableOutcome {}

/// The probe a parameter type's form is chosen by (see the module docs).
pub struct ArgProbe<T>(PhantomData<fn() -> T>);

impl<T> ArgProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        ArgProbe(PhantomData)
    }
}

impl<T> Default for ArgProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// First choice: a serde type is carved as itself.
pub trait ViaSerde<T> {
    /// The form `T` is carved in.
    fn arg_form(&self) -> SerdeForm<T>;
}

impl<T: Serialize + DeserializeOwned> ViaSerde<T> for &&&ArgProbe<T> {
    fn arg_form(&self) -> SerdeForm<T> {
        SerdeForm(PhantomData)
    }
}

/// First choice for a type with a lifetime parameter (`Token<'a>`, which
/// `#[carve::target]` names with `'static`): its `Deserialize` may borrow
/// from the data it reads (a `&'a str` field, `#[serde(borrow)]`), and trait
/// selection cannot tell such a type from one that does not (the
/// difference is a lifetime bound, checked only after the form is chosen,
/// as rustc's "implementation of `Deserialize` is not general enough").
/// `#[carve::target]` asks this probe (one reference more) for such types
/// only: it reads them from text that lives as long as the program.
pub trait ViaBorrowedSerde<T> {
    /// The form `T` is carved in.
    fn arg_form(&self) -> BorrowedSerdeForm<T>;
}

impl<T: Serialize + Deserialize<'static>> ViaBorrowedSerde<T> for &&&&ArgProbe<T> {
    fn arg_form(&self) -> BorrowedSerdeForm<T> {
        BorrowedSerdeForm(PhantomData)
    }
}

/// Second choice: a `Display + FromStr` type is carved as its text.
pub trait ViaText<T> {
    /// The form `T` is carved in.
    fn arg_form(&self) -> TextForm<T>;
}

impl<T: Display + FromStr> ViaText<T> for &&ArgProbe<T>
where
    T::Err: Debug,
{
    fn arg_form(&self) -> TextForm<T> {
        TextForm(PhantomData)
    }
}

/// Third: a type that is `Serialize` only (its `check` fails to compile,
/// saying what it lacks).
pub trait ViaSerializeOnly<T> {
    /// The form `T` is carved in.
    fn arg_form(&self) -> Unsupported<T, MissingDeserialize>;
}

impl<T: Serialize> ViaSerializeOnly<T> for &ArgProbe<T> {
    fn arg_form(&self) -> Unsupported<T, MissingDeserialize> {
        Unsupported(PhantomData)
    }
}

/// Last resort: a type that cannot be carved (its `check` fails to compile).
pub trait ViaNothing<T> {
    /// The form `T` is carved in.
    fn arg_form(&self) -> Unsupported<T>;
}

impl<T> ViaNothing<T> for ArgProbe<T> {
    fn arg_form(&self) -> Unsupported<T> {
        Unsupported(PhantomData)
    }
}

/// A serde type, carved as its serde form.
pub struct SerdeForm<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned> SerdeForm<T> {
    /// Compiles: `T` is carvable.
    pub fn check(&self) {}

    /// Captures a value, or a view of one (`&str` for `String`).
    pub fn capture<V: Serialize + ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        Value::capture(value)
    }

    /// [`SerdeForm::capture`], made when the recorder asks (see [`Deferred`]).
    pub fn defer<'a, V: Serialize + ?Sized>(&self, value: &'a V) -> SerdeArg<'a, V> {
        SerdeArg(value)
    }

    /// Serializes a value (for `#[serde(serialize_with)]`).
    pub fn serialize<S: Serializer>(&self, value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// Deserializes a value (for `#[serde(deserialize_with)]`).
    pub fn deserialize<'de, D: Deserializer<'de>>(&self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }

    /// The shape of `T`, traced from its `Deserialize` (for generation);
    /// when it holds text-form values (addresses in a `Vec`), with the
    /// check of which values deserialize (their texts parse).
    pub fn trace(&self) -> Traced {
        tracer::trace::<T>().checked_by(|value| {
            crate::panics::quietly(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| T::deserialize(value).is_ok()))
                    .unwrap_or(false)
            })
        })
    }
}

/// A serde type that may borrow from the data it is read from, carved as
/// its serde form and read from a copy of its RON text that is leaked, so
/// that what it borrows lives as long as the program (one copy per value
/// read: replays and generated calls).
pub struct BorrowedSerdeForm<T>(PhantomData<fn() -> T>);

impl<T: Serialize + Deserialize<'static>> BorrowedSerdeForm<T> {
    /// Compiles: `T` is carvable.
    pub fn check(&self) {}

    /// Captures a value, or a view of one.
    pub fn capture<V: Serialize + ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        Value::capture(value)
    }

    /// [`SerdeForm::capture`], made when the recorder asks (see [`Deferred`]).
    pub fn defer<'a, V: Serialize + ?Sized>(&self, value: &'a V) -> SerdeArg<'a, V> {
        SerdeArg(value)
    }

    /// Serializes a value (for `#[serde(serialize_with)]`).
    pub fn serialize<S: Serializer>(&self, value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// Deserializes a value from a leaked copy of its RON text (from a
    /// carve file's deserializer, or from a [`Value`]'s, which writes it).
    pub fn deserialize<'de, D: Deserializer<'de>>(&self, d: D) -> Result<T, D::Error> {
        struct Source;
        impl Visitor<'_> for Source {
            type Value = String;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a RON value")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
                Ok(text.to_owned())
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<String, E> {
                Ok(text)
            }
        }
        let text = d.deserialize_newtype_struct(crate::value::RAW_VALUE_TOKEN, Source)?;
        let text: &'static str = Box::leak(text.into_boxed_str());
        let mut de = ron::Deserializer::from_str_with_options(text, &crate::value::depth::options())
            .map_err(de::Error::custom)?;
        // Through `Lend`: a `&'static [u8]` written as a sequence, or a string
        // with an escape, is leaked too.
        let value = T::deserialize(super::lend::Lend(&mut de)).map_err(de::Error::custom)?;
        de.end().map_err(de::Error::custom)?;
        Ok(value)
    }

    /// The shape of `T`, traced from its `Deserialize` (for generation).
    pub fn trace(&self) -> Traced {
        tracer::trace::<T>()
    }
}

/// A `Display + FromStr` type, carved as its text.
pub struct TextForm<T>(PhantomData<fn() -> T>);

impl<T: Display + FromStr> TextForm<T>
where
    T::Err: Debug,
{
    /// Compiles: `T` is carvable.
    pub fn check(&self) {}

    /// Captures a value as its text, or a view of one (a `&self` of an
    /// unsized type lent from `T`, see [`crate::Twin`]).
    pub fn capture<V: Display + ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        Ok(Value::Str(value.to_string()))
    }

    /// [`TextForm::capture`], made when the recorder asks (see [`Deferred`]).
    pub fn defer<'a, V: Display + ?Sized>(&self, value: &'a V) -> TextArg<'a, V> {
        TextArg(value)
    }

    /// Serializes a value as its text.
    pub fn serialize<S: Serializer>(&self, value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    /// Parses a value from its text with `FromStr`.
    pub fn deserialize<'de, D: Deserializer<'de>>(&self, d: D) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(|e| {
            de::Error::custom(format_args!(
                "`{text}` does not parse as `{}`: {e:?}",
                std::any::type_name::<T>()
            ))
        })
    }

    /// Text: which strings parse is not known, but can be asked (for
    /// generation).
    pub fn trace(&self) -> Traced {
        Traced::plain(ParamType::Text {
            parses: |text| text.parse::<T>().is_ok(),
        })
    }
}

/// A type carve cannot carve, for the reason `Why`: its `check` is the one
/// compile error.
pub struct Unsupported<T, Why = Neither>(PhantomData<fn() -> (T, Why)>);

/// Why a parameter type cannot be carved: it has neither form.
pub struct Neither;

/// Why a parameter type cannot be carved: it is `Serialize` only.
pub struct MissingDeserialize;

impl<T> Unsupported<T, Neither> {
    /// Fails to compile, with carve's message at the parameter.
    pub fn check(&self)
    where
        T: CarvableArg,
    {
    }
}

impl<T> Unsupported<T, MissingDeserialize> {
    /// Fails to compile, with carve's message at the parameter.
    pub fn check(&self)
    where
        T: DeserializableArg,
    {
    }
}

impl<T, Why> Unsupported<T, Why> {
    /// Never runs: the crate does not compile.
    pub fn capture<V: ?Sized>(&self, _value: &V) -> Result<Value, CaptureError> {
        Err(CaptureError("this type cannot be carved".into()))
    }

    /// Never runs: the crate does not compile.
    pub fn defer<V: ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        self.capture(value)
    }

    /// Never runs: the crate does not compile.
    pub fn serialize<S: Serializer>(&self, _value: &T, _s: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this type cannot be carved"))
    }

    /// Never runs: the crate does not compile.
    pub fn deserialize<'de, D: Deserializer<'de>>(&self, _d: D) -> Result<T, D::Error> {
        Err(de::Error::custom("this type cannot be carved"))
    }

    /// Never runs: the crate does not compile.
    pub fn trace(&self) -> Traced {
        Traced::plain(ParamType::Untraced("this type cannot be carved".into()))
    }
}

/// A byte string (`Vec<u8>`, `[u8; N]`), carved as RON bytes `b"…"`.
/// `#[carve::target]` picks this form from the parameter's spelling.
pub struct BytesForm<T>(PhantomData<fn() -> T>);

impl<T: ByteString> BytesForm<T> {
    /// A form for `T`.
    pub const fn new() -> Self {
        BytesForm(PhantomData)
    }

    /// Compiles: `T` is carvable.
    pub fn check(&self) {}

    /// Captures a byte string (or a `&[u8]` view of one).
    pub fn capture<V: AsRef<[u8]> + ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        capture_bytes(value)
    }

    /// [`BytesForm::capture`], made when the recorder asks (see [`Deferred`]).
    pub fn defer<'a, V: AsRef<[u8]> + ?Sized>(&self, value: &'a V) -> BytesArg<'a, V> {
        BytesArg(value)
    }

    /// Serializes a byte string as bytes.
    pub fn serialize<S: Serializer>(&self, value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(value.as_ref())
    }

    /// Deserializes a byte string from bytes, or from a sequence of
    /// integers (how carve wrote them before).
    pub fn deserialize<'de, D: Deserializer<'de>>(&self, d: D) -> Result<T, D::Error> {
        let bytes = d.deserialize_byte_buf(BytesVisitor)?;
        T::from_bytes(bytes).map_err(de::Error::custom)
    }

    /// Bytes, of `T`'s fixed length if it has one (for generation).
    pub fn trace(&self) -> Traced {
        Traced::plain(ParamType::Typed(Ty::Bytes(T::LEN)))
    }
}

impl<T: ByteString> Default for BytesForm<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// An owned byte string type.
pub trait ByteString: AsRef<[u8]> + Sized {
    /// The number of bytes every value has, if fixed (`[u8; N]`).
    const LEN: Option<usize>;

    /// The value holding `bytes`, or why it cannot.
    fn from_bytes(bytes: Vec<u8>) -> Result<Self, String>;
}

impl ByteString for Vec<u8> {
    const LEN: Option<usize> = None;

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, String> {
        Ok(bytes)
    }
}

impl<const N: usize> ByteString for [u8; N] {
    const LEN: Option<usize> = Some(N);

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, String> {
        let len = bytes.len();
        bytes
            .try_into()
            .map_err(|_| format!("expected {N} bytes, found {len}"))
    }
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element()? {
            bytes.push(b);
        }
        Ok(bytes)
    }
}

/// The probe an argument is compared with its rebuilt value by, at record
/// time: `(&&SameProbe(original, &rebuilt)).same(recapture, written)`
/// compares their `Debug` texts when the type has `Debug` ([`SameByDebug`]),
/// else the form the rebuilt value is written in with the original's
/// ([`SameByForm`]).
pub struct SameProbe<'a, V: ?Sized, T>(pub &'a V, pub &'a T);

/// First choice: the original and the rebuilt value print the same `Debug`
/// text.
pub trait SameByDebug<T> {
    /// `Ok` when the rebuilt value is the original; else how they differ.
    fn same(
        &self,
        recapture: impl FnOnce(&T) -> Result<Value, CaptureError>,
        written: &Value,
    ) -> Result<(), String>;
}

impl<V: Debug + ?Sized, T: Debug> SameByDebug<T> for &SameProbe<'_, V, T> {
    fn same(
        &self,
        _recapture: impl FnOnce(&T) -> Result<Value, CaptureError>,
        _written: &Value,
    ) -> Result<(), String> {
        same_debug(self.0, self.1)
    }
}

/// Fallback: the rebuilt value is written as the original was.
pub trait SameByForm<T> {
    /// `Ok` when the rebuilt value is written as the original; else both.
    fn same(
        &self,
        recapture: impl FnOnce(&T) -> Result<Value, CaptureError>,
        written: &Value,
    ) -> Result<(), String>;
}

impl<V: ?Sized, T> SameByForm<T> for SameProbe<'_, V, T> {
    fn same(
        &self,
        recapture: impl FnOnce(&T) -> Result<Value, CaptureError>,
        written: &Value,
    ) -> Result<(), String> {
        let again = recapture(self.1).map_err(|e| format!("the rebuilt value cannot be captured: {e}"))?;
        if &again == written {
            return Ok(());
        }
        Err(format!(
            "rebuilt, it is written {}",
            shorten(&again.to_compact_ron())
        ))
    }
}

/// Compares two values by their `{:#?}` texts. The lines of the two may come
/// in another order (the entries of a hash map or set are printed in an order
/// of the map's own): the same lines in any order are the same value.
///
/// The original is the value as the call received it. A call of a target
/// made inside another call of the crate can receive a value in the middle
/// of a change (url's `set_query` asks `self.scheme()` while its text is cut
/// short), whose `Debug` may panic: that is said as such, not as a rebuilt
/// value that panicked.
fn same_debug(original: &(impl Debug + ?Sized), rebuilt: &(impl Debug + ?Sized)) -> Result<(), String> {
    let before = crate::panics::quietly(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| format!("{original:#?}")))
    })
    .map_err(|payload| {
        format!(
            "its `Debug` panicked on the value the call received ({}), so it cannot be \
             compared with the value rebuilt from its carved form",
            crate::panics::panic_message(&*payload)
        )
    })?;
    let after = format!("{rebuilt:#?}");
    if before == after {
        return Ok(());
    }
    let sorted = |text: &str| {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        lines.join("\n")
    };
    if sorted(&before) == sorted(&after) {
        return Ok(());
    }
    Err(format!(
        "rebuilt as {}, not {}",
        shorten(&format!("{rebuilt:?}")),
        shorten(&format!("{original:?}"))
    ))
}

/// The probe a return value's form is chosen by:
/// `(&&&&&OutcomeProbe(&v)).outcome_form()`.
pub struct OutcomeProbe<'a, T: ?Sized>(pub &'a T);

/// First choice: a `Serialize` return value is carved as itself.
pub trait ViaSerialize {
    /// The form the value is carved in.
    fn outcome_form(&self) -> SerializeOutcome;
}

impl<T: Serialize + ?Sized> ViaSerialize for &&&&OutcomeProbe<'_, T> {
    fn outcome_form(&self) -> SerializeOutcome {
        SerializeOutcome
    }
}

/// Second choice: a value whose `Display` is what users read (an error, a
/// formatter) is carved as its text, beside its `{:#?}` text.
pub trait ViaDisplayDebug {
    /// The form the value is carved in.
    fn outcome_form(&self) -> DisplayOutcome<WithDebug>;
}

impl<T: Display + Debug + ?Sized> ViaDisplayDebug for &&&OutcomeProbe<'_, T> {
    fn outcome_form(&self) -> DisplayOutcome<WithDebug> {
        DisplayOutcome(PhantomData)
    }
}

/// Third choice: a `Display`-only value is carved as its text.
pub trait ViaDisplay {
    /// The form the value is carved in.
    fn outcome_form(&self) -> DisplayOutcome<WithoutDebug>;
}

impl<T: Display + ?Sized> ViaDisplay for &&OutcomeProbe<'_, T> {
    fn outcome_form(&self) -> DisplayOutcome<WithoutDebug> {
        DisplayOutcome(PhantomData)
    }
}

/// Fourth choice: a `Debug` return value is carved as its `{:#?}` text.
pub trait ViaDebug {
    /// The form the value is carved in.
    fn outcome_form(&self) -> DebugOutcome;
}

impl<T: Debug + ?Sized> ViaDebug for &OutcomeProbe<'_, T> {
    fn outcome_form(&self) -> DebugOutcome {
        DebugOutcome
    }
}

/// Last resort for return values (its `check` fails to compile).
pub trait ViaNeither<T: ?Sized> {
    /// The form the value is carved in.
    fn outcome_form(&self) -> UnsupportedOutcome<T>;
}

impl<T: ?Sized> ViaNeither<T> for OutcomeProbe<'_, T> {
    fn outcome_form(&self) -> UnsupportedOutcome<T> {
        UnsupportedOutcome(PhantomData)
    }
}

/// A `Serialize` return value.
pub struct SerializeOutcome;

impl SerializeOutcome {
    /// Compiles: the type is carvable.
    pub fn check(&self) {}

    /// Captures the value.
    pub fn capture<T: Serialize + ?Sized>(&self, value: &T) -> Result<Value, CaptureError> {
        Value::capture(value)
    }

    /// The value, captured (or keyed) when the recorder asks.
    pub fn defer<'a, T: Serialize + ?Sized>(&self, value: &'a T) -> SerdeArg<'a, T> {
        SerdeArg(value)
    }
}

/// A `Display` return value that is not `Serialize`, with its `Debug` text
/// when it has one ([`WithDebug`]).
pub struct DisplayOutcome<D>(PhantomData<D>);

/// The type is `Debug` too: its `{:#?}` text is stored beside its text.
pub struct WithDebug;

/// The type is not `Debug`: its text is all there is.
pub struct WithoutDebug;

impl<D> DisplayOutcome<D> {
    /// Compiles: the type is carvable.
    pub fn check(&self) {}
}

impl DisplayOutcome<WithDebug> {
    /// Captures the value's text and its `{:#?}` text.
    pub fn capture<T: Display + Debug + ?Sized>(&self, value: &T) -> Result<Value, CaptureError> {
        Ok(Value::display_text(value.to_string(), Some(format!("{value:#?}"))))
    }

    /// The value, captured (or keyed) when the recorder asks.
    pub fn defer<'a, T: Display + Debug + ?Sized>(&self, value: &'a T) -> DisplayArg<'a, T, WithDebug> {
        DisplayArg(value, PhantomData)
    }
}

impl DisplayOutcome<WithoutDebug> {
    /// Captures the value's text.
    pub fn capture<T: Display + ?Sized>(&self, value: &T) -> Result<Value, CaptureError> {
        Ok(Value::display_text(value.to_string(), None))
    }

    /// The value, captured (or keyed) when the recorder asks.
    pub fn defer<'a, T: Display + ?Sized>(&self, value: &'a T) -> DisplayArg<'a, T, WithoutDebug> {
        DisplayArg(value, PhantomData)
    }
}

/// A `Debug`-only return value.
pub struct DebugOutcome;

impl DebugOutcome {
    /// Compiles: the type is carvable.
    pub fn check(&self) {}

    /// Captures the value's `{:#?}` text.
    pub fn capture<T: Debug + ?Sized>(&self, value: &T) -> Result<Value, CaptureError> {
        Ok(Value::debug_text(format!("{value:#?}")))
    }

    /// The value, captured (or keyed) when the recorder asks.
    pub fn defer<'a, T: Debug + ?Sized>(&self, value: &'a T) -> DebugArg<'a, T> {
        DebugArg(value)
    }
}

/// A return value carve cannot carve.
pub struct UnsupportedOutcome<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> UnsupportedOutcome<T> {
    /// Fails to compile, with carve's message at the return type.
    pub fn check(&self)
    where
        T: CarvableOutcome,
    {
    }

    /// Never runs: the crate does not compile.
    pub fn capture<V: ?Sized>(&self, _value: &V) -> Result<Value, CaptureError> {
        Err(CaptureError("this type cannot be carved".into()))
    }

    /// Never runs: the crate does not compile.
    pub fn defer<V: ?Sized>(&self, value: &V) -> Result<Value, CaptureError> {
        self.capture(value)
    }
}

/// Whether a form is one carve stores values in. A method of an impl block
/// with no method marked is carved when every parameter's form and each
/// part of its return value's is; when one is not, the method is skipped
/// and named in the record run (where a function marked by hand is a
/// compile error at the type, see [`CarvableArg`]).
pub trait Carvable {
    /// What the type lacks, for the forms of types carve cannot carve
    /// (the skip line says ``parameter `s`: `Words` has neither …``).
    const LACKS: Option<&'static str> = None;
}

impl<T> Carvable for SerdeForm<T> {}
impl<T> Carvable for BorrowedSerdeForm<T> {}
impl<T> Carvable for TextForm<T> {}
impl<T> Carvable for BytesForm<T> {}
impl<T> Carvable for Unsupported<T, Neither> {
    const LACKS: Option<&'static str> = Some("has neither serde nor `Display + FromStr`");
}
impl<T> Carvable for Unsupported<T, MissingDeserialize> {
    const LACKS: Option<&'static str> =
        Some("is `Serialize` but not `DeserializeOwned` (a borrowed field?)");
}
impl Carvable for SerializeOutcome {}
impl<D> Carvable for DisplayOutcome<D> {}
impl Carvable for DebugOutcome {}
impl<T: ?Sized> Carvable for UnsupportedOutcome<T> {
    const LACKS: Option<&'static str> = Some("has neither serde, `Display` nor `Debug`");
}

/// What the type of the form `pick` picks lacks, if it is not
/// [`Carvable`]. `pick` is never called: its type says which form the probe
/// chose, for a parameter (`|()| <form>`) or a part of a return value
/// (`|v: &Part| (&&&&&OutcomeProbe(v)).outcome_form()`).
pub fn lacks<A, F: Carvable>(_pick: fn(A) -> F) -> Option<&'static str> {
    F::LACKS
}

/// An argument captured when the recorder asks, as its [`Value`] or
/// straight to the bytes of its key ([`key`](crate::value::key)): a call
/// that repeats one already carved is found by its key, and its values are
/// built only when the key is new. Each form's `defer` makes one.
pub trait Deferred {
    /// The value, as the form's `capture` makes it.
    fn value(self) -> Result<Value, CaptureError>;
    /// Appends [`key::encode`](crate::value::key::encode) of
    /// [`Deferred::value`] to `out`: `false` (with `out` as it was) when the
    /// key is made from the value instead.
    fn encode(&self, out: &mut Vec<u8>) -> bool;
}

/// A value captured already (`Ok`), or its capture's error.
impl Deferred for Result<Value, CaptureError> {
    fn value(self) -> Result<Value, CaptureError> {
        self
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        match self {
            Ok(value) => {
                crate::value::key::encode(value, out);
                true
            }
            Err(_) => false,
        }
    }
}

/// A serde argument, captured when asked ([`SerdeForm::defer`]).
pub struct SerdeArg<'a, V: ?Sized>(&'a V);

impl<V: Serialize + ?Sized> Deferred for SerdeArg<'_, V> {
    fn value(self) -> Result<Value, CaptureError> {
        Value::capture(self.0)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        crate::value::key::encode_serialize(self.0, out)
    }
}

/// An argument carved as its text, captured when asked ([`TextForm::defer`]).
pub struct TextArg<'a, V: ?Sized>(&'a V);

impl<V: Display + ?Sized> Deferred for TextArg<'_, V> {
    fn value(self) -> Result<Value, CaptureError> {
        Ok(Value::Str(self.0.to_string()))
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        crate::value::key::encode_display(self.0, out)
    }
}

/// A byte string argument, captured when asked ([`BytesForm::defer`]).
pub struct BytesArg<'a, V: ?Sized>(&'a V);

impl<V: AsRef<[u8]> + ?Sized> Deferred for BytesArg<'_, V> {
    fn value(self) -> Result<Value, CaptureError> {
        capture_bytes(self.0)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        crate::value::key::encode_byte_string(self.0.as_ref(), out);
        true
    }
}

/// A return value carved as its `Display` text (and its `{:#?}` text,
/// [`WithDebug`]), captured when asked ([`DisplayOutcome::defer`]).
pub struct DisplayArg<'a, V: ?Sized, D>(&'a V, PhantomData<D>);

impl<V: Display + Debug + ?Sized> Deferred for DisplayArg<'_, V, WithDebug> {
    fn value(self) -> Result<Value, CaptureError> {
        DisplayOutcome::<WithDebug>(PhantomData).capture(self.0)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        encode_display_text(self.0, Some(self.0), out)
    }
}

impl<V: Display + ?Sized> Deferred for DisplayArg<'_, V, WithoutDebug> {
    fn value(self) -> Result<Value, CaptureError> {
        DisplayOutcome::<WithoutDebug>(PhantomData).capture(self.0)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        encode_display_text(self.0, None::<&()>, out)
    }
}

/// [`key::encode`](crate::value::key::encode) of
/// [`Value::display_text`] of `value`'s text and `debug`'s `{:#?}` text.
fn encode_display_text<V: Display + ?Sized, D: Debug + ?Sized>(
    value: &V,
    debug: Option<&D>,
    out: &mut Vec<u8>,
) -> bool {
    use crate::value::key::{encode_bytes, encode_debug, encode_display, patch_len, start_struct};
    let start = out.len();
    let count_at = start_struct(crate::value::text::DISPLAY, out);
    encode_bytes(b"text", out);
    let mut whole = encode_display(value, out);
    if let (true, Some(debug)) = (whole, debug) {
        encode_bytes(b"debug", out);
        whole = encode_debug(debug, out);
    }
    if !whole {
        out.truncate(start);
        return false;
    }
    patch_len(out, count_at, 1 + u64::from(debug.is_some()));
    true
}

/// A return value carved as its `{:#?}` text, captured when asked
/// ([`DebugOutcome::defer`]).
pub struct DebugArg<'a, V: ?Sized>(&'a V);

impl<V: Debug + ?Sized> Deferred for DebugArg<'_, V> {
    fn value(self) -> Result<Value, CaptureError> {
        DebugOutcome.capture(self.0)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        crate::value::key::start_newtype_struct(crate::value::text::DEBUG, out);
        if !crate::value::key::encode_debug(self.0, out) {
            out.truncate(start);
            return false;
        }
        true
    }
}

/// A byte string returned, captured when asked: [`capture_bytes`]'s value.
pub fn defer_bytes<V: AsRef<[u8]> + ?Sized>(value: &V) -> BytesArg<'_, V> {
    BytesArg(value)
}

/// A returned `Result` whose `Ok` or `Err` value is captured when asked:
/// [`ok_variant`] or [`err_variant`] of it.
pub enum ResultParts<O, E> {
    /// `Ok(value)`.
    Ok(O),
    /// `Err(value)`.
    Err(E),
}

impl<O: Deferred, E: Deferred> Deferred for ResultParts<O, E> {
    fn value(self) -> Result<Value, CaptureError> {
        match self {
            ResultParts::Ok(value) => ok_variant(value.value()),
            ResultParts::Err(value) => err_variant(value.value()),
        }
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        let whole = match self {
            ResultParts::Ok(value) => {
                crate::value::key::start_newtype_variant("Result", "Ok", out);
                value.encode(out)
            }
            ResultParts::Err(value) => {
                crate::value::key::start_newtype_variant("Result", "Err", out);
                value.encode(out)
            }
        };
        if !whole {
            out.truncate(start);
        }
        whole
    }
}

/// A returned `Option` whose value is captured when asked: [`some_value`]
/// of it, or `Value::None`.
pub enum OptionParts<D> {
    /// `Some(value)`.
    Some(D),
    /// `None`.
    None,
}

impl<D: Deferred> Deferred for OptionParts<D> {
    fn value(self) -> Result<Value, CaptureError> {
        match self {
            OptionParts::Some(value) => some_value(value.value()),
            OptionParts::None => Ok(Value::None),
        }
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        match self {
            OptionParts::Some(value) => {
                let start = out.len();
                crate::value::key::start_some(out);
                let whole = value.encode(out);
                if !whole {
                    out.truncate(start);
                }
                whole
            }
            OptionParts::None => {
                crate::value::key::encode_none(out);
                true
            }
        }
    }
}

/// A returned tuple whose parts are captured when asked: [`tuple_value`]
/// of them. Tuples of up to 12 parts.
pub struct TupleParts<T>(pub T);

macro_rules! tuple_parts {
    ($($len:literal: $($part:ident $index:tt),*;)*) => {$(
        impl<$($part: Deferred),*> Deferred for TupleParts<($($part,)*)> {
            fn value(self) -> Result<Value, CaptureError> {
                tuple_value([$(self.0.$index.value()),*])
            }
            fn encode(&self, out: &mut Vec<u8>) -> bool {
                let start = out.len();
                crate::value::key::start_tuple($len, out);
                let whole = true $(&& self.0.$index.encode(out))*;
                if !whole {
                    out.truncate(start);
                }
                whole
            }
        }
    )*};
}

tuple_parts! {
    1: A 0;
    2: A 0, B 1;
    3: A 0, B 1, C 2;
    4: A 0, B 1, C 2, D 3;
    5: A 0, B 1, C 2, D 3, E 4;
    6: A 0, B 1, C 2, D 3, E 4, F 5;
    7: A 0, B 1, C 2, D 3, E 4, F 5, G 6;
    8: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7;
    9: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8;
    10: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9;
    11: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10;
    12: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11;
}

/// A byte string returned (`Vec<u8>`, `&[u8]`, `[u8; N]`), as RON bytes.
pub fn capture_bytes<V: AsRef<[u8]> + ?Sized>(value: &V) -> Result<Value, CaptureError> {
    Ok(Value::Bytes(value.as_ref().to_vec()))
}

/// `Ok(value)` of a `Result`, as serde writes it.
pub fn ok_variant(value: Result<Value, CaptureError>) -> Result<Value, CaptureError> {
    result_variant(0, "Ok", value)
}

/// `Err(value)` of a `Result`, as serde writes it.
pub fn err_variant(value: Result<Value, CaptureError>) -> Result<Value, CaptureError> {
    result_variant(1, "Err", value)
}

fn result_variant(
    index: u32,
    variant: &'static str,
    value: Result<Value, CaptureError>,
) -> Result<Value, CaptureError> {
    Ok(Value::NewtypeVariant {
        name: "Result",
        index,
        variant,
        value: Box::new(value?),
    })
}

/// `Some(value)`.
pub fn some_value(value: Result<Value, CaptureError>) -> Result<Value, CaptureError> {
    Ok(Value::Some(Box::new(value?)))
}

/// A tuple of captured parts.
pub fn tuple_value<const N: usize>(
    parts: [Result<Value, CaptureError>; N],
) -> Result<Value, CaptureError> {
    parts.into_iter().collect::<Result<_, _>>().map(Value::Tuple)
}

#[cfg(test)]
// The borrows are the probe: without them another form would be chosen.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Version(u32, u32);

    impl Display for Version {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{}.{}", self.0, self.1)
        }
    }

    impl FromStr for Version {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            let (a, b) = s.split_once('.').ok_or("no dot")?;
            Ok(Version(
                a.parse().map_err(|_| "major")?,
                b.parse().map_err(|_| "minor")?,
            ))
        }
    }

    #[derive(Serialize, Deserialize)]
    struct Both(u8);

    /// form_urlencoded 1.2.2's `Parse<'a> { input: &'a [u8] }` (serde writes
    /// the bytes as a sequence), with a borrowed string and an enum beside.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Parse<'a> {
        input: &'a [u8],
        name: &'a str,
        part: Option<Part<'a>>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Part<'a> {
        Key(&'a str),
        Pair { key: &'a str, value: &'a [u8] },
    }

    #[test]
    fn borrowed_bytes_written_as_a_sequence_and_escaped_strings_are_read_back() {
        let form = BorrowedSerdeForm::<Parse<'static>>(PhantomData);
        for value in [
            Parse { input: b"a=1&b", name: "plain", part: None },
            Parse { input: b"\xff\"\n", name: "quote \" and newline \n", part: Some(Part::Key("k\t")) },
            Parse { input: b"", name: "", part: Some(Part::Pair { key: "\u{e9}\"", value: b"\x00" }) },
        ] {
            let captured = form.capture(&value).unwrap();
            // A rebuild check (from a `Value`) and a replay (from a carve
            // file's text) both read it through `deserialize`.
            assert_eq!(form.deserialize(&captured).unwrap(), value);
            let text = crate::value::text::to_ron(&captured).unwrap();
            let mut de = ron::Deserializer::from_str(&text).unwrap();
            assert_eq!(form.deserialize(&mut de).unwrap(), value, "{text}");
        }
    }

    /// `Display` that fails (a formatter error), or writes its text.
    struct Shown(Option<&'static str>);

    impl Display for Shown {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.0 {
                Some(text) => f.write_str(text),
                None => Err(fmt::Error),
            }
        }
    }

    impl Debug for Shown {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_tuple("Shown").field(&self.0).finish()
        }
    }

    /// Each deferred part of a returned value keys as its `Value` does, or
    /// says it cannot (with the key left as it was).
    #[test]
    fn returned_values_deferred_key_as_their_values() {
        fn keys_as_value<D: Deferred>(make: impl Fn() -> D) {
            let (mut direct, mut via_value) = (vec![7], vec![7]);
            if make().encode(&mut direct) {
                let value = make().value().expect("a value keyed on the way is captured");
                crate::value::key::encode(&value, &mut via_value);
            }
            assert_eq!(direct, via_value);
        }
        let version = Version(1, 2);
        let shown = Shown(Some("text"));
        keys_as_value(|| SerializeOutcome.defer(&(1u8, "a", -0.0f64)));
        keys_as_value(|| DisplayOutcome::<WithDebug>(PhantomData).defer(&version));
        keys_as_value(|| DisplayOutcome::<WithoutDebug>(PhantomData).defer(&version));
        keys_as_value(|| DisplayOutcome::<WithDebug>(PhantomData).defer(&shown));
        keys_as_value(|| DebugOutcome.defer(&version));
        keys_as_value(|| defer_bytes(b"\x00\xff".as_slice()));
        let parts = || {
            TupleParts((
                ResultParts::<_, SerdeArg<'_, str>>::Ok(OptionParts::Some(DebugOutcome.defer(&version))),
                OptionParts::<SerdeArg<'_, u8>>::None,
                ResultParts::<SerdeArg<'_, u8>, _>::Err(SerializeOutcome.defer("e")),
                defer_bytes(&[1u8, 2][..]),
            ))
        };
        keys_as_value(parts);
        // A part that cannot be keyed on the way leaves the whole to its value.
        let map: std::collections::HashMap<u8, u8> = [(1, 2), (3, 4)].into();
        keys_as_value(|| TupleParts((SerializeOutcome.defer(&1u8), SerializeOutcome.defer(&map))));
        keys_as_value(|| ResultParts::<_, SerdeArg<'_, u8>>::Ok(SerializeOutcome.defer(&map)));
        let mut out = vec![1, 2];
        assert!(!TupleParts((SerializeOutcome.defer(&1u8), SerializeOutcome.defer(&map))).encode(&mut out));
        assert!(!OptionParts::Some(SerializeOutcome.defer(&map)).encode(&mut out));
        // A `Display` that fails: not keyed (its capture panics, as
        // `to_string` does).
        let failing = Shown(None);
        assert!(!DisplayOutcome::<WithDebug>(PhantomData).defer(&failing).encode(&mut out));
        assert!(!DisplayOutcome::<WithoutDebug>(PhantomData).defer(&failing).encode(&mut out));
        assert_eq!(out, [1, 2]);
    }

    struct Opaque;

    #[test]
    fn arguments_are_carved_as_serde_then_as_text() {
        let serde_form = (&&&&ArgProbe::<Both>::new()).arg_form();
        assert_eq!(
            serde_form.capture(&Both(3)).unwrap(),
            Value::NewtypeStruct("Both", Box::new(Value::U64(3)))
        );
        let text = (&&&&ArgProbe::<Version>::new()).arg_form();
        assert_eq!(
            text.capture(&Version(1, 2)).unwrap(),
            Value::Str("1.2".into())
        );
        let parsed = text.deserialize(&Value::Str("3.4".into())).unwrap();
        assert_eq!(parsed, Version(3, 4));
        let err = text.deserialize(&Value::Str("3".into())).err().unwrap();
        assert!(err.to_string().contains("`3` does not parse as"), "{err}");
        let none = (&&&&ArgProbe::<Opaque>::new()).arg_form();
        assert!(none.capture(&Opaque).is_err());
    }

    #[test]
    fn return_values_are_carved_as_serde_then_display_then_debug_text() {
        let value = vec![1u8];
        let form = (&&&&&OutcomeProbe(&value)).outcome_form();
        assert_eq!(form.capture(&value).unwrap(), Value::capture(&value).unwrap());
        let version = Version(1, 2);
        let form = (&&&&&OutcomeProbe(&version)).outcome_form();
        assert_eq!(
            form.capture(&version).unwrap(),
            Value::display_text("1.2".into(), Some("Version(\n    1,\n    2,\n)".into()))
        );
        struct Shown;
        impl Display for Shown {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("shown")
            }
        }
        let form = (&&&&&OutcomeProbe(&Shown)).outcome_form();
        assert_eq!(
            form.capture(&Shown).unwrap(),
            Value::display_text("shown".into(), None)
        );
        #[derive(Debug)]
        struct Dumped(#[allow(dead_code)] u8);
        let form = (&&&&&OutcomeProbe(&Dumped(1))).outcome_form();
        assert_eq!(
            form.capture(&Dumped(1)).unwrap(),
            Value::debug_text("Dumped(\n    1,\n)".into())
        );
    }

    #[test]
    fn a_rebuilt_value_is_the_same_by_debug_in_any_line_order_else_by_its_form() {
        let original = Version(1, 2);
        let same = |rebuilt: &Version| {
            (&&SameProbe(&original, rebuilt)).same(|_| unreachable!(), &Value::Unit)
        };
        assert_eq!(same(&Version(1, 2)), Ok(()));
        assert_eq!(
            same(&Version(1, 3)),
            Err("rebuilt as Version(1, 3), not Version(1, 2)".into())
        );
        // Hash maps print their entries in an order of their own.
        let map: std::collections::HashMap<u32, u32> = (0..20).map(|i| (i, i)).collect();
        let rebuilt: std::collections::HashMap<u32, u32> = (0..20).rev().map(|i| (i, i)).collect();
        let same_map = (&&SameProbe(&map, &rebuilt)).same(|_| unreachable!(), &Value::Unit);
        assert_eq!(same_map, Ok(()));
        // Without `Debug`, the rebuilt value is written again and compared.
        let written = Value::Str("a".into());
        let by_form = |rebuilt: &Opaque, text: &str| {
            let again = Value::Str(text.into());
            (&&SameProbe(&Opaque, rebuilt)).same(|_| Ok(again), &written)
        };
        assert_eq!(by_form(&Opaque, "a"), Ok(()));
        assert_eq!(
            by_form(&Opaque, "b"),
            Err("rebuilt, it is written \"b\"".into())
        );
    }

    /// url 2.5.8: a `Url` that `set_query` is rewriting, as a nested
    /// `self.scheme()` receives it, panics in its `Debug` (its query offset
    /// lies past its cut text); the rebuilt value is whole.
    #[derive(PartialEq)]
    struct HalfWritten(bool);

    impl Debug for HalfWritten {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let text = b"https://a/b";
            let end = if self.0 { text.len() } else { text.len() + 1 };
            f.write_str(&String::from_utf8_lossy(&text[..end]))
        }
    }

    #[test]
    fn an_original_whose_debug_panics_is_said_as_such_not_as_a_rebuild_that_panicked() {
        let same = (&&SameProbe(&HalfWritten(false), &HalfWritten(true))).same(|_| unreachable!(), &Value::Unit);
        let reason = same.unwrap_err();
        assert!(
            reason.starts_with("its `Debug` panicked on the value the call received (range end index 12 out of range"),
            "{reason}"
        );
        assert!(reason.ends_with("so it cannot be compared with the value rebuilt from its carved form"), "{reason}");
        // Whole values compare as before.
        let whole = (&&SameProbe(&HalfWritten(true), &HalfWritten(true))).same(|_| unreachable!(), &Value::Unit);
        assert_eq!(whole, Ok(()));
    }

    #[test]
    fn results_captured_side_by_side_match_serde() {
        let ok: Result<(u8, Option<&str>), ()> = Ok((1, Some("a")));
        let parts = ok_variant(tuple_value([
            Value::capture(&1u8),
            some_value(Value::capture("a")),
        ]));
        assert_eq!(parts.unwrap(), Value::capture(&ok).unwrap());
        let err: Result<(), u8> = Err(2);
        let parts = err_variant(Value::capture(&2u8));
        assert_eq!(parts.unwrap(), Value::capture(&err).unwrap());
    }

    #[test]
    fn byte_strings_read_bytes_and_old_integer_sequences() {
        let form = BytesForm::<[u8; 2]>::new();
        let from_bytes = form.deserialize(&Value::Bytes(vec![1, 2])).unwrap();
        assert_eq!(from_bytes, [1, 2]);
        let mut de = ron::Deserializer::from_str("[1, 2]").unwrap();
        assert_eq!(form.deserialize(&mut de).unwrap(), [1, 2]);
        let err = form.deserialize(&Value::Bytes(vec![1])).err().unwrap();
        assert_eq!(err.to_string(), "expected 2 bytes, found 1");
        assert_eq!(
            BytesForm::<Vec<u8>>::new().capture(&b"GET"[..]).unwrap(),
            Value::Bytes(b"GET".to_vec())
        );
    }
}
