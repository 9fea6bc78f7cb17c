//! The arguments a generation run has already run. A target is a function
//! of its arguments (replay relies on it: a carved call must give its
//! outcome again), so a call with arguments run before reaches what it
//! reached then, and running it again would spend an execution of the
//! budget on nothing new. The grammar's derivations and search's moves make
//! such repeats often (on the dogfood, 40–90% of the grammar's calls and
//! 20–60% of search's); they are not run and not counted as executions.
//!
//! ```
//! use carve::_internals::coverage::Trace;
//! use carve::_internals::generation::repeats::{Known, Repeats};
//! use carve::_internals::value::Value;
//!
//! let mut repeats = Repeats::default();
//! let args = Value::Str("%4".into());
//! assert!(matches!(repeats.known(&args), Known::New));
//! repeats.ran(&args, Some((&Trace::default(), true)));
//! assert!(matches!(repeats.known(&args), Known::Ran(_, true)));
//! ```

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::coverage::Trace;
use crate::value::Value;

/// How many traces are kept for search to read again: the most recent
/// ones. Older repeats run again (the digests of all are kept).
const TRACES: usize = 4096;

/// Arguments run so far in one generation run, by digest, with what the
/// most recent of them reached.
#[derive(Debug, Default)]
pub struct Repeats {
    calls: HashMap<u128, Ran>,
    /// Digests whose trace is kept, oldest first.
    kept: VecDeque<u128>,
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

impl Repeats {
    /// What is known of `args`.
    pub fn known(&self, args: &Value) -> Known<'_> {
        match self.calls.get(&digest(args)) {
            None => Known::New,
            Some(Ran::Traced(trace, failed)) => Known::Ran(trace, *failed),
            Some(Ran::Untraced) => Known::Forgotten,
            Some(Ran::NotRun) => Known::NotRun,
        }
    }

    /// Notes that `args` ran and reached `trace` (failing or not), or could
    /// not run (`None`).
    pub fn ran(&mut self, args: &Value, result: Option<(&Trace, bool)>) {
        let key = digest(args);
        let entry = match result {
            None => Ran::NotRun,
            Some((trace, failed)) => {
                if self.kept.len() == TRACES {
                    if let Some(oldest) = self.kept.pop_front() {
                        self.calls.insert(oldest, Ran::Untraced);
                    }
                }
                self.kept.push_back(key);
                Ran::Traced(trace.clone(), failed)
            }
        };
        // A forgotten call run again is kept again: its old place in
        // `kept` was popped when it was forgotten.
        self.calls.insert(key, entry);
    }
}

/// A 128-bit digest of `args`: two SipHashes with fixed keys, so the same
/// arguments give the same digest in every process, and two different
/// arguments one digest with negligible odds.
fn digest(args: &Value) -> u128 {
    let half = |salt: u8| {
        let mut hasher = DefaultHasher::new();
        salt.hash(&mut hasher);
        args.hash(&mut hasher);
        hasher.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_run_before_are_told_apart_by_value_and_their_traces_kept_while_there_is_room() {
        let mut repeats = Repeats::default();
        let args = |i: usize| Value::Seq(vec![Value::U64(i as u64), Value::Str("a".into())]);
        assert!(matches!(repeats.known(&args(0)), Known::New));
        repeats.ran(&args(0), Some((&Trace::default(), false)));
        assert!(matches!(repeats.known(&args(0)), Known::Ran(_, false)));
        // Equal values are one call; a different value is not.
        assert!(matches!(repeats.known(&args(0).clone()), Known::Ran(..)));
        assert!(matches!(repeats.known(&args(1)), Known::New));
        repeats.ran(&args(1), None);
        assert!(matches!(repeats.known(&args(1)), Known::NotRun));
        // The oldest trace goes once more are kept than there is room for.
        for i in 2..TRACES + 2 {
            repeats.ran(&args(i), Some((&Trace::default(), i % 2 == 0)));
        }
        assert!(matches!(repeats.known(&args(0)), Known::Forgotten));
        assert!(matches!(repeats.known(&args(2)), Known::Ran(_, true)));
        assert!(matches!(repeats.known(&args(TRACES + 1)), Known::Ran(_, false)));
        // Run again, a forgotten call is kept again, and the next oldest goes.
        repeats.ran(&args(0), Some((&Trace::default(), false)));
        assert!(matches!(repeats.known(&args(0)), Known::Ran(..)));
        assert!(matches!(repeats.known(&args(2)), Known::Forgotten));
        assert_eq!(repeats.kept.len(), TRACES);
    }
}
