//! Crash triage: what kind of crash took a worker down, and where.
//!
//! Failures are told apart by kind and place, and each gets its own `Found`
//! entry: a panic by its `file:line`; a crash by its kind (`abort`, `stack
//! overflow`, `timeout`, `signal 11 (SIGSEGV)`, `exit code 3`) and, where
//! the worker could say, the innermost frame of the user's code it happened
//! in (`abort at src/lib.rs:12`). The kind comes from how the process ended
//! and from the tail of what it wrote to stderr: Rust prints `thread '…'
//! has overflowed its stack` before it aborts on a stack overflow, and
//! `fatal runtime error: …` before other aborts of its own.

use std::process::ExitStatus;

use crate::outcome::{describe_exit, Failure, FailureKind, Site};

/// How a worker ended while it was in a call of the target: what the
/// parent saw of the process, from which [`classify`] tells the call's
/// [`Failure`]. Not a second way to say how a call ended: a worker that
/// timed out and one that froze both make a [`FailureKind::Timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The call ran past the call timeout (the worker said so).
    TimedOut,
    /// The worker stopped responding (no heartbeat).
    Frozen,
    /// The process ended by itself.
    Exited(ExitStatus),
}

/// The kind and place of a crash (failures are told apart by it) and a
/// message for its `Crashed("…")` outcome, which names the kind first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triage {
    /// Kind and place: `stack overflow`, `abort at src/lib.rs:12`.
    pub failure: Failure,
    /// `abort: process killed by signal 6 (SIGABRT)`.
    pub message: String,
}

/// What the worker writes to stderr before it dies of a signal in a call,
/// naming the innermost frame of the user's code (see [`user_frame_line`]).
pub const FRAME_PREFIX: &str = "carve-worker crash frame: ";

/// Tells a crash's kind from how the worker ended and the tail of its
/// stderr (`tail`), and its place from the frame line the worker wrote.
pub fn classify(ended: Ended, tail: &str, timeout: std::time::Duration) -> Triage {
    let site = tail
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(FRAME_PREFIX))
        .and_then(|f| Site::parse(f.trim()));
    // `thread 'main' (29961) has overflowed its stack`: the thread id
    // changes from run to run, and the message is stored.
    let overflow = tail
        .lines()
        .rev()
        .find(|l| l.contains("has overflowed its stack"))
        .map(|l| without_thread_id(l.trim()));
    let fatal = tail
        .lines()
        .rev()
        .find(|l| l.starts_with("fatal runtime error:"))
        .map(|l| l.trim().to_owned());
    let (kind, detail) = match ended {
        Ended::TimedOut => (
            FailureKind::Timeout,
            format!("did not return within {}", seconds(timeout)),
        ),
        Ended::Frozen => (
            FailureKind::Timeout,
            "the worker stopped responding".to_owned(),
        ),
        Ended::Exited(status) => {
            let how = describe_exit(status);
            match (signal_of(status), status.code()) {
                (Some(_), _) if overflow.is_some() => {
                    (FailureKind::StackOverflow, overflow.unwrap_or_default())
                }
                (Some(6), _) => (
                    FailureKind::Abort,
                    match &fatal {
                        Some(fatal) => format!("{how}; {fatal}"),
                        None => how,
                    },
                ),
                (Some(signal), _) => (FailureKind::Signal(signal), how),
                (None, Some(code)) => (FailureKind::ExitCode(code), how),
                (None, None) => (FailureKind::Crash, how),
            }
        }
    };
    Triage {
        message: format!("{kind}: {detail}"),
        failure: Failure { kind, site },
    }
}

/// `1s`, `1500ms`: as `CARVE_TIMEOUT` takes it.
pub fn seconds(duration: std::time::Duration) -> String {
    match duration.subsec_millis() {
        0 => format!("{}s", duration.as_secs()),
        _ => format!("{}ms", duration.as_millis()),
    }
}

