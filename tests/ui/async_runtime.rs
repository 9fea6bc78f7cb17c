// `runtime` names a runtime carve knows, on an `async fn` only.
#[carve::target(runtime = "smol")]
pub async fn fetch(url: String) -> String {
    url
}

#[carve::target(runtime = "tokio")]
pub fn plain(n: u32) -> u32 {
    n
}

fn main() {}
