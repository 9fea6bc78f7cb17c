//! First contact: shapes of code a crate has before anyone thought of carve,
//! each of which must compile with carve's attributes on it.

use std::fmt;

/// A length; converted from several integer types.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Meters(pub u32);

// Two impls of one trait with different arguments: one method name.
#[cfg_attr(feature = "carve", carve::target)]
impl From<u32> for Meters {
    fn from(v: u32) -> Meters {
        if v > 1000 {
            Meters(1000)
        } else {
            Meters(v)
        }
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl From<u16> for Meters {
    fn from(v: u16) -> Meters {
        Meters(u32::from(v) * 2)
    }
}

// No method marked: the public methods that can be carved are, the others
// are skipped and named when recording.
#[cfg_attr(feature = "carve", carve::target)]
impl Meters {
    pub fn new(v: u32) -> Meters {
        Meters(v.min(self_mask(v)))
    }

    pub fn scale<T: Into<u32>>(&self, by: T) -> u32 {
        self.0 * by.into()
    }

    pub const fn zero() -> Meters {
        Meters(0)
    }

    pub const fn is_zero(&self) -> bool {
        self.0 == 0
    }

    pub async fn fetch(&self) -> u32 {
        self.0
    }

    pub fn apply(&self, f: impl Fn(u32) -> u32) -> u32 {
        f(self.0)
    }

    pub fn join(parts: Vec<&str>) -> String {
        parts.join("+")
    }

    pub fn halve(&self) -> u32 {
        self.mask() / 2
    }

    /// A helper, instrumented rather than carved.
    #[cfg_attr(feature = "carve", carve::instrument)]
    fn mask(&self) -> u32 {
        if self.0 > 10 {
            self.0 & !1
        } else {
            self.0
        }
    }
}

fn self_mask(v: u32) -> u32 {
    v | 1
}

// A method instrumented on its own, in a block without carve's attribute.
impl Meters {
    #[cfg_attr(feature = "carve", carve::instrument)]
    pub fn double(&self) -> u32 {
        if self.0 > 100 {
            self.0
        } else {
            self.0 * 2
        }
    }
}

impl fmt::Display for Meters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}

/// The words of a text, borrowed.
#[derive(Debug)]
pub struct Words<'a> {
    text: &'a str,
}

// Generic over a lifetime only.
#[cfg_attr(feature = "carve", carve::target)]
impl<'a> Words<'a> {
    pub fn new(text: &'a str) -> Words<'a> {
        Words { text: text.trim() }
    }

    pub fn count(&self) -> usize {
        self.text.split_whitespace().count()
    }
}

/// Returns `impl Trait` built from a closure.
#[cfg_attr(feature = "carve", carve::instrument)]
pub fn upper(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().map(|c| {
        if c == '-' {
            '_'
        } else {
            c.to_ascii_uppercase()
        }
    })
}

/// Returns `impl Future`, an `async` block.
#[cfg_attr(feature = "carve", carve::instrument)]
pub fn soon(x: u32) -> impl std::future::Future<Output = u32> {
    async move {
        if x > 1 {
            x
        } else {
            0
        }
    }
}

/// Returns a boxed closure: one per body, each boxed.
#[cfg_attr(feature = "carve", carve::instrument)]
pub fn adder(n: u32) -> Box<dyn Fn(u32) -> u32> {
    Box::new(move |x| if x > n { x + n } else { n })
}

#[cfg_attr(feature = "carve", carve::instrument)]
pub const fn cube(x: u64) -> u64 {
    x * x * x
}

#[cfg_attr(feature = "carve", carve::instrument)]
pub async fn later(x: u32) -> u32 {
    let block = async { x + 1 };
    block.await
}

/// # Safety
/// `p` points to a readable byte.
#[cfg_attr(feature = "carve", carve::instrument)]
pub unsafe fn peek(p: *const u8) -> u8 {
    if p.is_null() {
        0
    } else {
        *p
    }
}

#[cfg_attr(feature = "carve", carve::instrument)]
pub fn largest<T: PartialOrd + Copy>(items: &[T]) -> Option<T>
where
    T: fmt::Debug,
{
    let mut best = *items.first()?;
    'scan: for &item in items {
        if item > best {
            best = item;
            continue 'scan;
        }
    }
    Some(best)
}

#[cfg_attr(feature = "carve", carve::instrument)]
pub fn digits(s: &str) -> Result<Vec<u32>, String> {
    let Some(first) = s.chars().next() else {
        return Err("empty".to_owned());
    };
    let parse = |c: char| -> Result<u32, String> {
        let d = c.to_digit(10).ok_or(format!("{c} is no digit"))?;
        if d > 7 {
            return Err(format!("{d} is too big"));
        }
        Ok(d)
    };
    let _ = first;
    let limit = const {
        if u32::MAX > 10 {
            10
        } else {
            5
        }
    };
    let found = 'all: {
        if s.len() > limit {
            break 'all Err("too long".to_owned());
        }
        s.chars().map(parse).collect::<Result<Vec<u32>, String>>()
    };
    found
}

/// A target that calls the helpers above.
#[cfg_attr(feature = "carve", carve::target)]
pub fn shout(s: &str) -> String {
    let cubed = cube(s.len() as u64);
    let mut out: String = upper(s).collect();
    if cubed > 8 {
        out.push('!');
    }
    if let Ok(d) = digits(s) {
        out.push_str(&format!("{:?}", largest(&d)));
    }
    let _ = (later(1), soon(2));
    if adder(1)(s.len() as u32) > 3 {
        out.push('+');
    }
    // Safety: a pointer to a byte of `s`, or null.
    out.push(char::from(unsafe { peek(s.as_ptr()) }));
    out
}
