use asynchronous::{backoff, checksum, first_above};

#[carve::system_test]
async fn sums_bytes() {
    assert_eq!(checksum(vec![1, 2, 3]).await, Ok(6));
    assert!(checksum(vec![0]).await.is_err());
}

#[carve::system_test]
async fn finds_the_first_above() {
    assert_eq!(first_above(vec![1u32, 5, 9], 4).await, Some(5));
    assert_eq!(first_above(vec!["a".to_owned()], "b".to_owned()).await, None);
}

#[carve::system_test(runtime = "tokio")]
async fn backs_off() {
    assert_eq!(backoff(1).await, 2);
}

carve::main!();
