//! Every compile error carve's attributes emit, with its expected message
//! (`tests/ui/*.stderr`; regenerate with `TRYBUILD=overwrite`).

#[test]
fn unsupported_items_are_compile_errors_that_name_the_parameter() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
