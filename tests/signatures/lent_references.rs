// Parameters with references inside other types (lent from an owned twin)
// compile in every kind of target: a function, a method, a generic
// function, a method of a generic impl block and an `async fn`; `'static`
// references inside too.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct Config {
    pub width: u32,
}

#[carve::target]
pub fn render(words: &[&str], config: Option<&Config>, pair: (&str, u32)) -> String {
    let width = config.map_or(0, |c| c.width);
    format!("{}{}{}{width}", words.join(" "), pair.0, pair.1)
}

// `'static` references inside: the owned twin is leaked to live as long.
#[carve::target]
pub fn count_static(words: &[&'static str], label: Option<&'static str>) -> usize {
    words.len() + label.map_or(0, str::len)
}

#[carve::target(generics(T = u32))]
pub fn tagged<T: std::fmt::Display>(value: T, tags: Vec<&str>) -> String {
    format!("{value}{}", tags.concat())
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
pub struct Book {
    lines: Vec<String>,
}

#[carve::target]
impl Book {
    pub fn extend(&mut self, lines: &[&str]) {
        self.lines.extend(lines.iter().map(|l| l.to_string()));
    }

    pub fn find<'a>(&self, names: [Option<&'a str>; 2]) -> Option<&'a str> {
        names
            .into_iter()
            .flatten()
            .find(|n| self.lines.iter().any(|l| l == n))
    }
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
pub struct Shelf<T> {
    items: Vec<T>,
}

#[carve::target(generics(T = u8))]
impl<T: Clone> Shelf<T> {
    pub fn label(&self, names: Option<Vec<&str>>) -> usize {
        self.items.len() + names.map_or(0, |n| n.len())
    }
}

#[carve::target]
pub async fn fetch(keys: Vec<&str>) -> usize {
    keys.len()
}

pub fn main() {}
