//! Query strings: a small parser whose generated calls overlap, so that a
//! call generation keeps early is covered again by calls it keeps later.

/// Splits `query` into `(key, value)` pairs, at `&`, or at `;` where no `&`
/// is (old HTML forms); a pair repeated right after itself counts once.
#[cfg_attr(feature = "carve", carve::target)]
pub fn pairs(query: &str) -> Vec<(String, String)> {
    let separator = if !query.contains('&') && query.contains(';') {
        ';'
    } else {
        '&'
    };
    let mut out = Vec::new();
    for pair in query.split(separator) {
        if pair.is_empty() {
            continue;
        }
        out.push(match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => (key.to_owned(), value.to_owned()),
            Some((_, value)) => (String::new(), value.to_owned()),
            None => (pair.to_owned(), String::new()),
        });
    }
    // Only a query of two pairs or more gets here: generation keeps such a
    // call after one of a single pair, which it then covers too.
    if out.len() > 1 {
        out.dedup();
    }
    out
}
