#[carve::target]
pub async fn fetch(url: String) -> String {
    url
}

fn main() {}
