// Generic targets (a type parameter, `impl Trait`, a generic impl block)
// and an `async fn` target compile, with their system tests.
use std::borrow::Cow;

#[carve::target(generics(S = String), generics(S = &str))]
pub fn first<S: AsRef<str>>(s: S) -> Option<char> {
    s.as_ref().chars().next()
}

#[carve::target(generics(items = Vec<u32>))]
pub fn total(items: impl IntoIterator<Item = u32>) -> u32 {
    items.into_iter().sum()
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
pub struct Stack<T> {
    items: Vec<T>,
}

#[carve::target(generics(T = u8), generics(T = String))]
impl<T: Clone> Stack<T> {
    pub fn push(&mut self, item: T) {
        self.items.push(item);
    }

    pub fn top(&self) -> Option<&T> {
        self.items.last()
    }
}

#[carve::target]
pub async fn echo(text: String) -> Result<String, String> {
    if text.is_empty() {
        return Err("empty".into());
    }
    Ok(text)
}

#[carve::system_test]
async fn echoes() {
    assert_eq!(echo("a".into()).await, Ok("a".into()));
    assert_eq!(first(Cow::Borrowed("x")), Some('x'));
}

fn main() {
    let mut stack = Stack::default();
    stack.push(1u8);
    assert_eq!(stack.top(), Some(&1));
    assert_eq!(total(vec![1, 2]), 3);
}
