//! Arrays of any length for serde: `#[serde(with = "carve::arrays")]` on a
//! field. serde implements its traits for arrays of up to 32 items only, so
//! the state of a hasher (`[u8; 64]` blocks, as md5's `Context` and
//! sha1_smol's `Sha1` hold) or a lookup table (base64's `[u8; 256]`) cannot
//! derive them; with this on the field, it can, and carve can carve the type:
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Context {
//!     #[serde(with = "carve::arrays")]
//!     buffer: [u8; 64],
//!     count: u64,
//! }
//! let context = Context { buffer: [7; 64], count: 3 };
//! let text = ron::to_string(&context).unwrap();
//! assert_eq!(ron::from_str::<Context>(&text).unwrap(), context);
//! ```
//!
//! An array is written as a tuple of its items, as serde writes the short
//! ones.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTuple as _, Serializer};

/// Writes `array` as a tuple of its items.
pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
    array: &[T; N],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut tuple = serializer.serialize_tuple(N)?;
    for item in array {
        tuple.serialize_element(item)?;
    }
    tuple.end()
}

/// Reads an array written by [`serialize`]: exactly `N` items.
pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
    deserializer: D,
) -> Result<[T; N], D::Error> {
    deserializer.deserialize_tuple(N, Items::<T, N>(PhantomData))
}

struct Items<T, const N: usize>(PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Items<T, N> {
    type Value = [T; N];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of {N} items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
        let mut items = Vec::with_capacity(N);
        while let Some(item) = seq.next_element()? {
            if items.len() == N {
                return Err(de::Error::invalid_length(N + 1, &self));
            }
            items.push(item);
        }
        let found = items.len();
        items
            .try_into()
            .map_err(|_| de::Error::invalid_length(found, &self))
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Table {
        #[serde(with = "super")]
        bytes: [u8; 40],
    }

    #[test]
    fn arrays_longer_than_serde_takes_round_trip_and_keep_their_length() {
        let mut bytes = [0; 40];
        bytes[39] = 9;
        let table = Table { bytes };
        let text = ron::to_string(&table).unwrap();
        assert!(text.starts_with("(bytes:(0,0,"), "{text}");
        assert_eq!(ron::from_str::<Table>(&text).unwrap(), table);
        let short = text.replacen("0,", "", 1);
        let error = ron::from_str::<Table>(&short).unwrap_err().to_string();
        assert!(error.contains("an array of 40 items"), "{error}");
        let long = text.replacen("0,", "0,0,", 1);
        assert!(ron::from_str::<Table>(&long).is_err());
    }
}
