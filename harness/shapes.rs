//! What generated code of generic and `async` targets calls: telling an
//! instantiation of a generic function apart from the others, and driving a
//! future to its end (carve's small executor, or tokio's with the `tokio`
//! feature). (Calls at an instantiation the attribute does not list are
//! the recorder's: `carving::record::unlisted`.)
//!
//! A generic target is registered once per instantiation its attribute
//! lists (`#[carve::target(generics(S = String), generics(S = &str))]`);
//! its body asks, at each recorded call, which one the call is at
//! ([`same_type`], [`is_type`]) and reads its arguments as that
//! instantiation's types ([`cast_ref`]).
//!
//! ```
//! use carve::shapes::{block_on, cast_ref, is_type};
//! assert!(is_type::<_, String>(&String::from("a")));
//! assert!(!is_type::<_, &str>(&String::from("a")));
//! let text = String::from("a");
//! let s: &String = cast_ref(&text);
//! assert_eq!(s, "a");
//! assert_eq!(block_on(async { 1 + 1 }), 2);
//! ```

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Whether `A` and `B` are one type (lifetimes aside).
pub fn same_type<A: ?Sized, B: ?Sized>() -> bool {
    typeid::of::<A>() == typeid::of::<B>()
}

/// Whether `value` is a `B` (lifetimes aside): the type of an `impl Trait`
/// argument, which has no name in the function's body.
pub fn is_type<A: ?Sized, B: ?Sized>(_value: &A) -> bool {
    same_type::<A, B>()
}

/// `value` as a `&B`, when `A` is `B`: a generic target's argument read as
/// the instantiation's type the call was found to be at.
///
/// # Panics
/// When `A` is not `B` (generated code checks first).
pub fn cast_ref<A: ?Sized, B: ?Sized>(value: &A) -> &B {
    assert!(
        same_type::<A, B>() && size_of::<&A>() == size_of::<&B>(),
        "carve: {} read as {}",
        std::any::type_name::<A>(),
        std::any::type_name::<B>()
    );
    // SAFETY: `A` and `B` are the same type up to lifetimes (their type ids
    // are equal), so `&A` and `&B` have one layout. The reference is only
    // read while the call it was passed to runs (to capture it), within
    // the lifetime of `value`.
    unsafe { std::mem::transmute_copy::<&A, &B>(&value) }
}

/// A replayed or generated argument of a `&'static T` parameter (an
/// `&'static AsciiSet`, a table of constants): the value rebuilt from its
/// carve file lives for the rest of the process, as the parameter asks.
/// Each call leaks its argument; test processes are short-lived.
///
/// ```
/// let table: &'static Vec<u8> = carve::shapes::leak(vec![1, 2]);
/// assert_eq!(table, &[1, 2]);
/// ```
pub fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// The owned type a `&self` receiver of `Self` is rebuilt as on replay and
/// lent from: `Self` for every sized type, and for an unsized one the owned
/// type that derefs to it (`String` for `str`, `PathBuf` for `Path`). A
/// crate's own unsized type names its twin, as camino's `Utf8Path` does
/// (without it, a `&self` method of the type fails to compile with "the
/// size for values of type … cannot be known", "required for `Utf8Path` to
/// implement `carve::Twin`"):
///
/// ```
/// # mod camino { pub struct Utf8Path(str); pub struct Utf8PathBuf(String); }
/// # use camino::{Utf8Path, Utf8PathBuf};
/// // #[cfg(feature = "carve")]
/// impl carve::Twin for Utf8Path {
///     type Owned = Utf8PathBuf;
/// }
/// ```
pub trait Twin {
    /// The owned type.
    type Owned;
}

impl<T> Twin for T {
    type Owned = T;
}

impl Twin for str {
    type Owned = String;
}

impl<T> Twin for [T] {
    type Owned = Vec<T>;
}

impl Twin for std::path::Path {
    type Owned = std::path::PathBuf;
}

impl Twin for std::ffi::OsStr {
    type Owned = std::ffi::OsString;
}

