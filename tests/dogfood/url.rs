//! A small URL parser in the spirit of Python's `urlparse`.

use serde::{Deserialize, Serialize};

/// The parts of a URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Url {
    /// `http`, `https`, …
    pub scheme: String,
    /// Host and optional port.
    pub netloc: String,
    /// Path, starting with `/` (or empty).
    pub path: String,
    /// Query without the `?`.
    pub query: String,
    /// Fragment without the `#`.
    pub fragment: String,
}

/// Why a URL does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlError {
    /// No `scheme://`.
    MissingScheme,
    /// A scheme with characters other than letters, digits, `+`, `-`, `.`.
    BadScheme(String),
}

/// Splits `url` into scheme, netloc, path, query and fragment.
#[carve::target]
pub fn urlparse(url: &str) -> Result<Url, UrlError> {
    let (scheme, rest) = url.split_once("://").ok_or(UrlError::MissingScheme)?;
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err(UrlError::BadScheme(scheme.to_owned()));
    }
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (netloc, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    Ok(Url {
        scheme: scheme.to_ascii_lowercase(),
        netloc: netloc.to_owned(),
        path: path.to_owned(),
        query: query.to_owned(),
        fragment: fragment.to_owned(),
    })
}

/// Splits a query into decoded `(key, value)` pairs.
#[carve::target]
pub fn parse_query(query: &str) -> Result<Vec<(String, String)>, crate::cgi::DecodeError> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((crate::cgi::cgi_decode(key)?, crate::cgi::cgi_decode(value)?))
        })
        .collect()
}
