//! Where the trials of a run leave what the report is built from.

use std::sync::{Arc, Mutex};

use super::{CallCoverage, FoundFailure};

/// Where replayed calls leave their coverage and found failures their
/// description: one per run, shared by the trials of that run, drained by
/// the runner when they are done.
#[derive(Debug, Clone, Default)]
pub struct Calls(Arc<Mutex<Sink>>);

#[derive(Debug, Default)]
struct Sink {
    calls: Vec<CallCoverage>,
    failures: Vec<FoundFailure>,
}

impl Calls {
    fn sink(&self) -> std::sync::MutexGuard<'_, Sink> {
        // Each critical section is one push or take: never left inconsistent.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds one call.
    pub fn push(&self, call: CallCoverage) {
        self.sink().calls.push(call);
    }

    /// Takes every call added so far.
    pub fn take(&self) -> Vec<CallCoverage> {
        std::mem::take(&mut self.sink().calls)
    }

    /// Adds a found failure that still fails.
    pub fn push_failure(&self, failure: FoundFailure) {
        self.sink().failures.push(failure);
    }

    /// Takes every found failure added so far, sorted by test name.
    pub fn take_failures(&self) -> Vec<FoundFailure> {
        let mut failures = std::mem::take(&mut self.sink().failures);
        failures.sort_by(|a, b| a.test.cmp(&b.test));
        failures
    }
}
