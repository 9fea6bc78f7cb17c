use lists::{extensions, requirements};

#[carve::system_test]
fn counts_items() {
    assert_eq!(extensions("en-abc"), Ok(1));
    assert_eq!(requirements(">=1, <3"), Ok(2));
}

carve::main!();
