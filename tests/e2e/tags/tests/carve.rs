use tags::Tag;

#[carve::system_test]
fn reads_sections_of_tags() {
    let tag: Tag = "en-Latn-x-priv".parse().unwrap();
    assert_eq!(tag.private_use(), Some("priv"));
    assert_eq!(tag.extension(), None);
    assert!("en".parse::<Tag>().unwrap().is_range());
    assert!("en-".parse::<Tag>().is_err());
}

carve::main!();
