//! Lists whose items no carved call repeats: search inserts whole items
//! (fragments of the carved texts, a separator and white space with what
//! follows: `, <3`) into plain strings, so a limit on their count is met.

use insta::assert_snapshot;

use crate::Project;

#[test]
fn limits_on_the_count_of_list_items_are_met_by_inserting_items() {
    let p = Project::of("lists", "lists");
    p.record().assert_success();
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    generate.assert_success();
    let summary = generate.summary();
    let line = |name: &str| {
        summary
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_default()
            .to_owned()
    };
    // `en-abc` + `-abc` three times: the fourth extension is refused.
    assert_snapshot!(line("extensions"), @"  extensions    target    10/10   100.0%         5/5           17/17  reach   10/10   100.0%  (1 carved, 7 generated calls)");
    // `>=1, <3` + `, <3` four times: the sixth requirement is refused.
    assert_snapshot!(line("requirements"), @"  requirements  target     8/8    100.0%         1/2            7/8   reach    8/8    100.0%  (1 carved, 3 generated calls)");
}
