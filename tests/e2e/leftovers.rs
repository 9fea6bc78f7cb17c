//! What runs killed at the wrong moment leave behind, and what the next run
//! makes of it: temporary files of a writer killed between its write and
//! its rename (`kill -9`), and calls that hung only once, on a loaded
//! machine (spurious timeouts).

use crate::Project;

/// A temporary file that a killed writer left in `carved/` (the form
/// carve wrote before, with a process id no process has) is removed by
/// the next record, which says so; one of a live process is left alone.
#[test]
fn record_removes_temporary_files_that_killed_writers_left() {
    let p = Project::recorded("leftovers-tmp");
    let dead = "carved/decode/.cgi_decode.ron.4294967294.tmp";
    let deep = "carved/decode/cgi_decode/.0001.snap.4294967293.Ab12Cd.tmp";
    p.write(dead, "torn");
    p.write(deep, "torn");
    let live = format!("carved/.fact.ron.{}.tmp", std::process::id());
    p.write(&live, "being written");
    let run = p.record();
    run.assert_success();
    insta::assert_snapshot!(
        run.stdout.lines().find(|l| l.contains("temporary file")).unwrap_or_default(),
        @"carve: removed 2 temporary file(s) that killed writers left in carved: carved/decode/.cgi_decode.ron.4294967294.tmp and 1 more"
    );
    let names = p.carved_names();
    // Only the live writer's file is left.
    assert_eq!(names.matches(".tmp").count(), 1, "{names}");
    assert!(names.contains(&live["carved/".len()..]), "{names}");
    std::fs::remove_file(p.dir.join(&live)).unwrap();
    // Nothing else: the record itself leaves no temporary file.
    assert!(!p.carved_names().contains(".tmp"), "{}", p.carved_names());
}
