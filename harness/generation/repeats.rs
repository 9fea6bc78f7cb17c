//! The arguments a generation run has already run. A target is a function
//! of its arguments (replay relies on it: a carved call must give its
//! outcome again), so a call with arguments run before reaches what it
//! reached then, and running it again would spend an execution of the
//! budget on nothing new. The grammar's derivations and search's moves make
//! such repeats often (on the dogfood, 40–90% of the grammar's calls and
//! 20–60% of search's); they are read back here instead of run, and not
//! counted as executions.
//!
//! ```
//! use carve::_internals::coverage::Trace;
//! use carve::_internals::generation::repeats::{Known, Repeats};
//! use carve::_internals::value::Value;
//!
//! let mut repeats = Repeats::default();
//! let key = Repeats::key(&Value::Str("%4".into()));
//! assert!(matches!(repeats.known(key), Known::New));
//! repeats.ran(key, Some((Trace::default(), true)));
//! assert!(matches!(repeats.known(key), Known::Ran(_, true)));
//! ```

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use siphasher::sip128::{Hasher128, SipHasher13};

use crate::coverage::Trace;
#[cfg(doc)]
use crate::generation::grammar::Derived;
use crate::value::Value;

/// How many traces are kept for search to read again: the most recent
/// ones. Older repeats run again (the keys of all are kept).
const TRACES: usize = 4096;

/// How many arguments are remembered at most (about 64 MB): a long time
/// budget on a fast target runs millions of calls. Arguments past it are
/// not remembered, and run again if repeated.
const KEYS: usize = 1 << 20;

/// Arguments run so far in one generation run, by key, with what the most
/// recent of them reached.
#[derive(Debug, Default)]
pub struct Repeats {
    calls: HashMap<Key, Ran, BuildHasherDefault<KeyHasher>>,
    /// Keys whose trace is kept, oldest first.
    kept: VecDeque<Key>,
}

/// A 128-bit digest of a call's arguments ([`Repeats::key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(u128);

/// Hashes a [`Key`] for the map of calls: the key is already a SipHash
/// digest, so its two halves folded and multiplied (to spread keys that are
/// not digests, as tests make, over the map's top bits too) are its hash.
/// The map's default SipHash of the key cost about 170 instructions per
/// lookup, twice per run call (callgrind, the `loop` mode of
/// `benches/instructions.rs`). Nothing iterates the map, so its order does
/// not matter.
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = ((n as u64) ^ ((n >> 64) as u64) ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    // Only a `u128` is ever written ([`Key`]'s derived `Hash`); any other
    // bytes are folded in a word at a time all the same.
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u128(u128::from(u64::from_le_bytes(word)));
        }
    }
}

/// The bytes a `Hash` writes, as SipHash reads them: integers as their
/// little-endian bytes (SipHash's own `write_u8` … `write_usize` read them
/// so), everything else as the standard `Hasher` passes it to `write`.
struct Bytes<'a>(&'a mut Vec<u8>);

impl Hasher for Bytes<'_> {
    /// Never read: [`Repeats::key`] hashes the bytes.
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn write_u8(&mut self, i: u8) {
        self.0.push(i);
    }

    fn write_u16(&mut self, i: u16) {
        self.0.extend_from_slice(&i.to_le_bytes());
    }

    fn write_u32(&mut self, i: u32) {
        self.0.extend_from_slice(&i.to_le_bytes());
    }

    fn write_u64(&mut self, i: u64) {
        self.0.extend_from_slice(&i.to_le_bytes());
    }

    fn write_usize(&mut self, i: usize) {
        self.0.extend_from_slice(&i.to_le_bytes());
    }
}

#[derive(Debug)]
enum Ran {
    /// Ran: what it reached and whether it failed.
    Traced(Trace, bool),
    /// Ran, its trace dropped for room.
    Untraced,
    /// Could not run (its arguments did not deserialize, or the worker
    /// skips them): a repeat cannot either.
    NotRun,
}

/// What [`Repeats::known`] knows of a call's arguments.
#[derive(Debug)]
pub enum Known<'a> {
    /// Not run before.
    New,
    /// Run before: what it reached, and whether it failed.
    Ran(&'a Trace, bool),
    /// Run before, but its trace was dropped: run it again for one.
    Forgotten,
    /// Tried before and could not run.
    NotRun,
}

/// A 64-bit hash of a call's arguments, the same in every worker of a
/// run (`DefaultHasher::new` hashes alike in every process of one binary):
/// what a worker's journal and the strong checks tell calls apart by, where
/// a [`Key`]'s 128 bits are not needed (both only ever compare within one
/// run).
///
/// Not [`CallId::hash`](crate::carving::identity::CallId::hash): that
/// renders the arguments as RON first, about 1.3 µs a call against 0.1 µs
/// for hashing the value tree (cgi_decode's and urlparse's arguments,
/// release build), paid on every execution a worker makes; this hash never
/// leaves the run, so it need not match the carve file's identity.
pub fn args_hash(args: &Value) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    args.hash(&mut hasher);
    hasher.finish()
}

