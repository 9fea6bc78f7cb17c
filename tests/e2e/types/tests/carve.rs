use types::{allows, parse_version, request_target, ParseError, Req, Version};

#[carve::system_test]
fn parses_versions() {
    assert_eq!(parse_version("1.2"), Ok(Version { major: 1, minor: 2 }));
    assert_eq!(parse_version(""), Err(ParseError::Empty));
    assert!(parse_version("1.x").is_err());
}

#[carve::system_test]
fn matches_requirements() {
    let req: Req = "^1.2".parse().unwrap();
    assert!(allows(&req, "1.4"));
    assert!(!allows(&req, "2.0"));
}

#[carve::system_test]
fn reads_request_lines() {
    assert_eq!(request_target(b"GET /a HTTP/1.1"), Some(b"/a".to_vec()));
    assert_eq!(request_target(b"PUT /a HTTP/1.1"), None);
}

carve::main!();
