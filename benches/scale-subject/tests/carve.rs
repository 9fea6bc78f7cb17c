use carve_scale_subject::label;

/// Makes `SCALE_CALLS` distinct calls of the target.
#[carve::system_test]
fn labels_many_numbers() {
    let calls: u64 = std::env::var("SCALE_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    for n in 0..calls {
        assert!(label(n).ends_with(&n.to_string()));
    }
}

carve::main!();
