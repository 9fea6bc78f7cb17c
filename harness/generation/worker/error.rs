//! What stops generation in workers, on either side: the parent's (a
//! worker that cannot be started, talked to or understood, a save that
//! fails) and the worker's own (a carve file that cannot be read, a call
//! that cannot be stored). The top-level [`crate::error::Error`] wraps it.

use std::fmt;
use std::io;

use crate::carving::layout::StoreError;
use crate::carving::store::EntryError;

use super::protocol::ProtocolError;

/// What stopped generation in workers.
#[derive(Debug)]
pub enum WorkerError {
    /// A carve file that could not be read or parsed.
    Store(StoreError),
    /// What generation found could not be saved to the carve file.
    Save(StoreError),
    /// A call that cannot be stored as a carve entry.
    Entry(EntryError),
    /// The test binary could not be re-run as a generation worker.
    StartWorker(io::Error),
    /// Talking to a worker process failed.
    WorkerIo(io::Error),
    /// A worker, or its parent, sent something that is not a protocol
    /// message.
    Protocol(ProtocolError),
    /// A worker stopped with an error of its own.
    Worker { target: String, message: String },
    /// `CARVE_WORKER` names no registered target.
    UnknownTarget(String),
}

impl fmt::Display for WorkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerError::Store(e) => e.fmt(f),
            WorkerError::Save(e) => write!(f, "could not save what generation found: {e}"),
            WorkerError::Entry(EntryError::Ron(e)) => {
                write!(f, "a value could not be written as RON: {e}")
            }
            WorkerError::Entry(e) => write!(f, "a call could not be stored: {e}"),
            WorkerError::StartWorker(e) => {
                write!(f, "cannot re-run the test binary as a generation worker: {e}")
            }
            WorkerError::WorkerIo(e) => write!(f, "lost contact with a generation worker: {e}"),
            WorkerError::Protocol(e) => e.fmt(f),
            WorkerError::Worker { target, message } => {
                write!(f, "{target}: generation stopped: {message}")
            }
            WorkerError::UnknownTarget(name) => write!(f, "no target `{name}` is registered"),
        }
    }
}

impl std::error::Error for WorkerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WorkerError::Store(e) | WorkerError::Save(e) => Some(e),
            WorkerError::Entry(EntryError::Ron(e)) => Some(e),
            WorkerError::Entry(e) => Some(e),
            WorkerError::StartWorker(e) | WorkerError::WorkerIo(e) => Some(e),
            WorkerError::Protocol(e) => Some(e),
            WorkerError::Worker { .. } | WorkerError::UnknownTarget(_) => None,
        }
    }
}

impl From<StoreError> for WorkerError {
    fn from(e: StoreError) -> Self {
        WorkerError::Store(e)
    }
}

impl From<EntryError> for WorkerError {
    fn from(e: EntryError) -> Self {
        WorkerError::Entry(e)
    }
}

impl From<ProtocolError> for WorkerError {
    fn from(e: ProtocolError) -> Self {
        WorkerError::Protocol(e)
    }
}
