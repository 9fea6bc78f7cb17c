//! `cgi_decode` from the code-coverage chapter, with its bug kept: a `%` at
//! the end of the input reads past the end and panics.

use serde::{Deserialize, Serialize};

/// Why a CGI-encoded string does not decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DecodeError {
    /// `%` not followed by two hex digits.
    InvalidEncoding,
}

/// Decodes `+` as space and `%xx` as the character with hex code `xx`.
#[carve::target]
pub fn cgi_decode(s: &str) -> Result<String, DecodeError> {
    let chars: Vec<char> = s.chars().collect();
    let mut t = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '+' {
            t.push(' ');
        } else if c == '%' {
            // The chapter's bug: no check that two more characters follow.
            let (digit_high, digit_low) = (chars[i + 1], chars[i + 2]);
            i += 2;
            match (digit_high.to_digit(16), digit_low.to_digit(16)) {
                (Some(high), Some(low)) => {
                    t.push(char::from_u32(high * 16 + low).unwrap_or('\u{fffd}'))
                }
                _ => return Err(DecodeError::InvalidEncoding),
            }
        } else {
            t.push(c);
        }
        i += 1;
    }
    Ok(t)
}

/// An untouched copy of [`cgi_decode`], the baseline of the benchmark.
#[allow(dead_code)] // used by benches/carve.rs, which includes this module
pub fn cgi_decode_plain(s: &str) -> Result<String, DecodeError> {
    let chars: Vec<char> = s.chars().collect();
    let mut t = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '+' {
            t.push(' ');
        } else if c == '%' {
            let (digit_high, digit_low) = (chars[i + 1], chars[i + 2]);
            i += 2;
            match (digit_high.to_digit(16), digit_low.to_digit(16)) {
                (Some(high), Some(low)) => {
                    t.push(char::from_u32(high * 16 + low).unwrap_or('\u{fffd}'))
                }
                _ => return Err(DecodeError::InvalidEncoding),
            }
        } else {
            t.push(c);
        }
        i += 1;
    }
    Ok(t)
}
