use std::collections::BTreeMap;
use std::net::Ipv4Addr;

#[carve::system_test]
fn picks_routes_and_sums_costs() {
    let a: Ipv4Addr = "192.168.1.0".parse().unwrap();
    let b: Ipv4Addr = "192.168.0.0".parse().unwrap();
    assert_eq!(routes::next_hop(&[(b, 16), (a, 24)], "192.168.1.7".parse().unwrap()), Some(1));
    let costs = BTreeMap::from([(a, 3), ("172.16.0.1".parse().unwrap(), 4)]);
    assert_eq!(routes::path_cost(&costs, &[a, "172.16.0.1".parse().unwrap()]), Some(7));
}

carve::main!();
