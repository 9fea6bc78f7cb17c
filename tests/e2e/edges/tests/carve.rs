#[carve::system_test]
fn labels() {
    assert_eq!(edges::kind(""), "empty");
    // Seven letters: a label one generated word longer reaches the helper's
    // `len > 8`, which only the edge counters see.
    assert_eq!(edges::kind("abcdefg"), "short: abcdefg");
    assert_eq!(edges::describe("ab"), "short: ab");
}

carve::main!();
