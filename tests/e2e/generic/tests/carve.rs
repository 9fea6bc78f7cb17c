use std::borrow::Cow;

use generic::{capped_total, setting, Stack, Total};

#[carve::system_test]
fn reads_settings() {
    assert_eq!(setting(String::from("depth = 3")), Some(("depth".into(), 3)));
    assert_eq!(setting("# comment"), None);
    assert_eq!(setting("width=5000"), Some(("width".into(), 1000)));
    // An instantiation the attribute does not list: not carved.
    assert_eq!(setting(Cow::Borrowed("=1")), None);
}

#[carve::system_test]
fn totals_items() {
    assert_eq!(capped_total(vec![1, 2, 300]), 103);
    // Not listed either (an array, not a `Vec<u32>`).
    assert_eq!(capped_total([5, 5]), 10);
}

#[carve::system_test]
fn stacks_bytes() {
    let mut stack = Stack::default();
    assert!(stack.push(7u8));
    assert_eq!(stack.peek(), Some(7));
    assert_eq!(stack.count_at_most(0u8), 0);
}

#[carve::system_test]
fn totals_small_numbers() {
    assert_eq!(Total::from(vec![1u8, 20]), Total(10));
    assert_eq!(Total::from(vec![3u16]), Total(3));
}

carve::main!();
