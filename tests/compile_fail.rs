//! Every compile error carve's attributes emit, with its expected message
//! (`tests/ui/*.stderr`; regenerate with `TRYBUILD=overwrite`). The
//! signatures of real crates that must compile are `tests/signatures/`.

#[test]
fn unsupported_items_are_compile_errors_that_name_the_parameter() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
