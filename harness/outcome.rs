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

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

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
pub use crate::panics::{last_panic_location, quietly};

/// The message a panic payload carries.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<panic with a non-string payload>".to_owned()
    }
}

/// Calls `f` quietly and captures how it ended; `capture` captures a
/// returned value in its form (see [`form`](crate::value::form)). Capturing
/// is part of the outcome: a `Display` that panics while its text is taken
/// is a panic of the call.
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
