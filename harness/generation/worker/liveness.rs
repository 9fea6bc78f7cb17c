//! A worker's liveness, seen from both sides.
//!
//! **Parent → worker: is this worker hung?** Only a call of the target can
//! hang; carve's own work (loading and mining a carve file that holds a
//! megabyte-long argument) may
//! take long but ends. So the worker times each call itself, from that
//! call's own start ([`Liveness::call_started`], [`Liveness::call_ended`]),
//! and a heartbeat thread tells the parent every [`HEARTBEAT`] either that
//! all is well ([`WorkerMessage::Alive`]) or that the current call overran
//! the call timeout ([`WorkerMessage::TimedOut`]; `CARVE_TIMEOUT`, else
//! derived from the carved calls' own times; a call against a mutant gets
//! a share of it, [`Liveness::mutant`]). The parent then never
//! has to guess from silence how long a call has run; a worker silent for
//! [`SILENCE_LIMIT`] is frozen as a whole.
//!
//! **Worker → parent: is the parent still there?** A worker whose parent
//! died (the test binary was killed) must not live on. The heartbeat write
//! fails with a broken pipe at most one [`HEARTBEAT`] after the parent is
//! gone, and the worker exits. It writes nothing to the carve folder (its
//! parent stores what it reports), so exiting anywhere leaves nothing torn.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::protocol::{Channel, WorkerMessage};

/// How often the heartbeat thread speaks.
pub const HEARTBEAT: Duration = Duration::from_millis(100);
/// Silence after which the parent takes a worker for frozen: many
/// heartbeats, so that a loaded machine does not make a false crash.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(5);
/// The exit code of a worker that found its parent gone (nobody reads it).
const ORPHANED: i32 = 4;

/// The worker's side of liveness: its channel to the parent and the clock
/// of the call running now.
pub struct Liveness {
    channel: Channel,
    /// When the worker started: call times are measured from it.
    epoch: Instant,
    /// How long a call may run before it counts as hung, in milliseconds
    /// (set once the parent's setup is read, [`Liveness::set_timeout`]).
    timeout_ms: AtomicU64,
    /// Milliseconds from `epoch` to the start of the call running now, plus
    /// one; 0 between calls.
    call_started: AtomicU64,
    /// Whether the calls run against a mutant now ([`Liveness::mutant`]).
    mutant: AtomicBool,
}

/// The share of the call timeout a call against a mutant may run, at least
/// [`MIN_MUTANT_TIMEOUT`]: the same arguments just ran unmutated within
/// the timeout, and a mutant that loops (semver's `identifier` with its
/// length arithmetic mutated) spun for the whole timeout, then four times
/// as long again in the worker confirming it: about 5 s of a 20 s budget
/// per such mutant.
const MUTANT_TIMEOUT_DIVISOR: u32 = 4;
/// The shortest timeout of a call against a mutant (unless the call
/// timeout is shorter).
const MIN_MUTANT_TIMEOUT: Duration = Duration::from_millis(250);

/// How long a call against a mutant may run, in milliseconds, when a call
/// may run `timeout_ms`.
fn mutant_timeout_ms(timeout_ms: u64) -> u64 {
    (timeout_ms / u64::from(MUTANT_TIMEOUT_DIVISOR))
        .max(millis(MIN_MUTANT_TIMEOUT))
        .min(timeout_ms)
}

impl Liveness {
    /// Takes over `channel` and starts the heartbeat thread; a call that
    /// runs longer than `timeout` is reported as timed out.
    pub fn start(channel: Channel, timeout: Duration) -> Arc<Liveness> {
        let liveness = Arc::new(Liveness {
            channel,
            epoch: Instant::now(),
            timeout_ms: AtomicU64::new(millis(timeout)),
            call_started: AtomicU64::new(0),
            mutant: AtomicBool::new(false),
        });
        let heart = Arc::clone(&liveness);
        std::thread::spawn(move || loop {
            std::thread::sleep(HEARTBEAT);
            let message = if heart.call_overran() {
                WorkerMessage::TimedOut
            } else {
                WorkerMessage::Alive
            };
            heart.send(&message);
        });
        liveness
    }

    /// Sends `message` to the parent; exits if the parent is gone.
    pub fn send(&self, message: &WorkerMessage) {
        if self.channel.send(message).is_err() {
            self.orphaned()
        }
    }

