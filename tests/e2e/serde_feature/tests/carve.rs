use temps::{is_hot, Celsius};

#[carve::system_test]
fn tells_hot_days() {
    assert!(is_hot(Celsius(31)));
    assert!(!is_hot(Celsius(12)));
}

carve::main!();
