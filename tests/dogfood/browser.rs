//! The carving chapter's `webbrowser`: a slow "system" function composed of
//! targets. It parses the URL, then simulates the download with a delay, so
//! replaying the carved calls of its parts can be compared with running it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::url::{parse_query, urlparse, Url};

/// How long a simulated download takes.
pub const DOWNLOAD_TIME: Duration = Duration::from_millis(25);

/// What the browser shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// The URL, parsed.
    pub url: Url,
    /// Its query, decoded.
    pub params: Vec<(String, String)>,
    /// The simulated body.
    pub body: String,
}

/// Fetches `url`, slowly.
#[carve::target]
pub fn webbrowser(url: &str) -> Result<Page, String> {
    let parsed = urlparse(url).map_err(|e| format!("{e:?}"))?;
    let params = parse_query(&parsed.query).map_err(|e| format!("{e:?}"))?;
    std::thread::sleep(DOWNLOAD_TIME);
    let body = format!("<html><h1>{}{}</h1></html>", parsed.netloc, parsed.path);
    Ok(Page { url: parsed, params, body })
}
