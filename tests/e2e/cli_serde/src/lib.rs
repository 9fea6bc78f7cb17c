//! A crate with serde support of its own behind an optional dependency:
//! its types derive serde under `feature = "serde"`.

/// A temperature, serde when the crate's own serde support is on.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Celsius(pub i32);

/// Whether it is a hot day.
pub fn is_hot(t: Celsius) -> bool {
    t.0 >= 30
}
