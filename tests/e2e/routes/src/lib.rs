//! Routes as published crates keep them: addresses before a prefix length
//! in tuples, and costs in a map keyed by address. An address is carved as
//! its text, inside the tuple and as the map's key.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// The route (network, prefix length) of `routes` that holds `to` with the
/// longest prefix, by index; prefixes past 32 are skipped.
#[cfg_attr(feature = "carve", carve::target)]
pub fn next_hop(routes: &[(Ipv4Addr, u8)], to: Ipv4Addr) -> Option<usize> {
    let mut best: Option<(usize, u8)> = None;
    for (i, &(network, len)) in routes.iter().enumerate() {
        if len > 32 {
            continue;
        }
        let mask = match len {
            0 => 0,
            n => u32::MAX << (32 - u32::from(n)),
        };
        if u32::from(network) & mask != u32::from(to) & mask {
            continue;
        }
        if best.is_none_or(|(_, longest)| len > longest) {
            best = Some((i, len));
        }
    }
    best.map(|(i, _)| i)
}

/// The cost of going through `path`: the sum of its addresses' costs, or
/// `None` when one has none. A private address (10.x) costs nothing.
#[cfg_attr(feature = "carve", carve::target)]
pub fn path_cost(costs: &BTreeMap<Ipv4Addr, u16>, path: &[Ipv4Addr]) -> Option<u32> {
    let mut total = 0;
    for hop in path {
        if hop.octets()[0] == 10 {
            continue;
        }
        match costs.get(hop) {
            Some(cost) => total += u32::from(*cost),
            None => return None,
        }
    }
    Some(total)
}
