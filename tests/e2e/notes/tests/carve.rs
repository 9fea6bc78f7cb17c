use notes::{price, Amount};

#[carve::system_test]
fn prices() {
    assert_eq!(price(Amount::Cents(250)), 2);
    assert_eq!(price(Amount::Text("ab".into())), 2);
}

carve::main!();
