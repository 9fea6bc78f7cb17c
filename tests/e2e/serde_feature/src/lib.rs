//! A crate with serde support of its own behind an optional dependency, as
//! published crates have it: its types derive serde under `feature =
//! "serde"`, and carve's setup reuses that.

/// A temperature, serde when the crate's own serde support is on.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Celsius(pub i32);

#[cfg_attr(feature = "carve", carve::target)]
pub fn is_hot(t: Celsius) -> bool {
    t.0 >= 30
}
