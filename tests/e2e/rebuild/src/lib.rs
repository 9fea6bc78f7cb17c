//! A user crate with the types carve meets on first contact with published
//! crates: a text whose `FromStr` rejects what `Display` writes, a lossy
//! human-readable `Serialize`, a `Display` that calls a target of its own
//! type, a parameter parsed by an instrumented parser, and returned values
//! whose `Display` is their behaviour (a lazy formatter, an error, a
//! `Display`-only type). carve is behind the `carve` feature.

use std::fmt;
use std::str::FromStr;

/// An even number. `Display` writes any value, `FromStr` accepts only even
/// ones: an odd `Even` made by hand does not parse back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Even(pub u32);

impl fmt::Display for Even {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Even {
    type Err = String;
    fn from_str(s: &str) -> Result<Even, String> {
        let n: u32 = s.parse().map_err(|_| "not a number".to_owned())?;
        if n % 2 == 1 {
            return Err("odd number".to_owned());
        }
        Ok(Even(n))
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn half(e: Even) -> u32 {
    e.0 / 2
}

/// A size in bytes, serialized for humans ("683.6 KiB"): lossy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ByteSize(pub u64);

#[cfg(feature = "carve")]
impl serde::Serialize for ByteSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:.1} KiB", self.0 as f64 / 1024.0))
    }
}

#[cfg(feature = "carve")]
impl<'de> serde::Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ByteSize, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        let kib: f64 = text
            .strip_suffix(" KiB")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| serde::de::Error::custom("expected `<n> KiB`"))?;
        Ok(ByteSize((kib * 1024.0).round() as u64))
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn kib(size: ByteSize) -> u64 {
    size.0 / 1024
}

/// A language tag whose `Display` calls one of its own targets.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguageTag(String);

#[cfg_attr(feature = "carve", carve::target)]
impl LanguageTag {
    #[cfg_attr(feature = "carve", carve::target)]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    #[cfg_attr(feature = "carve", carve::target)]
    pub fn primary(&self) -> &str {
        self.as_str().split('-').next().unwrap_or("")
    }
}

impl fmt::Display for LanguageTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LanguageTag {
    type Err = String;
    fn from_str(s: &str) -> Result<LanguageTag, String> {
        if s.is_empty() {
            return Err("empty tag".to_owned());
        }
        Ok(LanguageTag(s.to_owned()))
    }
}

/// A temperature, parsed from `31C` by an instrumented parser.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Celsius(pub i32);

impl fmt::Display for Celsius {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}C", self.0)
    }
}

impl FromStr for Celsius {
    type Err = String;
    fn from_str(s: &str) -> Result<Celsius, String> {
        parse_celsius(s)
    }
}

#[cfg_attr(feature = "carve", carve::instrument)]
fn parse_celsius(s: &str) -> Result<Celsius, String> {
    let Some(digits) = s.strip_suffix('C') else {
        return Err(format!("`{s}` does not end in C"));
    };
    match digits.parse() {
        Ok(n) => Ok(Celsius(n)),
        Err(_) => Err(format!("`{digits}` is not a whole number")),
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn is_hot(t: Celsius) -> bool {
    t.0 > 30
}

/// A duration, formatted lazily (as humantime's `FormattedDuration`): the
/// text is made by `Display`, the fields are private.
#[derive(Debug)]
pub struct FormattedSeconds(u64);

#[cfg_attr(feature = "carve", carve::instrument)]
impl fmt::Display for FormattedSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (h, m, s) = (self.0 / 3600, self.0 / 60 % 60, self.0 % 60);
        if h > 0 {
            write!(f, "{h}h ")?;
        }
        if h > 0 || m > 0 {
            write!(f, "{m}m ")?;
        }
        write!(f, "{s}s")
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn format_seconds(secs: u64) -> FormattedSeconds {
    FormattedSeconds(secs)
}

/// Why a duration does not parse: `Debug`, `Display` and `Error`, no serde.
#[derive(Debug, PartialEq)]
pub enum TimeError {
    Empty,
    BadUnit { unit: char },
}

#[cfg_attr(feature = "carve", carve::instrument)]
impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Empty => f.write_str("empty duration"),
            TimeError::BadUnit { unit } => write!(f, "unknown unit `{unit}` (use s, m or h)"),
        }
    }
}

impl std::error::Error for TimeError {}

#[cfg_attr(feature = "carve", carve::target)]
pub fn parse_seconds(s: &str) -> Result<u64, TimeError> {
    let unit = s.chars().last().ok_or(TimeError::Empty)?;
    let n: u64 = s[..s.len() - unit.len_utf8()].parse().unwrap_or(0);
    match unit {
        's' => Ok(n),
        'm' => Ok(n * 60),
        'h' => Ok(n * 3600),
        unit => Err(TimeError::BadUnit { unit }),
    }
}

/// `Display` only: neither `Debug` nor `Serialize`.
pub struct Banner(String);

impl fmt::Display for Banner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "== {} ==", self.0)
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn banner(title: &str) -> Banner {
    Banner(title.to_owned())
}