/// A type's name as `std::any::type_name` gives it, with each path
/// shortened to its last segment (`alloc::string::String` → `String`,
/// `alloc::vec::Vec<u8>` → `Vec<u8>`), as carve names instantiations.
///
/// ```
/// use carve::shapes::short_type_name;
/// assert_eq!(short_type_name("alloc::string::String"), "String");
/// assert_eq!(short_type_name("&alloc::borrow::Cow<str>"), "&Cow<str>");
/// assert_eq!(short_type_name("(u8, core::option::Option<a::B>)"), "(u8, Option<B>)");
/// assert_eq!(short_type_name("alloc::borrow::Cow<'_, str>"), "Cow<str>");
/// ```
pub fn short_type_name(name: &str) -> String {
    // `type_name` writes erased lifetimes as `'_`; carve's names have none.
    let name = name.replace("'_, ", "").replace("'_ ", "").replace("<'_>", "");
    let mut out = String::new();
    let mut word = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        out.push_str(&word);
        word.clear();
        out.push(c);
    }
    out.push_str(&word);
    out
}

/// Fixes the output type of an `async fn` body's block, so that `?` and
/// `return` in it infer as in the function.
pub fn future_of<R, F: Future<Output = R>>(future: F) -> F {
    future
}

/// A future that catches a panic of the future it wraps, as
/// `catch_unwind` does for a call: the outcome of an `async fn` target.
pub struct CatchUnwind<F> {
    inner: Pin<Box<F>>,
}

impl<F: Future> CatchUnwind<F> {
    /// Wraps `future`.
    pub fn new(future: F) -> Self {
        CatchUnwind {
            inner: Box::pin(future),
        }
    }
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = thread::Result<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// Wakes the thread that blocks on a future.
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Drives `future` to its end on this thread: carve's executor for `async
/// fn` targets that name no runtime. It parks the thread until the future's
/// waker is woken; a future that never completes blocks, as a hanging call
/// does (generation stops it at its timeout).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            Poll::Pending => thread::park(),
        }
    }
}

/// Drives `future` to its end on a current-thread tokio runtime with its
/// timer and I/O enabled (`#[carve::target(runtime = "tokio")]`, carve's
/// feature `tokio`). Each call gets a runtime of its own: replayed calls
/// share nothing.
///
/// # Panics
/// When the runtime cannot be built (the thread cannot create its I/O
/// driver).
#[cfg(feature = "tokio")]
pub fn block_on_tokio<F: Future>(future: F) -> F::Output {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => panic!("carve: could not start a tokio runtime to drive the call: {e}"),
    }
}

/// Without carve's `tokio` feature: a compile error that says to enable it.
#[cfg(not(feature = "tokio"))]
// The bound in a `where` clause of its own is what the error shows.
#[allow(clippy::multiple_bound_locations)]
pub fn block_on_tokio<F: Future>(future: F) -> F::Output
where
    F: NeedsTokioFeature,
{
    drop(future);
    unreachable!("no type implements NeedsTokioFeature")
}

/// Implemented by nothing: an `async fn` target with `runtime = "tokio"`
/// needs carve's feature `tokio`.
#[cfg(not(feature = "tokio"))]
#[diagnostic::on_unimplemented(
    message = "`#[carve::target(runtime = \"tokio\")]` needs carve's feature `tokio`",
    label = "this call of an `async fn` target is driven by tokio",
    note = "enable it where carve is a dependency: `carve = {{ …, features = [\"tokio\"] }}`"
)]
pub trait NeedsTokioFeature {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_told_apart_lifetimes_aside() {
        fn at(s: &str) -> bool {
            is_type::<_, &'static str>(&s)
        }
        assert!(at(&String::from("x")));
        assert!(!same_type::<u32, i32>());
        assert!(same_type::<[u8], [u8]>());
        let bytes: &[u8] = cast_ref::<[u8], [u8]>(b"ab".as_slice());
        assert_eq!(bytes, b"ab");
    }

    #[test]
    #[should_panic(expected = "read as")]
    fn a_cast_to_another_type_panics() {
        let _: &u64 = cast_ref(&1u32);
    }

    #[test]
    fn a_panicking_future_is_caught_and_a_waking_one_completes() {
        let caught = crate::panics::quietly(|| {
            block_on(CatchUnwind::new(async {
                if true {
                    panic!("boom");
                }
            }))
        });
        assert!(caught.is_err());
        // A future woken from another thread.
        let (tx, rx) = std::sync::mpsc::channel::<Waker>();
        let waker_thread = thread::spawn(move || {
            if let Ok(waker) = rx.recv() {
                waker.wake();
            }
        });
        let mut sent = Some(tx);
        let value = block_on(std::future::poll_fn(|cx| match sent.take() {
            Some(tx) => {
                let _ = tx.send(cx.waker().clone());
                Poll::Pending
            }
            None => Poll::Ready(7),
        }));
        assert_eq!(value, 7);
        let _ = waker_thread.join();
    }
}
