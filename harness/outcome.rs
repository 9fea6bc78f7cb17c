//! What a call did: the value it returned or the message it panicked with, and
//! the state of its `&mut` arguments afterwards.
//!
//! ```
//! use carve::outcome::{observe, Outcome};
//! use carve::value::Value;
//!
//! let capture = |v: &_| Value::capture(v);
//! assert_eq!(observe(|| 2 + 2, capture).unwrap(), Outcome::Returned(Value::I64(4)));
//! assert_eq!(
//!     observe(|| -> u8 { panic!("boom") }, |v| Value::capture(v)).unwrap(),
//!     Outcome::Panicked("boom".into())
//! );
//! ```

use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::str::FromStr;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::value::text::UNNAMED;
#[cfg(doc)]
use crate::value::text::to_ron;
use crate::value::{CaptureError, Value};

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The call returned this value.
    Returned(Value),
    /// The call panicked with this message.
    Panicked(String),
    /// The call took its process down (abort, stack overflow) or did not
    /// return in time; found by generation's worker processes.
    Crashed(String),
}

impl Outcome {
    /// The value the call returned, if it returned.
    pub fn returned(&self) -> Option<&Value> {
        match self {
            Outcome::Returned(value) => Some(value),
            Outcome::Panicked(_) | Outcome::Crashed(_) => None,
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Returned(v) => s.serialize_newtype_variant("Outcome", 0, "Returned", v),
            Outcome::Panicked(m) => s.serialize_newtype_variant("Outcome", 1, "Panicked", m),
            Outcome::Crashed(m) => s.serialize_newtype_variant("Outcome", 2, "Crashed", m),
        }
    }
}

impl Outcome {
    /// How the call ended, without what it returned.
    pub fn ending(&self) -> Ending {
        match self {
            Outcome::Returned(_) => Ending::Returned,
            Outcome::Panicked(message) => Ending::Failed {
                kind: FailureKind::Panic,
                message: message.clone(),
            },
            Outcome::Crashed(message) => Ending::Failed {
                kind: FailureKind::of_crash_message(message),
                message: message.clone(),
            },
        }
    }
}

/// How a call ended, without what it returned: what a carve file's
/// `outcome:` says of it (the value stays as text there), what generation
/// tells runs apart by and what the report lists.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ending {
    /// It returned.
    Returned,
    /// It panicked or took its process down.
    Failed {
        /// Panic, or the kind of crash.
        kind: FailureKind,
        /// The panic message, or how the process ended (`abort: process
        /// killed by signal 6 (SIGABRT: abort or stack overflow)`).
        message: String,
    },
}

impl Ending {
    /// Whether the call crashed its process, so replaying it would too.
    pub fn is_crash(&self) -> bool {
        matches!(self, Ending::Failed { kind, .. } if kind.is_crash())
    }
}

/// What kind of failure a call had. Crash kinds are named as carve writes
/// them first in a `Crashed("…")` message and in a found failure's `at`
/// (`abort`, `stack overflow`, `timeout`, `signal 11 (SIGSEGV)`, `exit code 3`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    /// The call panicked (replayed: it still does).
    Panic,
    /// The process aborted (SIGABRT), not from a stack overflow.
    Abort,
    /// The call overflowed its thread's stack.
    StackOverflow,
    /// The call did not return within the call timeout, or its worker
    /// stopped responding.
    Timeout,
    /// The process was killed by this signal.
    Signal(i32),
    /// The process exited with this code in the middle of the call.
    ExitCode(i32),
    /// The process ended abnormally, with neither code nor signal.
    Crash,
    /// A kind carve does not know, as written (an older or hand-edited
    /// carve file): kept as it is so that it is written back unchanged.
    Other(String),
}

impl FailureKind {
    /// The kind a `Crashed("…")` message names first (`abort: …`); a
    /// message that names none is a [`FailureKind::Crash`].
    pub fn of_crash_message(message: &str) -> FailureKind {
        let named = message.split_once(':').map(|(kind, _)| kind.parse());
        match named {
            Some(Ok(kind)) if !matches!(kind, FailureKind::Panic | FailureKind::Other(_)) => kind,
            _ => FailureKind::Crash,
        }
    }

    /// Whether it takes the process down (every kind but a panic): such a
    /// call is not replayed, it is listed as found.
    pub fn is_crash(&self) -> bool {
        !matches!(self, FailureKind::Panic)
    }

