//! insta's config file (`insta.yaml`) acts on replay as it acts on insta's
//! own assertions, fast path or not.

use insta::assert_snapshot;

use crate::Project;

const SNAPSHOT: &str = "carved/decode/cgi_decode/a957222d34f0.snap";

/// A snapshot whose contents match but whose metadata is stale passes; a
/// forced update in `insta.yaml` rewrites it, and a full match fails it.
#[test]
fn insta_yaml_forced_updates_and_full_matches_reach_passing_snapshots() {
    let p = Project::recorded("insta-yaml");
    let written = p.read(SNAPSHOT);
    p.replace(SNAPSHOT, "source: tests/carve.rs", "source: tests/old.rs");
    let stale = p.read(SNAPSHOT);

    // insta compares contents only: nothing to do.
    p.test(&[], &[]).assert_success();
    assert_eq!(p.read(SNAPSHOT), stale);

    p.write("insta.yaml", "behavior:\n  require_full_match: true\n");
    let run = p.test(&[], &[]);
    run.assert_failure();
    assert_snapshot!(run.failure("carved::decode::cgi_decode::0001"), @r#"carved/decode/cgi_decode.ron:10:19: the outcome of `decode::cgi_decode(s:"a+b%21")` differs from its snapshot carved/decode/cgi_decode/a957222d34f0.snap (diff above). If the change is intended, accept it with `cargo insta review`; otherwise fix the regression."#);
    assert_eq!(p.read(SNAPSHOT), stale);

    p.write("insta.yaml", "behavior:\n  force_update: true\n");
    p.test(&[], &[]).assert_success();
    assert_eq!(p.read(SNAPSHOT), written, "rewritten as insta writes it");
}
