//! Parsers of lists whose items no carved call repeats: a limit on their
//! count is reached only by adding whole items, one at a time.

/// The extension subtags of a language tag (`en-abc-def`): three letters
/// each, at most three.
#[cfg_attr(feature = "carve", carve::target)]
pub fn extensions(tag: &str) -> Result<usize, String> {
    let mut parts = tag.split('-');
    let language = parts.next().unwrap_or_default();
    if language.len() != 2 {
        return Err(format!("not a language: {language:?}"));
    }
    let mut count = 0;
    for part in parts {
        if part.len() != 3 || !part.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(format!("not an extension: {part:?}"));
        }
        count += 1;
        if count > 3 {
            return Err("more than three extensions".into());
        }
    }
    Ok(count)
}

/// Requirements separated by a comma and a space (`>=1, <3`), at most
/// five.
#[cfg_attr(feature = "carve", carve::target)]
pub fn requirements(text: &str) -> Result<usize, String> {
    let mut count = 0;
    for item in text.split(", ") {
        let number = item.trim_start_matches(['>', '<', '=']);
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("not a requirement: {item:?}"));
        }
        count += 1;
        if count == 6 {
            return Err("more than five requirements".into());
        }
    }
    Ok(count)
}
