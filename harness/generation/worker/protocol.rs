//! What a worker and its parent tell each other: typed messages, one per
//! line, each the prefix `carve-worker ` and the message in compact RON.
//! [`write_line`] and [`read_line`] are the one writer and the one reader,
//! side by side, for both directions; a line that is not a message is an
//! error ([`ProtocolError`]), never skipped.
//!
//! - **Parent → worker**: one [`WorkerSetup`] on the worker's stdin, before
//!   anything else: its budget, cap and timeout, the crash list, where
//!   generation starts ([`Start`], what replaying the carve files showed the
//!   parent once per run), so that no worker start replays them again, and
//!   which edge counters count, as the parent decided it from the
//!   executable's symbols, so that no worker start reads them again.
//! - **Worker → parent**: [`WorkerMessage`]s on the worker's stdout, on a
//!   channel of their own ([`Channel`]): on Unix the worker moves the
//!   target's stdout out of the way first, so nothing a target prints,
//!   whole lines or partial ones, can reach the parent.
//!
//! RON because it is the carve format's own encoding, already a dependency,
//! and keeps every text on one line (escapes); the messages are few (a kept
//! call, a progress line every 100 ms), so its speed does not show.
//!
//! ```text
//! carve-worker Alive
//! carve-worker Progress(executions:498,covered:7,undeserializable:3,phase:Some(avm))
//! carve-worker Note(line:"carve: f: generating from carved values only for …")
//! carve-worker Kept(entry:(origin:Generated(seed:1,added:["…"]),args:"(x: 3)",outcome:"Returned(9)",after:None),trace:[(4,0,0),(4,3,0),(4,1,4607182418800017408)])
//! carve-worker Done(executions:20000,undeserializable:14)
//! ```

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::carving::store::Entry;
use crate::coverage::reach::Reach;
use crate::coverage::Trace;
use crate::env::Budget;
use crate::generation::generate::Existing;
use crate::generation::sealed::Sealed;
use crate::coverage::history::Phase;
use crate::outcome::Failure;
use crate::registry::{Constant, SiteNumbers, Sites, Target};
use crate::value::{depth, Value};

use super::journal::Crash;
use super::WORKER_VAR;

const PREFIX: &str = "carve-worker ";

/// One line from a worker to its parent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerMessage {
    /// The heartbeat, every 100 ms from a thread of its own, whatever the
    /// worker is doing (loading, mining, saving, calling), as long as no
    /// call has run past the call timeout. It also tells the worker that its
    /// parent is gone: the write fails.
    Alive,
    /// The call running now has run longer than the call timeout, measured
    /// from its own start: the parent ends the worker.
    TimedOut,
    /// Calls made so far (by this worker and, retraced, by those before
    /// it), goals covered, generated arguments that did not deserialize,
    /// and the phase running.
    Progress {
        executions: u64,
        covered: u64,
        undeserializable: u64,
        phase: Option<Phase>,
    },
    /// A generated call was kept: the parent stores its entry, and counts
    /// what it covered from its trace (as the worker traced it).
    Kept {
        #[serde(with = "crate::carving::wire::entry")]
        entry: Entry,
        trace: WireTrace,
    },
    /// A failing input was found: the parent stores its entry; its trace
    /// (empty for a crash) says which functions it entered.
    Failure {
        #[serde(with = "crate::carving::wire::entry")]
        entry: Entry,
        trace: WireTrace,
    },
    /// A line for the user (`carve: <target>: …`), printed by the parent
    /// with the target's generation lines, in the order sent.
    Note { line: String },
    /// At the end of the run, distilling dropped kept calls
    /// ([`crate::generation::distil`]): the parent leaves them out of the
    /// carve file (or takes them out, where an earlier worker of the run
    /// stored them), and names the calls that stand in for them.
    Distilled(Distilled),
    /// The worker could not go on (e.g. saving to the carve file failed).
    Error { message: String },
    /// Generation finished: calls made, arguments that did not deserialize,
    /// and whether it stopped early because a kept call entered a function
    /// outside the reach ([`crate::generation::generate::Generation::reach_grew`]).
    Done {
        executions: u64,
        undeserializable: u64,
        #[serde(default)]
        reach_grew: bool,
    },
}

/// What distilling changed in a worker's kept calls, by their entries'
/// arguments (`Entry::args`, unique in a carve file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distilled {
    /// The kept calls dropped.
    pub dropped: Vec<String>,
    /// The kept calls named for more goals: their arguments, and all the
    /// goals they are now named for (`Origin::Generated`'s `added`).
    pub renamed: Vec<(String, Vec<String>)>,
}

