#[carve::system_test]
fn takes_input(x: u8) {
    let _ = x;
}

fn main() {}
