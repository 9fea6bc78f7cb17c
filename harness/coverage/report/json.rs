//! The JSON rendering of a [`Report`] (`CARVE_REPORT`), whose shape is part
//! of carve's contract.

use serde::Serialize;

use super::{GoalTotals, Kind, Report, Totals};

impl Report {
    /// The JSON report of the contract.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            seed: u64,
            targets: Vec<JsonTarget<'a>>,
            functions: Vec<JsonFunction>,
            total: Totals,
        }
        #[derive(Serialize)]
        struct JsonTarget<'a> {
            name: &'a str,
            branches: usize,
            covered: usize,
            reach_branches: usize,
            reach_covered: usize,
            carved_calls: usize,
            generated_calls: usize,
            executions: u64,
            failures: usize,
            // Added after the branch fields: goals are never mixed into them.
            #[serde(flatten)]
            goals: GoalTotals,
            reach_boundaries: usize,
            reach_boundaries_covered: usize,
            reach_mutants: usize,
            reach_mutants_killed: usize,
        }
        #[derive(Serialize)]
        struct JsonFunction {
            name: String,
            kind: Kind,
            branches: usize,
            covered: usize,
            reached_from: Vec<String>,
            #[serde(flatten)]
            goals: GoalTotals,
        }
        let json = Json {
            seed: self.seed,
            targets: self
                .targets
                .iter()
                .map(|t| {
                    let own = &self.functions[t.function];
                    let reach = self.totals(&t.reach);
                    JsonTarget {
                        name: &t.name,
                        branches: own.total(),
                        covered: own.covered_by.len(),
                        reach_branches: reach.branches,
                        reach_covered: reach.covered,
                        carved_calls: t.carved_calls,
                        generated_calls: t.generated_calls,
                        executions: t.executions,
                        failures: t.failures,
                        goals: own.goal_totals(),
                        reach_boundaries: reach.goals.boundaries,
                        reach_boundaries_covered: reach.goals.boundaries_covered,
                        reach_mutants: reach.goals.mutants,
                        reach_mutants_killed: reach.goals.mutants_killed,
                    }
                })
                .collect(),
            functions: self
                .functions
                .iter()
                .map(|f| JsonFunction {
                    name: f.name(),
                    kind: f.kind,
                    branches: f.total(),
                    covered: f.covered_by.len(),
                    reached_from: f.reached_from.iter().cloned().collect(),
                    goals: f.goal_totals(),
                })
                .collect(),
            total: self.total(),
        };
        let mut text = serde_json::to_string_pretty(&json)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    }
}
