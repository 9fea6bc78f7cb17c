//! Progress of generating calls of one target, on stderr: a bar on a
//! terminal (drawn by `indicatif`, which limits how often it redraws), a
//! line per quarter of the budget otherwise (what the e2e tests and CI logs
//! see). The parent ([`super::parent`]) ticks it with what its workers
//! report.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::env::Budget;

/// Progress on stderr: a bar on a terminal, a line per quarter of the
/// budget otherwise.
pub struct Progress {
    name: String,
    terminal: bool,
    /// The bar, made on the first tick on a terminal.
    bar: Option<ProgressBar>,
    budget: Budget,
    next_line: u64,
}

impl Progress {
    /// Progress of generating calls of `name` within `budget`.
    pub fn new(name: &str, budget: Budget) -> Progress {
        Progress {
            name: name.to_owned(),
            terminal: std::io::stderr().is_terminal(),
            bar: None,
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
        if self.terminal {
            let bar = self.bar.get_or_insert_with(|| bar(&self.name, self.budget));
            bar.set_message(format!("{covered}/{total} outcomes"));
            bar.set_position(executions);
        } else if executions >= self.next_line {
            let step = match self.budget {
                Budget::Executions(n) => (n / 4).max(1),
                Budget::Time(_) => 10_000,
            };
            eprintln!(
                "  {}: {executions} calls, {covered}/{total} outcomes",
                self.name
            );
            self.next_line = executions + step;
        }
    }

    /// Ends the bar, leaving it as it last was, and its line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
            eprintln!();
        }
    }
}

/// `  cgi::cgi_decode [#####     ] 500 calls, 7/8 outcomes`; with a time
/// budget the bar stays empty (its length is unknown).
fn bar(name: &str, budget: Budget) -> ProgressBar {
    let length = match budget {
        Budget::Executions(n) => Some(n.max(1)),
        Budget::Time(_) => None,
    };
    let style = ProgressStyle::with_template("  {prefix} [{bar:30}] {pos} calls, {msg}")
        .map(|style| style.progress_chars("## "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr()).with_style(style);
    bar.set_prefix(name.to_owned());
    bar
}
