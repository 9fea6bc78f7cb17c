// Shapes met on published crates that must compile with carve's attributes
// on them: impl blocks a macro writes once per type (itoa's `impl Sealed for
// $t`), `Self::Err` in the return type of a generic trait impl (unicase's
// `FromStr for UniCase<S>`), and the methods of a generic block whose
// `where` clause its instantiation does not meet (either's `into_iter`
// where `L: IntoIterator`), which are skipped; and constructors of
// lifetime-generic blocks returning `Self` that borrows their argument
// (deunicode's `AsciiCharsIter::new(s: &'a str) -> Self`, roxmltree's
// `Document::parse` returning `Result<Self>`); and `Self::Owned` of a
// supertrait in a trait impl for `str` (heck's `to_kebab_case`).
use std::fmt;
use std::str::FromStr;

pub trait Sealed {
    fn write(self) -> u32;
}

pub trait Twice {
    fn twice(&self) -> i64;
}

macro_rules! impl_integer {
    ($t:ty) => {
        #[carve::instrument]
        impl Sealed for $t {
            fn write(self) -> u32 {
                if self > 9 {
                    2
                } else {
                    1
                }
            }
        }

        #[carve::target]
        impl Twice for $t {
            fn twice(&self) -> i64 {
                i64::from(*self) * 2
            }
        }
    };
}

impl_integer!(u8);
impl_integer!(i32);

#[derive(Debug)]
pub struct Folded<S>(S);

impl<S: fmt::Display> fmt::Display for Folded<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[carve::target(generics(S = String), generics(S = u8))]
impl<S: FromStr> FromStr for Folded<S> {
    type Err = S::Err;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Folded)
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Pair<L, R> {
    Left(L),
    Right(R),
}

#[carve::target(generics(L = u32, R = String))]
impl<L, R> Pair<L, R> {
    pub fn is_left(&self) -> bool {
        matches!(self, Pair::Left(_))
    }

    pub fn into_iter(self) -> Pair<L::IntoIter, R::IntoIter>
    where
        L: IntoIterator,
        R: IntoIterator<Item = L::Item>,
    {
        match self {
            Pair::Left(l) => Pair::Left(l.into_iter()),
            Pair::Right(r) => Pair::Right(r.into_iter()),
        }
    }
}

/// One method written per platform (as `std`-like crates do): only the
/// copy that is compiled is a target.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Platform(pub u8);

#[carve::target]
impl Platform {
    #[cfg(unix)]
    pub fn separator(&self) -> char {
        if self.0 > 1 {
            '/'
        } else {
            ':'
        }
    }

    #[cfg(not(unix))]
    pub fn separator(&self) -> char {
        '\\'
    }
}

/// deunicode 1.6.2's `AsciiCharsIter`: borrows the text it walks, and is
/// `Display` only.
pub struct AsciiChars<'a> {
    rest: &'a str,
}

impl fmt::Display for AsciiChars<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rest)
    }
}

#[carve::target]
impl<'a> AsciiChars<'a> {
    pub fn new(text: &'a str) -> Self {
        AsciiChars { rest: text }
    }

    pub fn first(text: &'a str) -> Option<Self> {
        text.get(..1).map(|rest| AsciiChars { rest })
    }
}

#[derive(Debug)]
pub struct Document<'input> {
    text: &'input str,
}

type ParseResult<T> = Result<T, String>;

#[carve::target]
impl<'input> Document<'input> {
    pub fn parse(text: &'input str) -> ParseResult<Self> {
        match text.is_empty() {
            true => Err("empty".to_owned()),
            false => Ok(Document { text }),
        }
    }

    pub fn input_text(&self) -> &'input str {
        self.text
    }
}

/// heck 0.5's `ToKebabCase: ToOwned`, implemented for `str` with
/// `-> Self::Owned`: an associated type of the supertrait, which
/// `<str as ToKebabCase>::Owned` does not name.
pub trait ToShouty: ToOwned {
    fn to_shouty(&self) -> Self::Owned;
}

#[carve::target]
impl ToShouty for str {
    fn to_shouty(&self) -> Self::Owned {
        self.to_uppercase()
    }
}

pub trait ToQuiet: ToOwned {
    fn to_quiet(&self) -> Option<Self::Owned>;
}

#[carve::target]
impl ToQuiet for str {
    #[carve::target]
    fn to_quiet(&self) -> Option<Self::Owned> {
        Some(self.to_lowercase())
    }
}

pub fn main() {
    // A generic block's skip note names the block as written, not the
    // instantiation it was checked at (`Pair<u32, String>`).
    let lines: Vec<String> = carve::_internals::registry::all_skipped()
        .iter()
        .map(|s| s.line())
        .collect();
    assert!(
        lines.iter().any(|l| l.starts_with(
            "carve: skipped in impl published_shapes::Pair<L, R>: into_iter (where clause) "
        )),
        "{lines:#?}"
    );
}
