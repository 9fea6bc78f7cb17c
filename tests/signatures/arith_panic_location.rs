// smallvec 1.16.6's `swap_remove`: `len - 1` on an empty vector overflows.
// While coverage is collected (generation, a replay that measures it), the
// instrumented twin runs, and its panic is at the subtraction (line 9), as
// in the original body, not at the attribute (line 7).
use std::sync::atomic::{AtomicU32, Ordering};

#[carve::target]
pub fn last_index(len: usize) -> usize {
    len - 1
}

static LINE: AtomicU32 = AtomicU32::new(0);

pub fn main() {
    std::panic::set_hook(Box::new(|info| {
        LINE.store(info.location().map_or(0, |l| l.line()), Ordering::SeqCst);
    }));
    let (result, _) =
        carve::_internals::coverage::collect(|| std::panic::catch_unwind(|| last_index(0)));
    let instrumented = LINE.swap(0, Ordering::SeqCst);
    // The original body, as a plain call runs it.
    let plain = std::panic::catch_unwind(|| last_index(0));
    let original = LINE.load(Ordering::SeqCst);
    drop(std::panic::take_hook());
    assert!(result.is_err() && plain.is_err());
    assert_eq!((instrumented, original), (9, 9));
}