    /// Calls from now on may run for `timeout` before they count as hung.
    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout_ms.store(millis(timeout), Ordering::Relaxed);
    }

    /// A call of the target starts now.
    pub fn call_started(&self) {
        self.call_started.store(self.now() + 1, Ordering::Relaxed);
    }

    /// The call that started last has ended.
    pub fn call_ended(&self) {
        self.call_started.store(0, Ordering::Relaxed);
    }

    /// The calls from now on run against a mutant (`true`), or not: such a
    /// call may run a share of the call timeout ([`mutant_timeout_ms`]).
    pub fn mutant(&self, on: bool) {
        self.mutant.store(on, Ordering::Relaxed);
    }

    /// Whether the call running now started longer than the call timeout ago.
    fn call_overran(&self) -> bool {
        let started = self.call_started.load(Ordering::Relaxed);
        let mut timeout = self.timeout_ms.load(Ordering::Relaxed);
        if self.mutant.load(Ordering::Relaxed) {
            timeout = mutant_timeout_ms(timeout);
        }
        started != 0 && self.now() + 1 - started > timeout
    }

    fn now(&self) -> u64 {
        millis(self.epoch.elapsed()).min(u64::MAX - 1)
    }

    /// The parent is gone: exit.
    fn orphaned(&self) -> ! {
        std::process::exit(ORPHANED)
    }
}

/// `duration` in whole milliseconds, at most `u64::MAX`.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::io::{self, Write};
    use std::sync::Mutex;

    /// A writer whose lines the test reads.
    #[derive(Clone, Default)]
    pub(in crate::generation::worker) struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Lines {
        /// The messages sent since the last call.
        pub(in crate::generation::worker) fn take(&self) -> Vec<WorkerMessage> {
            let bytes = std::mem::take(&mut *self.0.lock().unwrap());
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .map(|l| l.parse().unwrap())
                .collect()
        }
    }

    /// Takes messages from `lines` until `enough` holds of all taken
    /// (polling; up to a minute, so that a loaded machine only slows it).
    fn until(lines: &Lines, enough: impl Fn(&[WorkerMessage]) -> bool) -> Vec<WorkerMessage> {
        let start = Instant::now();
        let mut taken = Vec::new();
        while !enough(&taken) {
            assert!(start.elapsed() < Duration::from_secs(60), "{taken:?}");
            std::thread::sleep(HEARTBEAT / 10);
            taken.extend(lines.take());
        }
        taken
    }

    fn timed_out(taken: &[WorkerMessage]) -> bool {
        taken.contains(&WorkerMessage::TimedOut)
    }

    /// Long work outside calls keeps the worker alive; a call is timed from
    /// its own start. Only lower bounds of time are asserted: a loaded
    /// machine delays a report, never brings it forward.
    #[test]
    fn only_a_call_past_the_timeout_is_reported() {
        const CALL_TIMEOUT: Duration = Duration::from_millis(500);
        let lines = Lines::default();
        let liveness = Liveness::start(Channel::to(lines.clone()), CALL_TIMEOUT);
        // Ten heartbeats, twice the timeout, without a call: all is well.
        let setup = until(&lines, |t| t.len() >= 10);
        assert!(setup.iter().all(|m| *m == WorkerMessage::Alive), "{setup:?}");

        liveness.call_started();
        let started = Instant::now();
        until(&lines, timed_out);
        assert!(started.elapsed() >= CALL_TIMEOUT);

        liveness.call_ended();
        // One report may have been on its way as the call ended.
        until(&lines, |t| !t.is_empty());
        let after = until(&lines, |t| t.len() >= 2);
        assert!(after.iter().all(|m| *m == WorkerMessage::Alive), "{after:?}");
    }

    /// A call against a mutant that loops is reported after a share of the
    /// call timeout, not the whole of it; the calls after it get the whole.
    #[test]
    fn a_call_against_a_mutant_is_reported_after_a_share_of_the_timeout() {
        const CALL_TIMEOUT: Duration = Duration::from_secs(8);
        let share = Duration::from_millis(mutant_timeout_ms(millis(CALL_TIMEOUT)));
        assert_eq!(share, Duration::from_secs(2));
        assert_eq!(mutant_timeout_ms(1000), 250);
        assert_eq!(mutant_timeout_ms(100), 100);
        let lines = Lines::default();
        let liveness = Liveness::start(Channel::to(lines.clone()), CALL_TIMEOUT);
        liveness.mutant(true);
        liveness.call_started();
        let started = Instant::now();
        until(&lines, timed_out);
        let reported = started.elapsed();
        liveness.call_ended();
        liveness.mutant(false);
        assert!(reported >= share, "{reported:?}");
        // Not the whole timeout: 6 s of margin for a loaded machine.
        assert!(reported < CALL_TIMEOUT, "{reported:?}");

        // Unmutated, a call runs past that share unreported.
        until(&lines, |t| !t.is_empty());
        liveness.call_started();
        let started = Instant::now();
        std::thread::sleep(share + 5 * HEARTBEAT);
        let unmutated = until(&lines, |t| !t.is_empty());
        let waited = started.elapsed();
        liveness.call_ended();
        // Only a machine that stalled the test past the whole timeout may
        // see it reported.
        if waited < CALL_TIMEOUT {
            assert!(!timed_out(&unmutated), "{unmutated:?} after {waited:?}");
        }
    }
}
