use contact::{shout, Meters, Words};

#[carve::system_test]
fn converts() {
    assert_eq!(Meters::from(5u32), Meters(5));
    assert_eq!(Meters::from(5000u32), Meters(1000));
    assert_eq!(Meters::from(7u16), Meters(14));
    assert_eq!(Meters::new(4), Meters(4));
    assert_eq!(Meters::new(40).halve(), 20);
    assert_eq!(Meters(30).double(), 60);
    assert_eq!(Meters(3).scale(2u8), 6);
    assert!(Meters::zero().is_zero());
    assert_eq!(Meters(3).apply(|m| m + 1), 4);
    assert_eq!(Meters::join(vec!["a", "b"]), "a+b");
}

#[carve::system_test]
fn reads_words() {
    assert_eq!(Words::new("  two words ").count(), 2);
}

#[carve::system_test]
fn shouts() {
    assert_eq!(shout("a-b"), "A_B!+a");
    assert_eq!(shout("123"), "123!Some(3)+1");
}

carve::main!();
