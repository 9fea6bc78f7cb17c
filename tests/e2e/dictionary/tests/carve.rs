use dictionary::{allows, is_private_script, is_zone, millis, Requirement};

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

#[carve::system_test]
fn knows_no_zone_by_that_name() {
    assert!(!is_zone("XYZW"));
}

#[carve::system_test]
fn latin_is_no_private_script() {
    assert!(!is_private_script("Latn"));
}

carve::main!();
