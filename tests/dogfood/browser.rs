//! The carving chapter's `webbrowser`: a slow "system" composed of targets.
//! It parses the URL and its query (targets), then simulates the download
//! with a delay. It is not a target itself: the point, as in the chapter, is
//! that replaying the carved calls of its parts is far faster than running it.

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
pub fn webbrowser(url: &str) -> Result<Page, String> {
    let parsed = urlparse(url).map_err(|e| format!("{e:?}"))?;
    let params = parse_query(&parsed.query).map_err(|e| format!("{e:?}"))?;
    std::thread::sleep(DOWNLOAD_TIME);
    let body = format!("<html><h1>{}{}</h1></html>", parsed.netloc, parsed.path);
    Ok(Page {
        url: parsed,
        params,
        body,
    })
}

/// The system test's scenario (also timed by the benchmark).
pub fn browse_examples() {
    let page =
        webbrowser("https://www.fuzzingbook.org/html/Carver.html?q=carving+unit%21#top").unwrap();
    assert_eq!(page.url.netloc, "www.fuzzingbook.org");
    assert_eq!(
        page.params,
        vec![("q".to_string(), "carving unit!".to_string())]
    );
    let page = webbrowser("http://example.com/?a=1&b=%41").unwrap();
    assert_eq!(page.params.len(), 2);
    assert!(webbrowser("example.com").is_err());
    assert!(webbrowser("1http://x").is_err());
}
