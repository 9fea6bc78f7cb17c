use crashy as _;

#[carve::system_test]
fn classifies() {
    assert_eq!(crashy::classify(5), 1);
}

carve::main!();
