#[carve::target]
pub fn describe<T: serde::Serialize>(value: T) -> String {
    let _ = value;
    String::new()
}

fn main() {}
