use reach::Version;

#[carve::system_test]
fn compares_versions() {
    let old = Version::parse("1.2").unwrap();
    let new: Version = "1.10".parse().unwrap();
    assert!(new.newer_than(&old));
    assert!(Version::parse("1").is_err());
}

carve::main!();
