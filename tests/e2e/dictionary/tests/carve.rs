use dictionary::{allows, millis, Requirement};

#[carve::system_test]
fn parses_milliseconds() {
    assert_eq!(millis("5 ms"), Ok(5));
    assert!(millis("5").is_err());
}

#[carve::system_test]
fn checks_requirements() {
    let at_least = Requirement::try_from(">=3".to_string()).unwrap();
    assert!(allows(at_least, 4));
    assert!(!allows(Requirement::try_from("<10".to_string()).unwrap(), 12));
}

carve::main!();
