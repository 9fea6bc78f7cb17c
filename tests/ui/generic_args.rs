// `generics(…)` binds every generic parameter of the target, and nothing else.
#[carve::target(generics(S = String, T = u8))]
pub fn first<S: AsRef<str>>(s: S) -> Option<char> {
    s.as_ref().chars().next()
}

#[carve::target(generics(S = String), generics(n = u8))]
pub fn both<S: AsRef<str>>(s: S, n: impl Into<u32>) -> u32 {
    s.as_ref().len() as u32 + n.into()
}

#[carve::target(generics(x = u8))]
pub fn plain(x: u8) -> u8 {
    x
}

#[carve::target(budget = 3)]
pub fn unknown(x: u8) -> u8 {
    x
}

fn main() {}
