// roxmltree 0.21.2's `Error`: it derives both serde traits, but a
// `&'static str` field makes it `Deserialize<'static>` only. Marked by hand:
// unmarked, in a block with none marked, it is skipped (ui pass
// `uncarvable_methods_skipped`).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Error {
    InvalidString(&'static str, u32),
    NoRootNode,
}

#[carve::target]
impl Error {
    #[carve::target]
    pub fn pos(&self) -> u32 {
        match self {
            Error::InvalidString(_, pos) => *pos,
            Error::NoRootNode => 0,
        }
    }
}

fn main() {}