/// `thread 'main' (29961) has …` → `thread 'main' has …`.
fn without_thread_id(line: &str) -> String {
    let Some((head, rest)) = line.split_once("' (") else {
        return line.to_owned();
    };
    match rest.split_once(") ") {
        Some((id, tail)) if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) => {
            format!("{head}' {tail}")
        }
        _ => line.to_owned(),
    }
}

fn signal_of(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The innermost frame of the user's code in a backtrace's text: a Rust
/// file inside the package under test (the backtrace names those relative
/// to it, as `./src/lib.rs`; the standard library's, dependencies' and
/// carve's are absolute) and not carve's own, without its column.
pub fn user_frame_line(backtrace: &str) -> Option<Site> {
    backtrace.lines().find_map(|line| {
        let at = line.trim().strip_prefix("at ")?;
        let at = at.strip_prefix("./").unwrap_or(at);
        let (file, rest) = at.split_once(':')?;
        let line = rest.split(':').next()?;
        let user = !file.starts_with('/')
            && !file.starts_with('.')
            && file.ends_with(".rs")
            && !file.starts_with("harness/")
            && !file.starts_with('<')
            && !file.contains(":\\")
            && line.chars().all(|c| c.is_ascii_digit());
        if !user {
            return None;
        }
        Some(Site {
            file: file.to_owned(),
            line: line.parse().ok()?,
            column: None,
        })
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    const SECOND: std::time::Duration = std::time::Duration::from_secs(1);

    fn signal(n: i32) -> Ended {
        Ended::Exited(ExitStatus::from_raw(n))
    }

    #[test]
    fn kinds_are_told_apart() {
        let abort = classify(signal(6), "some output\n", SECOND);
        assert_eq!(abort.failure.to_string(), "abort");
        assert_eq!(
            abort.message,
            "abort: process killed by signal 6 (SIGABRT: abort or stack overflow)"
        );
        let overflow = classify(
            signal(6),
            "\nthread 'main' (29961) has overflowed its stack\nfatal runtime error: stack overflow, aborting\n",
            SECOND,
        );
        assert_eq!(overflow.failure.to_string(), "stack overflow");
        assert_eq!(
            overflow.message,
            "stack overflow: thread 'main' has overflowed its stack"
        );
        let segv = classify(signal(11), "", SECOND);
        assert_eq!(segv.failure.to_string(), "signal 11 (SIGSEGV)");
        let timeout = classify(Ended::TimedOut, "", SECOND);
        assert_eq!(
            (timeout.failure.to_string(), timeout.message.as_str()),
            ("timeout".to_owned(), "timeout: did not return within 1s")
        );
        let exit = classify(Ended::Exited(ExitStatus::from_raw(3 << 8)), "", SECOND);
        assert_eq!(exit.failure.to_string(), "exit code 3");
    }

    #[test]
    fn the_frame_a_worker_names_places_the_crash() {
        let abort = classify(signal(6), &format!("{FRAME_PREFIX}src/lib.rs:12\n"), SECOND);
        assert_eq!(abort.failure.to_string(), "abort at src/lib.rs:12");
        assert_eq!(abort.failure.kind, FailureKind::Abort);
    }

    #[test]
    fn the_innermost_user_frame_is_found() {
        let backtrace = "   0: std::backtrace::Backtrace::create
             at /rustc/abc/library/std/src/backtrace.rs:331:13
   1: carve::generation::worker::on_abort
             at /work/carve/harness/generation/worker/mod.rs:10:5
   2: std::process::abort
             at /rustc/abc/library/std/src/process.rs:2400:5
   3: shop::abort_on_max
             at ./src/lib.rs:132:9
   4: shop::caller
             at src/lib.rs:140:5";
        assert_eq!(
            user_frame_line(backtrace),
            Site::parse("src/lib.rs:132")
        );
        assert_eq!(user_frame_line("   0: main\n at /x/y.rs:1:1"), None);
        assert_eq!(user_frame_line("   0: pthread_kill\n at ./nptl/pthread_kill.c:43"), None);
    }
}
