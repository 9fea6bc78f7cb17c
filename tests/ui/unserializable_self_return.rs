// Methods marked by hand returning `Self` of a type carve cannot record:
// each error points at its method's `Self`, not at the impl block's header
// (shlex 2.0.1's `Shlex::new`; unmarked, in a block with none marked, they
// are skipped: ui pass `uncarvable_methods_skipped`).
pub struct Words(u8);

#[carve::target]
impl Words {
    #[carve::target]
    pub fn new(n: u8) -> Self {
        Words(n)
    }

    #[carve::target]
    pub fn empty() -> Option<Self> {
        None
    }
}

fn main() {}
