//! A version whose `Display` pads to the width and alignment it is asked
//! for, as semver's does: the system test only calls `to_string`.

use std::fmt;

#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
}

#[cfg_attr(feature = "carve", carve::target)]
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}.{}", self.major, self.minor);
        let Some(width) = f.width() else {
            return f.write_str(&text);
        };
        if text.len() >= width {
            return f.write_str(&text);
        }
        let padding = width - text.len();
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (padding, 0),
            Some(fmt::Alignment::Center) => (padding / 2, (padding + 1) / 2),
            _ => (0, padding),
        };
        let fill = f.fill();
        for _ in 0..before {
            write!(f, "{fill}")?;
        }
        f.write_str(&text)?;
        for _ in 0..after {
            write!(f, "{fill}")?;
        }
        Ok(())
    }
}
