// Methods returning `Self` of a type carve cannot record: each error points
// at its method's `Self`, not at the impl block's header (shlex 2.0.1's
// `Shlex::new`).
pub struct Words(u8);

#[carve::target]
impl Words {
    pub fn new(n: u8) -> Self {
        Words(n)
    }

    pub fn empty() -> Option<Self> {
        None
    }
}

fn main() {}
