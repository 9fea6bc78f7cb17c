//! A target whose logic sits in an `Iterator::next` that only std calls
//! (`count()`): no call site names it, and the system test's call never
//! enters it, so it is outside the target's reach when generation starts.

/// How many `#tags` in `text` name carve (`#carve`); texts without a `#`
/// are not looked at.
#[cfg_attr(feature = "carve", carve::target)]
pub fn carve_tags(text: &str) -> usize {
    if !text.contains('#') {
        return 0;
    }
    Tags { rest: text }.filter(|tag| *tag).count()
}

/// The words of a text, as whether each is the tag `#carve`.
struct Tags<'a> {
    rest: &'a str,
}

#[cfg_attr(feature = "carve", carve::instrument)]
impl Iterator for Tags<'_> {
    type Item = bool;

    fn next(&mut self) -> Option<bool> {
        let text = self.rest.trim_start();
        if text.is_empty() {
            return None;
        }
        let end = text.find(' ').unwrap_or(text.len());
        let (word, rest) = text.split_at(end);
        self.rest = rest;
        let Some(tag) = word.strip_prefix('#') else {
            return Some(false);
        };
        if tag == "carve" {
            return Some(true);
        }
        Some(false)
    }
}
