// Arithmetic operations that carve rewrites into weak-mutation goals
// (`+ - * / %`) compile for every kind of operand, and those it must not
// touch (constant contexts) stay constants.
use std::ops::Add;
use std::time::Duration;

const N: usize = 2;

#[derive(Clone, Copy)]
pub struct Meters(u32);

impl Add for Meters {
    type Output = Meters;
    fn add(self, other: Meters) -> Meters {
        Meters(self.0 + other.0)
    }
}

fn twice<const K: usize>() -> usize {
    K * 2
}

#[carve::instrument]
pub mod ops {
    use super::*;

    pub fn text(s: String, tail: &str) -> String {
        s + tail + "!"
    }

    pub fn user_add(a: Meters, b: Meters) -> u32 {
        (a + b).0
    }

    pub fn literals() -> i32 {
        2 * 3 + 1
    }

    pub fn promoted() -> &'static i32 {
        &(4 * 5)
    }

    pub fn references(a: u32, b: &u32) -> u32 {
        &a + b + (&a - &1) * *b
    }

    pub fn indexing(x: &[u8], i: usize) -> Option<u8> {
        if i + 1 < x.len() {
            Some(x[i + 1] % 7)
        } else {
            None
        }
    }

    pub fn constants(x: u8) -> [u8; N * 2] {
        let mut out = [x; N * 2];
        let typed: [u8; N + 1] = [0; N + 1];
        out[0] = typed.len() as u8 + const { (N * 3) as u8 };
        let _ = twice::<{ N + 1 }>();
        out
    }

    pub fn inferred() -> u64 {
        let a = 5;
        let b: u64 = a * 2 - 1;
        b / 3
    }

    pub fn durations(n: u32) -> Duration {
        2 * Duration::from_secs(1) * n + Duration::from_millis(u64::from(n) % 10)
    }

    pub fn floats(x: f64, y: f32) -> f64 {
        x / 2.0 - f64::from(y) * -1.5 % 3.0
    }

    pub fn question(s: &str) -> Result<u32, std::num::ParseIntError> {
        Ok(s.parse::<u32>()? * 10 + s.len() as u32)
    }

    pub async fn awaited(a: u32) -> u32 {
        async { a }.await + 1
    }

    pub fn closures(v: &[i64]) -> i64 {
        v.iter().map(|x| x * 2 - 1).fold(0, |acc, x| acc + x)
    }

    pub fn generic<T: Add<Output = T> + Copy>(a: T, b: T) -> T {
        a + b
    }

    pub fn matches(s: &str, long: bool) -> u32 {
        let unit = match s {
            "ms" => 1,
            "s" if long => 1000,
            other => other.len() as u32,
        };
        let ok = unit > 3 && long || s.is_empty();
        if let Some(c) = s.chars().next() {
            if c == 'x' && (unit * 2 > 7 || !long) {
                return 0;
            }
        }
        unit - u32::from(ok)
    }

    pub fn moved(parts: Vec<String>) -> String {
        let first = parts[0].clone();
        first + &parts[1..].concat()
    }
}

pub fn main() {}
