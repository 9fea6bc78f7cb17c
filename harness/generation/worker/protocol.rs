//! What a worker tells its parent: one [`WorkerMessage`] per line, written
//! with `Display` and read back with `FromStr`, so both sides share one
//! definition and a line that is not a message is an error, never skipped.
//!
//! The messages travel on their own channel ([`Channel`]): on Unix the
//! worker moves the target's stdout out of the way first, so nothing a
//! target prints, whole lines or partial ones, can reach the parent.
//!
//! ```text
//! carve-worker alive
//! carve-worker progress 498 7 3
//! carve-worker kept (origin:Generated(seed:1,added:["…"]),args:"(x: 3)",outcome:"Returned(9)",after:None)
//! carve-worker done 20000 14
//! ```

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::carving::store::{Entry, Origin, StoredOutcome};
use crate::coverage::history::Phase;

const PREFIX: &str = "carve-worker";

/// One line from a worker to its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// and the phase running (a line without it still reads: `None`).
    Progress {
        executions: u64,
        covered: u64,
        undeserializable: u64,
        phase: Option<Phase>,
    },
    /// A generated call was kept: the parent stores its entry.
    Kept { entry: Entry },
    /// A failing input was found: the parent stores its entry.
    Failure { entry: Entry },
    /// The worker could not go on (e.g. saving to the carve file failed).
    Error { message: String },
    /// Generation finished: calls made, arguments that did not deserialize.
    Done {
        executions: u64,
        undeserializable: u64,
    },
}

impl fmt::Display for WorkerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX} ")?;
        match self {
            WorkerMessage::Alive => write!(f, "alive"),
            WorkerMessage::TimedOut => write!(f, "timeout"),
            WorkerMessage::Progress {
                executions,
                covered,
                undeserializable,
                phase,
            } => {
                write!(f, "progress {executions} {covered} {undeserializable}")?;
                match phase {
                    Some(phase) => write!(f, " {phase}"),
                    None => Ok(()),
                }
            }
            WorkerMessage::Kept { entry } => write!(f, "kept {}", wire(entry)?),
            WorkerMessage::Failure { entry } => write!(f, "failure {}", wire(entry)?),
            // Quoted as a RON string: escapes keep the message on one line.
            WorkerMessage::Error { message } => write!(f, "error {}", quote(message)),
            WorkerMessage::Done {
                executions,
                undeserializable,
            } => write!(f, "done {executions} {undeserializable}"),
        }
    }
}

/// An entry as it travels: its texts as RON strings, whose escapes keep it
/// on one line.
#[derive(Serialize, Deserialize)]
struct WireEntry {
    origin: Origin,
    args: String,
    outcome: String,
    after: Option<String>,
}

fn wire(entry: &Entry) -> Result<String, fmt::Error> {
    let wire = WireEntry {
        origin: entry.origin.clone(),
        args: entry.args.clone(),
        outcome: entry.outcome.text.clone(),
        after: entry.after.clone(),
    };
    ron::to_string(&wire).map_err(|_| fmt::Error)
}

fn unwire(text: &str) -> Option<Entry> {
    let wire: WireEntry = ron::from_str(text).ok()?;
    Some(Entry {
        origin: wire.origin,
        args: wire.args,
        outcome: StoredOutcome::parse(&wire.outcome).ok()?,
        after: wire.after,
        args_position: Default::default(),
        outcome_position: Default::default(),
    })
}

fn quote(text: &str) -> String {
    ron::to_string(text).unwrap_or_else(|_| "\"<unprintable>\"".to_owned())
}

/// A line that is not a [`WorkerMessage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedMessage {
    pub line: String,
}

impl fmt::Display for MalformedMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a worker sent a malformed message: {:?}", self.line)
    }
}

impl std::error::Error for MalformedMessage {}

