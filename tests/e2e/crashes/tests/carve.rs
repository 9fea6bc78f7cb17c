use crashy as _;

#[carve::system_test]
fn classifies() {
    assert_eq!(crashy::classify(5), 1);
    assert_eq!(crashy::fragile(5), 5);
    assert_eq!(crashy::hangs_once(5), 1);
    assert_eq!(crashy::hangs_once_per_argument(5), 2);
    assert_eq!(crashy::fill(crashy::Slots(5)), 1);
    assert_eq!(crashy::leading_spaces("x"), 0);
    assert_eq!(crashy::steps("ab"), 2);
}

carve::main!();
