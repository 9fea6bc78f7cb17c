//! `async fn` targets: one that needs no runtime (it yields to its
//! executor between bytes), a generic one, and one that needs tokio's timer.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Returns `Pending` once (waking itself), then `Ready`: an await point
/// that needs no runtime.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The sum of the bytes, yielding after each; a zero byte is an error.
/// More than 8 bytes never complete (a hang).
#[cfg_attr(feature = "carve", carve::target)]
pub async fn checksum(data: Vec<u8>) -> Result<u8, String> {
    if data.len() > 8 {
        std::future::pending::<()>().await;
    }
    let mut sum = 0u8;
    for byte in data {
        if byte == 0 {
            return Err("zero byte".to_owned());
        }
        sum = sum.wrapping_add(byte);
        YieldNow(false).await;
    }
    Ok(sum)
}

/// Waits before retry `attempt` (tokio's timer) and says how long.
#[cfg_attr(feature = "carve", carve::target(runtime = "tokio"))]
pub async fn backoff(attempt: u32) -> u64 {
    let ms = if attempt > 3 { 8 } else { 1 << attempt };
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// The first item above `floor`, yielding between items: a generic
/// `async fn`, carved at the types its attribute lists.
#[cfg_attr(feature = "carve", carve::target(generics(T = u32), generics(T = String)))]
pub async fn first_above<T: PartialOrd + Send>(items: Vec<T>, floor: T) -> Option<T> {
    for item in items {
        if item > floor {
            return Some(item);
        }
        YieldNow(false).await;
    }
    None
}

/// Carving keeps an `async fn` target's future `Send` (it can still be
/// spawned on a multi-threaded runtime): this does not compile otherwise.
#[allow(dead_code)]
fn futures_stay_send() {
    fn send<T: Send>(_: T) {}
    send(checksum(Vec::new()));
    send(backoff(0));
    send(first_above(vec![1u32], 0));
}