impl FromStr for WorkerMessage {
    type Err = MalformedMessage;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let malformed = || MalformedMessage {
            line: line.to_owned(),
        };
        let rest = line
            .strip_prefix(PREFIX)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(malformed)?;
        let (word, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let numbers = |count: usize| -> Option<Vec<u64>> {
            let numbers: Vec<u64> = rest
                .split(' ')
                .map(|w| w.parse().ok())
                .collect::<Option<_>>()?;
            (numbers.len() == count).then_some(numbers)
        };
        let message = match word {
            "progress" => {
                // Three numbers, then the phase if the worker sends one.
                let (numbers, phase) = match rest.rsplit_once(' ') {
                    Some((head, last)) if last.parse::<u64>().is_err() => {
                        (head, Some(last.parse::<Phase>().map_err(|()| malformed())?))
                    }
                    _ => (rest, None),
                };
                let numbers: Option<Vec<u64>> =
                    numbers.split(' ').map(|w| w.parse().ok()).collect();
                match numbers.as_deref() {
                    Some(&[executions, covered, undeserializable]) => WorkerMessage::Progress {
                        executions,
                        covered,
                        undeserializable,
                        phase,
                    },
                    _ => return Err(malformed()),
                }
            }
            "alive" if rest.is_empty() => WorkerMessage::Alive,
            "timeout" if rest.is_empty() => WorkerMessage::TimedOut,
            "kept" => WorkerMessage::Kept {
                entry: unwire(rest).ok_or_else(malformed)?,
            },
            "failure" => WorkerMessage::Failure {
                entry: unwire(rest).ok_or_else(malformed)?,
            },
            "error" => WorkerMessage::Error {
                message: ron::from_str(rest).map_err(|_| malformed())?,
            },
            "done" => match numbers(2).as_deref() {
                Some(&[executions, undeserializable]) => WorkerMessage::Done {
                    executions,
                    undeserializable,
                },
                _ => return Err(malformed()),
            },
            _ => return Err(malformed()),
        };
        Ok(message)
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
            },
            WorkerMessage::Error {
                message: "carved/x.ron: Permission denied (os error 13)".into(),
            },
            WorkerMessage::Done {
                executions: 20_000,
                undeserializable: 0,
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
        }
        .to_string();
        let Ok(WorkerMessage::Kept { entry: got }) = line.parse::<WorkerMessage>() else {
            panic!("{line}");
        };
        assert_eq!(got.args, sent.args);
        assert_eq!(got.outcome, sent.outcome);
        assert_eq!(
            CarveFile::render("a", &[got]),
            CarveFile::render("a", &[sent])
        );
    }

    #[test]
    fn a_progress_line_without_a_phase_still_reads() {
        assert_eq!(
            "carve-worker progress 498 7 3".parse::<WorkerMessage>(),
            Ok(WorkerMessage::Progress {
                executions: 498,
                covered: 7,
                undeserializable: 3,
                phase: None
            })
        );
        assert_eq!(
            "carve-worker progress 498 7 3 ga".parse::<WorkerMessage>(),
            Ok(WorkerMessage::Progress {
                executions: 498,
                covered: 7,
                undeserializable: 3,
                phase: Some(Phase::Ga)
            })
        );
        for line in [
            "carve-worker progress 1 2 3 search",
            "carve-worker progress 1 2 grammar",
            "carve-worker progress grammar",
        ] {
            assert!(line.parse::<WorkerMessage>().is_err(), "{line}");
        }
    }

    #[test]
    fn lines_that_are_not_messages_are_errors() {
        for line in [
            "",
            "hello",
            "carve-worker",
            "carve-worker progress 1 2",
            "carve-worker progress 1 2 x",
            "carve-worker progress 1 2 3 4",
            "carve-worker kept now",
            "carve-worker kept",
            "carve-worker failure",
            "carve-worker kept (origin:System(\"t\"),args:\"()\",outcome:\"Nope(1)\",after:None)",
            "carve-worker kept (origin:System(\"t\"),args:\"()\",outcome:\"Returned(1)\",after:None) 1",
            "carve-worker alive 1",
            "carve-worker error not-ron",
            "partial linecarve-worker kept",
            "carve-worker unknown",
        ] {
            let error = line.parse::<WorkerMessage>().unwrap_err();
            assert_eq!(error.line, line);
        }
    }
}
