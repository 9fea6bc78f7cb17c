#[carve::system_test]
fn one_pair() {
    assert_eq!(distil::pairs("k=v"), [("k".to_owned(), "v".to_owned())]);
}

carve::main!();
