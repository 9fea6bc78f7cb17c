//! What each `CARVE=generate` run did per target, over time: outcomes
//! covered against executions, each point marked with the phase that was
//! running (grammar, AVM, GA). Generation draws the points, the HTML report
//! plots the last run, and the runner keeps the runs in files of the target
//! directory (`target/carve/history/<package>/<target>.json`).
//!
//! ```
//! use carve::coverage::history::{Phase, Point, RunHistory};
//!
//! let run = RunHistory {
//!     seed: 1,
//!     budget: "20000 executions".into(),
//!     goals: 16,
//!     points: vec![
//!         Point { phase: Phase::Grammar, executions: 0, covered: 8 },
//!         Point { phase: Phase::Avm, executions: 900, covered: 15 },
//!     ],
//! };
//! assert_eq!(run.phases(), [Phase::Grammar, Phase::Avm]);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A phase of generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Grammar-coverage generation (first, and again with what budget is left).
    Grammar,
    /// Search: the alternating variable method.
    Avm,
    /// Search: the genetic algorithm.
    Ga,
}

impl Phase {
    /// Every phase, in the order a run goes through them.
    pub const ALL: [Phase; 3] = [Phase::Grammar, Phase::Avm, Phase::Ga];

    /// `grammar`, `avm` or `ga`: as the worker protocol and the history files
    /// write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Grammar => "grammar",
            Phase::Avm => "avm",
            Phase::Ga => "ga",
        }
    }

    /// `grammar`, `AVM` or `GA`: as people read it.
    pub const fn label(self) -> &'static str {
        match self {
            Phase::Grammar => "grammar",
            Phase::Avm => "AVM",
            Phase::Ga => "GA",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Phase {
    type Err = ();

    fn from_str(s: &str) -> Result<Phase, ()> {
        Phase::ALL.into_iter().find(|p| p.as_str() == s).ok_or(())
    }
}

/// One sample of a run: after `executions` calls, `covered` goals of the
/// target's reach were covered, while `phase` ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// The phase running.
    pub phase: Phase,
    /// Calls made so far in this run (over all of the target's workers).
    pub executions: u64,
    /// Goals covered so far, those covered before the run included.
    pub covered: u64,
}

/// One generation run of one target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunHistory {
    /// `CARVE_SEED` of the run.
    pub seed: u64,
    /// `CARVE_BUDGET` of the run, as it is written (`20000 executions`, `30s`).
    pub budget: String,
    /// Goals in the target's reach: the top of the chart.
    pub goals: u64,
    /// Samples in the order they were taken.
    pub points: Vec<Point>,
}

impl RunHistory {
    #[cfg(any(test, feature = "_internals"))]
    /// The phases that ran, each once, in the order they first ran.
    pub fn phases(&self) -> Vec<Phase> {
        let mut phases = Vec::new();
        for point in &self.points {
            if !phases.contains(&point.phase) {
                phases.push(point.phase);
            }
        }
        phases
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A run of four goals in two points (runner/history.rs's tests use
    /// it too).
    pub(crate) fn run(seed: u64) -> RunHistory {
        RunHistory {
            seed,
            budget: "100 executions".into(),
            goals: 4,
            points: vec![
                Point {
                    phase: Phase::Grammar,
                    executions: 0,
                    covered: 1,
                },
                Point {
                    phase: Phase::Ga,
                    executions: 50,
                    covered: 3,
                },
            ],
        }
    }

    #[test]
    fn phases_read_back_as_written() {
        for phase in Phase::ALL {
            assert_eq!(phase.as_str().parse(), Ok(phase));
        }
        assert_eq!("search".parse::<Phase>(), Err(()));
        assert_eq!(run(1).phases(), [Phase::Grammar, Phase::Ga]);
    }
}
