//! Tracing the shapes of a target's parameter types ([`crate::value::types`])
//! from their `Deserialize` implementations.
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
//! use carve::value::tracer::trace;
//! use carve::value::types::{IntKind, ParamType, ParamTypes, Ty};
//!
//! #[derive(serde::Deserialize)]
//! #[allow(dead_code)]
//! enum Op { Add(u8), Neg }
//!
//! let mut types = ParamTypes::default();
//! types.param("op", trace::<Op>());
//! types.param("n", trace::<i16>());
//! assert_eq!(types.get("n"), Some(&ParamType::Typed(Ty::Int(IntKind::I16))));
//! let op = types.container("Op").unwrap();
//! assert!(format!("{op:?}").contains("Neg"), "every variant, carved or not");
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::panics::quietly;
use crate::value::types::{Container, IntKind, ParamType, PayloadTy, Traced, Ty, VariantTy};

/// Traces `T`'s `Deserialize`. Never panics: a panic in a user's
/// `Deserialize` while tracing, like a type that cannot be traced, gives
/// [`ParamType::Untraced`].
pub fn trace<T: Deserialize<'static>>() -> Traced {
    let traced = quietly(|| catch_unwind(AssertUnwindSafe(trace_unguarded::<T>)));
    match traced {
        // Read from a string that refuses the samples, at the top.
        Ok(Ok(Traced {
            ty: ParamType::Typed(Ty::Text(_)),
            ..
        })) => Traced::plain(ParamType::Text {
            parses: parses_as::<T>,
        }),
        Ok(Ok(traced)) => traced,
        // A type read from a string that rejects the samples (`""`, `"a"`)
        // parses its text: a version, an address, a date with serde
        // support. It is text, as a `Display + FromStr` type is, and its
        // `Deserialize` tells which strings parse.
        Ok(Err(_)) if reads_a_string::<T>() => Traced::plain(ParamType::Text {
            parses: parses_as::<T>,
        }),
        Ok(Err(why)) => Traced::plain(ParamType::Untraced(why)),
        Err(_) => Traced::plain(ParamType::Untraced(
            "its `Deserialize` panicked while it was traced".into(),
        )),
    }
}

/// Whether `T`'s `Deserialize` starts by asking for a string.
fn reads_a_string<T: Deserialize<'static>>() -> bool {
    let mut asked = false;
    let _ = quietly(|| {
        catch_unwind(AssertUnwindSafe(|| {
            T::deserialize(FirstRequest { string: &mut asked })
        }))
    });
    asked
}

/// Whether `text` deserializes into `T` as a string.
fn parses_as<T: Deserialize<'static>>(text: &str) -> bool {
    use serde::de::IntoDeserializer;
    // An owned copy: a type that borrows (see `form::BorrowedSerdeForm`)
    // reads from no text shorter-lived than the program.
    let deserializer: serde::de::value::StringDeserializer<serde::de::value::Error> =
        text.to_owned().into_deserializer();
    quietly(|| catch_unwind(AssertUnwindSafe(|| T::deserialize(deserializer).is_ok())))
        .unwrap_or(false)
}

/// A deserializer that notes whether the first thing asked of it is a
/// string, and gives nothing.
struct FirstRequest<'a> {
    string: &'a mut bool,
}

