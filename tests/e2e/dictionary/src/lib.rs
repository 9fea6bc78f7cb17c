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

/// A version requirement: an operator and a number (`>=3`, `<10`, `~2`),
/// carved as its text, which its parser reads back.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "carve",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "String", try_from = "String")
)]
pub struct Requirement {
    op: Op,
    n: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    AtLeast,
    Below,
    Near,
}

impl TryFrom<String> for Requirement {
    type Error = String;
    fn try_from(text: String) -> Result<Requirement, String> {
        parse_requirement(&text)
    }
}

impl From<Requirement> for String {
    fn from(req: Requirement) -> String {
        let op = match req.op {
            Op::AtLeast => ">=",
            Op::Below => "<",
            Op::Near => "~",
        };
        format!("{op}{}", req.n)
    }
}

/// The parser: the operators are compared against here, where the carved
/// texts (`>=3`, `<10`) never show `~`.
#[cfg_attr(feature = "carve", carve::instrument)]
fn parse_requirement(text: &str) -> Result<Requirement, String> {
    let (op, rest) = if let Some(rest) = text.strip_prefix(">=") {
        (Op::AtLeast, rest)
    } else if let Some(rest) = text.strip_prefix('<') {
        (Op::Below, rest)
    } else if let Some(rest) = text.strip_prefix('~') {
        (Op::Near, rest)
    } else {
        return Err(format!("no operator in {text:?}"));
    };
    let n = rest.parse().map_err(|_| format!("not a number: {rest:?}"))?;
    Ok(Requirement { op, n })
}

/// Whether `version` meets `req`: its reach is this function only, the
/// parser runs when `req` is read.
#[cfg_attr(feature = "carve", carve::target)]
pub fn allows(req: Requirement, version: u32) -> bool {
    match req.op {
        Op::AtLeast => version >= req.n,
        Op::Below => version < req.n,
        Op::Near => version == req.n || version == req.n.saturating_add(1),
    }
}

/// Time zones a date may name, sorted for a binary search.
pub const ZONES: [&str; 4] = ["ACDT", "BRST", "CHOT", "NZDT"];

/// Whether `zone` is one of [`ZONES`]: looked up in the table, so no
/// comparison carve instruments shows the names (`binary_search` compares
/// them); the table itself joins the dictionary.
#[cfg_attr(feature = "carve", carve::target)]
pub fn is_zone(zone: &str) -> bool {
    if ZONES.binary_search(&zone).is_ok() {
        true
    } else {
        false
    }
}

/// Whether `script` is one of the script codes kept for private use
/// (`Qaaa` to `Qabx`, as language-tags 0.3.2 checks them): the range is
/// only passed to [`between`], which is generic and not instrumented, so
/// no comparison carve instruments shows its ends.
#[cfg_attr(feature = "carve", carve::target)]
pub fn is_private_script(script: &str) -> bool {
    if between(script, "Qaaa", "Qabx") {
        true
    } else {
        false
    }
}

fn between<T: Ord>(value: T, start: T, end: T) -> bool {
    start <= value && value <= end
}
