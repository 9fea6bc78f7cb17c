pub struct Secret(u8);

#[carve::target]
pub fn reveal(secret: Secret, shift: u8) -> u8 {
    secret.0 + shift
}

fn main() {}
