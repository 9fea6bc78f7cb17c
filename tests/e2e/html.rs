//! The HTML report (`CARVE_HTML`): generated on a copy of the fixture with
//! one more target, then read back with an HTML parser. The index must
//! agree with the JSON report, a function page must mark what is missed and
//! name the calls that covered the rest, and a target's page must chart its
//! generation run with one point series per phase.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use scraper::{ElementRef, Html, Selector};

use crate::{entry, tmp, Project};

/// A target the grammar is unlikely to cover from its one carved call
/// (`magic(7)`), so that search runs (AVM, then GA); an outcome no input can
/// take (`x % 2 == 1` once `x == 4242`), so that something stays missed;
/// and a panic for generation to find.
const MAGIC: &str = r#"
/// A magic number, an outcome no input takes, and a bug.
#[cfg_attr(feature = "carve", carve::target)]
pub fn magic(x: u32) -> u32 {
    if x == 13 {
        panic!("unlucky {x}");
    }
    if x == 4242 {
        if x % 2 == 1 {
            return 1;
        }
        return 2;
    }
    0
}
"#;

/// The copy, generated once for every test here.
struct Generated {
    project: Project,
    json: serde_json::Value,
    report: PathBuf,
}

fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let p = Project::new("html");
        p.write("src/lib.rs", &(p.read("src/lib.rs") + MAGIC));
        p.replace(
            "tests/carve.rs",
            "carve::main!();",
            "#[carve::system_test]\nfn finds_no_magic() {\n    assert_eq!(shop::magic(7), 0);\n}\n\ncarve::main!();",
        );
        p.record().assert_success();
        let run = p.test(
            &[
                ("CARVE", "generate"),
                ("CARVE_BUDGET", "3000"),
                ("CARVE_REPORT", "report.json"),
                ("CARVE_HTML", "target/carve-report"),
            ],
            &["magic"],
        );
        // The panic it finds fails its test: the run fails, the report is written.
        run.assert_failure()
            .assert_line("carve: wrote the HTML report to target/carve-report/index.html");
        let json = p.report("report.json");
        let report = p.dir.join("target/carve-report");
        Generated {
            project: p,
            json,
            report,
        }
    })
}

fn parse(path: &Path) -> Html {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Html::parse_document(&text)
}

fn select<'a>(html: &'a Html, selector: &str) -> Vec<ElementRef<'a>> {
    html.select(&Selector::parse(selector).unwrap()).collect()
}

fn select_in<'a>(element: ElementRef<'a>, selector: &str) -> Vec<ElementRef<'a>> {
    element
        .select(&Selector::parse(selector).unwrap())
        .collect()
}

fn text(element: ElementRef<'_>) -> String {
    element
        .text()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn attr<'a>(element: ElementRef<'a>, name: &str) -> Option<&'a str> {
    element.value().attr(name)
}

fn number(element: ElementRef<'_>, name: &str) -> Option<u64> {
    attr(element, name).map(|v| v.parse().unwrap_or_else(|_| panic!("{name}={v:?}")))
}

