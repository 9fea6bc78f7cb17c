//! The types real crates use compile: a `Debug`-only error type beside a
//! serde `Ok` side, a `Display + FromStr` parameter, byte strings.
use std::fmt;
use std::str::FromStr;

#[derive(Debug)]
pub struct ParseError;

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Version(u8);

pub struct Addr(u8);

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Addr {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Addr, ParseError> {
        s.parse().map(Addr).map_err(|_| ParseError)
    }
}

#[carve::target]
pub fn parse(
    addr: &Addr,
    bytes: &[u8],
    fixed: [u8; 4],
) -> Result<(Version, Option<Vec<u8>>), ParseError> {
    Ok((Version(addr.0), Some([bytes, &fixed].concat())))
}

/// The error type of many binaries and examples: carved as its `Debug` text.
#[carve::target]
pub fn checked(n: u8) -> Result<u8, Box<dyn std::error::Error>> {
    if n > 3 {
        Ok(n)
    } else {
        Err("too small".into())
    }
}

pub fn main() {}
