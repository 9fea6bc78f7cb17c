//! The one error type of carve's own work at the top (the runner's modes):
//! it wraps the store's, the configuration's and generation's errors
//! ([`WorkerError`]) and adds what only running can go wrong with, so each
//! message is written once, where the error is defined.

use std::fmt;

use crate::carving::layout::StoreError;
use crate::carving::store::EntryError;
use crate::env::ConfigError;
use crate::generation::worker::WorkerError;

/// What stopped a mode or a worker from doing its job.
#[derive(Debug)]
pub enum Error {
    /// An environment variable carve does not understand.
    Config(ConfigError),
    /// A carve file that could not be read, parsed or written.
    Store(StoreError),
    /// A value that could not be written as RON.
    Ron(ron::Error),
    /// A call that cannot be stored as a carve entry.
    Entry(EntryError),
    /// Generation in workers stopped.
    Generation(WorkerError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => e.fmt(f),
            Error::Store(e) => e.fmt(f),
            Error::Ron(e) => write!(f, "a value could not be written as RON: {e}"),
            Error::Entry(e) => write!(f, "a call could not be stored: {e}"),
            Error::Generation(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            Error::Store(e) => Some(e),
            Error::Ron(e) => Some(e),
            Error::Entry(e) => Some(e),
            // Transparent: its message is this one.
            Error::Generation(e) => e.source(),
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

impl From<WorkerError> for Error {
    fn from(e: WorkerError) -> Self {
        Error::Generation(e)
    }
}
