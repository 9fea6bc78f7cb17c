//! The one error type of carve's own work (the runner's modes and the
//! generation workers): it wraps the store's and the configuration's errors
//! and adds what only running can go wrong with, so each message is written
//! once, where the error is defined.

use std::fmt;
use std::io;

use crate::carving::layout::StoreError;
use crate::carving::store::EntryError;
use crate::env::ConfigError;
use crate::generation::worker::protocol::MalformedMessage;

/// What stopped a mode or a worker from doing its job.
#[derive(Debug)]
pub enum Error {
    /// An environment variable carve does not understand.
    Config(ConfigError),
    /// A carve file that could not be read, parsed or written.
    Store(StoreError),
    /// What generation found could not be saved to the carve file.
    Save(StoreError),
    /// A value that could not be written as RON.
    Ron(ron::Error),
    /// A call that cannot be stored as a carve entry.
    Entry(EntryError),
    /// The test binary could not be re-run as a generation worker.
    StartWorker(io::Error),
    /// Talking to a worker process failed.
    WorkerIo(io::Error),
    /// A worker sent something that is not a protocol message.
    Protocol(MalformedMessage),
    /// A worker stopped with an error of its own.
    Worker { target: String, message: String },
    /// `CARVE_WORKER` names no registered target.
    UnknownTarget(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => e.fmt(f),
            Error::Store(e) => e.fmt(f),
            Error::Save(e) => write!(f, "could not save what generation found: {e}"),
            Error::Ron(e) => write!(f, "a value could not be written as RON: {e}"),
            Error::Entry(e) => write!(f, "a call could not be stored: {e}"),
            Error::StartWorker(e) => {
                write!(f, "cannot re-run the test binary as a generation worker: {e}")
            }
            Error::WorkerIo(e) => write!(f, "lost contact with a generation worker: {e}"),
            Error::Protocol(e) => e.fmt(f),
            Error::Worker { target, message } => {
                write!(f, "{target}: generation stopped: {message}")
            }
            Error::UnknownTarget(name) => write!(f, "no target `{name}` is registered"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            Error::Store(e) | Error::Save(e) => Some(e),
            Error::Ron(e) => Some(e),
            Error::Entry(e) => Some(e),
            Error::StartWorker(e) | Error::WorkerIo(e) => Some(e),
            Error::Protocol(e) => Some(e),
            Error::Worker { .. } | Error::UnknownTarget(_) => None,
        }
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Store(e)
    }
}

impl From<ron::Error> for Error {
    fn from(e: ron::Error) -> Self {
        Error::Ron(e)
    }
}

impl From<EntryError> for Error {
    fn from(e: EntryError) -> Self {
        match e {
            EntryError::Ron(e) => Error::Ron(e),
            e @ EntryError::TooDeep { .. } => Error::Entry(e),
        }
    }
}

impl From<MalformedMessage> for Error {
    fn from(e: MalformedMessage) -> Self {
        Error::Protocol(e)
    }
}
