#[carve::target]
pub fn join(words: Vec<&str>) -> String {
    words.join(" ")
}

fn main() {}
