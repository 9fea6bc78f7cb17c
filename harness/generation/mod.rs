//! Generation: new calls that raise branch coverage. Argument grammars are
//! mined from the [`shape`] of carved calls ([`mine`]), derived by the grammar-coverage fuzzer
//! ([`grammar`]), then searched ([`search`], by the [`moves`] of a value
//! tree) for what is still uncovered;
//! the [`dictionary`] of constants from the code and texts as tokens feed both;
//! [`generate`] runs the phases and its [`kept`] calls are distilled ([`distil`]), [`shrink`] minimizes failing inputs, and
//! [`worker`] runs it all in crash-proof child processes. A target no system
//! test called starts from values [`borrowed`] from the others' calls, and
//! targets whose reaches share a function leave it to one of them ([`owners`]).

pub mod borrowed;
pub mod dictionary;
pub mod distil;
pub mod generate;
pub mod goal_set;
pub mod kept;
pub mod grammar;
pub mod mine;
pub mod moves;
pub mod owners;
pub mod repeats;
pub mod sealed;
pub mod search;
pub mod shape;
pub mod shrink;
#[cfg(test)]
mod testing;
pub mod worker;
