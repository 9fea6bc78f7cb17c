#[carve::system_test]
fn tickets() {
    // Only the call that issues none is carved: it replays the same.
    assert_eq!(edges_unstable::ticket(""), "no ticket");
}

carve::main!();
