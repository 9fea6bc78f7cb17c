//! A struct whose constructor keeps an invariant (`Table`: 128 bytes,
//! one private field) beside one any user can build (`Point`: public
//! fields). Generation must not report `Table`s that no user could make
//! (a short one panics in `get`), and must still find the bug `get` has
//! with a table the API made; `Point`s it generates freely.

/// 128 bytes, always.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Table {
    bytes: Vec<u8>,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Table {
    /// A table of 128 `fill` bytes.
    pub fn new(fill: u8) -> Table {
        Table { bytes: vec![fill; 128] }
    }

    /// The byte at `i` (wrapping around), or a planted bug past 200.
    pub fn get(&self, i: u8) -> u8 {
        if i > 200 {
            panic!("planted: index {i} past 200");
        }
        // Panics on a table shorter than 128 bytes, which only a forged
        // value is.
        self.bytes[usize::from(i % 128)]
    }
}

/// A point anyone can build.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Point {
    /// The quadrant, 1 to 4 (0 on an axis).
    pub fn quadrant(&self) -> u8 {
        if self.x == 0 || self.y == 0 {
            0
        } else if self.x > 0 {
            if self.y > 0 { 1 } else { 4 }
        } else if self.y > 0 {
            2
        } else {
            3
        }
    }
}
