// Shapes of httparse 1.10.1 that must compile with carve's attributes on
// them: methods of a borrowing block, skipped and instrumented, whose
// bodies keep a reborrow of an argument for the argument's lifetime
// (`Request::parse_with_uninit_headers` stores its `headers` in `self`),
// and a crate's own one-argument `Result<T>` whose `Ok` is not `T`
// (`type Result<T> = Result<Status<T>, Error>`, returned as
// `Result<(usize, &[Header])>` by `parse_headers`).
use std::fmt;

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub len: u8,
}

#[derive(Debug)]
pub struct Request<'h> {
    pub headers: &'h mut [Header],
}

fn keep<'h>(headers: &'h mut [Header]) -> &'h mut [Header] {
    headers
}

fn shrink(headers: &mut &mut [Header]) -> usize {
    headers.len()
}

#[carve::target]
impl<'h> Request<'h> {
    pub fn parse_with(&mut self, buf: &[u8], mut headers: &'h mut [Header]) -> usize {
        let n = shrink(&mut headers);
        self.headers = keep(headers);
        if buf.is_empty() {
            0
        } else {
            n
        }
    }

    pub fn reset(&mut self, headers: &'h mut [Header]) {
        self.headers = keep(headers);
    }
}

#[carve::instrument]
pub fn fill<'h>(request: &mut Request<'h>, mut headers: &'h mut [Header]) -> bool {
    let n = shrink(&mut headers);
    request.headers = keep(headers);
    n > 0
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Status<T> {
    Complete(T),
    Partial,
}

#[derive(Debug)]
pub struct Error;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid")
    }
}

pub type Result<T> = std::result::Result<Status<T>, Error>;

#[carve::target]
pub fn parse_pair(src: &[u8]) -> Result<(usize, u64)> {
    match src.first() {
        Some(&b) if b > 9 => Err(Error),
        Some(&b) => Ok(Status::Complete((src.len(), u64::from(b)))),
        None => Ok(Status::Partial),
    }
}

#[carve::target]
pub fn parse_maybe(src: &[u8]) -> Result<Option<u8>> {
    Ok(Status::Complete(src.first().copied()))
}

pub fn main() {
    let mut first = [Header { len: 1 }];
    let mut request = Request {
        headers: &mut first,
    };
    let mut more = [Header { len: 2 }, Header { len: 3 }];
    assert_eq!(request.parse_with(b"x", &mut more), 2);
    let mut other = [Header { len: 4 }];
    assert!(fill(&mut request, &mut other));
    let mut last = [];
    request.reset(&mut last);
    assert!(request.headers.is_empty());
    assert!(matches!(
        parse_pair(b"\x02ab"),
        Ok(Status::Complete((3, 2)))
    ));
    assert!(matches!(parse_maybe(b""), Ok(Status::Complete(None))));
}
