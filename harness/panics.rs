//! The panic hook: silent while carve runs a call whose panic is an expected
//! outcome ([`quietly`]), and keeping where the last panic happened, so
//! generation can tell failures apart by their site.
//!
//! ```
//! use carve::panics::{install_panic_hook, last_panic_location, quietly};
//!
//! install_panic_hook();
//! let caught = quietly(|| std::panic::catch_unwind(|| panic!("expected")));
//! assert!(caught.is_err());
//! assert!(last_panic_location().is_some_and(|at| at.contains(".rs:")));
//! ```

use std::cell::Cell;
use std::panic;

thread_local! {
    static QUIET_PANICS: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Where the last panic on this thread happened (`file:line:col`), taken.
/// Generation tells failures apart by it.
pub fn last_panic_location() -> Option<String> {
    LAST_PANIC_LOCATION.with(|l| l.borrow_mut().take())
}

/// The message a panic payload carries.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<panic with a non-string payload>".to_owned()
    }
}

/// Runs `f` with the panic hook silenced on this thread (see [`install_panic_hook`]).
// Always inlined: around a replay, a call of its own moved the call's
// result through memory once more.
#[inline(always)]
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            QUIET_PANICS.with(|q| q.set(self.0));
        }
    }
    let _reset = Reset(QUIET_PANICS.with(|q| q.replace(true)));
    f()
}

/// Installs a panic hook that stays silent inside [`quietly`] and defers to
/// the previous hook elsewhere.
///
/// Replayed calls that panic are expected outcomes; with `RUST_BACKTRACE=1`
/// each would otherwise print a backtrace.
pub fn install_panic_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        LAST_PANIC_LOCATION.with(|l| *l.borrow_mut() = location);
        if !QUIET_PANICS.with(|q| q.get()) {
            previous(info);
        }
    }));
}
