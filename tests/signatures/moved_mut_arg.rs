// A `&mut` argument whose state after the call is recorded, which the body
// moves (byteorder's `fn from_slice_u16(numbers: &mut [u16])`, whose `for n
// in numbers` moves the reference): the body gets a reborrow, and the
// argument is read after the call (E0382 "borrow of moved value" before);
// a `mut` parameter lent so draws no `unused_mut` warning.
#![deny(warnings)]
pub enum BigEndian {}

pub trait ByteOrder {
    fn from_slice_u16(numbers: &mut [u16]);
}

#[carve::target]
impl ByteOrder for BigEndian {
    fn from_slice_u16(numbers: &mut [u16]) {
        for n in numbers {
            *n = n.to_be();
        }
    }
}

#[carve::target]
pub fn halve_all(mut numbers: &mut [u32], times: u32) -> u32 {
    for _ in 0..times {
        numbers = &mut numbers[..];
    }
    let moved = numbers;
    for n in moved {
        *n /= 2;
    }
    times
}

pub fn main() {
    let mut words = [0x0102u16, 0x0304];
    BigEndian::from_slice_u16(&mut words);
    assert_eq!(words, [0x0102u16.to_be(), 0x0304u16.to_be()]);
    let mut numbers = [4, 6];
    assert_eq!(halve_all(&mut numbers, 2), 2);
    assert_eq!(numbers, [2, 3]);
}
