//! A price whose parameter type carve cannot trace (an untagged enum):
//! generation says so, from a worker process.

/// An amount, in cents or as text.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "carve",
    derive(serde::Serialize, serde::Deserialize),
    serde(untagged)
)]
pub enum Amount {
    Cents(u64),
    Text(String),
}

/// Whole units of `amount`.
#[cfg_attr(feature = "carve", carve::target)]
pub fn price(amount: Amount) -> u64 {
    match amount {
        Amount::Cents(c) if c >= 100 => c / 100,
        Amount::Cents(_) => 0,
        Amount::Text(t) => t.len() as u64,
    }
}
