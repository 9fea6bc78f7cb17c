//! carve turns system tests into fast unit and regression tests.
//!
//! Mark functions of your library with `#[carve::target]`, write system tests
//! with `#[carve::system_test]`, and end the test file with `carve::main!()`.
//! `CARVE=record cargo test` carves every call of a target made while the
//! system tests run into `carved/<target>.ron`; plain `cargo test` replays each
//! carved call as its own unit test and checks its outcome against an insta
//! snapshot, so a changed behaviour shows as a diff for `cargo insta review`.
//!
//! Setup, in the crate under test:
//!
//! ```toml
//! [dependencies]
//! carve = { path = "…" }
//! serde = { version = "1", features = ["derive"] }
//!
//! [[test]]
//! name = "carve"
//! harness = false
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! #[carve::target]
//! pub fn cgi_decode(s: &str) -> Result<String, DecodeError> { /* … */ }
//!
//! // tests/carve.rs
//! use mycrate as _; // links the library so its targets register
//!
//! #[carve::system_test]
//! fn decodes_form_fields() {
//!     assert_eq!(mycrate::cgi_decode("a+b%21").unwrap(), "a b!");
//! }
//!
//! carve::main!();
//! ```
//!
//! The public API is the three attributes and [`main!`]. How the runtime
//! is laid out, for contributors: modules follow the data flow, one folder
//! per phase. System test → `carving/` (`record` calls, `store` them in
//! carve files, `replay` them as tests) → `coverage/` (branch outcomes of
//! every call, their `distance` and `fitness`, the `reach` of a target, the
//! `report`, its `html` pages and the `history` of runs) → `generation/`
//! (`mine` grammars from the `shape` of carved calls, `grammar` coverage
//! fuzzing, `search` over the `moves` of value trees, `shrink`, `generate`
//! running the phases, `worker` processes) → back to the carve files.
//! `runner` on top drives the modes, one file each (`runner/replay_mode`,
//! `record_mode`, `generate_mode`). Below the phases, shared by all:
//! `registry` (what the attributes register), `call` and `outcome` (a call
//! and how it ended), `value` (argument trees and the `types` of
//! parameters), `panics` (the panic hook), `env` (every environment variable
//! read) and `error`. A module imports only modules below it, never one
//! that imports it back; generated code names only `_macro_support`.
#![deny(missing_docs)]

extern crate self as carve;

/// Declares the runtime's modules: private, or public (and hidden) for
/// carve's own tests and benches with the `_internals` feature, which reach
/// them through [`_internals`].
macro_rules! runtime_modules {
    ($($module:ident),* $(,)?) => {$(
        #[cfg(feature = "_internals")]
        #[doc(hidden)]
        pub mod $module;
        #[cfg(not(feature = "_internals"))]
        mod $module;
    )*};
}

runtime_modules!(
    call, carving, coverage, env, error, generation, outcome, panics, registry, runner, shapes,
    value,
);

/// Carves calls of a function, or of the methods of an impl block.
///
/// On a function: every call is recorded while system tests run under
/// `CARVE=record`. On an impl block: its methods marked `#[carve::target]`
/// are carved, or all `pub` methods when none is marked; the receiver is
/// recorded as an argument named `self`.
///
/// Parameters may be owned `Serialize + DeserializeOwned` types, types that
/// implement `Display + FromStr` (carved as their text), `&str`, byte
/// strings (`&[u8]`, `Vec<u8>`, `[u8; N]`, carved as RON `b"…"`), `&[T]`,
/// `&T`, `&mut T` (its state after the call is recorded too) and `self`,
/// `&self`, `&mut self` of such a type. A call is carved only when each of
/// its arguments rebuilds from what carve writes (a `FromStr` that rejects
/// what `Display` wrote, a lossy `Serialize`, and the call is skipped, said
/// once per parameter by the record run).
///
/// A return value is carved as RON when it is `Serialize`; else, when it is
/// `Display` (an error, a formatter), as its text beside its `{:#?}` text
/// (`Display(text: "…", debug: "…")`, without `debug` for a type that is not
/// `Debug`), so that replay runs and checks its formatting; else as its
/// `Debug` text (`Debug("…")`). Snapshots carved before the `Display` form
/// change for such types: re-record, then accept them with `cargo insta
/// review`. The `Ok` and `Err` sides of a `Result` (and `Option`s and
/// tuples) are chosen one by one. Anything else is one compile error at the
/// type, naming the ways out.
pub use carve_derive::target;

