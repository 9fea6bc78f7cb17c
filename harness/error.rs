//! The one error type of carve's own work at the top (the runner's modes):
//! it wraps the store's, the configuration's and generation's errors
//! ([`WorkerError`]) and adds what only running can go wrong with, so each
//! message is written once, where the error is defined.

use crate::carving::layout::StoreError;
use crate::carving::store::EntryError;
use crate::env::ConfigError;
use crate::generation::worker::WorkerError;

/// What stopped a mode or a worker from doing its job.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An environment variable carve does not understand.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A carve file that could not be read, parsed or written.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A value that could not be written as RON.
    #[error("a value could not be written as RON: {0}")]
    Ron(#[from] ron::Error),
    /// A call that cannot be stored as a carve entry.
    #[error("a call could not be stored: {0}")]
    Entry(#[source] EntryError),
    /// Generation in workers stopped. Transparent: its message is this one.
    #[error(transparent)]
    Generation(#[from] WorkerError),
}

impl From<EntryError> for Error {
    fn from(e: EntryError) -> Self {
        match e {
            EntryError::Ron(e) => Error::Ron(e),
            e @ EntryError::TooDeep { .. } => Error::Entry(e),
        }
    }
}
