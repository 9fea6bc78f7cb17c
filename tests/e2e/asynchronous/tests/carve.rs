use asynchronous::{backoff, checksum};

#[carve::system_test]
async fn sums_bytes() {
    assert_eq!(checksum(vec![1, 2, 3]).await, Ok(6));
    assert!(checksum(vec![0]).await.is_err());
}

#[carve::system_test(runtime = "tokio")]
async fn backs_off() {
    assert_eq!(backoff(1).await, 2);
}

carve::main!();
