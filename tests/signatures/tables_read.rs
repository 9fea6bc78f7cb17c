// Instrumented bodies that read constants and statics: each is named at the
// body's start so that its contents join the dictionary
// (`coverage/tables.rs`). Every shape below must still compile, warning-free:
// a `static mut` read in `unsafe`, constants the body declares itself (at
// its top, in a nested block, in a macro call), bindings in SCREAMING_CASE,
// const generics, associated constants, enum variants and functions whose
// names read as constants, and tables of any type. The run checks what the
// tables gave.
#![deny(warnings)]
#![allow(non_snake_case, non_upper_case_globals)]

pub const GRANDFATHEREDS: [&str; 2] = ["i-klingon", "zh-min-nan"];
pub static VARIANTS: &[(&str, &str)] = &[("1994", "sl-rozaj")];
pub const LIMIT: usize = 32;
pub static mut COUNTER: u32 = 0;
pub struct Opaque(pub u8);
pub const OPAQUE: Opaque = Opaque(1);
pub enum Level {
    HIGH,
    LOW(u8),
}
#[allow(clippy::all)]
pub const fn DOUBLE(x: u8) -> u8 {
    x * 2
}

pub mod iana {
    pub const SCRIPTS: [&str; 1] = ["Latn"];
}

#[carve::instrument]
pub fn lookup(tag: &str) -> bool {
    let found = GRANDFATHEREDS.contains(&tag) || iana::SCRIPTS.contains(&tag);
    found || VARIANTS.iter().any(|(v, _)| *v == tag)
}

#[carve::instrument]
pub fn shapes(n: usize) -> usize {
    const INNER: usize = 2;
    let LOCAL = 3;
    {
        static NESTED: usize = 4;
        let _ = NESTED;
    }
    thread_local! {
        static CELL: usize = 5;
    }
    unsafe {
        COUNTER += 1;
    }
    let level = if n > LIMIT {
        Level::HIGH
    } else {
        Level::LOW(DOUBLE(1))
    };
    let _ = (OPAQUE.0, level);
    n + INNER + LOCAL + CELL.with(|c| *c) + u8::MAX as usize
}

pub struct Buffer<const CAP: usize>;

#[carve::instrument]
impl<const CAP: usize> Buffer<CAP> {
    const HALF: usize = CAP / 2;

    pub fn fits(&self, n: usize) -> bool {
        n <= CAP && n >= Self::HALF
    }
}

pub fn main() {
    let (_, trace) = carve::_internals::coverage::collect(|| {
        lookup("1994");
        shapes(40);
        Buffer::<8>.fits(5)
    });
    let function = |name: &str| {
        trace
            .functions()
            .find(|s| s.function == name)
            .unwrap_or_else(|| panic!("{name} did not run"))
    };
    let constants: Vec<_> = function("lookup").dictionary().collect();
    use carve::_internals::registry::Constant::{Int, Str};
    for expected in [
        Str("i-klingon"),
        Str("zh-min-nan"),
        Str("Latn"),
        Str("1994"),
        Str("sl-rozaj"),
    ] {
        assert!(
            constants.contains(&expected),
            "{expected:?} in {constants:?}"
        );
    }
    let constants: Vec<_> = function("shapes").dictionary().collect();
    assert!(constants.contains(&Int(32)), "{constants:?}");
    assert!(constants.contains(&Int(255)), "{constants:?}");
}
