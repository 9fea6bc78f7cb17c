//! Carving: recording calls of targets while system tests run
//! ([`record`]), keeping them in carve files ([`store`]), and replaying them
//! as regression tests against insta snapshots ([`replay`]).

pub mod record;
pub mod replay;
pub mod store;
