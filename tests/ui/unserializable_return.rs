pub struct Handle(u8);

#[carve::target]
pub fn open(id: u8) -> Handle {
    Handle(id)
}

fn main() {}
