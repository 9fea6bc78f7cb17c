//! The text summary of a [`Report`], printed after every run: one line per
//! instrumented function, in aligned columns, and the total.

use super::{FunctionCoverage, Kind, Report, Totals};
use crate::coverage::goals::GoalKind;

impl Report {
    /// One line per instrumented function (own outcomes covered/total, own
    /// boundaries and weak mutants killed; for targets also their reach and
    /// calls), hints where a number means nothing, and the total.
    pub fn summary(&self) -> String {
        let width = self
            .functions
            .iter()
            .map(|f| f.name().len())
            .max()
            .unwrap_or(0)
            .max("function".len());
        let own: Vec<Totals> = self.functions.iter().map(FunctionCoverage::totals).collect();
        let total = self.total();
        let rows: Vec<Totals> = own.iter().copied().chain([total]).collect();
        let column = |header: &'static str, kind: GoalKind| {
            let cells: Vec<(usize, usize)> = rows.iter().map(|t| t.goals.of(kind)).collect();
            RatioColumn::new(header, &cells)
        };
        let boundaries = column("boundaries", GoalKind::Boundary);
        let mutants = column("mutants killed", GoalKind::Mutant);
        let mut out = String::from(
            "carve: branch coverage of instrumented functions by carved and generated calls\n",
        );
        let mut line = |text: String| {
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(format!(
            "  {:width$}  kind    own outcomes      {}  {}  targets: outcomes of all they reach",
            "function",
            boundaries.header(),
            mutants.header()
        ));
        let mut blind = Vec::new();
        for (i, f) in self.functions.iter().enumerate() {
            let detail = match (f.kind, self.target_at(i)) {
                (Kind::Target, Some(t)) if !t.called() => "not called".to_owned(),
                (Kind::Target, Some(t)) => {
                    if t.reach.len() == 1 && f.total() == 0 {
                        blind.push(format!("`{}`", t.name));
                    }
                    format!(
                        "reach {}  ({} carved, {} generated calls)",
                        self.totals(&t.reach).show(),
                        t.carved_calls,
                        t.generated_calls
                    )
                }
                _ if f.sites.uninstrumented.is_some() => format!(
                    "not instrumented ({})",
                    f.sites.uninstrumented.unwrap_or_default()
                ),
                _ if f.reached_from.is_empty() => "not reached".to_owned(),
                _ => format!(
                    "reached from {}",
                    f.reached_from
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let kind = f.kind.as_str();
            line(format!(
                "  {:width$}  {kind}  {}  {}  {}  {detail}",
                f.name(),
                own[i].show(),
                boundaries.cell(i),
                mutants.cell(i),
            ));
        }
        let last = rows.len() - 1;
        line(format!(
            "  {:width$}          {}  {}  {}",
            "total",
            total.show(),
            boundaries.cell(last),
            mutants.cell(last),
        ));
        if !blind.is_empty() {
            line(format!(
                "carve: hint: {} {} no branch outcomes and {} no instrumented function; if the \
                 logic is in functions they call, mark those with `#[carve::instrument]` (on an \
                 inline `mod`, it instruments every function in it)",
                blind.join(", "),
                if blind.len() == 1 { "has" } else { "have" },
                if blind.len() == 1 { "reaches" } else { "reach" },
            ));
        }
        out
    }
}

/// A summary column of `met/total` cells, their slashes aligned, `-` where
/// the total is 0.
struct RatioColumn {
    header: &'static str,
    cells: Vec<(usize, usize)>,
    /// Widths of the met and total numbers.
    met: usize,
    total: usize,
}

impl RatioColumn {
    fn new(header: &'static str, cells: &[(usize, usize)]) -> RatioColumn {
        let digits = |n: usize| n.to_string().len();
        let widest = |n: fn(&(usize, usize)) -> usize| {
            cells.iter().map(|c| digits(n(c))).max().unwrap_or(1)
        };
        RatioColumn {
            header,
            cells: cells.to_vec(),
            met: widest(|c| c.0),
            total: widest(|c| c.1),
        }
    }

    fn width(&self) -> usize {
        self.header.len().max(self.met + 1 + self.total)
    }

    fn header(&self) -> String {
        format!("{:>w$}", self.header, w = self.width())
    }

    /// Row `i`, right-aligned under the header.
    fn cell(&self, i: usize) -> String {
        let (met, total) = self.cells.get(i).copied().unwrap_or_default();
        let (m, t) = (self.met, self.total);
        let text = match total {
            0 => format!("{:>m$} {:t$}", "-", ""),
            _ => format!("{met:>m$}/{total:<t$}"),
        };
        format!("{text:>w$}", w = self.width())
    }
}
