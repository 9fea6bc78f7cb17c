/// Neither `Debug` nor `Serialize`: the `Ok` side is fine, the error is not.
pub struct Opaque;

#[carve::target]
pub fn check(n: u8) -> Result<u8, Opaque> {
    if n > 3 { Ok(n) } else { Err(Opaque) }
}

fn main() {}
