//! A range of addresses whose fields its users cannot set (`Range`: two
//! addresses, carved as their texts), which only `Net::hosts` makes, and
//! which no system test iterates: ipnet's `Ipv6AddrRange`. Its simplest
//! value (empty texts) does not deserialize, and one assembled from
//! carved addresses is not one the API made; the ranges `hosts` returns
//! for the networks carved for `Net::size` are.

use std::net::Ipv4Addr;

/// The addresses from `start` to `end`, both included.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Range {
    start: Ipv4Addr,
    end: Ipv4Addr,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Range {
    /// The next address, if any is left.
    pub fn next(&mut self) -> Option<Ipv4Addr> {
        if self.start > self.end {
            return None;
        }
        let next = self.start;
        if next == self.end {
            self.start = Ipv4Addr::new(255, 255, 255, 255);
            self.end = Ipv4Addr::new(0, 0, 0, 0);
        } else {
            self.start = Ipv4Addr::from(u32::from(next) + 1);
        }
        Some(next)
    }
}

/// A network: its first address and the length of its prefix.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Net {
    addr: Ipv4Addr,
    len: u8,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Net {
    /// The network of `addr` with a prefix of `len` bits (at most 32).
    pub fn new(addr: Ipv4Addr, len: u8) -> Net {
        let len = len.min(32);
        let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
        Net { addr: Ipv4Addr::from(u32::from(addr) & mask), len }
    }

    /// How many addresses it holds.
    pub fn size(&self) -> u64 {
        if self.len == 0 {
            1 << 32
        } else {
            1 << (32 - self.len)
        }
    }

    /// Its addresses.
    pub fn hosts(&self) -> Range {
        let start = u32::from(self.addr);
        let end = start + (self.size() - 1) as u32;
        Range { start: self.addr, end: Ipv4Addr::from(end) }
    }
}
