// `carve::_macro_support` lists what macro output names, and nothing more:
// carve's internals (here the coverage report) cannot be named through it.
use carve::_macro_support::cov::report::Report;

fn main() {}