/// Measures branch coverage of a function, of every method of an impl
/// block, or of every function and method of an inline module (inline
/// submodules included), without carving its calls: for the helpers behind
/// targets. Their outcomes count for every target whose calls reach them.
///
/// ```ignore
/// #[carve::instrument]
/// mod triple {
///     pub fn parse(s: &str) -> Option<(u32, u32, u32)> { /* … */ }
///     fn part(s: &str) -> Option<u32> { /* … */ }
/// }
/// ```
///
/// A file module (`mod x;`) is not visible from its declaration: put the
/// attribute on the items inside its file.
pub use carve_derive::instrument;

/// Registers a system test: it runs as `system::<fn>`, and under
/// `CARVE=record` the calls of targets it makes are carved.
///
/// The function takes no arguments and returns `()` or `Result<(), E>` with
/// `E: Debug`; `#[ignore]` and `#[should_panic]` work as with `#[test]`.
pub use carve_derive::system_test;

pub use shapes::Twin;
pub use value::arrays;
pub use value::leak;

/// The `main` of a carve test binary (`harness = false`): runs system tests
/// and carved calls under a libtest-compatible harness.
///
/// ```ignore
/// carve::main!();
/// ```
#[macro_export]
macro_rules! main {
    () => {
        fn main() {
            $crate::_macro_support::main($crate::_macro_support::MainConfig {
                manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                check_snapshot: |name: &str, observation: &str| {
                    $crate::_macro_support::insta::assert_snapshot!(name, observation);
                },
            })
        }
    };
}

/// carve's internals, for its own tests and benches (feature `_internals`).
/// Not a public API: no stability guarantees.
#[cfg(feature = "_internals")]
#[doc(hidden)]
pub mod _internals {
    pub use crate::{
        call, carving, coverage, env, error, generation, outcome, panics, registry, runner, shapes,
        value,
    };
}

/// What generated code calls. Not a public API: no stability guarantees.
///
/// An explicit list of exactly what the attributes' output and [`main!`]
/// name (as insta's `_macro_support` is), so that a user crate can reach
/// nothing else of carve through it (`tests/ui/macro_support_is_a_list.rs`).
#[doc(hidden)]
pub mod _macro_support {
    pub use ::insta;
    pub use ::inventory;
    pub use ::serde;
    /// For the owned types of borrowed parameters (`String` for `&str`):
    /// a `#![no_std]` crate has no `::std` of its own to name.
    pub use ::std;

    use crate::call::Replayed;
    use crate::outcome::{Observation, Outcome};

