//! The types published crates use, in the second fixture (`types/`): a
//! `Debug`-only error type, a `Display + FromStr` parameter, a byte-string
//! parser; and the feature-gated setup the README recommends.

use insta::assert_snapshot;

use crate::Project;

/// Without `--features carve` the library builds as if carve did not exist:
/// neither carve nor serde is compiled.
#[test]
fn a_build_without_the_feature_compiles_neither_carve_nor_serde() {
    let p = Project::new("no-feature");
    let out = p
        .cargo(&["check", "--lib", "--message-format=json"])
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // cargo names every unit it builds (fresh or not) in an artifact message.
    let compiled: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(r#""reason":"compiler-artifact""#))
        .filter_map(|l| l.split(r#""package_id":""#).nth(1)?.split('"').next())
        .collect();
    assert!(
        compiled.iter().any(|id| id.contains("#shop-no-feature@")),
        "{compiled:?}"
    );
    for crate_name in [
        "carve",
        "carve-derive",
        "serde",
        "serde_core",
        "serde_derive",
    ] {
        let needle = format!("#{crate_name}@");
        assert!(
            !compiled.iter().any(|id| id.contains(&needle)),
            "{crate_name} was compiled: {compiled:?}"
        );
    }
}

/// Each kind is carved in a readable form: a `Debug`-only error as its
/// `{:#?}` text beside a structured `Ok`, a `Display + FromStr` parameter
/// as its text, byte strings as RON byte strings; and replays.
#[test]
fn real_types_are_carved_readably_and_replay() {
    let p = Project::of("types", "types-record");
    p.record().assert_success();
    assert_snapshot!(p.read("carved/parse_version.ron"), @r##"
        // Calls of `parse_version` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "parse_version",
            calls: [
                (
                    origin: System("matches_requirements"),
                    args: (
                        s: "1.2",
                    ),
                    outcome: Returned(Ok(Version(
                        major: 1,
                        minor: 2,
                    ))),
                ),
                (
                    origin: System("matches_requirements"),
                    args: (
                        s: "1.4",
                    ),
                    outcome: Returned(Ok(Version(
                        major: 1,
                        minor: 4,
                    ))),
                ),
                (
                    origin: System("matches_requirements"),
                    args: (
                        s: "2.0",
                    ),
                    outcome: Returned(Ok(Version(
                        major: 2,
                        minor: 0,
                    ))),
                ),
                (
                    origin: System("parses_versions"),
                    args: (
                        s: "",
                    ),
                    outcome: Returned(Err(Debug("Empty"))),
                ),
                (
                    origin: System("parses_versions"),
                    args: (
                        s: "1.x",
                    ),
                    outcome: Returned(Err(Debug(r#"NotANumber {
                        part: "x",
                    }"#))),
                ),
            ],
        )
    "##);
    assert_snapshot!(p.read("carved/allows.ron"), @r##"
        // Calls of `allows` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "allows",
            calls: [
                (
                    origin: System("matches_requirements"),
                    args: (
                        req: "^1.2",
                        version: "1.4",
                    ),
                    outcome: Returned(true),
                ),
                (
                    origin: System("matches_requirements"),
                    args: (
                        req: "^1.2",
                        version: "2.0",
                    ),
                    outcome: Returned(false),
                ),
            ],
        )
    "##);
    assert_snapshot!(p.read("carved/request_target.ron"), @r##"
        // Calls of `request_target` carved by carve. `cargo test` replays each one as a unit
        // test and checks its outcome against its snapshot, in the folder beside
        // this file; `CARVE=record cargo test` rewrites the entries that came from
        // system tests.
        (
            target: "request_target",
            calls: [
                (
                    origin: System("reads_request_lines"),
                    args: (
                        line: b"GET /a HTTP/1.1",
                    ),
                    outcome: Returned(Some(b"/a")),
                ),
                (
                    origin: System("reads_request_lines"),
                    args: (
                        line: b"PUT /a HTTP/1.1",
                    ),
                    outcome: Returned(None),
                ),
            ],
        )
    "##);
    let run = p.test(&[], &[]);
    run.assert_success();
    assert_snapshot!(run.failed(), @r##"

        test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
    "##);
}

/// A behaviour change behind each kind fails its carved test with a diff.
#[test]
fn a_behaviour_change_behind_each_real_type_fails_with_a_diff() {
    let p = Project::of("types", "types-change");
    p.record().assert_success();
    p.replace(
        "src/lib.rs",
        "part: part.to_owned()",
        "part: part.trim().to_owned() + \"?\"",
    );
    p.replace(
        "src/lib.rs",
        "v.minor >= req.min_minor",
        "v.minor > req.min_minor + 2",
    );
    p.replace(
        "src/lib.rs",
        "Some(rest[..end].to_vec())",
        "Some(rest[..end].to_ascii_uppercase())",
    );
    let run = p.test(&[], &["--test-threads=1"]);
    run.assert_failure();
    assert_snapshot!(run.failed(), @r##"
        carved::allows::0001
        carved::parse_version::0005
        carved::request_target::0001
        system::matches_requirements
        system::reads_request_lines
        test result: FAILED. 7 passed; 5 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
    "##);
    for diff_line in [
        r#"part: "x?","#,
        "Returned(false)",
        r#"Returned(Some(b"/A"))"#,
    ] {
        run.assert_line(diff_line);
    }
}
