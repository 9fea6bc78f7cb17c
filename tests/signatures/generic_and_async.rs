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

#[carve::target(generics(T = u32), generics(T = String))]
pub async fn longest<T: Clone + PartialOrd>(items: Vec<T>) -> Option<T> {
    let mut best: Option<T> = None;
    for item in items {
        if best.as_ref().is_none_or(|b| item > *b) {
            best = Some(item);
        }
    }
    best
}

#[carve::target(generics(T = u8))]
impl<T: Clone + Send> Stack<T> {
    pub async fn peek_async(&self) -> Option<T> {
        self.items.last().cloned()
    }
}

#[carve::system_test]
async fn echoes() {
    assert_eq!(longest(vec![1u32, 3, 2]).await, Some(3));
    assert_eq!(longest(vec!["a".to_string()]).await, Some("a".to_string()));
    assert_eq!(Stack { items: vec![1u8] }.peek_async().await, Some(1));
    assert_eq!(echo("a".into()).await, Ok("a".into()));
    assert_eq!(first(Cow::Borrowed("x")), Some('x'));
}

pub fn main() {
    let mut stack = Stack::default();
    stack.push(1u8);
    assert_eq!(stack.top(), Some(&1));
    assert_eq!(total(vec![1, 2]), 3);
}
