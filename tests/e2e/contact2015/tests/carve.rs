extern crate carve;
extern crate contact2015;

use contact2015::{parse, Error, Meters};

#[carve::system_test]
fn parses() {
    assert_eq!(parse("12m"), Ok(Meters(12)));
    assert_eq!(parse("m"), Err(Error::Empty));
    let mut m = Meters::from(4u16);
    assert_eq!(m.add(Meters(2)), 3);
}

carve::main!();
