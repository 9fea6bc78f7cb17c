// `runtime = "tokio"` without carve's feature `tokio`: one error that says
// to enable it.
#[carve::target(runtime = "tokio")]
pub async fn wait(ms: u64) -> u64 {
    ms
}

fn main() {}