impl Repeats {
    /// The key of `args`: SipHash-1-3 with fixed keys and a 128-bit output,
    /// so the same arguments give the same key in every process, and two
    /// different arguments one key with negligible odds.
    ///
    /// The bytes the value's `Hash` writes are gathered first and hashed in
    /// one `write`: the same bytes in the same order, so the same key as
    /// hashing them as they come, for less (SipHash pays for each of the
    /// small writes a value makes, a tag or a length at a time; callgrind,
    /// the `loop` mode of `benches/instructions.rs`).
    pub fn key(args: &Value) -> Key {
        thread_local! {
            static BYTES: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut bytes = BYTES.take();
        bytes.clear();
        args.hash(&mut Bytes(&mut bytes));
        let mut hasher = SipHasher13::new();
        hasher.write(&bytes);
        BYTES.set(bytes);
        Key(hasher.finish128().as_u128())
    }

    /// What is known of the arguments of `key`.
    pub fn known(&self, key: Key) -> Known<'_> {
        match self.calls.get(&key) {
            None => Known::New,
            Some(Ran::Traced(trace, failed)) => Known::Ran(trace, *failed),
            Some(Ran::Untraced) => Known::Forgotten,
            Some(Ran::NotRun) => Known::NotRun,
        }
    }

    /// Notes that the arguments of `key` ran and reached `trace` (failing
    /// or not), or could not run (`None`). The trace is kept as given: a
    /// caller that reads it too clones it first.
    pub fn ran(&mut self, key: Key, result: Option<(Trace, bool)>) {
        if self.calls.len() >= KEYS && !self.calls.contains_key(&key) {
            return;
        }
        let entry = match result {
            None => Ran::NotRun,
            Some((trace, failed)) => {
                if self.kept.len() == TRACES {
                    if let Some(oldest) = self.kept.pop_front() {
                        self.calls.insert(oldest, Ran::Untraced);
                    }
                }
                self.kept.push_back(key);
                Ran::Traced(trace, failed)
            }
        };
        // A forgotten call run again is kept again: its old place in
        // `kept` went when it was forgotten.
        self.calls.insert(key, entry);
    }
}

/// How many derivations [`Derivations`] remembers at most (about 26 MB:
/// 2^19 slots of 49 bytes); those past it are read as values again.
const DERIVATIONS: usize = 1 << 18;

/// What the grammar's derivations read as, by their keys
/// ([`Derived::derivation_key`]): the [`Key`] of the arguments a derivation
/// stands for, or `None` when it stands for none (it does not read as a
/// value, or as one the parameter types admit). Reading a derivation as a
/// value, checking and keying it cost about 1,900 instructions on
/// cgi_decode, while the grammar derives a tree it derived before for
/// about 60% of its derivations (callgrind, the `loop` mode of
/// `benches/instructions.rs`): told by their keys, those are repeats
/// without reading them.
///
/// What a derivation reads as is a function of its tree alone only while no
/// struct is sealed ([`Sealed::redraw`](crate::generation::sealed::Sealed::redraw)
/// draws a value per derivation): the caller asks only then.
#[derive(Debug, Default)]
pub struct Derivations {
    keys: HashMap<u128, Option<Key>, BuildHasherDefault<KeyHasher>>,
}

impl Derivations {
    /// What the derivation of key `derivation` was read as before: `None`
    /// if it was not derived before (or not remembered), `Some(None)` if
    /// it stood for no admitted arguments.
    pub fn known(&self, derivation: u128) -> Option<Option<Key>> {
        self.keys.get(&derivation).copied()
    }

