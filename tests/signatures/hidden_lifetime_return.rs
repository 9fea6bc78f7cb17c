// ascii 1.1's `AsciiStr::chars_mut(&mut self) -> CharsMut`: the returned
// type borrows `self` through a lifetime its spelling elides, which syntax
// cannot tell from an owned `-> Owned`. Both compile, and both record the
// state of `self` after the call (taken from a replay of the arguments,
// since nothing may read `self` while a `CharsMut` is alive).
#![allow(unknown_lints, mismatched_lifetime_syntaxes)]

use carve::_internals::carving::record;
use carve::_internals::value::text::to_ron;

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Text {
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
pub struct CharsMut<'a> {
    pub inner: std::slice::IterMut<'a, u8>,
}

#[derive(Debug)]
pub struct Len {
    pub n: usize,
}

#[carve::target]
impl Text {
    pub fn chars_mut(&mut self) -> CharsMut {
        CharsMut {
            inner: self.bytes.iter_mut(),
        }
    }

    pub fn push(&mut self, b: u8) -> Len {
        self.bytes.push(b);
        Len {
            n: self.bytes.len(),
        }
    }
}

pub fn main() {
    record::start();
    record::record_test("t", || {
        let mut text = Text { bytes: vec![1] };
        for b in text.chars_mut().inner {
            *b += 1;
        }
        assert_eq!(text.push(7).n, 2);
    });
    let recordings = record::stop();
    let afters: Vec<(String, String)> = recordings[0]
        .calls
        .iter()
        .filter_map(|c| {
            let after = c.observation.after.as_ref().and_then(|a| to_ron(a).ok());
            let after = after.unwrap_or_default().replace(char::is_whitespace, "");
            Some((
                crate::in_module(module_path!(), &c.target.name())?.to_owned(),
                after,
            ))
        })
        .collect();
    assert_eq!(
        afters,
        [
            (
                "Text::chars_mut".to_owned(),
                "(self:Text(bytes:[1,],),)".to_owned()
            ),
            (
                "Text::push".to_owned(),
                "(self:Text(bytes:[2,7,],),)".to_owned()
            ),
        ],
        "{afters:#?}"
    );
}
