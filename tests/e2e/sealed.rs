//! Sealed structs in generation, on the `sealed/` fixture: `Table` keeps
//! an invariant behind a private field, `Point` has public fields only.

use crate::Project;

/// The byte lists of the `Table`s in a carve file (`bytes: [7, 7, …]`,
/// one item per line).
fn tables(file: &str) -> Vec<Vec<u8>> {
    file.split("bytes: [")
        .skip(1)
        .map(|rest| {
            rest[..rest.find(']').unwrap_or(rest.len())]
                .split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .collect()
}

/// Generated receivers of `Table` are tables its API made (carved, or
/// returned by `Table::new`): no forged table's panic is reported, none is
/// refused as undeserializable, and the planted bug, which a made table
/// reaches, is found. `Point`, which any user builds, is generated freely.
#[test]
fn generated_values_of_a_struct_with_a_private_field_are_values_its_api_made() {
    let p = Project::of("sealed", "sealed-made");
    p.record().assert_success();
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "3000")], &[]);
    let file = p.read("carved/Table/get.ron");
    println!("{}\n{file}", run.output());
    run.assert_line(
        "carve: Table::get: `Table` has a field its users cannot set: generated only as the",
    );
    let line = run.generation_line("Table::get");
    assert!(
        line.contains("(0 generated arguments did not deserialize)"),
        "{line}"
    );
    assert!(line.contains("found 1 failure(s)"), "{line}");
    assert!(file.contains("planted: index"), "{file}");
    let tables = tables(&file);
    assert!(tables.len() > 2, "{file}");
    for table in tables {
        assert_eq!(table.len(), 128, "a table no call of the API made:\n{file}");
    }
    // The failing input's line is cut, as its test's message is: the
    // whole table is in the carve file.
    let failing = run
        .stdout
        .lines()
        .find(|l| l.starts_with("carve: Table::get: found a failing input, minimized: "))
        .unwrap_or_else(|| panic!("no failing input line in:\n{}", run.output()));
    assert!(failing.contains("…") && failing.len() < 400, "{failing}");
    // Its test fails, naming the call as the generation line did: the
    // struct's name, the table cut.
    let replay = p.test(&[], &[]);
    replay.assert_failure();
    let message = replay
        .output()
        .lines()
        .find(|l| l.contains("generation found a failing input: `Table::get("))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no failing input message in:\n{}", replay.output()));
    assert!(
        message.contains("`Table::get(self:Table(bytes:[7,7,"),
        "{message}"
    );
    assert!(message.contains("…"), "{message}");
    // Without the sealing, a forged `Point` is any point: generation
    // covers the quadrants the system test did not.
    let line = run.generation_line("Point::quadrant");
    assert!(line.contains("-> 10/10"), "{line}");
}

/// `Range::next` is never called, and `Range` is sealed: neither its
/// simplest value (empty address texts) nor one assembled from carved
/// texts is run. It starts from the range `Net::hosts` returns for the
/// network carved for `Net::size` (it was skipped: "no value carved for
/// other targets deserializes into its parameters").
#[test]
fn a_sealed_receiver_no_call_holds_starts_from_what_a_constructor_returned() {
    let p = Project::of("ranges", "ranges");
    p.record().assert_success();
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "500")], &[]);
    run.assert_success();
    let line = run.generation_line("Range::next");
    assert!(
        line.contains("branch coverage 0/4 -> 4/4"),
        "{line}\n{}",
        run.output()
    );
    let file = p.read("carved/Range/next.ron");
    assert!(file.contains("start: \"10.0.0.8\""), "{file}");
    // Its calls replay as any generated call.
    p.test(&[], &["next"]).assert_success();
}
