// The instrumented twin of a body runs in a closure: an assignment to a
// field of `self` that a later one overwrites warned there ("value assigned
// to `*self.length` is never read") where the crate's own build does not
// (data-encoding 2.11.1's `Encoder::append`). Denied here, so the warning
// fails the test.
#![deny(warnings)]

pub struct Encoder {
    buffer: Vec<u8>,
    length: u8,
}

#[carve::instrument]
impl Encoder {
    pub fn append(&mut self, input: &[u8]) {
        if self.length != 0 {
            self.buffer.push(self.length);
            self.length = 0;
        }
        self.buffer.extend_from_slice(input);
        self.length = input.len() as u8;
    }

    pub fn total(&mut self, input: &[u8]) -> usize {
        if self.length != 0 {
            self.length = 0;
        }
        self.length = input.len() as u8;
        self.buffer.len()
    }
}

/// Hands out what it captured (data-encoding's `Encoder::new`): the twin's
/// closure must stay `FnOnce`.
pub struct Appender<'a> {
    output: &'a mut String,
}

#[carve::instrument]
impl<'a> Appender<'a> {
    pub fn new(output: &'a mut String) -> Self {
        if output.is_empty() {
            output.push('>');
        }
        Appender { output }
    }
}

pub fn main() {
    let mut text = String::new();
    Appender::new(&mut text).output.push('a');
    assert_eq!(text, ">a");
    let mut encoder = Encoder {
        buffer: Vec::new(),
        length: 0,
    };
    encoder.append(b"ab");
    assert_eq!(encoder.total(b"c"), 2);
}
