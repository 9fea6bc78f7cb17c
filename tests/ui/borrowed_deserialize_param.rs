// roxmltree 0.21.2's `Error`: it derives both serde traits, but a
// `&'static str` field makes it `Deserialize<'static>` only.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Error {
    InvalidString(&'static str, u32),
    NoRootNode,
}

#[carve::target]
impl Error {
    pub fn pos(&self) -> u32 {
        match self {
            Error::InvalidString(_, pos) => *pos,
            Error::NoRootNode => 0,
        }
    }
}

fn main() {}
