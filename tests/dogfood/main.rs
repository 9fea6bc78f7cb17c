//! carve's dogfood: the subjects of the chapters carve is built from, carved
//! by carve itself. `CARVE=record cargo test --test dogfood` re-carves
//! `carved/`; `cargo test --test dogfood` replays it.

mod bank;
mod browser;
mod cgi;
mod maths;
mod url;

use bank::{Account, BankError};
use cgi::{cgi_decode, DecodeError};
use maths::{my_sqrt, needle, power, roots, test_me, Roots};

#[carve::system_test]
fn decodes_form_fields() {
    assert_eq!(cgi_decode("Hello+World").unwrap(), "Hello World");
    assert_eq!(cgi_decode("a+b%21").unwrap(), "a b!");
    assert_eq!(cgi_decode("%41%42c").unwrap(), "ABc");
    assert_eq!(cgi_decode("100%25+sure").unwrap(), "100% sure");
    assert_eq!(cgi_decode("%zz"), Err(DecodeError::InvalidEncoding));
    assert_eq!(cgi_decode(""), Ok(String::new()));
}

#[carve::system_test]
fn computes_square_roots_and_powers() {
    assert!((my_sqrt(2.0) - std::f64::consts::SQRT_2).abs() < 1e-12);
    assert_eq!(my_sqrt(4.0), 2.0);
    assert_eq!(my_sqrt(0.0), 0.0);
    assert_eq!(power(1, 2), Some(1));
    assert_eq!(power(3, 4), Some(81));
    assert_eq!(power(2, 63), None);
}

#[carve::system_test]
fn solves_quadratics() {
    assert_eq!(roots(1.0, -3.0, 2.0), Roots::Two(2.0, 1.0));
    assert_eq!(roots(1.0, 2.0, 1.0), Roots::One(-1.0));
    assert_eq!(roots(1.0, 0.0, 1.0), Roots::None);
}

#[carve::system_test]
fn compares_with_test_me() {
    assert!(!test_me(0, 0));
    assert!(test_me(4, 1));
    assert_eq!(needle(3, 4), 0);
    assert_eq!(needle(2_000_000, 5), 1);
}

#[carve::system_test]
fn browses_pages() {
    browser::browse_examples();
}

#[carve::system_test]
fn keeps_accounts() -> Result<(), BankError> {
    let mut account = Account::open("ada");
    account.deposit(100);
    assert_eq!(account.withdraw(30)?, 70);
    assert!(account.withdraw(500).is_err());
    account.withdraw(70)?;
    assert_eq!(account.close(), "closed account of ada");
    Ok(())
}

#[carve::system_test]
#[should_panic(expected = "holds money")]
fn refuses_to_close_a_funded_account() {
    let mut account = Account::open("bob");
    account.deposit(5);
    account.close();
}

carve::main!();
