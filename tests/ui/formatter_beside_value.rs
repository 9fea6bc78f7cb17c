// A function with a `&mut Formatter` is carved as the text it writes under
// the spec it was given, asked again into a buffer: it cannot take anything
// by value or `&mut` beside the formatter.
use std::fmt;

#[carve::target]
pub fn write_all(items: Vec<u32>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for item in items {
        write!(f, "{item}")?;
    }
    Ok(())
}

fn main() {}
