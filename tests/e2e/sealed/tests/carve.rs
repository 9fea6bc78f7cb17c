use sealed::{Point, Table};

#[carve::system_test]
fn looks_things_up() {
    assert_eq!(Table::new(7).get(1), 7);
    assert_eq!(Point { x: 1, y: 2 }.quadrant(), 1);
}

carve::main!();