/// What a worker is to do: the one message its parent sends, on its stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerSetup {
    /// The scratch folder the target's workers share (journal, marker).
    pub scratch: PathBuf,
    /// The generation seed.
    pub seed: u64,
    /// What is left of the budget.
    pub budget: WireBudget,
    /// Executions in all (the budget less restarts).
    pub cap: u64,
    /// The call timeout, in milliseconds.
    pub timeout_ms: u64,
    /// Whether a worker ran for the target before this one: what the first
    /// said (on stderr) is not said again.
    pub restart: bool,
    /// Calls that crashed a worker of this run, confirmed.
    pub crashes: Vec<Crash>,
    /// Calls, by the hash of their arguments, whose arguments took a worker
    /// down while carve built them: not run again, as arguments that do not
    /// deserialize.
    #[serde(default)]
    pub unbuildable: Vec<u64>,
    /// Where generation starts.
    pub start: Start,
    /// Which round of the target's generation this is (0 first): each
    /// round after the first starts from a reach that the calls kept
    /// before it grew ([`crate::generation::generate::Settings::until_reach_grows`]).
    #[serde(default)]
    pub round: u32,
    /// Which edge counters count, as the parent decided it from the
    /// executable's symbols: the worker, the same executable, takes it
    /// over rather than decide again ([`crate::coverage::counters::adopt`]).
    #[serde(default)]
    pub counters: Option<crate::coverage::counters::Counted>,
}

/// A [`Budget`] as it travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireBudget {
    /// At most this many executions.
    Executions(u64),
    /// At most this many milliseconds (at least 1).
    Millis(u64),
}

impl From<Budget> for WireBudget {
    fn from(budget: Budget) -> Self {
        match budget {
            Budget::Executions(n) => WireBudget::Executions(n),
            Budget::Time(d) => WireBudget::Millis(u64::try_from(d.as_millis().max(1)).unwrap_or(u64::MAX)),
        }
    }
}

impl From<WireBudget> for Budget {
    fn from(budget: WireBudget) -> Self {
        match budget {
            WireBudget::Executions(n) => Budget::Executions(n),
            WireBudget::Millis(ms) => Budget::Time(Duration::from_millis(ms)),
        }
    }
}

/// Where generation for a target starts, as replaying the carve files
/// showed it to the parent: everything a worker would otherwise learn by
/// replaying them again ([`Existing`]), without running a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Start {
    /// The functions the target's own calls entered, in the order first
    /// entered, by their number in [`crate::registry::all_sites`] (the same
    /// in every process of one binary).
    pub entered: Vec<u32>,
    /// Arguments of the target's existing calls.
    pub seeds: Vec<WireValue>,
    /// Goals some passing call already covers.
    pub covered: BTreeSet<u32>,
    /// Goals that do not apply to their operands' types.
    pub inapplicable: BTreeSet<u32>,
    /// How its found failures failed (sent as the text of their `at`).
    pub known_failures: BTreeSet<Failure>,
    /// The longest one of the target's own calls took, in nanoseconds.
    pub slowest_ns: u64,
    /// Arguments of the target's calls that crashed, without layout: not
    /// made again.
    pub crashing: BTreeSet<String>,
    /// Goals another target's generation explores.
    pub delegated: BTreeSet<u32>,
    /// The crate's sealed structs, by name.
    pub sealed: Vec<String>,
    /// The values of them the API made.
    pub made: Vec<WireValue>,
    /// The constants of the tables the functions in `entered` read, by the
    /// number of each function that noted some: a worker runs no call
    /// before it mines its dictionary.
    pub tables: Vec<(u32, Vec<WireConstant>)>,
}

/// A [`Constant`] as it travels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireConstant {
    /// Text.
    Str(String),
    /// A char.
    Char(char),
    /// A byte.
    Byte(u8),
    /// An integer, as its decimal text (the encoding has no 128-bit
    /// integers, as for [`WireValue::I128`]).
    Int(String),
}

impl From<Constant> for WireConstant {
    fn from(constant: Constant) -> WireConstant {
        match constant {
            Constant::Str(s) => WireConstant::Str(s.to_owned()),
            Constant::Char(c) => WireConstant::Char(c),
            Constant::Byte(b) => WireConstant::Byte(b),
            Constant::Int(i) => WireConstant::Int(i.to_string()),
        }
    }
}

impl WireConstant {
    /// The constant, its text kept for the process (as the worker's tables
    /// would have kept it).
    fn to_constant(&self) -> Constant {
        match self {
            WireConstant::Str(s) => Constant::Str(Box::leak(s.clone().into_boxed_str())),
            WireConstant::Char(c) => Constant::Char(*c),
            WireConstant::Byte(b) => Constant::Byte(*b),
            WireConstant::Int(i) => Constant::Int(i.parse().unwrap_or_default()),
        }
    }
}

