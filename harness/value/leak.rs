//! Fields that are references, for serde: `#[serde(with = "carve::leak")]`
//! on a field `&'a T`. serde deserializes no `&'a T` but `&str` and
//! `&[u8]`, so a builder or view that holds a reference to a configuration
//! (bs58's `DecodeBuilder { alpha: &'a Alphabet, … }`) cannot derive
//! `Deserialize`; with this on the field, it can, and carve can carve the
//! methods that take it as `self`:
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Config {
//!     width: u32,
//! }
//!
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Builder<'a> {
//!     #[serde(with = "carve::leak")]
//!     config: &'a Config,
//!     text: String,
//! }
//!
//! let config = Config { width: 8 };
//! let builder = Builder { config: &config, text: "a".into() };
//! let text = ron::to_string(&builder).unwrap();
//! assert_eq!(text, r#"(config:(width:8),text:"a")"#);
//! assert_eq!(ron::from_str::<Builder>(&text).unwrap(), builder);
//! ```
//!
//! The field is written as the value it refers to. Each value read is
//! leaked (kept for the rest of the process), as carve leaks the values
//! it lends a `&'static T` parameter: a few bytes per carved or generated
//! call, in test processes only.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// Writes the value `field` refers to.
pub fn serialize<S: Serializer, T: Serialize + ?Sized>(
    field: &&T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    (**field).serialize(serializer)
}

/// Reads a value written by [`serialize`] and leaks it, to refer to it for
/// any lifetime.
pub fn deserialize<'de, 'a, D: Deserializer<'de>, T: Deserialize<'de> + 'a>(
    deserializer: D,
) -> Result<&'a T, D::Error> {
    T::deserialize(deserializer).map(|value| &*Box::leak(Box::new(value)))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Alphabet {
        #[serde(with = "crate::value::arrays")]
        encode: [u8; 40],
    }

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Builder<'a, I> {
        input: I,
        #[serde(with = "super")]
        alpha: &'a Alphabet,
    }

    #[test]
    fn referenced_fields_round_trip_as_their_values() {
        let alpha = Alphabet { encode: [3; 40] };
        let builder = Builder { input: vec![1u8, 2], alpha: &alpha };
        let text = ron::to_string(&builder).unwrap();
        assert!(text.starts_with("(input:[1,2],alpha:(encode:(3,3,"), "{text}");
        let read: Builder<Vec<u8>> = ron::from_str(&text).unwrap();
        assert_eq!(read, builder);
        let value = crate::value::Value::capture(&builder).unwrap();
        assert_eq!(crate::value::Value::capture(&read).unwrap(), value);
    }
}