impl<'de> Deserializer<'de> for FirstRequest<'_> {
    type Error = TraceError;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, TraceError> {
        Err(TraceError("not a string".into()))
    }

    fn deserialize_str<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, TraceError> {
        *self.string = true;
        Err(TraceError("asked for a string".into()))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

/// Deserializations of a type before giving up (each explores at least
/// one more enum variant).
const MAX_TRACES: usize = 4096;
/// Nesting at which a trace stops: a recursive type whose every variant
/// recurses has no finite value.
const MAX_DEPTH: usize = 128;

fn trace_unguarded<T: Deserialize<'static>>() -> Result<Traced, String> {
    // A `Deserialize` that rejects the first sample values (a `NonZeroU32`
    // rejects 0) may accept the second.
    let mut first_error = None;
    for sample in [Sample::Zero, Sample::One] {
        match trace_with::<T>(sample, false) {
            Ok(traced) => return Ok(traced),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // Last, with the strings that refuse the samples taken as text: a type
    // that holds an address (`Vec<Ipv4Addr>`, a struct with one) is traced
    // around it.
    match trace_with::<T>(Sample::Zero, true) {
        Ok(traced) => Ok(traced),
        Err(_) => Err(first_error.unwrap_or_default()),
    }
}

/// The values the tracer hands to visitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sample {
    /// `0`, `""`, `'a'`, `false`.
    Zero,
    /// `1`, `"a"`, `'a'`, `true`.
    One,
}

/// Traces `T` with `sample` values. With `texts`, a string whose visitor
/// refuses the sample is a [`Ty::Text`] (an address inside a struct), and
/// a deserialization it ends counts as long as it teaches something new:
/// the next one skips the struct fields known to be text, and the trace is
/// done when every part but those texts is known.
fn trace_with<T: Deserialize<'static>>(sample: Sample, texts: bool) -> Result<Traced, String> {
    let mut tracer = Tracer {
        sample,
        containers: BTreeMap::new(),
        stack: Vec::new(),
        tracing: Vec::new(),
        passing: Vec::new(),
        texts: texts.then(Texts::default),
    };
    let mut ty = None;
    let done = |tracer: Tracer, ty: Option<Ty>| -> Result<Traced, String> {
        let ty = ty.ok_or("the type asked for nothing")?;
        Ok(Traced {
            ty: ParamType::Typed(ty),
            containers: tracer.finish()?,
            check: None,
        })
    };
    for _ in 0..MAX_TRACES {
        let mut slot = None;
        // A deserialization a text ended left its way down on the stacks.
        tracer.stack.clear();
        tracer.tracing.clear();
        tracer.passing.clear();
        let learnt = tracer.learnt();
        if let Some(texts) = &mut tracer.texts {
            texts.met = false;
        }
        let result = T::deserialize(Probe {
            tracer: &mut tracer,
            slot: &mut slot,
            record: true,
            depth: 0,
        });
        ty = ty.or(slot);
        match result {
            Ok(_) if tracer.incomplete().is_none() => return done(tracer, ty),
            Ok(_) => {}
            Err(e) => {
                let met = tracer.texts.as_ref().is_some_and(|t| t.met);
                if met && tracer.incomplete().is_none() && ty.as_ref().is_some_and(|t| tracer.known(t)) {
                    return done(tracer, ty);
                }
                if !met || tracer.learnt() == learnt {
                    return Err(e.0);
                }
            }
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
    /// Enum variants taken, not traced, on the way down from the variant
    /// being traced: inside them, another variant is taken, so that a
    /// recursion through several variants (`Add(Box<Ast>, Box<Ast>)`,
    /// `Neg(Box<Ast>)`, then `Lit(i32)`) reaches the one that ends.
    passing: Vec<(&'static str, usize)>,
    /// When strings that refuse the samples are taken as text: what is
    /// known of them.
    texts: Option<Texts>,
}

/// The text-form values met while tracing.
#[derive(Debug, Default)]
struct Texts {
    /// Fields known to be text: of struct `name` (variant `None`) or of
    /// struct variant `Some(i)` of enum `name`, by field index.
    fields: BTreeMap<(&'static str, Option<usize>, usize), Ty>,
    /// Whether the current deserialization met a text (refused, or skipped).
    met: bool,
    /// Types met as text where nothing can be skipped (an element of a
    /// tuple or tuple struct, a map's key), by the name of what their
    /// `Deserialize` makes: the next deserialization reads them in their
    /// other form (see [`Tracer::past_text`]).
    types: BTreeSet<&'static str>,
    /// Inside such a type: what is read is not recorded, and the
    /// deserializer is not human-readable (an address reads its bytes).
    unreadable: usize,
}

impl Tracer {
    /// How much is known: more after a deserialization that taught
    /// something.
    fn learnt(&self) -> usize {
        let variants: usize = self
            .containers
            .values()
            .map(|c| match c {
                Partial::Enum(_, traced) => traced.len(),
                Partial::Done(_) => 0,
            })
            .sum();
        self.containers.len() + variants + self.texts.as_ref().map_or(0, |t| t.fields.len() + t.types.len())
    }

    /// Whether every named type `ty` holds is traced (when a text ended a
    /// deserialization, some may not be).
    fn known(&self, ty: &Ty) -> bool {
        fn walk(tracer: &Tracer, ty: &Ty, seen: &mut Vec<&'static str>) -> bool {
            let payload = |p: &PayloadTy, seen: &mut Vec<&'static str>| match p {
                PayloadTy::Unit => true,
                PayloadTy::Newtype(t) => walk(tracer, t, seen),
                PayloadTy::Tuple(ts) => ts.iter().all(|t| walk(tracer, t, seen)),
                PayloadTy::Struct(fs) => fs.iter().all(|(_, t)| walk(tracer, t, seen)),
            };
            match ty {
                Ty::Named(name) if seen.contains(name) => true,
                Ty::Named(name) => {
                    seen.push(name);
                    match tracer.containers.get(name) {
                        None => false,
                        Some(Partial::Enum(_, traced)) => traced.values().all(|p| payload(p, seen)),
                        Some(Partial::Done(c)) => match c {
                            Container::UnitStruct => true,
                            Container::Newtype(t) => walk(tracer, t, seen),
                            Container::TupleStruct(ts) => ts.iter().all(|t| walk(tracer, t, seen)),
                            Container::Struct(fs) => fs.iter().all(|(_, t)| walk(tracer, t, seen)),
                            Container::Enum(vs) => vs.iter().all(|v| payload(&v.payload, seen)),
                        },
                    }
                }
                Ty::Option(t) | Ty::Seq(t) => walk(tracer, t, seen),
                Ty::Map(k, v) => walk(tracer, k, seen) && walk(tracer, v, seen),
                Ty::Tuple(ts) => ts.iter().all(|t| walk(tracer, t, seen)),
                _ => true,
            }
        }
        walk(self, ty, &mut Vec::new())
    }

    /// The fields of struct `name` (or of its struct variant `variant`)
    /// known to be text, in `slots`; which to skip.
    fn text_fields(&self, name: &'static str, variant: Option<usize>, slots: &mut [Option<Ty>]) -> Vec<bool> {
        let mut skip = vec![false; slots.len()];
        if let Some(texts) = &self.texts {
            for (i, slot) in slots.iter_mut().enumerate() {
                if let Some(ty) = texts.fields.get(&(name, variant, i)) {
                    *slot = Some(ty.clone());
                    skip[i] = true;
                }
            }
        }
        skip
    }

    /// Notes the fields of struct `name` (or of its struct variant
    /// `variant`) that `slots` show to be text; a deserialization that
    /// skipped some met a text.
    fn note_text_fields(&mut self, name: &'static str, variant: Option<usize>, slots: &[Option<Ty>], skipped: &[bool]) {
        let Some(texts) = &mut self.texts else {
            return;
        };
        texts.met |= skipped.contains(&true);
        for (i, slot) in slots.iter().enumerate() {
            if let Some(ty @ Ty::Text(_)) = slot {
                texts.fields.entry((name, variant, i)).or_insert_with(|| ty.clone());
            }
        }
    }

    /// Deserializes `seed` into `slot`, where nothing can be skipped (an
    /// element of a tuple, a map's key). A type met as text there before
    /// is [`Ty::Text`] and is read in the form it takes when the data is
    /// not human-readable (an address from its bytes, ipnet's `IpNet` from
    /// an enum), unrecorded, so that what follows it is traced; a text
    /// that refuses the samples here is noted for the next deserialization.
    fn past_text<'de, T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
        slot: &mut Option<Ty>,
        record: bool,
        depth: usize,
    ) -> Result<T::Value, TraceError> {
        let name = std::any::type_name::<T::Value>();
        let known = self.texts.as_ref().is_some_and(|t| t.types.contains(name));
        if !known {
            let value = seed.deserialize(Probe {
                tracer: &mut *self,
                slot: &mut *slot,
                record,
                depth,
            });
            if let (Err(_), Some(Ty::Text(_)), Some(texts)) = (&value, &*slot, &mut self.texts) {
                texts.types.insert(name);
            }
            return value;
        }
        // Also where nothing is recorded (inside a recursion), the text
        // would end the deserialization.
        if record && slot.is_none() {
            *slot = Some(Ty::Text(name));
        }
        if let Some(texts) = &mut self.texts {
            texts.met = true;
            texts.unreadable += 1;
        }
        let value = seed.deserialize(Probe {
            tracer: &mut *self,
            slot: &mut None,
            record: false,
            depth,
        });
        if let Some(texts) = &mut self.texts {
            texts.unreadable -= 1;
        }
        value
    }

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

    /// Whether `ty` holds an enum with variants left to trace, or (tracing
    /// around texts) a named type not known yet.
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
                    // A struct a text ended before it was known (a variant's
                    // range of two addresses): the next deserialization
                    // goes there again, past the fields known to be text.
                    // One being deserialized now is on its way.
                    None => self.texts.is_some() && !self.stack.contains(name),
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
        // Else a variant not known to recurse: neither one being traced nor
        // one this recursion passed through already.
        let other = (0..variants.len()).find(|i| {
            !is_traced(*i)
                && !self.tracing.contains(&(name, *i))
                && !self.passing.contains(&(name, *i))
        });
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
        // Borrowed (the samples are `'static`): a `&'a str` field takes
        // only these; any other visitor reads them as `visit_str`.
        let value = visitor.visit_borrowed_str(if self.tracer.sample == Sample::One { "a" } else { "" });
        match (&value, &mut self.tracer.texts) {
            // It parses its text (an address): text, named by what it makes.
            (Err(_), Some(texts)) if self.record => {
                texts.met = true;
                self.put(Ty::Text(std::any::type_name::<V::Value>()));
            }
            _ => self.put(Ty::Str),
        }
        value
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.put(Ty::Bytes(None));
        // Borrowed, as strings are: a `&'a [u8]` field (form_urlencoded's
        // `Parse<'a> { input: &'a [u8] }`) takes only these.
        visitor.visit_borrowed_bytes(if self.tracer.sample == Sample::One { b"a" } else { b"" })
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        if !self.record {
            return visitor.visit_none();
        }
        let mut inner = None;
        // What a text that ended the deserialization shows is kept.
        let value = visitor.visit_some(self.child(&mut inner, true)?);
        if let Some(inner) = inner {
            self.put(Ty::Option(Box::new(inner)));
        }
        value
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
        let value = visitor.visit_newtype_struct(self.child(&mut inner, fresh)?);
        let container = inner.map(Container::Newtype);
        self.leave(name, fresh, container);
        value
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = if self.record { vec![None] } else { Vec::new() };
        let value = self.seq(&mut slots, true, visitor);
        if let Some(Some(item)) = slots.pop() {
            self.put(Ty::Seq(Box::new(item)));
        }
        value
    }

    fn deserialize_tuple<V: Visitor<'de>>(mut self, len: usize, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; len];
        let value = self.seq(&mut slots, true, visitor);
        if self.record {
            match all_known(slots) {
                Ok(tys) => self.put(Ty::Tuple(tys)),
                // A text that ended it left the rest unknown.
                Err(e) => return value.and(Err(e)),
            }
        }
        value
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        let mut slots = vec![None; len];
        let value = self.seq(&mut slots, fresh, visitor);
        let container = if fresh {
            match all_known(slots) {
                Ok(tys) => Some(Container::TupleStruct(tys)),
                Err(e) => return value.and(Err(e)),
            }
        } else {
            None
        };
        self.leave(name, fresh, container);
        value
    }

    fn deserialize_map<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        let record = self.record;
        let mut slots = if record { vec![None, None] } else { Vec::new() };
        let (tracer, record, depth) = self.descend(true)?;
        let value = visitor.visit_map(Entries {
            tracer,
            slots: &mut slots,
            keys: None,
            skip: Vec::new(),
            next: 0,
            record,
            depth,
        });
        if let [Some(k), Some(v)] = &slots[..] {
            self.put(Ty::Map(Box::new(k.clone()), Box::new(v.clone())));
        }
        value
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let fresh = self.enter(name);
        let mut slots = vec![None; fields.len()];
        // Fields known to be text are not given: the struct then misses
        // them, after the others are traced.
        let skip = self.tracer.text_fields(name, None, &mut slots);
        let (tracer, record, depth) = self.descend(fresh)?;
        let value = visitor.visit_map(Entries {
            tracer,
            slots: &mut slots,
            keys: Some(fields),
            skip: skip.clone(),
            next: 0,
            record,
            depth,
        });
        if fresh {
            self.tracer.note_text_fields(name, None, &slots, &skip);
        }
        let container = if fresh {
            match all_known(slots) {
                Ok(tys) => Some(Container::Struct(fields.iter().copied().zip(tys).collect())),
                Err(e) => return value.and(Err(e)),
            }
        } else {
            None
        };
        self.leave(name, fresh, container);
        value
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
        } else {
            self.tracer.passing.push((name, index));
        }
        // An error ends the whole trace (its tracer is dropped), so the
        // stacks need no popping on the way out.
        let (tracer, record, depth) = self.descend(fresh)?;
        let value = visitor.visit_enum(Variant {
            tracer,
            enum_name: name,
            index,
            name: variants[index],
            payload: &mut payload,
            record,
            depth,
        });
        if fresh {
            self.tracer.tracing.pop();
        } else {
            self.tracer.passing.pop();
        }
        // A text that ended the payload's deserialization may have shown
        // it whole: it is kept.
        if value.is_err() && payload.is_none() {
            return value;
        }
        if fresh {
            self.tracer.stack.pop();
            if let (Some(payload), Some(Partial::Enum(_, traced))) =
                (payload, self.tracer.containers.get_mut(name))
            {
                traced.entry(index).or_insert(payload);
            }
        }
        value
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    /// Like RON and carve's values: a version or an address deserializes
    /// from its text (but see [`Tracer::past_text`]).
    fn is_human_readable(&self) -> bool {
        self.tracer.texts.as_ref().is_none_or(|t| t.unreadable == 0)
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
        self.tracer.past_text(seed, slot, self.record, self.depth).map(Some)
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
    /// The fields not given (known to be text), by index.
    skip: Vec<bool>,
    next: usize,
    record: bool,
    depth: usize,
}

