//! A generated call worth keeping: what generation hands to distilling,
//! to the worker's messages and to the carve file. Its own module, so
//! that distilling ([`super::distil`]) and generation ([`super::generate`])
//! both read it without importing each other.

use crate::coverage::Trace;
use crate::outcome::Observation;
use crate::value::Value;

/// A generated call worth keeping.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its arguments.
    pub args: Value,
    /// What it did.
    pub observation: Observation,
    /// The goals it covered first.
    pub added: Vec<u32>,
    /// Its arguments before they were minimized (as generated).
    pub generated: Value,
    /// What it reached, as traced when it ran (minimized: the minimized
    /// call's): a worker sends it with the entry, so that its parent counts
    /// what generation covered without running the call again.
    pub trace: Trace,
    /// Every edge feature it reached, not only those new when it was kept
    /// ([`counters`](crate::coverage::counters); none without the counters): distilling
    /// ([`crate::generation::distil`]) weighs a later call against it.
    pub features: Vec<u32>,
}
