use dictionary::millis;

#[carve::system_test]
fn parses_milliseconds() {
    assert_eq!(millis("5 ms"), Ok(5));
    assert!(millis("5").is_err());
}

carve::main!();