/// The index and the page sorted by missed outcomes list every instrumented
/// function once, with the JSON report's numbers, and the same total.
#[test]
fn the_index_lists_every_function_with_the_json_reports_numbers() {
    let g = generated();
    let functions = g.json["functions"].as_array().unwrap();
    for page in ["index.html", "missed.html"] {
        let html = parse(&g.report.join(page));
        let rows = select(&html, "table.functions tbody tr");
        let names: Vec<&str> = rows
            .iter()
            .map(|r| attr(*r, "data-function").unwrap())
            .collect();
        let expected: BTreeSet<&str> = functions
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names.len(),
            functions.len(),
            "{page}: one row per function: {names:?}"
        );
        assert_eq!(
            names.iter().copied().collect::<BTreeSet<_>>(),
            expected,
            "{page}"
        );
        for row in &rows {
            let name = attr(*row, "data-function").unwrap();
            let f = entry(&g.json["functions"], name);
            assert_eq!(attr(*row, "data-kind"), f["kind"].as_str(), "{name}");
            assert_eq!(
                number(*row, "data-branches"),
                f["branches"].as_u64(),
                "{name}"
            );
            assert_eq!(
                number(*row, "data-covered"),
                f["covered"].as_u64(),
                "{name}"
            );
            // What is shown is what the attributes say.
            let shown = select_in(*row, "span.covered").first().map(|e| text(*e));
            let branches = f["branches"].as_u64().unwrap();
            let expected = (branches > 0).then(|| format!("{}/{branches}", f["covered"]));
            assert_eq!(shown, expected, "{name}");
            let cells: Vec<String> = select_in(*row, "td").into_iter().map(text).collect();
            assert_eq!(cells[0], name);
            // Boundaries and mutants killed, beside the outcomes.
            for (kind, total, met, cell) in [
                ("boundary", "boundaries", "boundaries_covered", 4),
                ("mutant", "mutants", "mutants_killed", 5),
            ] {
                let attribute = |key: &str| format!("data-{}", key.replace('_', "-"));
                assert_eq!(
                    number(*row, &attribute(total)),
                    f[total].as_u64(),
                    "{name} {total}"
                );
                assert_eq!(
                    number(*row, &attribute(met)),
                    f[met].as_u64(),
                    "{name} {met}"
                );
                let shown = select_in(*row, &format!("span.goals[data-kind={kind}]"))
                    .first()
                    .map(|e| text(*e));
                let expected =
                    (f[total].as_u64() > Some(0)).then(|| format!("{}/{}", f[met], f[total]));
                assert_eq!(shown, expected, "{name} {total}");
                let first = cells[cell].split_whitespace().next().unwrap_or("");
                assert_eq!(
                    first,
                    expected.as_deref().unwrap_or("–"),
                    "{name}: {cells:?}"
                );
            }
            if f["kind"] == "target" {
                let t = entry(&g.json["targets"], name);
                for (attribute, key, cell) in [
                    ("data-carved", "carved_calls", 6),
                    ("data-generated", "generated_calls", 7),
                    ("data-failures", "failures", 8),
                ] {
                    assert_eq!(number(*row, attribute), t[key].as_u64(), "{name} {key}");
                    let shown = cells[cell].split_whitespace().next().unwrap_or("");
                    assert_eq!(shown, t[key].to_string(), "{name} {key}: {cells:?}");
                }
            }
        }
        let total = select(&html, "table.functions tfoot tr.total")[0];
        assert_eq!(
            number(total, "data-branches"),
            g.json["total"]["branches"].as_u64()
        );
        assert_eq!(
            number(total, "data-covered"),
            g.json["total"]["covered"].as_u64()
        );
        for key in [
            "boundaries",
            "boundaries_covered",
            "mutants",
            "mutants_killed",
        ] {
            let attribute = format!("data-{}", key.replace('_', "-"));
            assert_eq!(
                number(total, &attribute),
                g.json["total"][key].as_u64(),
                "{key}"
            );
        }
        if page == "missed.html" {
            let missed: Vec<u64> = rows
                .iter()
                .map(|r| number(*r, "data-branches").unwrap() - number(*r, "data-covered").unwrap())
                .collect();
            assert!(
                missed.windows(2).all(|w| w[0] >= w[1]),
                "most missed first: {missed:?}"
            );
        }
    }
    let magic = entry(&g.json["targets"], "magic");
    assert!(magic["generated_calls"].as_u64().unwrap() > 0, "{magic}");
    assert_eq!(magic["failures"], 1, "{magic}");
}

/// The found failure is on the index with its minimized input, where it
/// panicked and its kind, and links to its target's page.
#[test]
fn found_failures_are_listed_with_their_input_and_location() {
    let g = generated();
    let html = parse(&g.report.join("index.html"));
    let rows = select(&html, "table.failures tbody tr");
    assert_eq!(rows.len(), 1, "{}", html.html());
    let cells: Vec<String> = select_in(rows[0], "td").into_iter().map(text).collect();
    assert_eq!(cells[0], "magic");
    assert_eq!(cells[1], "✗ panic");
    assert!(cells[2].starts_with("src/lib.rs:"), "{cells:?}");
    assert!(cells[3].starts_with("magic(x:13)"), "{cells:?}");
    assert_eq!(cells[4], "unlucky 13");
    let link = attr(select_in(rows[0], "a")[0], "href").unwrap();
    assert!(g.report.join(link).is_file(), "{link}");
}

