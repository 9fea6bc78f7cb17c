//! Generic targets: a parser of any text carved at two instantiations, a
//! sum of any iterable (`impl Trait`), and a generic stack's methods.

/// A `key=value` setting, read from any text.
#[cfg_attr(
    feature = "carve",
    carve::target(generics(S = String), generics(S = &str))
)]
pub fn setting<S: AsRef<str>>(line: S) -> Option<(String, u32)> {
    let line = line.as_ref().trim();
    if line.starts_with('#') {
        return None;
    }
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    if key.is_empty() {
        return None;
    }
    match value.trim().parse::<u32>() {
        Ok(n) if n > 1000 => Some((key.to_owned(), 1000)),
        Ok(n) => Some((key.to_owned(), n)),
        Err(_) => None,
    }
}

/// The sum of the items, each at most 100.
#[cfg_attr(feature = "carve", carve::target(generics(items = Vec<u32>)))]
pub fn capped_total(items: impl IntoIterator<Item = u32>) -> u32 {
    let mut total = 0u32;
    for item in items {
        if item > 100 {
            total += 100;
        } else {
            total += item;
        }
    }
    total
}

/// A stack of at most four items.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Stack<T> {
    items: Vec<T>,
}

#[cfg_attr(feature = "carve", carve::target(generics(T = u8)))]
impl<T: Clone> Stack<T> {
    /// Pushes `item`; false when the stack is full.
    #[cfg_attr(feature = "carve", carve::target)]
    pub fn push(&mut self, item: T) -> bool {
        if self.items.len() >= 4 {
            return false;
        }
        self.items.push(item);
        true
    }

    /// The top item.
    #[cfg_attr(feature = "carve", carve::target)]
    pub fn peek(&self) -> Option<T> {
        self.items.last().cloned()
    }

    /// How many items, at most `limit`: a method with a type parameter of
    /// its own, carved at the types its marker names.
    #[cfg_attr(feature = "carve", carve::target(generics(U = u8)))]
    pub fn count_at_most<U: Into<usize>>(&self, limit: U) -> usize {
        let limit = limit.into();
        if self.items.len() > limit {
            limit
        } else {
            self.items.len()
        }
    }
}

/// A total of small numbers, each counted at most 9.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Total(pub u32);

// A generic trait impl: its parameter is the trait's, not the type's, so
// the targets are `Total::From<Vec<u8>>::from` and `…<Vec<u16>>…`.
#[cfg_attr(feature = "carve", carve::target(generics(T = u8), generics(T = u16)))]
impl<T: Into<u32>> From<Vec<T>> for Total {
    fn from(items: Vec<T>) -> Self {
        let mut sum = 0;
        for item in items {
            let value: u32 = item.into();
            if value > 9 {
                sum += 9;
            } else {
                sum += value;
            }
        }
        Total(sum)
    }
}
