//! Versions `major.minor`: one parser under two names (`Version::parse` and
//! `FromStr::from_str`), a comparison the system test calls, and a
//! compatibility check it never calls.

use std::str::FromStr;

/// A version `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Version {
    /// Incompatible changes.
    pub major: u32,
    /// Compatible changes.
    pub minor: u32,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Version {
    /// Parses `major.minor`.
    pub fn parse(text: &str) -> Result<Version, String> {
        parse_version(text)
    }

    /// Whether `self` is newer than `other`.
    pub fn newer_than(&self, other: &Version) -> bool {
        if self.major != other.major {
            return self.major > other.major;
        }
        self.minor > other.minor
    }

    /// Whether code written for `self` works with `other` (no system test
    /// calls it).
    pub fn works_with(&self, other: &Version) -> bool {
        if self.major == 0 {
            return other.major == 0 && other.minor == self.minor;
        }
        other.major == self.major && other.minor >= self.minor
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl FromStr for Version {
    type Err = String;

    fn from_str(text: &str) -> Result<Version, String> {
        parse_version(text)
    }
}

#[cfg_attr(feature = "carve", carve::instrument)]
fn parse_version(text: &str) -> Result<Version, String> {
    let Some((major, minor)) = text.split_once('.') else {
        return Err(format!("no `.` in {text:?}"));
    };
    let number = |part: &str| -> Result<u32, String> {
        if part.is_empty() {
            return Err("empty number".into());
        }
        if part.len() > 1 && part.starts_with('0') {
            return Err(format!("leading zero in {part:?}"));
        }
        part.parse().map_err(|_| format!("not a number: {part:?}"))
    };
    Ok(Version {
        major: number(major)?,
        minor: number(minor)?,
    })
}
