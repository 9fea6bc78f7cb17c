//! Carving: recording calls of targets while system tests run
//! ([`record`]), keeping them in carve files ([`store`], written
//! [`atomic`]ally) laid out under
//! `carved/` with portable names ([`layout`]), changed by one process at a
//! time ([`lock`]), and replaying them as regression tests against insta
//! snapshots ([`replay`]); `--list` only [`skim`]s them. A call is told
//! apart from others by its [`identity`].

pub mod atomic;
pub mod fragment;
pub mod identity;
pub mod insta_config;
pub mod isolate;
pub mod layout;
pub mod lock;
pub mod record;
pub mod replay;
pub mod skim;
pub mod store;
pub mod wire;
