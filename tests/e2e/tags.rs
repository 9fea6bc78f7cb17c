//! Text-form receivers, on the `tags/` fixture (a language-tag parser as in
//! language-tags 0.3.2, where generation stalled on `extension` and
//! `is_language_range`): a receiver is derived from the texts carved for
//! any target that takes its type, and a word of it may be any word of a
//! length the carved words have.

use crate::Project;

/// `is_range` was called only on `en`: a private-use section, which no
/// token move makes from `en` alone, comes from the `en-Latn-x-priv` carved
/// for the other methods. An extension, which no carved text has, is then
/// one move away (a word of length one: `en-Latn-a-priv`).
#[test]
fn a_receiver_takes_the_texts_carved_for_its_type() {
    let p = Project::of("tags", "tags");
    p.record().assert_success();
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    run.assert_success();
    let is_range = run.generation_line("Tag::is_range");
    assert!(
        is_range.contains("branch coverage 2/4 -> 4/4"),
        "{is_range}"
    );
    let extension = run.generation_line("Tag::extension");
    assert!(
        extension.contains("branch coverage 1/2 -> 2/2"),
        "{extension}"
    );
    let file = p.read("carved/Tag/extension.ron");
    assert!(file.contains("Returned(Some("), "{file}");
}
