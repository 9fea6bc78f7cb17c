// A function marked twice (a second `cfg_attr` copied by mistake) is
// refused by name, not with an error about carve's generated code.
#[carve::target]
#[cfg_attr(all(), carve::target)]
pub fn parse(s: String) -> u32 {
    match s.find('.') {
        None => 0,
        Some(i) => i as u32,
    }
}

#[carve::instrument]
#[carve::instrument]
fn helper(x: u32) -> u32 {
    if x > 9 { 1 } else { 0 }
}

fn main() {
    let _ = parse(String::new());
    let _ = helper(1);
}
