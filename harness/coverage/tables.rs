//! Constants of the tables instrumented code reads, for the dictionary.
//!
//! A parser often looks its input up in a table rather than comparing it
//! with literals: language-tags binary-searches `GRANDFATHEREDS` (26 tags)
//! and `VARIANTS` (106 pairs of a variant and its prefixes), in code that no
//! comparison of carve's sees (`slice::binary_search`). libFuzzer learns
//! such keys from the `memcmp`s it intercepts; carve reads the tables
//! themselves. The attributes name each constant or static an instrumented
//! function reads (`SCREAMING_CASE` paths that resolve in the whole body),
//! and its first run, while coverage is collected, takes the strings, chars
//! and integers in them ([`note`]): a `&str` or `String` itself, an array,
//! slice or `Vec` of such text (or of types that deref to `str`), of pairs
//! of them, or of pairs whose first item is one, a `char`, an integer. A
//! table of another shape gives nothing. Tables longer than [`MAX_ROWS`]
//! give rows spread evenly over them.
//!
//! Which shape a constant has is chosen at compile time by the receiver's
//! depth of references to a [`TableProbe`] (autoref specialization), so
//! that one expression compiles for a constant of any type:
//!
//! ```
//! use carve::_macro_support::tables::*;
//! use carve::_macro_support::cov::Constant;
//!
//! const TAGS: [&str; 2] = ["i-klingon", "zh-min-nan"];
//! const PAIRS: &[(&str, &str)] = &[("1994", "sl-rozaj")];
//! const LIMIT: usize = 32;
//! struct Opaque;
//! const OTHER: Opaque = Opaque;
//! assert_eq!(
//!     (&&&&&&&TableProbe(&TAGS)).carve_table(),
//!     [Constant::Str("i-klingon"), Constant::Str("zh-min-nan")]
//! );
//! assert_eq!((&&&&&&&TableProbe(&PAIRS)).carve_table(), [Constant::Str("1994"), Constant::Str("sl-rozaj")]);
//! assert_eq!((&&&&&&&TableProbe(&LIMIT)).carve_table(), [Constant::Int(32)]);
//! assert_eq!((&&&&&&&TableProbe(&OTHER)).carve_table(), []);
//! ```

use std::ops::Deref;

use crate::registry::{Constant, Sites};

/// At most this many rows of one table are taken.
pub const MAX_ROWS: usize = 64;

/// Takes the constants of the tables `read` returns (once per function
/// and process: later calls cost one atomic load), outside the call's
/// coverage (a `Deref` the table's rows run may be instrumented).
#[inline]
pub fn note<const N: usize>(sites: &'static Sites, read: impl FnOnce() -> [Vec<Constant>; N]) {
    sites.note_tables(|| crate::coverage::paused(read).concat());
}

/// The indices of at most [`MAX_ROWS`] rows of a table of `len`, spread
/// evenly, first and last included.
fn rows(len: usize) -> impl Iterator<Item = usize> {
    let take = len.min(MAX_ROWS);
    (0..take).map(move |i| if take < 2 { 0 } else { i * (len - 1) / (take - 1) })
}

/// Text of a table, kept for the process (tables are constants; a `Deref`
/// may lend from a temporary copy of a `const` item).
fn text(s: &str) -> Constant {
    Constant::Str(Box::leak(s.to_owned().into_boxed_str()))
}

/// Tables of text: an array, slice or `Vec` of `&str`, `String` or a type
/// that derefs to `str`.
pub trait TextRows {
    /// The text of each row taken.
    fn text_rows(&self) -> Vec<Constant>;
}

/// Tables of pairs of text (`[("1994", "sl-rozaj")]`).
pub trait PairRows {
    /// Both texts of each row taken.
    fn pair_rows(&self) -> Vec<Constant>;
}

/// Tables of pairs whose first item is text (`[("i-lux", Some("lb"))]`).
pub trait KeyRows {
    /// The first text of each row taken.
    fn key_rows(&self) -> Vec<Constant>;
}

/// Integer constants.
pub trait IntConstant {
    /// The value, where it fits an `i128`.
    fn int(&self) -> Option<i128>;
}

macro_rules! rows_of_slices {
    ($trait:ident, $method:ident, [$($param:tt)*], $row:ty, |$r:ident| $take:expr) => {
        impl<$($param)*> $trait for [$row] {
            fn $method(&self) -> Vec<Constant> {
                rows(self.len()).flat_map(|i| { let $r = &self[i]; $take }).collect()
            }
        }
        impl<$($param)*, const N: usize> $trait for [$row; N] {
            fn $method(&self) -> Vec<Constant> {
                self.as_slice().$method()
            }
        }
        impl<$($param)*> $trait for Vec<$row> {
            fn $method(&self) -> Vec<Constant> {
                self.as_slice().$method()
            }
        }
        impl<R: $trait + ?Sized> $trait for &R {
            fn $method(&self) -> Vec<Constant> {
                (**self).$method()
            }
        }
    };
}

