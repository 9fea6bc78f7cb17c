//! Tickets: a number counted up by every call that issues one, as url's
//! `origin()` numbers opaque origins. What the target returns depends on
//! more than its argument, so no generated call of it could be replayed.

use std::sync::atomic::{AtomicU64, Ordering};

static ISSUED: AtomicU64 = AtomicU64::new(0);

/// A ticket for `label`: none for an empty label, else the next number.
#[cfg_attr(feature = "carve", carve::target)]
pub fn ticket(label: &str) -> String {
    if label.is_empty() {
        return "no ticket".to_owned();
    }
    let n = ISSUED.fetch_add(1, Ordering::Relaxed);
    format!("{label} #{n}")
}
