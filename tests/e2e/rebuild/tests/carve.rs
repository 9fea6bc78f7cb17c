use rebuild::{
    banner, format_seconds, half, is_hot, kib, parse_seconds, ByteSize, Even, LanguageTag,
    TimeError,
};

#[carve::system_test]
fn halves_numbers() {
    assert_eq!(half("4".parse().unwrap()), 2);
    // Odd `Even`s made by hand: their text does not parse back.
    assert_eq!(half(Even(3)), 1);
    assert_eq!(half(Even(3)), 1);
    assert_eq!(half(Even(7)), 3);
}

#[carve::system_test]
fn halves_odd_numbers_too() {
    assert_eq!(half(Even(5)), 2);
}

#[carve::system_test]
fn measures_sizes() {
    assert_eq!(kib(ByteSize(2048)), 2);
    // Written "683.6 KiB", read back as 700,006 bytes.
    assert_eq!(kib(ByteSize(700_000)), 683);
}

#[carve::system_test]
fn reads_language_tags() {
    let tag: LanguageTag = "en-GB".parse().unwrap();
    assert_eq!(tag.as_str(), "en-GB");
    assert_eq!(tag.primary(), "en");
    assert_eq!(tag.to_string(), "en-GB");
}

#[carve::system_test]
fn checks_temperatures() {
    assert!(is_hot("31C".parse().unwrap()));
    assert!(!is_hot("12C".parse().unwrap()));
}

#[carve::system_test]
fn formats_durations() {
    assert_eq!(format_seconds(3725).to_string(), "1h 2m 5s");
    assert_eq!(format_seconds(5).to_string(), "5s");
    assert_eq!(parse_seconds("5m"), Ok(300));
    assert_eq!(parse_seconds(""), Err(TimeError::Empty));
    assert_eq!(
        parse_seconds("5x").unwrap_err().to_string(),
        "unknown unit `x` (use s, m or h)"
    );
    assert_eq!(banner("carve").to_string(), "== carve ==");
}

carve::main!();