impl Start {
    /// What a start of generation for `target` is: `existing`, whose reach
    /// was built from the functions in `entered`.
    pub fn new(
        existing: &Existing,
        entered: &[&'static Sites],
        crashing: BTreeSet<String>,
    ) -> Result<Start, ProtocolError> {
        let all = crate::registry::all_sites();
        let entered = entered
            .iter()
            .map(|sites| {
                all.iter()
                    .position(|s| std::ptr::eq(*s, *sites))
                    .map(|i| i as u32)
                    .ok_or_else(|| ProtocolError {
                        message: format!(
                            "function `{}` was entered but is not registered, so a worker \
                             cannot be told about it",
                            sites.name()
                        ),
                    })
            })
            .collect::<Result<Vec<u32>, _>>()?;
        let tables = entered
            .iter()
            .filter_map(|&i| {
                let tables = all[i as usize].tables();
                (!tables.is_empty())
                    .then(|| (i, tables.iter().copied().map(WireConstant::from).collect()))
            })
            .collect();
        Ok(Start {
            entered,
            seeds: existing.seeds.iter().map(WireValue::from).collect(),
            covered: existing.covered.clone(),
            inapplicable: existing.inapplicable.clone(),
            known_failures: existing.known_failures.clone(),
            slowest_ns: u64::try_from(existing.slowest.as_nanos()).unwrap_or(u64::MAX),
            crashing,
            delegated: existing.delegated.clone(),
            sealed: existing.sealed.names().map(str::to_owned).collect(),
            made: existing.sealed.made().map(WireValue::from).collect(),
            tables,
        })
    }

    /// The [`Existing`] it was made from, for `target`: its reach rebuilt
    /// from the same functions, the rest as sent.
    pub fn existing(&self, target: &'static Target) -> Result<Existing, ProtocolError> {
        let all = crate::registry::all_sites();
        let entered = self
            .entered
            .iter()
            .map(|i| {
                all.get(*i as usize).copied().ok_or_else(|| ProtocolError {
                    message: format!(
                        "the setup names function number {i}, but this test binary registers {}",
                        all.len()
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        // What the parent's replay noted, as if this worker had run it.
        for (i, constants) in &self.tables {
            if let Some(sites) = all.get(*i as usize) {
                sites.note_tables(|| constants.iter().map(WireConstant::to_constant).collect());
            }
        }
        Ok(Existing {
            reach: Reach::new(target.sites, entered, &all).with_goals(),
            seeds: self.seeds.iter().map(WireValue::to_value).collect(),
            covered: self.covered.clone(),
            inapplicable: self.inapplicable.clone(),
            known_failures: self.known_failures.clone(),
            slowest: Duration::from_nanos(self.slowest_ns),
            delegated: self.delegated.clone(),
            sealed: {
                let mut sealed = Sealed::new(&self.sealed);
                for made in &self.made {
                    sealed.add_made(&made.to_value());
                }
                sealed
            },
        })
    }
}

/// What one call reached ([`Trace::entries`]) as it travels: per entry,
/// the function's number in [`crate::registry::all_sites`] (the same in
/// every process of one binary, as in [`Start::entered`]), the outcome id,
/// and the bits of the distance (0 for an outcome taken), so that every
/// distance arrives exactly as it left.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WireTrace(pub Vec<(u32, u32, u64)>);

impl WireTrace {
    /// `trace` as it travels; an error names a function that is not
    /// registered (no other process could tell which it is).
    pub fn of(trace: &Trace, numbers: &SiteNumbers) -> Result<WireTrace, ProtocolError> {
        trace
            .entries()
            .iter()
            .map(|(sites, id, distance)| {
                let number = numbers.number(sites).ok_or_else(|| ProtocolError {
                    message: format!(
                        "function `{}` was reached but is not registered, so the parent \
                         cannot be told about it",
                        sites.name()
                    ),
                })?;
                Ok((number, *id, distance.to_bits()))
            })
            .collect::<Result<_, _>>()
            .map(WireTrace)
    }

    /// The trace it was made from; an error says which function number this
    /// test binary does not have (a message from another build).
    pub fn to_trace(&self, numbers: &SiteNumbers) -> Result<Trace, ProtocolError> {
        self.0
            .iter()
            .map(|&(number, id, bits)| {
                let sites = numbers.sites(number).ok_or_else(|| ProtocolError {
                    message: format!(
                        "a worker sent a trace naming function number {number}, but this test \
                         binary registers {}",
                        numbers.registered()
                    ),
                })?;
                Ok((sites, id, f64::from_bits(bits)))
            })
            .collect::<Result<_, _>>()
            .map(Trace::from_entries)
    }
}

/// A [`Value`] as it travels: names as text, floats as their bits (so
/// that every NaN and -0.0 arrives as it left), 128-bit integers as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // mirrors `Value` one to one
pub enum WireValue {
    Unit,
    Bool(bool),
    I64(i64),
    U64(u64),
    I128(String),
    U128(String),
    F32(u32),
    F64(u64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<WireValue>),
    UnitStruct(String),
    UnitVariant {
        name: String,
        index: u32,
        variant: String,
    },
    NewtypeStruct(String, Box<WireValue>),
    NewtypeVariant {
        name: String,
        index: u32,
        variant: String,
        value: Box<WireValue>,
    },
    Seq(Vec<WireValue>),
    Tuple(Vec<WireValue>),
    TupleStruct(String, Vec<WireValue>),
    TupleVariant {
        name: String,
        index: u32,
        variant: String,
        fields: Vec<WireValue>,
    },
    Map(Vec<(WireValue, WireValue)>),
    Struct(String, Vec<(String, WireValue)>),
    StructVariant {
        name: String,
        index: u32,
        variant: String,
        fields: Vec<(String, WireValue)>,
    },
}

impl From<&Value> for WireValue {
    fn from(value: &Value) -> Self {
        let all = |values: &[Value]| values.iter().map(WireValue::from).collect();
        let named = |fields: &[(&'static str, Value)]| {
            fields
                .iter()
                .map(|(name, v)| ((*name).to_owned(), WireValue::from(v)))
                .collect()
        };
        let boxed = |v: &Value| Box::new(WireValue::from(v));
        match value {
            Value::Unit => WireValue::Unit,
            Value::Bool(v) => WireValue::Bool(*v),
            Value::I64(v) => WireValue::I64(*v),
            Value::U64(v) => WireValue::U64(*v),
            Value::I128(v) => WireValue::I128(v.to_string()),
            Value::U128(v) => WireValue::U128(v.to_string()),
            Value::F32(v) => WireValue::F32(v.to_bits()),
            Value::F64(v) => WireValue::F64(v.to_bits()),
            Value::Char(v) => WireValue::Char(*v),
            Value::Str(v) => WireValue::Str(v.clone()),
            Value::Bytes(v) => WireValue::Bytes(v.clone()),
            Value::None => WireValue::None,
            Value::Some(v) => WireValue::Some(boxed(v)),
            Value::UnitStruct(name) => WireValue::UnitStruct((*name).to_owned()),
            Value::UnitVariant {
                name,
                index,
                variant,
            } => WireValue::UnitVariant {
                name: (*name).to_owned(),
                index: *index,
                variant: (*variant).to_owned(),
            },
            Value::NewtypeStruct(name, v) => WireValue::NewtypeStruct((*name).to_owned(), boxed(v)),
            Value::NewtypeVariant {
                name,
                index,
                variant,
                value,
            } => WireValue::NewtypeVariant {
                name: (*name).to_owned(),
                index: *index,
                variant: (*variant).to_owned(),
                value: boxed(value),
            },
            Value::Seq(v) => WireValue::Seq(all(v)),
            Value::Tuple(v) => WireValue::Tuple(all(v)),
            Value::TupleStruct(name, v) => WireValue::TupleStruct((*name).to_owned(), all(v)),
            Value::TupleVariant {
                name,
                index,
                variant,
                fields,
            } => WireValue::TupleVariant {
                name: (*name).to_owned(),
                index: *index,
                variant: (*variant).to_owned(),
                fields: all(fields),
            },
            Value::Map(entries) => WireValue::Map(
                entries
                    .iter()
                    .map(|(k, v)| (WireValue::from(k), WireValue::from(v)))
                    .collect(),
            ),
            Value::Struct(name, fields) => WireValue::Struct((*name).to_owned(), named(fields)),
            Value::StructVariant {
                name,
                index,
                variant,
                fields,
            } => WireValue::StructVariant {
                name: (*name).to_owned(),
                index: *index,
                variant: (*variant).to_owned(),
                fields: named(fields),
            },
        }
    }
}

impl WireValue {
    /// The [`Value`] it carries. Names become `&'static str` again through
    /// [`intern`]: a worker holds few distinct ones (its types' names), each
    /// kept once for the life of the process.
    pub fn to_value(&self) -> Value {
        let all = |values: &[WireValue]| values.iter().map(WireValue::to_value).collect();
        let named = |fields: &[(String, WireValue)]| {
            fields
                .iter()
                .map(|(name, v)| (intern(name), v.to_value()))
                .collect()
        };
        let boxed = |v: &WireValue| Box::new(v.to_value());
        match self {
            WireValue::Unit => Value::Unit,
            WireValue::Bool(v) => Value::Bool(*v),
            WireValue::I64(v) => Value::I64(*v),
            WireValue::U64(v) => Value::U64(*v),
            // Written from an i128 by `to_string`: it parses back.
            WireValue::I128(v) => Value::I128(v.parse().unwrap_or_default()),
            WireValue::U128(v) => Value::U128(v.parse().unwrap_or_default()),
            WireValue::F32(bits) => Value::F32(f32::from_bits(*bits)),
            WireValue::F64(bits) => Value::F64(f64::from_bits(*bits)),
            WireValue::Char(v) => Value::Char(*v),
            WireValue::Str(v) => Value::Str(v.clone()),
            WireValue::Bytes(v) => Value::Bytes(v.clone()),
            WireValue::None => Value::None,
            WireValue::Some(v) => Value::Some(boxed(v)),
            WireValue::UnitStruct(name) => Value::UnitStruct(intern(name)),
            WireValue::UnitVariant {
                name,
                index,
                variant,
            } => Value::UnitVariant {
                name: intern(name),
                index: *index,
                variant: intern(variant),
            },
            WireValue::NewtypeStruct(name, v) => Value::NewtypeStruct(intern(name), boxed(v)),
            WireValue::NewtypeVariant {
                name,
                index,
                variant,
                value,
            } => Value::NewtypeVariant {
                name: intern(name),
                index: *index,
                variant: intern(variant),
                value: boxed(value),
            },
            WireValue::Seq(v) => Value::Seq(all(v)),
            WireValue::Tuple(v) => Value::Tuple(all(v)),
            WireValue::TupleStruct(name, v) => Value::TupleStruct(intern(name), all(v)),
            WireValue::TupleVariant {
                name,
                index,
                variant,
                fields,
            } => Value::TupleVariant {
                name: intern(name),
                index: *index,
                variant: intern(variant),
                fields: all(fields),
            },
            WireValue::Map(entries) => Value::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_value(), v.to_value()))
                    .collect(),
            ),
            WireValue::Struct(name, fields) => Value::Struct(intern(name), named(fields)),
            WireValue::StructVariant {
                name,
                index,
                variant,
                fields,
            } => Value::StructVariant {
                name: intern(name),
                index: *index,
                variant: intern(variant),
                fields: named(fields),
            },
        }
    }
}

/// `name` as a `&'static str`, leaked once per distinct name per process.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// What went wrong between a worker and its parent: a line that is not a
/// message (which line, from whom, and why), or a message that cannot be
/// written or does not fit this test binary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProtocolError {
    /// Said in full.
    pub message: String,
}

/// Who wrote a line that is read.
#[derive(Debug, Clone, Copy)]
pub enum Sender {
    /// A worker, to its parent.
    Worker,
    /// The parent, to its worker (its setup).
    Parent,
}

/// `message` as one protocol line, without its newline.
pub fn write_line<T: Serialize>(message: &T) -> Result<String, ProtocolError> {
    wire_options()
        .to_string(message)
        .map(|text| format!("{PREFIX}{text}"))
        .map_err(|e| ProtocolError {
            message: format!("cannot write a message to a generation worker or its parent: {e}"),
        })
}

/// The message on one protocol line; an error says where and why it is
/// not one.
pub fn read_line<T: DeserializeOwned>(line: &str, from: Sender) -> Result<T, ProtocolError> {
    let malformed = |why: &dyn fmt::Display| ProtocolError {
        message: match from {
            Sender::Worker => format!("a worker sent a malformed message: {line:?} ({why})"),
            Sender::Parent => format!(
                "this worker was sent a malformed setup: {line:?} ({why}); {WORKER_VAR} is \
                 set by carve for its own worker processes only"
            ),
        },
    };
    let text = line
        .strip_prefix(PREFIX)
        .ok_or_else(|| malformed(&format_args!("it does not start with `{PREFIX}`")))?;
    wire_options().from_str(text).map_err(|e| malformed(&e))
}

/// RON without its recursion limit: a setup carries the seeds, nested as
/// deep as carve writes values, each level a few RON levels deep. Deep
/// ones are written and read on a large stack ([`WorkerSetup::to_line`]).
fn wire_options() -> ron::Options {
    ron::Options::default().without_recursion_limit()
}

impl WorkerSetup {
    /// The setup as one protocol line, written on a stack large enough for
    /// the deepest seed.
    pub fn to_line(&self) -> Result<String, ProtocolError> {
        depth::with_stack(|| write_line(self))
    }

    /// The setup on `line`, read on a stack large enough for the deepest seed.
    pub fn from_line(line: &str) -> Result<WorkerSetup, ProtocolError> {
        depth::with_stack_for(depth::nesting_bound(line), || read_line(line, Sender::Parent))
    }
}

impl fmt::Display for WorkerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_line(self).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for WorkerMessage {
    type Err = ProtocolError;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        read_line(line, Sender::Worker)
    }
}

/// The worker's end of the protocol channel. Its threads (the generation
/// and the heartbeat) share it; each message is written whole.
pub struct Channel {
    out: Mutex<Box<dyn Write + Send>>,
}

impl Channel {
    /// Takes the process's stdout for the protocol. On Unix, file descriptor
    /// 1 is then pointed at stderr (which the parent discards), so that what
    /// the code under test prints goes there and not into the protocol.
    /// Call it before anything is printed.
    pub fn take_stdout() -> io::Result<Channel> {
        #[cfg(unix)]
        {
            use std::os::fd::{AsFd, AsRawFd};
            let stdout = io::stdout();
            let protocol = stdout.as_fd().try_clone_to_owned()?;
            // SAFETY: `dup2` on two descriptors this process owns (its
            // standard output and error); it only replaces what descriptor 1
            // refers to, which `std::io::stdout()` keeps writing to.
            if unsafe { libc::dup2(io::stderr().as_fd().as_raw_fd(), stdout.as_fd().as_raw_fd()) }
                < 0
            {
                return Err(io::Error::last_os_error());
            }
            let file = std::fs::File::from(protocol);
            Ok(Channel {
                out: Mutex::new(Box::new(io::LineWriter::new(file))),
            })
        }
        #[cfg(not(unix))]
        {
            // Elsewhere the protocol shares stdout with the target; a line a
            // target prints is reported as a malformed message.
            Ok(Channel {
                out: Mutex::new(Box::new(io::stdout())),
            })
        }
    }

    /// A channel to `out`, for tests.
    #[cfg(test)]
    pub fn to(out: impl Write + Send + 'static) -> Channel {
        Channel {
            out: Mutex::new(Box::new(out)),
        }
    }

    /// Sends one message. Fails when the parent is gone (a broken pipe).
    pub fn send(&self, message: &WorkerMessage) -> io::Result<()> {
        // Writing returns errors and never panics: a poisoned lock still
        // guards whole lines.
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        writeln!(out, "{message}")?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carving::store::{Origin, StoredOutcome};
    use crate::carving::store::CarveFile;

    #[test]
    fn every_message_reads_back_as_itself() {
        let messages = [
            WorkerMessage::Alive,
            WorkerMessage::TimedOut,
            WorkerMessage::Progress {
                executions: 498,
                covered: 7,
                undeserializable: 3,
                phase: Some(Phase::Avm),
            },
            WorkerMessage::Progress {
                executions: 1,
                covered: 0,
                undeserializable: 0,
                phase: None,
            },
            WorkerMessage::Kept {
                entry: entry(
                    Origin::Generated {
                        seed: 7,
                        added: vec!["src/lib.rs:3:8 `x > 1` true".into()],
                    },
                    "(\n    s: \"a\\n\\\"b\\\" é\\t\",\n)",
                    "Returned(\"ok\")",
                    Some("(\n    v: [\n        1,\n    ],\n)"),
                ),
                trace: WireTrace(vec![(0, 0, 0), (3, 1, 0.5f64.to_bits())]),
            },
            WorkerMessage::Note {
                line: "carve: f: generating from carved values only for parameter(s) whose \
                       type could not be traced: `a`: \"untagged\"\n"
                    .into(),
            },
            WorkerMessage::Failure {
                entry: entry(
                    Origin::Found {
                        seed: 7,
                        at: "src/lib.rs:12".into(),
                        expected: false,
                    },
                    "(x: 0)",
                    "Crashed(\"abort: at src/lib.rs:12\")",
                    None,
                ),
                trace: WireTrace::default(),
            },
            WorkerMessage::Error {
                message: "carved/x.ron: Permission denied (os error 13)".into(),
            },
            WorkerMessage::Distilled(Distilled {
                dropped: vec!["(\n    x: 1,\n)".into()],
                renamed: vec![("(x: \"a\")".into(), vec!["src/lib.rs:3:8 `x > 1` true".into()])],
            }),
            WorkerMessage::Done {
                executions: 20_000,
                undeserializable: 0,
                reach_grew: true,
            },
        ];
        for message in messages {
            let line = message.to_string();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(line.parse::<WorkerMessage>(), Ok(message));
        }
    }

    fn entry(origin: Origin, args: &str, outcome: &str, after: Option<&str>) -> Entry {
        let outcome = StoredOutcome::parse(outcome).unwrap();
        Entry::new(origin, args, outcome, after)
    }

    /// An entry arrives as the worker made it, so the carve file the parent
    /// writes is the one the worker would have written: multi-line texts,
    /// escapes and all.
    #[test]
    fn an_entry_arrives_byte_for_byte() {
        let sent = entry(
            Origin::System("tests::a".into()),
            "(\n    s: \"tab\\there\",\n    c: '\\'',\n)",
            "Panicked(\"boom\\nline two\")",
            None,
        );
        let line = WorkerMessage::Kept {
            entry: sent.clone(),
            trace: WireTrace::default(),
        }
        .to_string();
        let Ok(WorkerMessage::Kept { entry: got, .. }) = line.parse::<WorkerMessage>() else {
            panic!("{line}");
        };
        assert_eq!(got.args, sent.args);
        assert_eq!(got.outcome, sent.outcome);
        assert_eq!(
            CarveFile::render("a", &[got]),
            CarveFile::render("a", &[sent])
        );
    }

    /// A trace arrives as the worker traced it: each function by its number,
    /// every distance to the bit; a number this binary does not have is an
    /// error, and so is a function that is not registered.
    #[test]
    fn a_trace_arrives_exactly() {
        static F: Sites = Sites::new("demo", "f", "", (0, 0), &[], &[]);
        static G: Sites = Sites::new("demo", "g", "", (0, 0), &[], &[]);
        let numbers = SiteNumbers::of(vec![&F, &G]);
        let tiny = f64::from_bits(1);
        let trace = Trace::from_entries(vec![(&G, 2, tiny), (&F, 0, 0.0), (&G, 0, 1.0 / 3.0)]);
        let sent = WireTrace::of(&trace, &numbers).unwrap();
        let message = WorkerMessage::Kept {
            entry: entry(Origin::System("t".into()), "(x: 1)", "Returned(())", None),
            trace: sent.clone(),
        };
        let Ok(WorkerMessage::Kept { trace: got, .. }) = message.to_string().parse() else {
            panic!("{message}");
        };
        assert_eq!(got, sent);
        assert_eq!(got.to_trace(&numbers).unwrap(), trace);
        let other = SiteNumbers::of(vec![&F]);
        let error = got.to_trace(&other).unwrap_err().to_string();
        assert_eq!(
            error,
            "a worker sent a trace naming function number 1, but this test binary registers 1"
        );
        let error = WireTrace::of(&trace, &other).unwrap_err().to_string();
        assert_eq!(
            error,
            "function `g` was reached but is not registered, so the parent cannot be told about \
             it"
        );
    }

    /// The setup arrives whole: every kind of value among the seeds (NaN
    /// and -0.0 by their bits, 128-bit integers, names), the crash list,
    /// and what the parent's replay showed.
    #[test]
    fn a_setup_reads_back_as_itself() {
        let seed = Value::Struct(
            "args",
            vec![
                ("f", Value::F64(-0.0)),
                ("g", Value::F32(f32::from_bits(0x7fc0_0001))),
                ("i", Value::I128(i128::MIN)),
                ("u", Value::U128(u128::MAX)),
                ("c", Value::Char('\u{0}')),
                ("s", Value::Str("line\nnext \"q\" é".into())),
                ("b", Value::Bytes(vec![0, 255])),
                (
                    "e",
                    Value::StructVariant {
                        name: "E",
                        index: 2,
                        variant: "V",
                        fields: vec![("x", Value::Some(Box::new(Value::Unit)))],
                    },
                ),
                (
                    "m",
                    Value::Map(vec![(Value::U64(1), Value::Seq(vec![Value::Bool(true)]))]),
                ),
                ("t", Value::TupleStruct("T", vec![Value::I64(-3), Value::None])),
            ],
        );
        let setup = WorkerSetup {
            scratch: PathBuf::from("/tmp/carve-1-0-f"),
            seed: 7,
            budget: WireBudget::Millis(1500),
            cap: 19_900,
            timeout_ms: 1000,
            restart: true,
            crashes: vec![Crash {
                hash: 0xdead_beef,
                at: "abort at src/lib.rs:3".into(),
                message: "abort: \"x\"\tprocess killed by signal 6".into(),
            }],
            unbuildable: vec![0xfeed],
            round: 1,
            counters: Some(crate::coverage::counters::Counted::for_tests(
                40,
                Some(vec![(1, 3), (7, 40)]),
                "carve: edge counters: 35 of 40 counted",
            )),
            start: Start {
                entered: vec![0, 3],
                seeds: vec![WireValue::from(&seed)],
                covered: [1, 4].into(),
                inapplicable: [9].into(),
                known_failures: [Failure::from("src/lib.rs:12")].into(),
                slowest_ns: 16_000,
                crashing: ["(x:0)".to_owned()].into(),
                delegated: [2, 5].into(),
                sealed: vec!["Table".to_owned()],
                made: vec![WireValue::from(&Value::NewtypeStruct("Table", Box::new(Value::U64(1))))],
                tables: vec![(3, vec![WireConstant::Str("i-klingon".into()), WireConstant::Int("-3".into())])],
            },
        };
        let line = setup.to_line().unwrap();
        assert!(!line.contains('\n'), "{line}");
        let read = WorkerSetup::from_line(&line).unwrap();
        assert_eq!(read, setup);
        let value = read.start.seeds[0].to_value();
        // `Value` compares floats by their bits.
        assert_eq!(value, seed);
        assert_eq!(value.to_compact_ron(), seed.to_compact_ron());
        assert_eq!(Budget::from(read.budget), Budget::Time(Duration::from_millis(1500)));
    }

    /// A seed nested as deep as carve writes values travels too.
    #[test]
    fn a_deep_seed_travels() {
        let mut value = Value::Unit;
        for _ in 0..depth::MAX_DEPTH {
            value = Value::Seq(vec![value]);
        }
        let start = Start {
            entered: vec![],
            seeds: depth::with_stack(|| vec![WireValue::from(&value)]),
            covered: BTreeSet::new(),
            inapplicable: BTreeSet::new(),
            known_failures: BTreeSet::new(),
            slowest_ns: 0,
            crashing: BTreeSet::new(),
            delegated: BTreeSet::new(),
            sealed: Vec::new(),
            made: Vec::new(),
            tables: Vec::new(),
        };
        let setup = WorkerSetup {
            scratch: PathBuf::new(),
            seed: 1,
            budget: WireBudget::Executions(1),
            cap: 1,
            timeout_ms: 1,
            restart: false,
            crashes: vec![],
            unbuildable: vec![],
            start,
            round: 0,
            counters: None,
        };
        let line = setup.to_line().unwrap();
        let read = WorkerSetup::from_line(&line).unwrap();
        assert!(depth::with_stack(|| read == setup));
        depth::with_stack(move || {
            drop(read);
            drop(setup);
            drop(value);
        });
    }

    /// A setup made for another build of the test binary (a function
    /// number it does not have) is an error, not a wrong reach.
    #[test]
    fn a_setup_for_another_binary_is_an_error() {
        static SITES: Sites = Sites::new("demo", "f", "", (0, 0), &[], &[]);
        static TARGET: Target = Target {
            module_path: "demo",
            fn_name: "f",
            signature: "fn f()",
            file: "",
            line: 0,
            sites: &SITES,
            replay: |_| unreachable!(),
            trace: |_| {},
            uncarvable: || None,
        };
        let start = Start {
            entered: vec![u32::MAX],
            seeds: vec![],
            covered: BTreeSet::new(),
            inapplicable: BTreeSet::new(),
            known_failures: BTreeSet::new(),
            slowest_ns: 0,
            crashing: BTreeSet::new(),
            delegated: BTreeSet::new(),
            sealed: Vec::new(),
            made: Vec::new(),
            tables: Vec::new(),
        };
        let error = start.existing(&TARGET).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("the setup names function number {}, but", u32::MAX)),
            "{error}"
        );
        let none = Start {
            entered: vec![],
            ..start
        };
        assert_eq!(none.existing(&TARGET).unwrap().reach.len(), 0);
    }

    /// A worker runs no call before it mines its dictionary: the tables its
    /// parent's replay noted travel in the setup and are noted in the worker.
    #[test]
    fn the_tables_the_parent_noted_are_noted_in_the_worker() {
        use crate::registry::SitesRef;
        static NOTED: Sites = Sites::new("demo::tables", "noted", "", (0, 0), &[], &[]);
        static FRESH: Sites = Sites::new("demo::tables", "fresh", "", (0, 0), &[], &[]);
        inventory::submit!(SitesRef(&NOTED));
        inventory::submit!(SitesRef(&FRESH));
        static TARGET: Target = Target {
            module_path: "demo::tables",
            fn_name: "noted",
            signature: "fn noted()",
            file: "",
            line: 0,
            sites: &NOTED,
            replay: |_| unreachable!(),
            trace: |_| {},
            uncarvable: || None,
        };
        NOTED.note_tables(|| vec![Constant::Str("i-klingon"), Constant::Int(32)]);
        let all = crate::registry::all_sites();
        let number = |sites: &Sites| all.iter().position(|s| std::ptr::eq(*s, sites)).unwrap() as u32;
        let existing = Existing {
            reach: Reach::new(&NOTED, [&NOTED, &FRESH], &all),
            ..Existing::seeds(&TARGET, vec![])
        };
        let start = Start::new(&existing, &[&NOTED, &FRESH], BTreeSet::new()).unwrap();
        let sent = vec![WireConstant::Str("i-klingon".into()), WireConstant::Int("32".into())];
        assert_eq!(start.tables, [(number(&NOTED), sent.clone())]);
        // `FRESH` stands for the same function in a worker that has not run it.
        let received = Start {
            tables: vec![(number(&FRESH), sent)],
            ..start
        };
        received.existing(&TARGET).unwrap();
        assert_eq!(FRESH.tables(), [Constant::Str("i-klingon"), Constant::Int(32)]);
    }

    /// Anything else is an error that quotes the line and says what is
    /// wrong with it.
    #[test]
    fn lines_that_are_not_messages_are_errors() {
        for line in [
            "",
            "hello",
            "carve-worker",
            "carve-worker Progress(executions:1,covered:2)",
            "carve-worker Progress(executions:1,covered:2,undeserializable:x,phase:None)",
            "carve-worker Progress(executions:1,covered:2,undeserializable:3,phase:Some(search))",
            "carve-worker Kept(now)",
            "carve-worker Kept(entry:(origin:System(\"t\"),args:\"()\",outcome:\"Returned(1)\",after:None))",
            "carve-worker Kept(entry:(origin:System(\"t\"),args:\"()\",outcome:\"Returned(1)\",after:None),trace:[(1,2)])",
            "carve-worker Note(line:1)",
            "carve-worker Kept",
            "carve-worker Failure",
            "carve-worker Kept(entry:(origin:System(\"t\"),args:\"()\",outcome:\"Nope(1)\",after:None),trace:[]))",
            "carve-worker Kept(entry:(origin:System(\"t\"),args:\"()\",outcome:\"Returned(1)\",after:None),trace:[]) 1",
            "carve-worker Alive 1",
            "carve-worker Error(message:not-ron)",
            "partial linecarve-worker Kept",
            "carve-worker Unknown",
        ] {
            let error = line.parse::<WorkerMessage>().unwrap_err();
            let start = format!("a worker sent a malformed message: {line:?} (");
            assert!(error.message.starts_with(&start), "{error}");
        }
        let error = "carve-worker Progress(executions:1,covered:2)"
            .parse::<WorkerMessage>()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "a worker sent a malformed message: \"carve-worker Progress(executions:1,covered:2)\" \
             (1:32: Unexpected missing field named `undeserializable` in `Progress`)"
        );
        assert_eq!(
            WorkerSetup::from_line("").unwrap_err().to_string(),
            "this worker was sent a malformed setup: \"\" (it does not start with \
             `carve-worker `); CARVE_WORKER is set by carve for its own worker processes only"
        );
        assert!(WorkerSetup::from_line("carve-worker Alive").is_err());
    }
}
