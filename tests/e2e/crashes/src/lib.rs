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

/// Hangs the first time it is called with anything but the 5 its system
/// test calls it with, and never again (a marker file in the crate's
/// folder remembers): a call that overran its timeout once, as on a loaded
/// machine, and returns when it is run again.
#[cfg_attr(feature = "carve", carve::target)]
pub fn hangs_once(n: u32) -> u32 {
    hang_the_first_time(n);
    if n > 10 {
        2
    } else {
        1
    }
}

/// Not instrumented: no mutant of its conditions is checked, so it hangs
/// only as said.
fn hang_the_first_time(n: u32) {
    let marker = concat!(env!("CARGO_MANIFEST_DIR"), "/hung-once");
    if n != 5
        && std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(marker)
            .is_ok()
    {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Hangs the first time it is called with each argument but 5 (a marker
/// file per argument in the crate's folder remembers), and returns when run
/// again: a machine so loaded that calls overrun the timeout again and
/// again.
#[cfg_attr(feature = "carve", carve::target)]
pub fn hangs_once_per_argument(n: u32) -> u32 {
    hang_the_first_time_with(n);
    if n > 10 {
        0
    } else {
        n % 3
    }
}

/// Not instrumented, like [`hang_the_first_time`].
fn hang_the_first_time_with(n: u32) {
    let marker = format!("{}/hung-with-{n}", env!("CARGO_MANIFEST_DIR"));
    if n != 5
        && std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(marker)
            .is_ok()
    {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// A count of slots whose `Deserialize` takes the process down at every
/// even count over 1000, as slab's `Deserialize` of a key near `usize::MAX` fills
/// memory until it is stopped: carve's own rebuilding of the argument, not
/// the call, dies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slots(pub u32);

#[cfg(feature = "carve")]
impl serde::Serialize for Slots {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

#[cfg(feature = "carve")]
impl<'de> serde::Deserialize<'de> for Slots {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = <u32 as serde::Deserialize>::deserialize(d)?;
        if n > 1000 && n % 2 == 0 {
            std::process::abort();
        }
        Ok(Slots(n))
    }
}

/// Healthy at every count it is called with.
#[cfg_attr(feature = "carve", carve::target)]
pub fn fill(slots: Slots) -> u32 {
    if slots.0 > 100 {
        2
    } else {
        1
    }
}

/// Counts the spaces `s` starts with. Healthy at every input, but its
/// mutant `c != Some(' ')` never ends once the text is read (natord
/// 1.0.9's loops that skip white space): a check of it hangs its worker.
#[cfg_attr(feature = "carve", carve::target)]
pub fn leading_spaces(s: &str) -> usize {
    let mut chars = s.chars();
    let mut c = chars.next();
    let mut n = 0;
    while c == Some(' ') {
        n += 1;
        c = chars.next();
    }
    n
}

/// How many steps of one character cover `s`. Healthy at every input, but
/// its mutant `!s.is_empty()` makes the step 0 for a text that is not
/// empty, and the loop that counts steps, which carve does not instrument,
/// never ends: no condition of the mutated function runs again, so only
/// the call timeout tells the hang.
#[cfg_attr(feature = "carve", carve::target)]
pub fn steps(s: &str) -> usize {
    let step = if s.is_empty() { 0 } else { 1 };
    count_steps(s.len(), step)
}

/// Not instrumented: its loop runs no condition carve sees.
fn count_steps(len: usize, step: usize) -> usize {
    let (mut at, mut n) = (0, 0);
    while at < len {
        at += step;
        n += 1;
    }
    n
}
