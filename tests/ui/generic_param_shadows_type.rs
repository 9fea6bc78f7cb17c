// urlencoding 2.1.3 names its impl block's parameter `String`: in
// `generics(String = String)` the second `String` is that parameter, not
// std's type (rustc said "can't use generic parameters from outer item" at
// the attribute, three times). A function's own parameter likewise.
use std::fmt;

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Encoded<Str>(pub Str);

#[carve::target(generics(String = String))]
impl<String: AsRef<[u8]>> fmt::Display for Encoded<String> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&format!("{}", self.0.as_ref().len()))
    }
}

#[carve::target(generics(T = Vec<T>))]
pub fn count<T: AsRef<[u8]>>(items: T) -> usize {
    items.as_ref().len()
}

fn main() {
    let _ = format!("{}", Encoded("ab"));
    let _ = count(vec![1u8]);
}
