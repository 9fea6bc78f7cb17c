#[derive(serde::Serialize, serde::Deserialize)]
pub struct Meters(u32);

// Marked by hand, these cannot be carved: each error says how to leave the
// method out. Unmarked methods of such kinds are skipped.
#[carve::target]
impl Meters {
    #[carve::target]
    pub fn scale<T: Into<u32>>(&self, by: T) -> u32 {
        self.0 * by.into()
    }

    #[carve::target]
    pub const fn zero() -> Meters {
        Meters(0)
    }

    #[cfg_attr(all(), carve::target)]
    pub fn apply(&self, f: impl Fn(u32) -> u32) -> u32 {
        f(self.0)
    }

    pub fn get(&self) -> u32 {
        self.0
    }
}

fn main() {}
