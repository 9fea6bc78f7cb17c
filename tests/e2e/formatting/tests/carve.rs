use formatting::Version;

#[carve::system_test]
fn prints_a_version() {
    assert_eq!(Version { major: 1, minor: 4 }.to_string(), "1.4");
}

carve::main!();
