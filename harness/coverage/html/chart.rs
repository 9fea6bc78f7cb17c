//! The generation chart of a target page: goals covered against executions
//! in one generation run, as an inline SVG line chart with one point series
//! per phase. Each phase has its own colour, dash pattern and marker shape,
//! so the series stay apart without colour.

use maud::{html, Markup};

use crate::coverage::history::{Phase, Point, RunHistory};

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 36.0;

/// Maps a run's numbers into the plot area.
struct Scale {
    executions: f64,
    goals: f64,
}

impl Scale {
    fn of(run: &RunHistory) -> Scale {
        let executions = run.points.iter().map(|p| p.executions).max().unwrap_or(0);
        let covered = run.points.iter().map(|p| p.covered).max().unwrap_or(0);
        Scale {
            executions: executions.max(1) as f64,
            goals: run.goals.max(covered).max(1) as f64,
        }
    }

    fn x(&self, executions: u64) -> f64 {
        LEFT + executions as f64 / self.executions * (WIDTH - LEFT - RIGHT)
    }

    fn y(&self, covered: u64) -> f64 {
        TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - covered as f64 / self.goals)
    }

    fn xy(&self, p: &Point) -> (f64, f64) {
        (self.x(p.executions), self.y(p.covered))
    }
}

/// One phase's part of the chart: the stretches of the run it was running
/// in (each starting where the one before ended, so the line is unbroken),
/// and its own points.
struct Series {
    phase: Phase,
    segments: Vec<Vec<(f64, f64)>>,
    points: Vec<Point>,
}

fn series(run: &RunHistory, scale: &Scale) -> Vec<Series> {
    let mut all: Vec<Series> = Vec::new();
    let mut previous: Option<&Point> = None;
    for point in &run.points {
        let index = match all.iter().position(|s| s.phase == point.phase) {
            Some(i) => i,
            None => {
                all.push(Series {
                    phase: point.phase,
                    segments: Vec::new(),
                    points: Vec::new(),
                });
                all.len() - 1
            }
        };
        let series = &mut all[index];
        let continues = previous.is_some_and(|p| p.phase == point.phase);
        if !continues {
            let mut segment = Vec::new();
            if let Some(p) = previous {
                segment.push(scale.xy(p));
            }
            series.segments.push(segment);
        }
        if let Some(segment) = series.segments.last_mut() {
            segment.push(scale.xy(point));
        }
        series.points.push(*point);
        previous = Some(point);
    }
    all
}

fn polyline(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The marker of a point: a circle for grammar, a square for AVM, a
/// triangle for GA.
fn marker(phase: Phase, (x, y): (f64, f64), label: String) -> Markup {
    match phase {
        Phase::Grammar => html! {
            circle.point cx=(format!("{x:.1}")) cy=(format!("{y:.1}")) r="3.2" { title { (label) } }
        },
        Phase::Avm => html! {
            rect.point x=(format!("{:.1}", x - 3.0)) y=(format!("{:.1}", y - 3.0)) width="6" height="6" { title { (label) } }
        },
        Phase::Ga => html! {
            polygon.point points=(polyline(&[(x, y - 4.0), (x + 4.0, y + 3.0), (x - 4.0, y + 3.0)])) { title { (label) } }
        },
    }
}

/// The chart of `run`, with its legend.
pub fn chart(run: &RunHistory) -> Markup {
    let scale = Scale::of(run);
    let all = series(run, &scale);
    let bottom = HEIGHT - BOTTOM;
    let x_ticks = [0, scale.executions as u64 / 2, scale.executions as u64];
    let y_ticks = [0, scale.goals as u64 / 2, scale.goals as u64];
    let description = format!(
        "Goals covered against executions in the last generation run (seed {}, budget {}): {}",
        run.seed,
        run.budget,
        all.iter()
            .map(|s| s.phase.label())
            .collect::<Vec<_>>()
            .join(", ")
    );
    html! {
        figure.chart {
            svg xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" aria-label=(description) {
                title { (description) }
                @for tick in y_ticks {
                    line.grid x1=(LEFT) x2=(WIDTH - RIGHT) y1=(format!("{:.1}", scale.y(tick))) y2=(format!("{:.1}", scale.y(tick))) {}
                    text x=(LEFT - 6.0) y=(format!("{:.1}", scale.y(tick) + 4.0)) text-anchor="end" { (tick) }
                }
                @for tick in x_ticks {
                    text x=(format!("{:.1}", scale.x(tick))) y=(bottom + 16.0) text-anchor="middle" { (tick) }
                }
                line.axis x1=(LEFT) x2=(LEFT) y1=(TOP) y2=(bottom) {}
                line.axis x1=(LEFT) x2=(WIDTH - RIGHT) y1=(bottom) y2=(bottom) {}
                text x=(format!("{:.1}", (LEFT + WIDTH - RIGHT) / 2.0)) y=(HEIGHT - 4.0) text-anchor="middle" { "executions" }
                text x="12" y=(format!("{:.1}", (TOP + bottom) / 2.0)) text-anchor="middle"
                    transform=(format!("rotate(-90 12 {:.1})", (TOP + bottom) / 2.0)) { "goals covered" }
                @for s in &all {
                    g class=(format!("series {}", s.phase.as_str())) data-phase=(s.phase.as_str()) data-points=(s.points.len()) {
                        @for segment in &s.segments {
                            polyline points=(polyline(segment)) {}
                        }
                        @for p in &s.points {
                            (marker(s.phase, scale.xy(p), format!("{}: {} executions, {}/{} goals covered", s.phase.label(), p.executions, p.covered, run.goals)))
                        }
                    }
                }
            }
            figcaption.legend {
                @for s in &all {
                    span {
                        svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 12" aria-hidden="true" {
                            g class=(format!("series {}", s.phase.as_str())) {
                                polyline points="0,6 32,6" {}
                                (marker(s.phase, (16.0, 6.0), s.phase.label().to_owned()))
                            }
                        }
                        " " (s.phase.label())
                    }
                }
                span.muted { "seed " (run.seed) ", budget " (run.budget) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(phase: Phase, executions: u64, covered: u64) -> Point {
        Point {
            phase,
            executions,
            covered,
        }
    }

    #[test]
    fn one_series_per_phase_with_unbroken_lines() {
        let run = RunHistory {
            seed: 1,
            budget: "100 executions".into(),
            goals: 10,
            points: vec![
                point(Phase::Grammar, 0, 2),
                point(Phase::Grammar, 40, 6),
                point(Phase::Avm, 50, 6),
                point(Phase::Ga, 80, 9),
                point(Phase::Grammar, 90, 9),
                point(Phase::Grammar, 100, 10),
            ],
        };
        let scale = Scale::of(&run);
        let all = series(&run, &scale);
        let phases: Vec<Phase> = all.iter().map(|s| s.phase).collect();
        assert_eq!(phases, [Phase::Grammar, Phase::Avm, Phase::Ga]);
        assert_eq!(all[0].points.len(), 4);
        assert_eq!(all[0].segments.len(), 2, "grammar ran twice");
        // The second grammar stretch starts where GA ended.
        assert_eq!(all[0].segments[1][0], scale.xy(&run.points[3]));
        assert_eq!(all[1].segments, [vec![scale.xy(&run.points[1]), scale.xy(&run.points[2])]]);
        assert_eq!(scale.xy(&run.points[5]), (WIDTH - RIGHT, TOP));
        assert_eq!(scale.xy(&run.points[0]).0, LEFT);
        let svg = chart(&run).into_string();
        assert_eq!(svg.matches("<g class=\"series ").count(), 3 + 3, "plot and legend");
    }
}