    /// `panic` or `crash`, as the report classes failures.
    pub const fn class(&self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            _ => "crash",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::Panic => f.write_str("panic"),
            FailureKind::Abort => f.write_str("abort"),
            FailureKind::StackOverflow => f.write_str("stack overflow"),
            FailureKind::Timeout => f.write_str("timeout"),
            FailureKind::Signal(n) => write!(f, "signal {n}{}", signal_name(*n)),
            FailureKind::ExitCode(code) => write!(f, "exit code {code}"),
            FailureKind::Crash => f.write_str("crash"),
            FailureKind::Other(text) => f.write_str(text),
        }
    }
}

/// ` (SIGSEGV)` for the signals whose number says little by itself.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => " (SIGILL)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

impl FromStr for FailureKind {
    type Err = std::convert::Infallible;

    /// Reads a kind as [`Display`](fmt::Display) writes it; any other text
    /// is [`FailureKind::Other`], so that reading and writing back is exact.
    fn from_str(text: &str) -> Result<FailureKind, Self::Err> {
        let number = |rest: &str| rest.split(' ').next().and_then(|n| n.parse::<i32>().ok());
        let kind = match text {
            "panic" => FailureKind::Panic,
            "abort" => FailureKind::Abort,
            "stack overflow" => FailureKind::StackOverflow,
            "timeout" => FailureKind::Timeout,
            "crash" => FailureKind::Crash,
            _ => match (text.strip_prefix("signal "), text.strip_prefix("exit code ")) {
                (Some(rest), _) => number(rest).map_or(FailureKind::Crash, FailureKind::Signal),
                (_, Some(rest)) => number(rest).map_or(FailureKind::Crash, FailureKind::ExitCode),
                _ => FailureKind::Crash,
            },
        };
        Ok(match kind.to_string() == text {
            true => kind,
            false => FailureKind::Other(text.to_owned()),
        })
    }
}

/// A place in the source: `src/lib.rs:12`, or `src/lib.rs:12:5` with the
/// column.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    /// The file, as the panic or backtrace names it.
    pub file: String,
    /// Its line, from 1.
    pub line: u32,
    /// Its column, from 1, where known.
    pub column: Option<u32>,
}

impl Site {
    /// The same place without its column: two panics on one line
    /// (`chars[i + 1], chars[i + 2]`) are one bug.
    pub fn line_only(&self) -> Site {
        Site {
            column: None,
            ..self.clone()
        }
    }

    /// Reads `file:line` or `file:line:col` exactly as [`Display`](fmt::Display)
    /// writes it (`012` is no line), else `None`.
    pub fn parse(text: &str) -> Option<Site> {
        let number = |n: &str| n.parse::<u32>().ok().filter(|v| v.to_string() == n);
        let (head, last) = text.rsplit_once(':')?;
        let last = number(last)?;
        let site = match head.rsplit_once(':').and_then(|(f, l)| Some((f, number(l)?))) {
            Some((file, line)) => Site {
                file: file.to_owned(),
                line,
                column: Some(last),
            },
            None => Site {
                file: head.to_owned(),
                line: last,
                column: None,
            },
        };
        (!site.file.is_empty()).then_some(site)
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        match self.column {
            Some(column) => write!(f, ":{column}"),
            None => Ok(()),
        }
    }
}

/// A failure as failures are told apart: its kind and where it happened.
/// Each gets its own found entry. Written as a found entry's `at`: a panic
/// by its site alone (`src/lib.rs:12`), a crash by its kind and the
/// innermost frame of the user's code where the worker could say (`abort
/// at src/lib.rs:12`, `stack overflow`).
///
/// ```
/// use carve::outcome::{Failure, FailureKind, Site};
///
/// let abort: Failure = "abort at src/lib.rs:12".parse().unwrap();
/// assert_eq!(abort.kind, FailureKind::Abort);
/// assert_eq!(abort.site, Site::parse("src/lib.rs:12"));
/// assert_eq!(abort.to_string(), "abort at src/lib.rs:12");
/// let panic: Failure = "src/lib.rs:3:9".parse().unwrap();
/// assert_eq!(panic.kind, FailureKind::Panic);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Failure {
    /// Panic, or the kind of crash.
    pub kind: FailureKind,
    /// Where, if known.
    pub site: Option<Site>,
}

