//! A target that crashes its process at three inputs next to the one its
//! system test calls it with: it aborts at 7, overflows its stack at 8 and
//! never returns at 9. Every other input is healthy, and some of them cover
//! branches the system test does not.

/// Sorts `n` into a class, and takes the process down at 7, 8 and 9.
#[cfg_attr(feature = "carve", carve::target)]
pub fn classify(n: u32) -> u32 {
    if n == 7 {
        std::process::abort();
    }
    if n == 8 {
        return u32::from(deeper(u64::from(n)) > 0);
    }
    if n == 9 {
        loop {
            std::hint::black_box(n);
        }
    }
    if n > 100 {
        3
    } else if n % 2 == 0 {
        2
    } else {
        1
    }
}

/// Recurses until the stack overflows.
#[allow(unconditional_recursion)]
fn deeper(depth: u64) -> u64 {
    std::hint::black_box(deeper(std::hint::black_box(depth + 1))) + 1
}

/// Aborts on every input but the one its system test calls it with.
#[cfg_attr(feature = "carve", carve::target)]
pub fn fragile(n: u32) -> u32 {
    if n != 5 {
        std::process::abort();
    }
    n
}
