//! Progress of generating calls of one target, on stderr: a bar on a
//! terminal, a line per quarter of the budget otherwise (what the e2e tests
//! and CI logs see). The parent ([`super::parent`]) ticks it with what its
//! workers report.

use std::io::{IsTerminal, Write as _};

use crate::env::Budget;

/// Progress on stderr: a bar on a terminal, a line per quarter of the
/// budget otherwise.
pub struct Progress {
    name: String,
    terminal: bool,
    budget: Budget,
    next_line: u64,
}

impl Progress {
    /// Progress of generating calls of `name` within `budget`.
    pub fn new(name: &str, budget: Budget) -> Progress {
        Progress {
            name: name.to_owned(),
            terminal: std::io::stderr().is_terminal(),
            budget,
            next_line: 1,
        }
    }

    /// Reports in lines, not with a bar, when `lines` is true: bars of
    /// targets generated at once would overwrite each other on one line.
    pub fn in_lines(mut self, lines: bool) -> Progress {
        self.terminal &= !lines;
        self
    }

    /// Shows `executions` calls run and `covered` of `total` outcomes.
    pub fn tick(&mut self, executions: u64, covered: usize, total: usize) {
        let step = match self.budget {
            Budget::Executions(n) => (n / 4).max(1),
            Budget::Time(_) => 10_000,
        };
        if self.terminal {
            let fraction = match self.budget {
                Budget::Executions(n) => executions as f64 / n.max(1) as f64,
                Budget::Time(_) => 0.0,
            };
            let filled = ((fraction * 30.0) as usize).min(30);
            eprint!(
                "\r  {} [{}{}] {executions} calls, {covered}/{total} outcomes",
                self.name,
                "#".repeat(filled),
                " ".repeat(30 - filled)
            );
            let _ = std::io::stderr().flush();
        } else if executions >= self.next_line {
            eprintln!(
                "  {}: {executions} calls, {covered}/{total} outcomes",
                self.name
            );
            self.next_line = executions + step;
        }
    }

    /// Ends the bar.
    pub fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
