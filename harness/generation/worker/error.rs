//! What stops generation in workers, on either side: the parent's (a
//! worker that cannot be started, talked to or understood, a save that
//! fails) and the worker's own (a carve file that cannot be read, a call
//! that cannot be stored). The top-level [`crate::error::Error`] wraps it.

use std::io;

use crate::carving::layout::StoreError;
use crate::carving::store::EntryError;

use super::protocol::ProtocolError;

/// What stopped generation in workers.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// A carve file that could not be read or parsed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// What generation found could not be saved to the carve file.
    #[error("could not save what generation found: {0}")]
    Save(#[source] StoreError),
    /// A call that cannot be stored as a carve entry.
    #[error("{}", entry_message(.0))]
    Entry(#[from] EntryError),
    /// The test binary could not be re-run as a generation worker.
    #[error("cannot re-run the test binary as a generation worker: {0}")]
    StartWorker(#[source] io::Error),
    /// Talking to a worker process failed.
    #[error("lost contact with a generation worker: {0}")]
    WorkerIo(#[source] io::Error),
    /// A worker, or its parent, sent something that is not a protocol
    /// message.
    #[error("{0}")]
    Protocol(#[from] ProtocolError),
    /// A worker stopped with an error of its own.
    #[error("{target}: generation stopped: {message}")]
    Worker { target: String, message: String },
    /// `CARVE_WORKER` names no registered target.
    #[error("no target `{0}` is registered")]
    UnknownTarget(String),
}

/// A value that RON cannot write is said as such; any other entry error as
/// a call that cannot be stored.
fn entry_message(e: &EntryError) -> String {
    match e {
        EntryError::Ron(e) => format!("a value could not be written as RON: {e}"),
        e => format!("a call could not be stored: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages as they were written by hand before `thiserror`.
    #[test]
    fn messages_are_unchanged() {
        let io = || io::Error::other("pipe");
        let ron_error = ron::Error::Message("bad".into());
        let cases = [
            (
                WorkerError::StartWorker(io()),
                "cannot re-run the test binary as a generation worker: pipe",
            ),
            (WorkerError::WorkerIo(io()), "lost contact with a generation worker: pipe"),
            (
                WorkerError::Worker { target: "a::f".into(), message: "boom".into() },
                "a::f: generation stopped: boom",
            ),
            (WorkerError::UnknownTarget("a::f".into()), "no target `a::f` is registered"),
            (
                WorkerError::Entry(EntryError::Ron(ron_error.clone())),
                "a value could not be written as RON: bad",
            ),
            (
                WorkerError::Protocol(ProtocolError { message: "said".into() }),
                "said",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
        let too_deep = WorkerError::Entry(EntryError::TooDeep { part: "arguments", depth: 200 });
        assert!(too_deep
            .to_string()
            .starts_with("a call could not be stored: the nesting of its arguments is 200 levels, deeper than the "));
        let top = crate::error::Error::from(EntryError::Ron(ron_error));
        assert_eq!(top.to_string(), "a value could not be written as RON: bad");
        let top = crate::error::Error::from(WorkerError::UnknownTarget("x".into()));
        assert_eq!(top.to_string(), "no target `x` is registered");
    }
}
