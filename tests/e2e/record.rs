//! Recording never loses or silently changes a carved call: hash maps are
//! carved in a canonical order, a failing system test keeps its entries,
//! and one that takes its process down cannot stop the others.

use insta::assert_snapshot;

use crate::Project;

/// A target with a hash map argument and a hash set result, and a system
/// test that calls it with enough entries that hash order would show.
fn with_hash_maps(name: &str) -> Project {
    let p = Project::new(name);
    let lib = p.read("src/lib.rs")
        + r#"
/// The items priced over `over`: a map in, a set out.
#[cfg_attr(feature = "carve", carve::target)]
pub fn pricier(
    prices: &std::collections::HashMap<String, u32>,
    over: u32,
) -> std::collections::HashSet<String> {
    prices
        .iter()
        .filter(|(_, &price)| price > over)
        .map(|(item, _)| item.clone())
        .collect()
}
"#;
    p.write("src/lib.rs", &lib);
    let tests = p.read("tests/carve.rs").replace(
        "carve::main!();",
        r#"#[carve::system_test]
fn prices_items() {
    let prices = (0..24u32).map(|i| (format!("item{i}"), i * 7 % 24)).collect();
    assert_eq!(shop::pricier(&prices, 20).len(), 3);
}

carve::main!();"#,
    );
    p.write("tests/carve.rs", &tests);
    p
}

/// Each record builds new hash maps with new random keys: the carve file
/// and the snapshot (named after the arguments) are the same every time.
#[test]
fn a_hash_map_argument_is_carved_the_same_on_every_record() {
    let p = with_hash_maps("hash-map");
    p.record().assert_success();
    let first = p.carved();
    let file = &first["pricier.ron"];
    assert!(
        file.contains(
            "prices: {\n                    \"item0\": 0,\n                    \"item1\": 7,\n                    \"item10\": 22,"
        ),
        "keys in order:\n{file}"
    );
    let snapshots: Vec<&String> = first.keys().filter(|k| k.starts_with("pricier/")).collect();
    assert_eq!(snapshots.len(), 1, "{snapshots:?}");
    assert!(
        first[snapshots[0]]
            .ends_with("Returned([\n    \"item10\",\n    \"item17\",\n    \"item3\",\n])\n"),
        "the set is sorted too:\n{}",
        first[snapshots[0]]
    );
    for _ in 0..2 {
        p.record().assert_success();
        assert_eq!(p.carved(), first, "a re-record changes nothing");
    }
    p.test(&[], &[]).assert_success();
}

/// A system test that fails before it calls anything keeps the entries it
/// carved before, and their snapshots; the run fails and says so.
#[test]
fn a_failing_system_test_keeps_its_entries() {
    let p = Project::recorded("failing-test");
    let recorded = p.carved();
    p.replace(
        "tests/carve.rs",
        "fn decodes() {\n",
        "fn decodes() {\n    assert_eq!(1 + 1, 3, \"broken before its calls\");\n",
    );
    let run = p.record();
    run.assert_failure();
    run.assert_line("test system::decodes ... FAILED");
    assert_snapshot!(run.messages(), @r"
    carve: carved 4 system test(s); writing carved
    carve: system::decodes failed, so its carve entries were kept as they were (nothing it called in this run was stored)
    carve: unchanged carved/Counter/bump.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/abort_on_max.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/collatz.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/compatible.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/decode/cgi_decode.ron: 3 call(s) stored, 1 carved in this run
    carve: unchanged carved/double.ron: 2 call(s) stored, 2 carved in this run
    carve: unchanged carved/fact.ron: 13 call(s) stored, 16 carved in this run
    carve: unchanged carved/first_word.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/parse_triple.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/push_all.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/split_pair.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/sum_pairs.ron: 1 call(s) stored, 1 carved in this run
    carve: unchanged carved/unlucky.ron: 1 call(s) stored, 1 carved in this run
    ");
    assert_eq!(p.carved(), recorded, "nothing was removed or changed");
}

/// One system test exits, another overflows its stack: each is recorded
/// in its own process, so every other test is carved as usual, and the two
/// fail with how their process ended.
#[test]
fn a_system_test_that_ends_its_process_does_not_stop_the_others() {
    let p = Project::new("exiting-test");
    p.record().assert_success();
    let baseline = p.carved();
    std::fs::remove_dir_all(p.dir.join("carved")).unwrap();
    p.replace(
        "tests/carve.rs",
        "carve::main!();",
        r#"#[carve::system_test]
fn exits() {
    assert_eq!(shop::fact(4), 24);
    std::process::exit(3);
}

#[carve::system_test]
fn overflows() {
    fn deeper(n: u64) -> u64 {
        std::hint::black_box(deeper(n + 1)) + 1
    }
    deeper(0);
}

carve::main!();"#,
    );
    let run = p.record();
    run.assert_failure();
    assert_snapshot!(run.failure("system::exits"), @"the system test ended its process: process exited with code 3. It was recorded in a process of its own, so the other tests were still carved");
    assert_snapshot!(run.failure("system::overflows"), @"the system test ended its process: process killed by signal 6 (SIGABRT: abort or stack overflow). It was recorded in a process of its own, so the other tests were still carved");
    run.assert_line("carve: system::exits failed, so its carve entries were kept as they were");
    assert_eq!(
        p.carved(),
        baseline,
        "the other tests carved what they always do"
    );
}

/// A record filtered to one system test writes the snapshots of the calls
/// it carved, though the filter leaves their replay out: the next
/// `cargo test` passes.
#[test]
fn a_filtered_record_leaves_the_suite_green() {
    let p = Project::new("filtered-record");
    let run = p.test(&[("CARVE", "record")], &["decodes"]);
    run.assert_success();
    assert_snapshot!(run.messages(), @r"
    carve: carved 2 system test(s); writing carved
    carve: wrote carved/decode/cgi_decode.ron: 3 call(s) stored, 4 carved in this run
    carve: wrote 3 new snapshot(s) for decode::cgi_decode in carved/decode/cgi_decode/
    ");
    run.assert_line("running 0 tests");
    p.test(&[], &[]).assert_success();
}
