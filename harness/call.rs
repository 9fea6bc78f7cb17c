//! A call of a target as the harness sees it: the arguments given to a
//! target's replay function, and what replaying it gives.
//!
//! Every target registers one replay function (`fn(ArgsInput) ->
//! ReplayResult`); carving replays RON text from carve files through it, and
//! generation replays value trees.
//!
//! ```
//! use carve::call::Position;
//! // A position inside an argument fragment that starts at 3:5 of a file.
//! let inner = Position { line: 1, col: 4 };
//! assert_eq!(Position { line: 3, col: 5 }.offset_by(inner).to_string(), "3:8");
//! ```

use std::fmt;

use serde::de::DeserializeOwned;

use crate::outcome::Observation;
use crate::value::{depth, CaptureError, Value};

/// What replaying a target's call gives: its arguments and what it did.
pub type ReplayResult = Result<Replayed, ReplayError>;

/// A replayed call.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The arguments as deserialized, when they were given as RON text
    /// (`None` for a value tree: the caller has it already).
    pub args: Option<Value>,
    /// What the call did.
    pub observation: Observation,
}

/// A carved call that could not be replayed.
#[derive(Debug, Clone)]
pub enum ReplayError {
    /// The arguments do not deserialize into the parameter types: the carve is
    /// stale (the signature changed) or the entry was edited wrongly.
    Args {
        /// Where in the argument text deserialization stopped.
        position: Position,
        /// The deserializer's message.
        message: String,
    },
    /// The result could not be captured.
    Capture(CaptureError),
}

impl From<CaptureError> for ReplayError {
    fn from(e: CaptureError) -> Self {
        ReplayError::Capture(e)
    }
}

/// The arguments of a call to replay: carved RON text, or a generated value.
#[derive(Debug, Clone, Copy)]
pub enum ArgsInput<'a> {
    /// `(name: value, …)` as written in a carve file.
    Ron(&'a str),
    /// A value tree of the same shape (generation builds these).
    Value(&'a Value),
}

impl ArgsInput<'_> {
    /// The arguments as a [`Value`] (`args` is what they deserialized
    /// into), for text input; a value tree is not copied back.
    // Always inlined, the text's case out of line: a generation execution
    // (a value tree) then pays a test, not a call.
    #[inline(always)]
    pub fn to_value<A: serde::Serialize>(self, args: &A) -> Result<Option<Value>, ReplayError> {
        match self {
            ArgsInput::Value(_) => Ok(None),
            ArgsInput::Ron(_) => captured(args),
        }
    }
}

/// `args` captured, for [`ArgsInput::to_value`].
#[inline(never)]
fn captured<A: serde::Serialize>(args: &A) -> Result<Option<Value>, ReplayError> {
    Ok(Some(Value::capture(args)?))
}

/// Deserializes a call's arguments; generated replay functions call this.
// Always inlined, the text's case out of line, as `ArgsInput::to_value`.
#[inline(always)]
pub fn parse_args<T: DeserializeOwned>(input: ArgsInput<'_>) -> Result<T, ReplayError> {
    match input {
        ArgsInput::Ron(text) => parse_ron_args(text),
        ArgsInput::Value(value) => T::deserialize(value).map_err(|e| ReplayError::Args {
            position: Position::default(),
            message: e.to_string(),
        }),
    }
}

/// [`parse_args`] of RON text.
#[inline(never)]
fn parse_ron_args<T: DeserializeOwned>(text: &str) -> Result<T, ReplayError> {
    crate::value::text::read_ron(text, |de| T::deserialize(de)).map_err(|e| ReplayError::Args {
        position: Position {
            line: e.span.start.line,
            col: e.span.start.col,
        },
        message: depth::describe(&e.code),
    })
}

/// A line and column (both from 1) in a carve file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

impl Position {
    /// The position `inner` (relative to a fragment) has in the file when the
    /// fragment starts at `self`.
    pub fn offset_by(self, inner: Position) -> Position {
        if inner.line <= 1 {
            Position {
                line: self.line,
                col: self.col + inner.col.saturating_sub(1),
            }
        } else {
            Position {
                line: self.line + inner.line - 1,
                col: inner.col,
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}
