use ranges::Net;
use std::net::Ipv4Addr;

#[carve::system_test]
fn sizes_a_network() {
    assert_eq!(Net::new(Ipv4Addr::new(10, 0, 0, 9), 30).size(), 4);
}

carve::main!();