impl Entries<'_> {
    /// The next field to give: past those skipped.
    fn skip_known(&mut self) -> usize {
        while self.skip.get(self.next) == Some(&true) {
            self.next += 1;
        }
        self.next
    }
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = TraceError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceError> {
        match self.keys {
            Some(keys) => match keys.get(self.skip_known()) {
                Some(key) => seed.deserialize(Name(key)).map(Some),
                None => Ok(None),
            },
            None if self.next == 0 && self.slots.len() == 2 => {
                let (key, _) = self.slots.split_at_mut(1);
                self.tracer.past_text(seed, &mut key[0], self.record, self.depth).map(Some)
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
    /// The enum's name and the variant's index.
    enum_name: &'static str,
    index: usize,
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
        });
        *self.payload = inner.map(PayloadTy::Newtype);
        value
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; len];
        let value = visitor.visit_seq(Elements {
            tracer: self.tracer,
            slots: &mut slots,
            next: 0,
            record: self.record,
            depth: self.depth,
        });
        if self.record {
            match all_known(slots) {
                Ok(tys) => *self.payload = Some(PayloadTy::Tuple(tys)),
                Err(e) => return value.and(Err(e)),
            }
        }
        value
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let mut slots = vec![None; fields.len()];
        let skip = self.tracer.text_fields(self.enum_name, Some(self.index), &mut slots);
        let value = visitor.visit_map(Entries {
            tracer: &mut *self.tracer,
            slots: &mut slots,
            keys: Some(fields),
            skip: skip.clone(),
            next: 0,
            record: self.record,
            depth: self.depth,
        });
        if self.record {
            self.tracer.note_text_fields(self.enum_name, Some(self.index), &slots, &skip);
            match all_known(slots) {
                Ok(tys) => *self.payload = Some(PayloadTy::Struct(fields.iter().copied().zip(tys).collect())),
                Err(e) => return value.and(Err(e)),
            }
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::types::ParamTypes;
    use crate::value::Value;
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
    fn a_type_read_from_a_string_that_rejects_the_samples_is_text() {
        // serde's `Ipv4Addr` reads a string and parses it.
        let ParamType::Text { parses } = trace::<std::net::Ipv4Addr>().ty else {
            panic!("{:?}", trace::<std::net::Ipv4Addr>().ty);
        };
        assert!(parses("127.0.0.1"));
        assert!(!parses("") && !parses("127.0.0") && !parses("a"));
        // A string that takes any text stays a string.
        assert_eq!(trace::<String>().ty, ParamType::Typed(Ty::Str));
        // A type that rejects the samples without asking for a string stays
        // untraced.
        assert!(matches!(trace::<std::num::NonZeroU8>().ty, ParamType::Typed(_)));
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Subnets {
        start: std::net::Ipv4Addr,
        end: std::net::Ipv4Addr,
        len: u8,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Route {
        Via(std::net::IpAddr),
        Pair { from: std::net::Ipv4Addr, hops: Option<u8> },
        Direct,
    }

    #[test]
    fn texts_inside_values_trace_as_text() {
        // ipnet's `aggregate(&Vec<IpNet>)` and `Ipv4Subnets { start: Ipv4Addr, … }`:
        // an address inside a sequence, an option or a struct is text, and
        // the rest of the type is traced around it.
        let addr = Ty::Text(std::any::type_name::<std::net::Ipv4Addr>());
        for (traced, expected) in [
            (trace::<Vec<std::net::Ipv4Addr>>(), Ty::Seq(Box::new(addr.clone()))),
            (trace::<Option<std::net::Ipv4Addr>>(), Ty::Option(Box::new(addr.clone()))),
            (trace::<(u8, std::net::Ipv4Addr)>(), Ty::Tuple(vec![Ty::Int(IntKind::U8), addr.clone()])),
        ] {
            assert!(traced.holds_text());
            assert_eq!(traced.ty, ParamType::Typed(expected));
        }
        let traced = trace::<Vec<Subnets>>();
        assert!(traced.holds_text());
        let types = types_of(traced);
        assert_eq!(types.get("p"), Some(&ParamType::Typed(Ty::Seq(Box::new(Ty::Named("Subnets"))))));
        assert_eq!(
            types.container("Subnets"),
            Some(&Container::Struct(vec![
                ("start", addr.clone()),
                ("end", addr.clone()),
                ("len", Ty::Int(IntKind::U8)),
            ]))
        );
        // Every variant of an enum around texts, a struct variant's fields
        // after its text too.
        let types = types_of(trace::<Route>());
        let Some(Container::Enum(variants)) = types.container("Route") else {
            panic!("Route is an enum: {:?}", types.container("Route"));
        };
        let payloads: Vec<&PayloadTy> = variants.iter().map(|v| &v.payload).collect();
        assert_eq!(
            payloads,
            [
                &PayloadTy::Newtype(Ty::Text(std::any::type_name::<std::net::IpAddr>())),
                &PayloadTy::Struct(vec![
                    ("from", addr.clone()),
                    ("hops", Ty::Option(Box::new(Ty::Int(IntKind::U8)))),
                ]),
                &PayloadTy::Unit,
            ]
        );
        // Values fit with their texts as strings (which parse is the
        // parameter's check: see `form`).
        assert!(types.fits(
            &Ty::Named("Route"),
            &Value::StructVariant {
                name: "Route",
                index: 1,
                variant: "Pair",
                fields: vec![("from", Value::Str("10.0.0.1".into())), ("hops", Value::None)],
            }
        ));
        // A text at the top stays a text parameter, and types without text
        // trace as before.
        assert!(matches!(trace::<std::net::Ipv4Addr>().ty, ParamType::Text { .. }));
        assert!(!trace::<Date>().holds_text());
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Hop(std::net::Ipv4Addr, u16);

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Link {
        Via(std::net::IpAddr, u8),
        Down,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Chain {
        End((std::net::Ipv4Addr, u8)),
        Link(Box<Chain>, u8),
    }

    /// A text that reads only its string, human-readable or not.
    struct Word;
    impl<'de> Deserialize<'de> for Word {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Letters;
            impl Visitor<'_> for Letters {
                type Value = Word;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a word of two letters or more")
                }
                fn visit_str<E: de::Error>(self, s: &str) -> Result<Word, E> {
                    match s.len() > 1 {
                        true => Ok(Word),
                        false => Err(E::custom("a word has two letters")),
                    }
                }
            }
            d.deserialize_str(Letters)
        }
    }

    #[test]
    fn texts_followed_by_more_elements_and_map_keys_trace_as_text() {
        // An address and a port, two addresses, maps keyed by an address:
        // the text refused the samples and ended the tuple before what
        // follows it was known, so the parameter was untraced.
        let v4 = Ty::Text(std::any::type_name::<std::net::Ipv4Addr>());
        let ip = Ty::Text(std::any::type_name::<std::net::IpAddr>());
        for (traced, expected) in [
            (trace::<(std::net::Ipv4Addr, u8)>(), Ty::Tuple(vec![v4.clone(), Ty::Int(IntKind::U8)])),
            (trace::<[std::net::Ipv4Addr; 2]>(), Ty::Tuple(vec![v4.clone(), v4.clone()])),
            (
                trace::<BTreeMap<std::net::Ipv4Addr, u16>>(),
                Ty::Map(Box::new(v4.clone()), Box::new(Ty::Int(IntKind::U16))),
            ),
            (
                trace::<std::collections::HashMap<std::net::IpAddr, Vec<(std::net::Ipv4Addr, bool)>>>(),
                Ty::Map(
                    Box::new(ip.clone()),
                    Box::new(Ty::Seq(Box::new(Ty::Tuple(vec![v4.clone(), Ty::Bool])))),
                ),
            ),
        ] {
            assert!(traced.holds_text());
            assert_eq!(traced.ty, ParamType::Typed(expected));
        }
        // A tuple struct and a tuple variant, the rest of the type around them.
        let types = types_of(trace::<Vec<Hop>>());
        assert_eq!(
            types.container("Hop"),
            Some(&Container::TupleStruct(vec![v4.clone(), Ty::Int(IntKind::U16)]))
        );
        let types = types_of(trace::<Link>());
        let Some(Container::Enum(variants)) = types.container("Link") else {
            panic!("Link is an enum: {:?}", types.container("Link"));
        };
        let payloads: Vec<&PayloadTy> = variants.iter().map(|v| &v.payload).collect();
        assert_eq!(
            payloads,
            [&PayloadTy::Tuple(vec![ip.clone(), Ty::Int(IntKind::U8)]), &PayloadTy::Unit]
        );
        // Inside a recursion too, where nothing is recorded.
        let types = types_of(trace::<Chain>());
        let Some(Container::Enum(variants)) = types.container("Chain") else {
            panic!("Chain is an enum: {:?}", types.container("Chain"));
        };
        let payloads: Vec<&PayloadTy> = variants.iter().map(|v| &v.payload).collect();
        assert_eq!(
            payloads,
            [
                &PayloadTy::Newtype(Ty::Tuple(vec![v4.clone(), Ty::Int(IntKind::U8)])),
                &PayloadTy::Tuple(vec![
                    Ty::Named("Chain"),
                    Ty::Int(IntKind::U8)
                ]),
            ]
        );
        // Values fit with their texts as strings.
        assert!(types_of(trace::<(std::net::Ipv4Addr, u8)>()).fits(
            &Ty::Tuple(vec![v4.clone(), Ty::Int(IntKind::U8)]),
            &Value::Tuple(vec![Value::Str("10.0.0.1".into()), Value::U64(8)])
        ));
        // A text with no other form than its string stays untraced before
        // more elements (at the end, it is text as before).
        assert!(matches!(trace::<(Word, u8)>().ty, ParamType::Untraced(_)));
        assert_eq!(
            trace::<(u8, Word)>().ty,
            ParamType::Typed(Ty::Tuple(vec![Ty::Int(IntKind::U8), Ty::Text(std::any::type_name::<Word>())]))
        );
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

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Lent<'a> {
        input: &'a [u8],
        name: &'a str,
    }

    #[test]
    fn borrowed_bytes_and_strings_trace() {
        let types = types_of(trace::<Lent<'static>>());
        assert!(types.container("Lent").is_some(), "{:?}", trace::<Lent<'static>>().ty);
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

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Ast {
        Add(Box<Ast>, Box<Ast>),
        Neg(Box<Ast>),
        Call { name: String, args: Vec<Ast> },
        Lit(i32),
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum Wrapped {
        Pair(Box<Ast>, Box<Wrapped>),
        One(Box<Wrapped>),
        End,
    }

    #[test]
    fn enums_whose_first_variants_all_recurse_trace() {
        for (traced, name, len) in [(trace::<Ast>(), "Ast", 4), (trace::<Wrapped>(), "Wrapped", 3)] {
            let types = types_of(traced);
            let Some(Container::Enum(variants)) = types.container(name) else {
                panic!("{name} is an enum: {:?}", types.container(name));
            };
            assert_eq!(variants.len(), len);
        }
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

    /// Ranges of two addresses, one per variant of an enum (ipnet's
    /// `IpAddrRange`): the structs' texts end a deserialization before the
    /// structs are known, so a variant seen once is not done; the next
    /// deserialization goes back through it (it was untraced: each later
    /// one took the first variant again and learnt nothing).
    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Range4 {
        start: std::net::Ipv4Addr,
        end: std::net::Ipv4Addr,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Range6 {
        start: std::net::Ipv6Addr,
        end: std::net::Ipv6Addr,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    enum AnyRange {
        V4(Range4),
        V6(Range6),
    }

    #[test]
    fn an_enum_of_structs_of_texts_traces() {
        let traced = trace::<AnyRange>();
        assert_eq!(traced.ty, ParamType::Typed(Ty::Named("AnyRange")));
        let types = types_of(traced);
        let Some(Container::Enum(variants)) = types.container("AnyRange") else {
            panic!("AnyRange is an enum: {:?}", types.container("AnyRange"));
        };
        let payloads: Vec<&PayloadTy> = variants.iter().map(|v| &v.payload).collect();
        assert_eq!(
            payloads,
            [&PayloadTy::Newtype(Ty::Named("Range4")), &PayloadTy::Newtype(Ty::Named("Range6"))]
        );
        for (name, addr) in [
            ("Range4", std::any::type_name::<std::net::Ipv4Addr>()),
            ("Range6", std::any::type_name::<std::net::Ipv6Addr>()),
        ] {
            assert_eq!(
                types.container(name),
                Some(&Container::Struct(vec![("start", Ty::Text(addr)), ("end", Ty::Text(addr))]))
            );
        }
    }
}