rows_of_slices!(TextRows, text_rows, [E: Deref<Target = str>], E, |r| [text(r)]);
rows_of_slices!(
    PairRows,
    pair_rows,
    [A: Deref<Target = str>, B: Deref<Target = str>],
    (A, B),
    |r| [text(&r.0), text(&r.1)]
);
rows_of_slices!(KeyRows, key_rows, [A: Deref<Target = str>, B], (A, B), |r| [text(&r.0)]);

macro_rules! int_constants {
    ($($t:ty),*) => {$(
        impl IntConstant for $t {
            fn int(&self) -> Option<i128> {
                i128::try_from(*self).ok()
            }
        }
    )*};
}
int_constants!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// A constant, as the levels below see it: each level is implemented for
/// one depth of references to a probe, so that the first level whose
/// bounds hold is the one method resolution finds.
pub struct TableProbe<'a, T: ?Sized>(pub &'a T);

// The levels, most specific first: `(&&&&&&&TableProbe(&x)).carve_table()`
// (seven references) finds the first whose bound holds, one reference fewer
// per level, and the last one for any type.

/// A constant that is text.
pub trait ViaText {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: Deref<Target = str> + ?Sized> ViaText for &&&&&&TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        vec![text(self.0)]
    }
}

/// A table of text.
pub trait ViaTextRows {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: TextRows + ?Sized> ViaTextRows for &&&&&TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        self.0.text_rows()
    }
}

/// A table of pairs of text.
pub trait ViaPairRows {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: PairRows + ?Sized> ViaPairRows for &&&&TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        self.0.pair_rows()
    }
}

/// A table of pairs keyed by text.
pub trait ViaKeyRows {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: KeyRows + ?Sized> ViaKeyRows for &&&TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        self.0.key_rows()
    }
}

/// An integer.
pub trait ViaInt {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: IntConstant + ?Sized> ViaInt for &&TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        self.0.int().map(Constant::Int).into_iter().collect()
    }
}

/// A char.
pub trait ViaChar {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl ViaChar for &TableProbe<'_, char> {
    fn carve_table(&self) -> Vec<Constant> {
        vec![Constant::Char(*self.0)]
    }
}

/// Anything else: nothing.
pub trait ViaNothing {
    /// The constants in it, as this level reads them.
    fn carve_table(&self) -> Vec<Constant>;
}
impl<T: ?Sized> ViaNothing for TableProbe<'_, T> {
    fn carve_table(&self) -> Vec<Constant> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tables_give_rows_spread_over_them() {
        let all: Vec<usize> = rows(5).collect();
        assert_eq!(all, [0, 1, 2, 3, 4]);
        let spread: Vec<usize> = rows(1000).collect();
        assert_eq!(spread.len(), MAX_ROWS);
        assert_eq!((spread[0], spread[MAX_ROWS - 1]), (0, 999));
        assert!(spread.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(rows(1).collect::<Vec<_>>(), [0]);
        assert_eq!(rows(0).count(), 0);
    }

    /// A type that derefs to text, as language-tags' subtags do.
    #[derive(Clone, Copy)]
    struct Subtag([u8; 2]);
    impl Deref for Subtag {
        type Target = str;
        fn deref(&self) -> &str {
            std::str::from_utf8(&self.0).unwrap_or("")
        }
    }

    #[test]
    // Seven references, exactly as the attributes write them.
    #[allow(clippy::needless_borrow)]
    fn each_shape_gives_its_text_and_others_nothing() {
        const SUBTAGS: [Subtag; 2] = [Subtag(*b"aa"), Subtag(*b"ab")];
        const KEYED: [(&str, Option<&str>); 1] = [("i-lux", Some("lb"))];
        const MIXED: [(Subtag, &str); 1] = [(Subtag(*b"zh"), "cmn")];
        static NAME: &str = "GMT";
        const DASH: char = '-';
        const NUMBERS: [u8; 2] = [1, 2];
        let owned: Vec<String> = vec!["x".into()];
        let s = |v: &str| Constant::Str(Box::leak(v.to_owned().into_boxed_str()));
        assert_eq!((&&&&&&&TableProbe(&SUBTAGS)).carve_table(), [s("aa"), s("ab")]);
        assert_eq!((&&&&&&&TableProbe(&KEYED)).carve_table(), [s("i-lux")]);
        assert_eq!((&&&&&&&TableProbe(&MIXED)).carve_table(), [s("zh"), s("cmn")]);
        assert_eq!((&&&&&&&TableProbe(&NAME)).carve_table(), [s("GMT")]);
        assert_eq!((&&&&&&&TableProbe(&owned)).carve_table(), [s("x")]);
        assert_eq!((&&&&&&&TableProbe(&DASH)).carve_table(), [Constant::Char('-')]);
        assert_eq!((&&&&&&&TableProbe(&u64::MAX)).carve_table(), [Constant::Int(u64::MAX.into())]);
        assert_eq!((&&&&&&&TableProbe(&NUMBERS)).carve_table(), []);
        assert_eq!((&&&&&&&TableProbe(&u128::MAX)).carve_table(), []);
    }
}
