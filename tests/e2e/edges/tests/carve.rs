#[carve::system_test]
fn labels() {
    assert_eq!(edges::kind(""), "empty");
    assert_eq!(edges::kind("abc"), "short: abc");
    assert_eq!(edges::describe("ab"), "short: ab");
}

carve::main!();
