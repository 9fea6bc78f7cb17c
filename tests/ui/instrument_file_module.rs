// `mod helpers;` is declared here but its items live in another file, which
// the attribute cannot see.
#[carve::instrument]
mod helpers;

#[carve::instrument]
const LIMIT: u32 = 3;

fn main() {}
