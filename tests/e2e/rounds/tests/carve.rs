use rounds::carve_tags;

#[carve::system_test]
fn plain_text_has_no_tags() {
    assert_eq!(carve_tags("nothing to see"), 0);
}

carve::main!();