impl Failure {
    /// A panic at `site`.
    pub fn panic(site: Option<Site>) -> Failure {
        Failure {
            kind: FailureKind::Panic,
            site,
        }
    }

    /// Whether failures can be told apart by it: a crash always (by its
    /// kind at least), a panic only where its site is known.
    pub fn is_told_apart(&self) -> bool {
        self.kind.is_crash() || self.site.is_some()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, &self.site) {
            (FailureKind::Panic, Some(site)) => write!(f, "{site}"),
            (kind, Some(site)) => write!(f, "{kind} at {site}"),
            (kind, None) => write!(f, "{kind}"),
        }
    }
}

impl FromStr for Failure {
    type Err = std::convert::Infallible;

    /// Reads a failure as [`Display`](fmt::Display) writes it. Never fails,
    /// and writing back what it read gives the same text: a kind carve does
    /// not know is kept as [`FailureKind::Other`].
    fn from_str(text: &str) -> Result<Failure, Self::Err> {
        if let Some(site) = Site::parse(text) {
            if !text.contains(" at ") {
                return Ok(Failure::panic(Some(site)));
            }
        }
        let read = match text.split_once(" at ") {
            Some((kind, site)) => match (kind.parse::<FailureKind>()?, Site::parse(site)) {
                (FailureKind::Other(_), _) | (_, None) => None,
                (kind, site) => Some(Failure { kind, site }),
            },
            None => Some(Failure {
                kind: text.parse()?,
                site: None,
            }),
        };
        Ok(match read.filter(|f| f.to_string() == text) {
            Some(failure) => failure,
            None => Failure {
                kind: FailureKind::Other(text.to_owned()),
                site: None,
            },
        })
    }
}

// On the wire (a worker's crash list and known failures) a failure travels
// as the text a found entry's `at` holds.
impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Failure {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Failure, D::Error> {
        let text = String::deserialize(d)?;
        Ok(Failure::from(text.as_str()))
    }
}

impl From<&str> for Failure {
    fn from(text: &str) -> Failure {
        match text.parse() {
            Ok(failure) => failure,
            Err(never) => match never {},
        }
    }
}

/// Everything checked about one call: its outcome and, when it takes `&mut`
/// arguments (or `&mut self`), their state afterwards. Its snapshot is its
/// RON text ([`to_ron`]): `Returned(Ok(70))`, or
/// `(outcome: Returned(Ok(70)), after: (self: Account(…)))`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Observation {
    /// How the call ended.
    pub outcome: Outcome,
    /// `(name: state, …)` of the `&mut` arguments after the call.
    pub after: Option<Value>,
}

impl Observation {
    /// The values it holds, each named for messages: the return value and
    /// the state after the call, where there are.
    pub fn parts(&self) -> [(&'static str, Option<&Value>); 2] {
        [
            ("return value", self.outcome.returned()),
            ("state after the call", self.after.as_ref()),
        ]
    }
}

impl Serialize for Observation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.after {
            None => self.outcome.serialize(s),
            Some(after) => {
                let mut st = s.serialize_struct(UNNAMED, 2)?;
                st.serialize_field("outcome", &self.outcome)?;
                st.serialize_field("after", after)?;
                st.end()
            }
        }
    }
}

// The panic hook lives below the value model, which traces types under it;
// its functions are named here too, where the callers that observe calls
// look for them.
pub use crate::panics::{last_panic_location, panic_message, quietly};

/// Calls `f` quietly and captures how it ended; `capture` captures a
/// returned value in its form (see [`form`](crate::value::form)). Capturing
/// is part of the outcome: a `Display` that panics while its text is taken
/// is a panic of the call.
// Always inlined, as `quietly`: its outcome is built where the replay
// function keeps it.
#[inline(always)]
pub fn observe<R>(
    f: impl FnOnce() -> R,
    capture: impl FnOnce(&R) -> Result<Value, CaptureError>,
) -> Result<Outcome, CaptureError> {
    let called = quietly(|| panic::catch_unwind(AssertUnwindSafe(|| capture(&f()))));
    match called {
        Ok(captured) => Ok(Outcome::Returned(captured?)),
        Err(payload) => Ok(Outcome::Panicked(panic_message(&*payload))),
    }
}

