//! A Rust 2015 crate (no `edition` key in its manifest): in 2015, `::name`
//! means an item at the crate root, and `use` paths start there too.

#[cfg(feature = "carve")]
#[macro_use]
extern crate serde;

use std::fmt;

/// A length.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "carve", derive(Serialize, Deserialize))]
pub struct Meters(pub u32);

/// Why a text is no length.
#[derive(Debug, PartialEq)]
pub enum Error {
    Empty,
    NotANumber(String),
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn parse(s: &str) -> Result<Meters, Error> {
    let digits = s.trim_end_matches('m');
    if digits.is_empty() {
        return Err(Error::Empty);
    }
    match digits.parse() {
        Ok(n) => Ok(Meters(n)),
        Err(_) => Err(Error::NotANumber(digits.to_owned())),
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl Meters {
    pub fn add(&mut self, other: Meters) -> u32 {
        self.0 = self.0.saturating_add(other.0);
        half(self.0)
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl From<u16> for Meters {
    fn from(v: u16) -> Meters {
        Meters(u32::from(v))
    }
}

#[cfg_attr(feature = "carve", carve::instrument)]
fn half(v: u32) -> u32 {
    if v % 2 == 0 {
        v / 2
    } else {
        v
    }
}

impl fmt::Display for Meters {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}
