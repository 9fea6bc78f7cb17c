//! A duration parser that compares against constants: unit names and a
//! separator that no carved call shows.

/// Milliseconds in `text`: a number, a space and a unit (`5 ms`, `2 sec`,
/// `1 min`).
#[cfg_attr(feature = "carve", carve::target)]
pub fn millis(text: &str) -> Result<u64, String> {
    let Some((number, unit)) = text.split_once(' ') else {
        return Err("no space between number and unit".into());
    };
    let n: u64 = number.parse().map_err(|_| format!("not a number: {number}"))?;
    let scale = match unit {
        "ms" => 1,
        "sec" | "secs" => 1_000,
        "min" => 60_000,
        _ => return Err(format!("unknown unit: {unit}")),
    };
    Ok(n.saturating_mul(scale))
}