/// The page of `magic`: its missed outcome is marked on its line, with the
/// closest distance and the call that came closest; a covered outcome names
/// the calls that took it, with their arguments.
#[test]
fn a_function_page_marks_missed_outcomes_and_names_covering_calls() {
    let g = generated();
    let index = parse(&g.report.join("index.html"));
    let link = select(&index, "tr[data-function=\"magic\"] td a")[0];
    let html = parse(&g.report.join(attr(link, "href").unwrap()));
    let source = g.project.read("src/lib.rs");
    let line = source
        .lines()
        .position(|l| l.contains("if x % 2 == 1"))
        .unwrap()
        + 1;

    let missed_line = select(&html, &format!("tr.line.missed#L{line}"));
    assert_eq!(missed_line.len(), 1, "line {line} is marked missed");
    assert!(text(missed_line[0]).contains("if x % 2 == 1 {"));
    // Two outcomes are missed: `x == 13` true, taken only by the failing
    // call (a call that panics covers nothing), and `x % 2 == 1` true.
    let missed: Vec<[String; 3]> = select(&html, "details.badge.miss")
        .into_iter()
        .map(|badge| {
            ["summary", ".distance", "li.closest"].map(|part| text(select_in(badge, part)[0]))
        })
        .collect();
    assert_eq!(
        missed,
        [
            ["✗ true", "1", "generated::magic::0003 magic(x:12)"],
            ["✗ true", "1", "generated::magic::0005 magic(x:4242)"],
        ]
        .map(|row| row.map(str::to_owned)),
        "{}",
        html.html()
    );
    let badges_on_line = select(
        &html,
        &format!("tr.line#L{line} + tr.conds details.badge.miss"),
    );
    assert_eq!(badges_on_line.len(), 1, "the badge is under its line");
    let rows: Vec<String> = select(&html, "table.missed tbody tr")
        .into_iter()
        .map(text)
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[1].starts_with(&format!("{line}:")), "{rows:?}");

    // `x == 4242` true was taken by a generated call, shown with its arguments.
    let covered: Vec<ElementRef> = select(&html, "details.badge.ok");
    assert_eq!(covered.len(), 4, "6 outcomes, 2 missed: {}", html.html());
    let calls: Vec<String> = covered
        .iter()
        .flat_map(|b| select_in(*b, "li.call"))
        .map(text)
        .collect();
    assert!(
        calls
            .iter()
            .any(|c| c.starts_with("generated::magic::") && c.ends_with("magic(x:4242)")),
        "{calls:?}"
    );
    assert!(
        calls.iter().any(|c| c == "carved::magic::0001 magic(x:7)"),
        "{calls:?}"
    );
}

/// The page of `magic` lists its missed boundaries and surviving mutants,
/// as many as the JSON report counts, each linked to its line and marked
/// under it; `x % 2 == 1` on the `x == 4242` path can never have its left
/// operand one above the right, nor weakly kill `==` → `>`.
#[test]
fn a_function_page_lists_missed_boundaries_and_surviving_mutants() {
    let g = generated();
    let html = parse(&g.report.join("functions/magic.html"));
    let magic = entry(&g.json["functions"], "magic");
    let count = |key: &str| magic[key].as_u64().unwrap() as usize;
    let rows = |kind: &str| -> Vec<ElementRef> {
        select(&html, &format!("table.goals[data-kind={kind}] tbody tr"))
    };
    let (boundaries, mutants) = (rows("boundary"), rows("mutant"));
    assert_eq!(
        boundaries.len(),
        count("boundaries") - count("boundaries_covered"),
        "{magic}"
    );
    assert_eq!(
        mutants.len(),
        count("mutants") - count("mutants_killed"),
        "{magic}"
    );
    assert!(count("mutants_killed") > 0, "{magic}");
    let marks = select(&html, "tr.conds span.goal-miss");
    assert_eq!(marks.len(), boundaries.len() + mutants.len());
    for row in boundaries.iter().chain(&mutants) {
        let link = attr(select_in(*row, "a")[0], "href").unwrap();
        assert_eq!(select(&html, &format!("tr.line{link}")).len(), 1, "{link}");
    }
    let source = g.project.read("src/lib.rs");
    let line = source
        .lines()
        .position(|l| l.contains("if x % 2 == 1"))
        .unwrap()
        + 1;
    let labels: Vec<String> = boundaries
        .iter()
        .chain(&mutants)
        .map(|r| text(*r))
        .collect();
    for label in [
        "`x % 2 == 1` with the left operand one above the right",
        "`==` → `>` in `x % 2 == 1`",
    ] {
        assert!(
            labels
                .iter()
                .any(|l| l.starts_with(&format!("{line}:")) && l.contains(label)),
            "{label} in {labels:?}"
        );
    }
    let on_line: Vec<String> = select(&html, &format!("tr.line#L{line} + tr.conds span.goal-miss"))
        .into_iter()
        .map(text)
        .collect();
    assert!(
        on_line.contains(
            &"◇ missed boundary: `x % 2 == 1` with the left operand one above the right".to_owned()
        ),
        "{on_line:?}"
    );
}

