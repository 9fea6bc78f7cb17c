//! The `&mut Formatter` of a `fmt` method, carved as the format spec it
//! carries.
//!
//! A `Formatter` cannot be serialized or built, but what a `fmt` method can
//! read of it can: fill, alignment, sign, `#`, `0`, width and precision. A
//! target with a `&mut Formatter` parameter (`impl Display for T`'s `fmt`)
//! is carved with a [`FormatSpec`] in its place, and replayed by formatting
//! through a `format!` with that spec ([`format_with`]); its outcome is the
//! text the call writes, so that generation can try the widths, precisions
//! and flags a `fmt` method branches on.
//!
//! ```
//! use carve::value::format_spec::{format_with, Align, Fill, FormatSpec};
//!
//! let spec = FormatSpec { fill: Fill::Star, align: Some(Align::Right), width: Some(5), ..FormatSpec::default() };
//! assert_eq!(format_with(&spec, |f| f.pad("ab")), Ok("***ab".to_owned()));
//! assert_eq!(format_with(&FormatSpec::default(), |f| f.pad("ab")), Ok("ab".to_owned()));
//! ```

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};

use super::{CaptureError, Value};

/// What a `fmt` method can read of its `Formatter`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatSpec {
    /// The fill character.
    pub fill: Fill,
    /// The alignment (`<`, `^`, `>`), if given.
    pub align: Option<Align>,
    /// `+`.
    pub sign_plus: bool,
    /// `#`.
    pub alternate: bool,
    /// `0`.
    pub zero_pad: bool,
    /// The width, if given (at most `u16::MAX`: a generated width is padding
    /// a call writes).
    pub width: Option<u16>,
    /// The precision, if given.
    pub precision: Option<u16>,
}

impl Default for FormatSpec {
    /// `{}`: what `to_string` formats with.
    fn default() -> Self {
        FormatSpec {
            fill: Fill::Space,
            align: None,
            sign_plus: false,
            alternate: false,
            zero_pad: false,
            width: None,
            precision: None,
        }
    }
}

/// The alignment of a [`FormatSpec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // `fmt::Alignment`'s, one to one
pub enum Align {
    Left,
    Center,
    Right,
}

/// The fill characters a spec can be replayed with: a `format!` spells its
/// fill in the format string, so each is a spec of its own (and a variant,
/// so that generation picks among them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fill {
    /// `' '`, the default.
    Space,
    /// `'0'`.
    Zero,
    /// `'*'`.
    Star,
    /// `'-'`.
    Dash,
    /// `'.'`.
    Dot,
}

impl Fill {
    const ALL: [Fill; 5] = [Fill::Space, Fill::Zero, Fill::Star, Fill::Dash, Fill::Dot];

    /// The character.
    pub fn char(self) -> char {
        match self {
            Fill::Space => ' ',
            Fill::Zero => '0',
            Fill::Star => '*',
            Fill::Dash => '-',
            Fill::Dot => '.',
        }
    }
}

/// A `fmt` method returned an error (`fmt::Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatError;

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the formatter returned an error")
    }
}

impl FormatSpec {
    /// The spec `f` carries, or why a call with it cannot be carved.
    pub fn of(f: &fmt::Formatter<'_>) -> Result<FormatSpec, CaptureError> {
        let refuse = |why: String| Err(CaptureError(why));
        let align = match f.align() {
            None => None,
            Some(fmt::Alignment::Left) => Some(Align::Left),
            Some(fmt::Alignment::Center) => Some(Align::Center),
            Some(fmt::Alignment::Right) => Some(Align::Right),
        };
        let fill = match Fill::ALL.into_iter().find(|fill| fill.char() == f.fill()) {
            Some(fill) => fill,
            // Without an alignment the fill is not written.
            None if align.is_none() => Fill::Space,
            None => {
                let fills: Vec<String> = Fill::ALL.iter().map(|fill| format!("{:?}", fill.char())).collect();
                return refuse(format!(
                    "the fill {:?} of its format spec is none of those carve replays ({})",
                    f.fill(),
                    fills.join(", ")
                ));
            }
        };
        if f.sign_minus() {
            return refuse("its format spec has the `-` flag, which carve does not replay".into());
        }
        // Toolchains whose `Formatter` keeps a `usize` width can be asked
        // for more than a spec holds (newer ones hold a `u16` themselves).
        let small = |n: Option<usize>, what: &str| match n.map(u16::try_from) {
            None => Ok(None),
            Some(Ok(n)) => Ok(Some(n)),
            Some(Err(_)) => Err(CaptureError(format!(
                "the {what} of its format spec is over {}",
                u16::MAX
            ))),
        };
        Ok(FormatSpec {
            fill: if align.is_some() { fill } else { Fill::Space },
            align,
            sign_plus: f.sign_plus(),
            alternate: f.alternate(),
            zero_pad: f.sign_aware_zero_pad(),
            width: small(f.width(), "width")?,
            precision: small(f.precision(), "precision")?,
        })
    }