    pub use crate::call::{parse_args, ArgsInput, ReplayError, ReplayResult};
    pub use crate::carving::record::{begin, is_recording, unlisted, ArgsBuilder, OutcomeSink};
    pub use crate::value::format_spec::{format_with, FormatError, FormatSpec};
    pub use crate::value::types::ParamTypes;
    /// Branch recording and the site tables it records into.
    pub mod cov {
        pub use crate::coverage::{
            active, arith::KnownArith, arith::Operands, arith::UnknownArith, boolean,
            compare_with_goals, enter, hit, kept, swapped, Arith, Frame, KnownCmp, Loop, Op, Probe,
            UnknownCmp,
        };
        pub use crate::registry::{
            Branch, BranchKind, CallSite, Condition, Constant, Form, Logic, Side, Sites, SitesRef,
        };
    }
    /// The constants of the tables instrumented code reads.
    pub mod tables {
        pub use crate::coverage::tables::{
            note, TableProbe, ViaChar, ViaInt, ViaKeyRows, ViaNothing, ViaPairRows, ViaText,
            ViaTextRows,
        };
    }
    pub use crate::outcome::observe;
    pub use crate::registry::{Skipped, SkippedRef, SystemTest, SystemTestRef, Target, TargetRef};
    pub use crate::runner::{main, MainConfig};
    pub use crate::shapes::{
        block_on, block_on_tokio, cast_ref, future_of, is_type, leak, same_type, CatchUnwind,
    };
    pub use crate::value::form::{
        capture_bytes, defer_bytes, err_variant, lacks, ok_variant, some_value, tuple_value,
        ArgProbe, BytesForm, OptionParts, OutcomeProbe, ResultParts, SameByDebug, SameByForm,
        SameProbe, TupleParts, ViaBorrowedSerde, ViaDebug, ViaDisplay, ViaDisplayDebug, ViaNeither,
        ViaNothing, ViaSerde, ViaSerialize, ViaSerializeOnly, ViaText,
    };
    pub use crate::value::{CaptureError, Value};

    /// Runs `f`, a part of replaying a call that is not the call: rebuilding
    /// its arguments, capturing them and their state after it. Outside the
    /// call's coverage (a parser the target never calls is not in its
    /// reach), and targets called meanwhile (a `FromStr` calling one) are
    /// not carved.
    pub fn setup<R>(f: impl FnOnce() -> R) -> R {
        crate::generation::worker::journal::in_setup(|| {
            crate::coverage::paused(|| crate::carving::record::capturing(f))
        })
    }

    /// [`setup`] for rebuilding a call's arguments, before its body: the
    /// edge counters start from zero after it
    /// ([`crate::coverage::paused_before_call`]).
    pub fn setup_arguments<R>(f: impl FnOnce() -> R) -> R {
        crate::generation::worker::journal::in_setup(|| {
            crate::coverage::paused_before_call(|| crate::carving::record::capturing(f))
        })
    }

    /// Calls a target's body (a closure, so that `return` and `?` keep their meaning).
    #[inline(always)]
    pub fn call_once<R>(body: impl FnOnce() -> R) -> R {
        body()
    }

    /// Calls a target's body while its call is carved, catching a panic so
    /// that the call's outcome is recorded (through carve: a `#![no_std]`
    /// crate has no `::std` to name).
    pub fn catch_unwind<R>(body: impl FnOnce() -> R) -> std::thread::Result<R> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
    }

    /// Calls the instrumented twin of a body out of line, so that it does not
    /// change how the original body (the dormant path) is compiled.
    #[inline(never)]
    pub fn call_outlined<R>(body: impl FnOnce() -> R) -> R {
        body()
    }

    /// The result of a replay, from the pieces generated code collects.
    // Always inlined: out of line, its pieces and its result were copied
    // in and out through memory.
    #[inline(always)]
    pub fn replayed(
        args: Option<Value>,
        outcome: Result<Outcome, CaptureError>,
        after: ArgsBuilder,
        has_after: bool,
    ) -> ReplayResult {
        let after = if has_after {
            Some(after.finish().map_err(|(_, e)| ReplayError::Capture(e))?)
        } else {
            None
        };
        Ok(Replayed {
            args,
            observation: Observation {
                outcome: outcome?,
                after,
            },
        })
    }

    /// What a system test's return value means for the test.
    pub trait TestResult {
        /// `Err(message)` fails the test.
        fn into_test_result(self) -> Result<(), String>;
    }

    impl TestResult for () {
        fn into_test_result(self) -> Result<(), String> {
            Ok(())
        }
    }

    impl<E: std::fmt::Debug> TestResult for Result<(), E> {
        fn into_test_result(self) -> Result<(), String> {
            self.map_err(|e| format!("Error: {e:?}"))
        }
    }
}
