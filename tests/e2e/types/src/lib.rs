//! A user crate with the types published crates use: error types that are
//! only `Debug`, parameters that are `Display + FromStr`, byte-string
//! parsers; carve is behind the `carve` feature.

use std::fmt;
use std::str::FromStr;

/// A version, a serde type when carve is on.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

/// Why a version does not parse: `Debug` only, as most crates' errors.
#[derive(Debug, PartialEq)]
pub enum ParseError {
    Empty,
    NotANumber { part: String },
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn parse_version(s: &str) -> Result<Version, ParseError> {
    if s.is_empty() {
        return Err(ParseError::Empty);
    }
    let (major, minor) = s.split_once('.').unwrap_or((s, "0"));
    let number = |part: &str| {
        part.parse().map_err(|_| ParseError::NotANumber {
            part: part.to_owned(),
        })
    };
    Ok(Version {
        major: number(major)?,
        minor: number(minor)?,
    })
}

/// A requirement such as `^1.2`: `Display + FromStr`, no serde.
#[derive(Debug, Clone, PartialEq)]
pub struct Req {
    pub major: u32,
    pub min_minor: u32,
}

impl fmt::Display for Req {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "^{}.{}", self.major, self.min_minor)
    }
}

impl FromStr for Req {
    type Err = String;
    fn from_str(s: &str) -> Result<Req, String> {
        let rest = s.strip_prefix('^').ok_or("a requirement starts with ^")?;
        let v = parse_version(rest).map_err(|e| format!("{e:?}"))?;
        Ok(Req {
            major: v.major,
            min_minor: v.minor,
        })
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn allows(req: &Req, version: &str) -> bool {
    match parse_version(version) {
        Ok(v) => v.major == req.major && v.minor >= req.min_minor,
        Err(_) => false,
    }
}

/// The method and path of an HTTP request line.
#[cfg_attr(feature = "carve", carve::target)]
pub fn request_target(line: &[u8]) -> Option<Vec<u8>> {
    let rest = line.strip_prefix(b"GET ")?;
    let end = rest.iter().position(|&b| b == b' ')?;
    if &rest[end..] != b" HTTP/1.1" {
        return None;
    }
    Some(rest[..end].to_vec())
}
