//! The setups the README recommends, filled in from the README itself, so
//! that a recipe that stops working fails here.

use crate::Project;

/// The `carve = [...]` line of the README's recipe for a crate that already
/// has serde support of its own.
fn readme_carve_feature_for_serde_crates() -> String {
    let readme = include_str!("../../README.md");
    let section = readme
        .split("**A crate that already has serde support.**")
        .nth(1)
        .expect("the README has the recipe");
    section
        .lines()
        .find(|l| l.starts_with("carve = ["))
        .expect("the recipe has a `carve` feature line")
        .split('#')
        .next()
        .unwrap()
        .trim()
        .to_owned()
}

/// A crate whose `serde_support = ["serde"]` relies on the optional
/// dependency's implicit feature: with the README's recipe it still builds
/// on its own, with its own feature, and carves and replays with carve's.
#[test]
fn a_crate_with_its_own_serde_feature_takes_the_readme_recipe() {
    let p = Project::of("serde_feature", "serde-feature");
    let manifest = p.read("Cargo.toml");
    p.write(
        "Cargo.toml",
        &manifest.replace("@CARVE_FEATURE@", &readme_carve_feature_for_serde_crates()),
    );
    for features in [&[][..], &["--features", "serde_support"][..]] {
        let mut args = vec!["check", "--quiet", "--lib"];
        args.extend_from_slice(features);
        let out = p.cargo(&args).output().expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo {args:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    p.record().assert_success();
    assert_eq!(
        p.carved_names(),
        "is_hot.ron\nis_hot/72c52a125110.snap\nis_hot/d5426d243346.snap"
    );
    // The crate's own serde impls carry the argument.
    insta::assert_snapshot!(p.read("carved/is_hot.ron"), @r#"
    // Calls of `is_hot` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "is_hot",
        calls: [
            (
                origin: System("tells_hot_days"),
                args: (
                    t: Celsius(31),
                ),
                outcome: Returned(true),
            ),
            (
                origin: System("tells_hot_days"),
                args: (
                    t: Celsius(12),
                ),
                outcome: Returned(false),
            ),
        ],
    )
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    insta::assert_snapshot!(replay.results(), @r#"
    test carved::is_hot::0001 ... ok
    test carved::is_hot::0002 ... ok
    test system::tells_hot_days ... ok
    "#);
}

/// The recipe the README gave before: `dep:serde` removes the implicit
/// feature that `serde_support` names, and cargo refuses the manifest.
#[test]
fn dep_serde_breaks_a_crate_with_its_own_serde_feature() {
    let p = Project::of("serde_feature", "serde-feature-dep");
    let manifest = p.read("Cargo.toml");
    p.write(
        "Cargo.toml",
        &manifest.replace("@CARVE_FEATURE@", r#"carve = ["dep:carve", "dep:serde"]"#),
    );
    let out = p
        .cargo(&["check", "--quiet", "--lib"])
        .output()
        .expect("cargo runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("serde_support"), "{stderr}");
}
