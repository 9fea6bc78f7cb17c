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

/// Splits a query into decoded `(key, value)` pairs: a thin entry point, as
/// published parsers have; the logic is in the helpers of `query`.
#[carve::target]
pub fn parse_query(query: &str) -> Result<Vec<(String, String)>, crate::cgi::DecodeError> {
    query::pairs(query)
}

/// The query-string parser behind [`parse_query`], instrumented as a whole.
#[carve::instrument]
mod query {
    use crate::cgi::{cgi_decode, DecodeError};

    pub fn pairs(query: &str) -> Result<Vec<(String, String)>, DecodeError> {
        let mut out = Vec::new();
        for pair in query.split(separator(query)) {
            if pair.is_empty() {
                continue;
            }
            out.push(pair_of(pair)?);
        }
        Ok(out)
    }

    /// `;` separates pairs where no `&` does (old HTML forms).
    fn separator(query: &str) -> char {
        if !query.contains('&') && query.contains(';') {
            ';'
        } else {
            '&'
        }
    }

    fn pair_of(pair: &str) -> Result<(String, String), DecodeError> {
        match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((cgi_decode(key)?, cgi_decode(value)?)),
            Some((_, value)) => Ok((String::new(), cgi_decode(value)?)),
            None => Ok((cgi_decode(pair)?, String::new())),
        }
    }
}
