//! The CI policy: under CI carve writes nothing, so record and generate
//! refuse to start, and no mode writes new snapshots.

use crate::env::{self, Mode};

/// Why `mode` may not run under CI, when `ci` (the value of `CI`, if it
/// says the run is under CI) does: record and generate write carve files
/// and snapshots, so they refuse before anything runs. `None`: it may run.
pub(super) fn ci_refusal(mode: Mode, ci: Option<&str>) -> Option<String> {
    let name = match mode {
        Mode::Replay => return None,
        Mode::Generate => "generate",
        Mode::Record => "record",
    };
    ci.map(|ci| {
        format!(
            "CARVE={name} writes carve files and snapshots, and under CI (CI={ci}) carve writes \
             nothing: run `CARVE={name} cargo test` locally and commit carved/, or unset CI."
        )
    })
}

/// Whether record and generate mode write the snapshots of calls that have
/// none: not under CI, nor when `INSTA_UPDATE=no` asks insta to write nothing.
pub(super) fn accepts_new_snapshots() -> bool {
    new_snapshots_allowed(env::ci().is_some(), env::insta_writes_nothing())
}

fn new_snapshots_allowed(under_ci: bool, insta_writes_nothing: bool) -> bool {
    !under_ci && !insta_writes_nothing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_ci_only_replay_runs() {
        assert_eq!(ci_refusal(Mode::Replay, Some("true")), None);
        assert_eq!(ci_refusal(Mode::Record, None), None);
        assert_eq!(ci_refusal(Mode::Generate, None), None);
        insta::assert_snapshot!(
            ci_refusal(Mode::Generate, Some("true")).unwrap_or_default(),
            @"CARVE=generate writes carve files and snapshots, and under CI (CI=true) carve writes nothing: run `CARVE=generate cargo test` locally and commit carved/, or unset CI."
        );
        let record = ci_refusal(Mode::Record, Some("1")).unwrap_or_default();
        assert!(record.starts_with("CARVE=record "), "{record}");
    }

    #[test]
    fn new_snapshots_are_written_outside_ci_unless_insta_writes_nothing() {
        assert!(new_snapshots_allowed(false, false));
        assert!(!new_snapshots_allowed(true, false));
        assert!(!new_snapshots_allowed(false, true));
    }
}
