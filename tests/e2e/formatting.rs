//! A `fmt` method as a target, on the `formatting/` fixture: its
//! `&mut Formatter` is carved as a format spec, so that generation tries
//! widths and alignments no system test used.

use crate::Project;

/// The system test formats with `{}` only; generation pads, on each side,
/// and the calls it keeps replay to the text they wrote.
#[test]
fn widths_and_alignments_no_test_used_are_generated() {
    let p = Project::of("formatting", "formatting");
    p.record().assert_success();
    let carved = p.read("carved/Version/Display/fmt.ron");
    assert!(carved.contains("width: None"), "{carved}");
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    run.assert_success();
    let line = run.generation_line("Version::Display::fmt");
    assert!(line.contains("branch coverage 1/11 -> 11/11"), "{line}");
    assert!(
        line.contains("(0 generated arguments did not deserialize)"),
        "{line}"
    );
    let file = p.read("carved/Version/Display/fmt.ron");
    // `_` is `Left` or no alignment.
    for align in ["align: Some(Center)", "align: Some(Right)"] {
        assert!(file.contains(align), "{align} in:\n{file}");
    }
    // Replay formats each generated call with its spec again.
    p.test(&[], &[]).assert_success();
}