    /// [`FormatSpec::of`] as carve captures an argument.
    pub fn capture(f: &fmt::Formatter<'_>) -> Result<Value, CaptureError> {
        Value::capture(&FormatSpec::of(f)?)
    }
}

/// Runs `fmt` (a `fmt` method on its value) with a `Formatter` that carries
/// `spec`, and returns what it wrote.
pub fn format_with(
    spec: &FormatSpec,
    fmt: impl Fn(&mut fmt::Formatter<'_>) -> fmt::Result,
) -> Result<String, FormatError> {
    struct Shim<F>(F);
    impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Shim<F> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            (self.0)(f)
        }
    }
    let (value, mut out) = (Shim(fmt), String::new());
    let (w, p) = (spec.width.map(usize::from), spec.precision.map(usize::from));
    // The format string spells fill, alignment and flags; width and
    // precision are arguments. `concat!` builds each arm's string.
    macro_rules! with_width {
        ($prefix:literal, $flags:literal) => {
            match (w, p) {
                (None, None) => write!(out, concat!("{:", $prefix, $flags, "}"), value),
                (Some(w), None) => write!(out, concat!("{:", $prefix, $flags, "w$}"), value, w = w),
                (None, Some(p)) => write!(out, concat!("{:", $prefix, $flags, ".p$}"), value, p = p),
                (Some(w), Some(p)) => {
                    write!(out, concat!("{:", $prefix, $flags, "w$.p$}"), value, w = w, p = p)
                }
            }
        };
    }
    macro_rules! with_flags {
        ($prefix:literal) => {
            match (spec.sign_plus, spec.alternate, spec.zero_pad) {
                (false, false, false) => with_width!($prefix, ""),
                (true, false, false) => with_width!($prefix, "+"),
                (false, true, false) => with_width!($prefix, "#"),
                (true, true, false) => with_width!($prefix, "+#"),
                (false, false, true) => with_width!($prefix, "0"),
                (true, false, true) => with_width!($prefix, "+0"),
                (false, true, true) => with_width!($prefix, "#0"),
                (true, true, true) => with_width!($prefix, "+#0"),
            }
        };
    }
    macro_rules! with_fill {
        ($($fill:ident: $left:literal $center:literal $right:literal),*) => {
            match (spec.fill, spec.align) {
                (_, None) => with_flags!(""),
                $(
                    (Fill::$fill, Some(Align::Left)) => with_flags!($left),
                    (Fill::$fill, Some(Align::Center)) => with_flags!($center),
                    (Fill::$fill, Some(Align::Right)) => with_flags!($right),
                )*
            }
        };
    }
    let written = with_fill!(
        Space: " <" " ^" " >",
        Zero: "0<" "0^" "0>",
        Star: "*<" "*^" "*>",
        Dash: "-<" "-^" "->",
        Dot: ".<" ".^" ".>"
    );
    written.map(|()| out).map_err(|fmt::Error| FormatError)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec a `format!` hands a `fmt` method, read back.
    struct Probe;

    impl fmt::Display for Probe {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match FormatSpec::of(f) {
                Ok(spec) => write!(f, "{}", ron::to_string(&spec).map_err(|_| fmt::Error)?),
                Err(e) => write!(f, "refused: {e}"),
            }
        }
    }

    #[test]
    fn every_spec_replays_as_the_spec_it_was_read_from() {
        let specs = [
            format!("{Probe}"),
            format!("{Probe:>7}"),
            format!("{Probe:*^3.2}"),
            format!("{Probe:+#010}"),
            format!("{Probe:-<4}"),
            format!("{Probe:.<0.0}"),
            format!("{Probe:0>+#9.1}"),
        ];
        for text in specs {
            let spec: FormatSpec = ron::from_str(&text).expect(&text);
            let again = format_with(&spec, |f| fmt::Display::fmt(&Probe, f)).unwrap();
            assert_eq!(again, text);
        }
    }

    #[test]
    fn specs_carve_cannot_replay_are_refused_with_the_reason() {
        let fill = format!("{Probe:x>3}");
        let why = "the fill 'x' of its format spec is none of those carve replays (' ', '0', '*', '-', '.')";
        assert!(fill.contains(why), "{fill}");
        #[allow(deprecated)]
        let minus = format!("{Probe:-}");
        assert!(minus.contains("`-` flag"), "{minus}");
    }

    #[test]
    fn padding_and_errors_come_back_as_a_format_writes_them() {
        let right = FormatSpec {
            align: Some(Align::Right),
            width: Some(4),
            fill: Fill::Zero,
            ..FormatSpec::default()
        };
        assert_eq!(format_with(&right, |f| f.pad("7")), Ok("0007".to_owned()));
        let precision = FormatSpec {
            precision: Some(2),
            ..FormatSpec::default()
        };
        assert_eq!(format_with(&precision, |f| f.pad("abcdef")), Ok("ab".to_owned()));
        assert_eq!(format_with(&FormatSpec::default(), |_| Err(fmt::Error)), Err(FormatError));
    }
}
