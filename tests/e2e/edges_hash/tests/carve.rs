#[carve::system_test]
fn counts() {
    assert_eq!(letters::repeats("abc"), "3 letters, none repeated");
}

carve::main!();