    /// Notes what the derivation of key `derivation` reads as.
    pub fn read(&mut self, derivation: u128, key: Option<Key>) {
        if self.keys.len() < DERIVATIONS {
            self.keys.insert(derivation, key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_run_before_are_told_apart_by_value_and_their_traces_kept_while_there_is_room() {
        let value = |i: usize| Value::Seq(vec![Value::U64(i as u64), Value::Str("a".into())]);
        let args = |i: usize| Repeats::key(&value(i));
        let mut repeats = Repeats::default();
        assert!(matches!(repeats.known(args(0)), Known::New));
        repeats.ran(args(0), Some((Trace::default(), false)));
        assert!(matches!(repeats.known(args(0)), Known::Ran(_, false)));
        // Equal values are one call; a different value is not.
        assert_eq!(Repeats::key(&value(0).clone()), args(0));
        assert!(matches!(repeats.known(args(1)), Known::New));
        repeats.ran(args(1), None);
        assert!(matches!(repeats.known(args(1)), Known::NotRun));
        // The oldest trace goes once more are kept than there is room for.
        for i in 2..TRACES + 2 {
            repeats.ran(args(i), Some((Trace::default(), i % 2 == 0)));
        }
        assert!(matches!(repeats.known(args(0)), Known::Forgotten));
        assert!(matches!(repeats.known(args(2)), Known::Ran(_, true)));
        assert!(matches!(repeats.known(args(TRACES + 1)), Known::Ran(_, false)));
        // Run again, a forgotten call is kept again, and the next oldest goes.
        repeats.ran(args(0), Some((Trace::default(), false)));
        assert!(matches!(repeats.known(args(0)), Known::Ran(..)));
        assert!(matches!(repeats.known(args(2)), Known::Forgotten));
        assert_eq!(repeats.kept.len(), TRACES);
    }

    #[test]
    fn keys_hash_by_both_halves_and_spread_over_the_top_bits() {
        use std::hash::BuildHasher;
        let hash = |key: Key| BuildHasherDefault::<KeyHasher>::default().hash_one(key);
        // Keys that differ in either half hash apart.
        let low = Key(1);
        let high = Key(1 << 64);
        assert_ne!(hash(low), hash(Key(2)));
        assert_ne!(hash(high), hash(Key(2 << 64)));
        assert_eq!(hash(Key(5)), hash(Key(5)));
        // Sequential keys (not digests) differ in the top 7 bits, which
        // the map compares before the keys, for most neighbours.
        let tops: std::collections::HashSet<u64> = (0..1024u128).map(|i| hash(Key(i)) >> 57).collect();
        assert_eq!(tops.len(), 128, "every top-7-bit tag used");
        // Bytes written otherwise are folded in too.
        let mut hasher = KeyHasher::default();
        hasher.write(&[1, 2, 3]);
        let mut other = KeyHasher::default();
        other.write(&[1, 2, 4]);
        assert_ne!(hasher.finish(), other.finish());
    }

    /// A value of every kind, nested up to `depth`.
    fn any_value(rng: &mut rand::rngs::StdRng, depth: u32) -> Value {
        use rand::RngExt;
        let leaf = depth == 0;
        let text = |rng: &mut rand::rngs::StdRng| -> String {
            (0..rng.random_range(0..20)).map(|_| rng.random_range('\u{0}'..='\u{3ff}')).collect()
        };
        let many = |rng: &mut rand::rngs::StdRng| -> Vec<Value> {
            (0..rng.random_range(0..4)).map(|_| any_value(rng, depth - 1)).collect()
        };
        match rng.random_range(0..if leaf { 13 } else { 22 }) {
            0 => Value::Unit,
            1 => Value::Bool(rng.random()),
            2 => Value::I64(rng.random()),
            3 => Value::U64(rng.random()),
            4 => Value::I128(rng.random()),
            5 => Value::U128(rng.random()),
            6 => Value::F32(rng.random()),
            7 => Value::F64(rng.random()),
            8 => Value::Char(rng.random_range('\u{0}'..='\u{10ffff}')),
            9 => Value::Str(text(rng)),
            10 => Value::Bytes((0..rng.random_range(0..20)).map(|_| rng.random()).collect()),
            11 => Value::None,
            12 => Value::UnitVariant { name: "E", index: 1, variant: "A" },
            13 => Value::Some(Box::new(any_value(rng, depth - 1))),
            14 => Value::NewtypeStruct("N", Box::new(any_value(rng, depth - 1))),
            15 => Value::NewtypeVariant { name: "E", index: 0, variant: "B", value: Box::new(any_value(rng, depth - 1)) },
            16 => Value::Seq(many(rng)),
            17 => Value::Tuple(many(rng)),
            18 => Value::TupleStruct("T", many(rng)),
            19 => Value::TupleVariant { name: "E", index: 2, variant: "C", fields: many(rng) },
            20 => Value::Map(many(rng).into_iter().zip(many(rng)).collect()),
            _ => Value::Struct("S", many(rng).into_iter().map(|v| ("f", v)).collect()),
        }
    }

    #[test]
    fn a_key_is_the_siphash_of_the_value_as_its_hash_writes_it() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for _ in 0..2000 {
            let value = any_value(&mut rng, 3);
            // The value hashed straight into SipHash, write by write.
            let mut hasher = SipHasher13::new();
            value.hash(&mut hasher);
            assert_eq!(Repeats::key(&value), Key(hasher.finish128().as_u128()), "{value:?}");
        }
    }

    #[test]
    fn derivations_past_the_limit_are_not_remembered() {
        let mut derivations = Derivations::default();
        for i in 0..DERIVATIONS as u128 {
            derivations.read(i, None);
        }
        derivations.read(u128::MAX, Some(Key(1)));
        assert_eq!(derivations.known(u128::MAX), None);
        // Those remembered are still told.
        assert_eq!(derivations.known(3), Some(None));
    }

    #[test]
    fn arguments_past_the_limit_are_not_remembered() {
        let mut repeats = Repeats::default();
        for i in 0..KEYS as u128 {
            repeats.calls.insert(Key(i), Ran::NotRun);
        }
        let past = Key(u128::MAX);
        repeats.ran(past, Some((Trace::default(), false)));
        assert!(matches!(repeats.known(past), Known::New));
        assert_eq!(repeats.calls.len(), KEYS);
        // Those remembered are still told.
        repeats.ran(Key(0), Some((Trace::default(), true)));
        assert!(matches!(repeats.known(Key(0)), Known::Ran(_, true)));
    }
}