/// How a process that did not end normally ended, for messages:
/// `process killed by signal 6 (SIGABRT: abort or stack overflow)`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT: abort or stack overflow)",
                11 => " (SIGSEGV)",
                9 => " (SIGKILL)",
                _ => "",
            };
            return format!("process killed by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("process exited with code {code}"),
        None => "process ended abnormally".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observation_without_after_state_serializes_as_its_outcome() {
        let obs = Observation {
            outcome: Outcome::Returned(Value::Bool(true)),
            after: None,
        };
        assert_eq!(ron::to_string(&obs).unwrap(), "Returned(true)");
        let obs = Observation {
            outcome: Outcome::Panicked("no".into()),
            after: Some(Value::capture(&(1, 2)).unwrap()),
        };
        assert_eq!(
            ron::to_string(&obs).unwrap(),
            r#"(outcome:Panicked("no"),after:(1,2))"#
        );
    }

    #[test]
    fn failures_read_back_as_carve_wrote_them() {
        let read = |text: &str| text.parse::<Failure>().unwrap();
        let site = |text: &str| Site::parse(text).unwrap();
        // What generation writes as a found entry's `at`, typed.
        let cases = [
            ("src/lib.rs:12", Failure::panic(Some(site("src/lib.rs:12")))),
            ("src/lib.rs:12:5", Failure::panic(Some(site("src/lib.rs:12:5")))),
            ("abort at src/lib.rs:12", Failure { kind: FailureKind::Abort, site: Some(site("src/lib.rs:12")) }),
            ("stack overflow", Failure { kind: FailureKind::StackOverflow, site: None }),
            ("timeout", Failure { kind: FailureKind::Timeout, site: None }),
            ("signal 11 (SIGSEGV) at src/a.rs:3", Failure { kind: FailureKind::Signal(11), site: Some(site("src/a.rs:3")) }),
            ("exit code 3", Failure { kind: FailureKind::ExitCode(3), site: None }),
        ];
        for (text, failure) in cases {
            assert_eq!(read(text), failure, "{text}");
            assert_eq!(failure.to_string(), text);
        }
        assert_eq!(site("src/lib.rs:12:5").line_only(), site("src/lib.rs:12"));
        // Text carve would not write stays as it is, so it is written back
        // unchanged.
        for text in ["", "src/lib.rs:012", "melted at noon", "panic at src/lib.rs:1", "signal x", "a:b:"] {
            assert_eq!(read(text).to_string(), text);
        }
        assert_eq!(read("melted").kind, FailureKind::Other("melted".into()));
    }

    #[test]
    fn a_crash_message_names_its_kind_first() {
        let kind = |message: &str| Outcome::Crashed(message.into()).ending();
        let failed = |kind: FailureKind, message: &str| Ending::Failed { kind, message: message.into() };
        let cases = [
            ("abort: process killed by signal 6 (SIGABRT: abort or stack overflow)", FailureKind::Abort),
            ("stack overflow: thread 'main' has overflowed its stack", FailureKind::StackOverflow),
            ("timeout: did not return within 1s", FailureKind::Timeout),
            ("signal 11 (SIGSEGV): process killed by signal 11 (SIGSEGV)", FailureKind::Signal(11)),
            // Older files: no kind first.
            ("process killed by signal 6 (SIGABRT: abort or stack overflow)", FailureKind::Crash),
            ("panic: no", FailureKind::Crash),
        ];
        for (message, expected) in cases {
            assert_eq!(kind(message), failed(expected, message));
            assert!(kind(message).is_crash());
        }
        let panicked = Outcome::Panicked("no".into()).ending();
        assert_eq!(panicked, failed(FailureKind::Panic, "no"));
        assert!(!panicked.is_crash());
        assert_eq!(Outcome::Returned(Value::Unit).ending(), Ending::Returned);
    }

    #[test]
    fn a_panic_while_capturing_the_returned_value_is_the_calls_panic() {
        struct Shown;
        impl std::fmt::Display for Shown {
            fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                panic!("no text")
            }
        }
        let capture = |v: &Shown| Ok(Value::Str(v.to_string()));
        assert_eq!(
            observe(|| Shown, capture).unwrap(),
            Outcome::Panicked("no text".into())
        );
    }

    #[test]
    fn formatted_panic_messages_are_captured() {
        let n = 3;
        assert_eq!(
            observe(|| -> u8 { panic!("bad {n}") }, Value::capture).unwrap(),
            Outcome::Panicked("bad 3".into())
        );
    }
}