/// The target's page charts the run: one point series per phase that ran,
/// the same phases the history file kept, each with its points.
#[test]
fn a_target_page_charts_the_generation_run_with_one_series_per_phase() {
    let g = generated();
    let html = parse(&g.report.join("functions/magic.html"));
    let charts = select(&html, "figure.chart > svg");
    assert_eq!(charts.len(), 1, "{}", html.html());
    let series = select_in(charts[0], "g.series");
    let phases: Vec<&str> = series
        .iter()
        .map(|s| attr(*s, "data-phase").unwrap())
        .collect();
    assert_eq!(phases, ["grammar", "avm", "ga"]);
    for s in &series {
        let points = select_in(*s, ".point").len();
        assert!(points > 0, "{:?}", attr(*s, "data-phase"));
        assert_eq!(number(*s, "data-points"), Some(points as u64));
        assert!(!select_in(*s, "polyline").is_empty());
    }
    let history = tmp().join("e2e-target/carve/history/shop-html/magic.json");
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    let last = history["runs"].as_array().unwrap().last().unwrap();
    assert_eq!(last["budget"], "3000 executions");
    let kept: BTreeSet<&str> = last["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["phase"].as_str().unwrap())
        .collect();
    assert_eq!(kept, phases.iter().copied().collect());
    let points: usize = series.iter().map(|s| select_in(*s, ".point").len()).sum();
    assert_eq!(points, last["points"].as_array().unwrap().len());
}

/// The flags of a headless Chromium on a closed network.
fn chromium(binary: &Path, profile: &Path, width: u32) -> Command {
    let mut cmd = Command::new(binary);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        // The network is closed: no background connections.
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={width},1600"));
    cmd
}

/// Headless Chromium renders the index and a function page (at desktop and
/// phone widths) from `file://`, and at 1400 px the index's table fits its
/// column: nothing is cut off or scrolled. Skipped, saying so, without
/// Chromium (`.ci/run` installs it).
#[test]
fn chromium_renders_the_report() {
    let Some(binary) = which("chromium") else {
        eprintln!("SKIPPED: no `chromium` on PATH (Debian: apt-get install chromium; .ci/run installs it)");
        return;
    };
    let g = generated();
    let shots = tmp().join("html-screenshots");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    let profile = shots.join("profile");
    for (page, width) in [
        ("index.html", 1400),
        ("functions/magic.html", 1400),
        ("functions/magic.html", 390),
    ] {
        let png = shots.join(format!("{}-{width}.png", page.replace('/', "-")));
        let out = chromium(&binary, &profile, width)
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", g.report.join(page).display()))
            .output()
            .expect("chromium runs");
        let bytes = std::fs::read(&png).unwrap_or_else(|e| {
            panic!(
                "no screenshot of {page} ({e}):\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(bytes.starts_with(b"\x89PNG"), "{page}");
        // A blank page compresses to a few kilobytes.
        assert!(bytes.len() > 20_000, "{page}: {} bytes", bytes.len());
        println!("screenshot: {}", png.display());
    }
    // The pages have no scripts: a copy beside them gets one that measures
    // the table as laid out, and Chromium prints the DOM after it ran.
    let functions = g.json["functions"].as_array().unwrap().len();
    for page in ["index.html", "missed.html"] {
        let html = std::fs::read_to_string(g.report.join(page)).unwrap();
        let measure = r#"<script>
            const table = document.querySelector('table.functions');
            const box = table.getBoundingClientRect();
            const out = document.createElement('pre');
            out.id = 'measured';
            out.textContent = [window.innerWidth, Math.ceil(box.right),
                table.parentElement.scrollWidth, table.parentElement.clientWidth,
                table.querySelectorAll('tbody tr').length].join(' ');
            document.body.appendChild(out);
            </script></body>"#;
        let copy = g.report.join(format!("measured-{page}"));
        std::fs::write(&copy, html.replace("</body>", measure)).unwrap();
        let out = chromium(&binary, &profile, 1400)
            .arg("--dump-dom")
            .arg(format!("file://{}", copy.display()))
            .output()
            .expect("chromium runs");
        let dom = String::from_utf8_lossy(&out.stdout);
        let measured: Vec<usize> = dom
            .split_once("<pre id=\"measured\">")
            .and_then(|(_, rest)| rest.split_once('<'))
            .map(|(numbers, _)| numbers.split(' ').map(|n| n.parse().unwrap()).collect())
            .unwrap_or_else(|| {
                panic!(
                    "{page}: no measurement in the DOM:\n{dom}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        let [window, right, scroll, client, rows] = measured[..] else {
            panic!("{page}: {measured:?}");
        };
        assert_eq!(rows, functions, "{page}: every function has its row");
        assert!(
            scroll <= client && right <= window,
            "{page} at 1400 px: the table is {scroll} px wide in a column of {client} px, \
             its right edge at {right} px of {window}"
        );
    }
}

fn which(program: &str) -> Option<PathBuf> {
    let out = Command::new("which").arg(program).output().ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = path.trim();
    (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}
