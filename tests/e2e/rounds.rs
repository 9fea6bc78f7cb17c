//! Rounds: a function outside a target's reach that a kept call entered
//! joins the reach within the run, and search and the dictionary aim at
//! its outcomes with the rest of the budget.

use crate::Project;

/// `Tags::next` is called only by std (`filter(..).count()`), and the
/// carved call (`nothing to see`, no `#`) never enters it. The first round
/// keeps a call with a `#` for its entry and stops there; the second round's
/// reach holds `Tags::next`, whose comparison with `"carve"` joins the
/// dictionary, so `#carve` is generated (`tag == "carve"` true). With one
/// round, the calls kept would take only what the grammar happened upon.
#[test]
fn a_function_a_kept_call_entered_outside_the_reach_is_searched_in_a_second_round() {
    let p = Project::of("rounds", "rounds");
    p.record().assert_success();
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    generate.assert_success();
    let line = generate.generation_line("carve_tags");
    let file = p.read("carved/carve_tags.ron");
    assert!(file.contains("#carve"), "{line}\n{file}");
    let summary = generate.summary();
    let next = summary
        .lines()
        .find(|l| l.contains("Tags") && l.contains("next"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(next.contains("100.0%"), "{summary}");
    // Its calls replay as any generated call.
    p.test(&[], &[]).assert_success();
}
