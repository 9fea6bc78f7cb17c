// A generic impl block carved at a type with an elided lifetime (bs58's
// `impl<'a, I: AsRef<[u8]>> DecodeBuilder<'a, I>` at `generics(I = &str)`):
// its receiver is named `Builder<'static, &'static str>` in carved values,
// where `&str` alone does not compile (E0106), and read from leaked text,
// as the receivers of lifetime-generic blocks are (its `Deserialize`
// borrows the `&str`).
use std::borrow::Cow;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Builder<'a, I: AsRef<[u8]>> {
    input: I,
    #[serde(borrow)]
    alphabet: Cow<'a, str>,
}

impl<I: AsRef<[u8]>> Builder<'static, I> {
    pub fn new(input: I) -> Self {
        Builder {
            input,
            alphabet: Cow::Borrowed("0123456789"),
        }
    }
}

#[carve::target(generics(I = &str), generics(I = Vec<u8>))]
impl<'a, I: AsRef<[u8]>> Builder<'a, I> {
    pub fn with_alphabet(self, alphabet: &'a str) -> Builder<'a, I> {
        Builder {
            alphabet: Cow::Borrowed(alphabet),
            ..self
        }
    }

    pub fn into_digits(self) -> Vec<usize> {
        let input = self.input.as_ref();
        input
            .iter()
            .filter_map(|b| self.alphabet.bytes().position(|a| a == *b))
            .collect()
    }
}

pub fn main() {
    assert_eq!(Builder::new("19").into_digits(), vec![1, 9]);
    assert_eq!(
        Builder::new(b"ba".to_vec())
            .with_alphabet("ab")
            .into_digits(),
        vec![1, 0]
    );
}
