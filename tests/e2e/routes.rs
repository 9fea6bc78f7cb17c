//! Addresses inside values where more follows them (a tuple's first
//! element, a map's key), on the `routes/` fixture: they trace as text, are
//! derived from their carved texts, and what does not parse is not run.

use crate::Project;

/// `&[(Ipv4Addr, u8)]` and `&BTreeMap<Ipv4Addr, u16>`: untraced, their
/// strings were derived character by character and most did not
/// deserialize.
#[test]
fn addresses_before_more_elements_and_as_map_keys_are_generated_from_their_texts() {
    let p = Project::of("routes", "routes");
    p.record().assert_success();
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    run.assert_success();
    let lines = ["next_hop", "path_cost"].map(|target| run.generation_line(target));
    assert!(
        lines
            .iter()
            .all(|line| line.contains("(0 generated arguments did not deserialize)")),
        "{lines:#?}"
    );
}
