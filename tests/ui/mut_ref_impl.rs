// form_urlencoded 1.2.2 implements its `Target` trait for `String` and for
// `&mut String`. carve does not carve methods of an impl for a mutable
// reference (a `self` that is a `&mut String`, a `&mut self` that is a
// `&mut &mut String`): the error says so and names the way out, which
// compiles (`carve::instrument` on such a block measures its methods; it
// was the same error before).
pub trait Target {
    fn as_mut_string(&mut self) -> &mut String;
    fn finish(self) -> usize;
}

#[carve::target]
impl Target for &mut String {
    fn as_mut_string(&mut self) -> &mut String {
        self
    }
    fn finish(self) -> usize {
        self.len()
    }
}

pub trait Measured {
    fn twice(self) -> usize;
}

#[carve::instrument]
impl Measured for &mut String {
    fn twice(self) -> usize {
        if self.is_empty() { 0 } else { 2 * self.len() }
    }
}

fn main() {
    let mut s = String::from("a");
    let _ = (&mut s).twice();
}
