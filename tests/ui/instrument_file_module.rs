// `mod helpers;` is declared here but its items live in another file, which
// the attribute cannot see. The module and the const are kept, so their
// users still compile.
#[carve::instrument]
mod helpers;

#[carve::instrument]
const LIMIT: u32 = 3;

fn main() {
    let _ = helpers::double(LIMIT);
}
