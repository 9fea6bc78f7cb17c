// The impl block is kept without its methods' markers, so the method is
// still defined and its marker does not fail a second time on its own.
pub struct Wrapper<T>(T);

#[carve::target]
impl<T: Clone> Wrapper<T> {
    #[carve::target]
    pub fn get(&self) -> T {
        self.0.clone()
    }
}

fn main() {
    let _ = Wrapper(1u8).get();
}
