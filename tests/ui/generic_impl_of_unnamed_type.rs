// A generic impl block of a type carve cannot name: both errors are
// reported, one does not hide the other.
pub trait First {
    fn first(&self) -> u8;
}

#[carve::target]
impl<T> First for (u8, T) {
    fn first(&self) -> u8 {
        self.0
    }
}

fn main() {}
