//! Tokens over a borrowed byte slice with absolute offsets.

use crate::error::{Error, Result};

/// PDF whitespace: NUL, TAB, LF, FF, CR, SPACE.
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, 0 | 9 | 10 | 12 | 13 | 32)
}

/// PDF delimiters.
pub(crate) fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Neither whitespace nor a delimiter.
pub(crate) fn is_regular(b: u8) -> bool {
    !is_ws(b) && !is_delim(b)
}

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token<'a> {
    Int(i64),
    Real(f64),
    Str(Vec<u8>),
    Name(Vec<u8>),
    ArrayOpen,
    ArrayClose,
    DictOpen,
    DictClose,
    /// Any other run of regular characters (`obj`, `R`, `true`, ...).
    Keyword(&'a [u8]),
    /// The end of the bytes (only when they are complete).
    Eof,
}

/// A tokenizer over `buf`, whose first byte is at absolute offset `base`.
///
/// When `complete` is false the slice is a prefix of more data: a token
/// that touches its end gives an end-of-data error (see `Error::is_eof`)
/// so the caller can retry with more bytes.
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    complete: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(buf: &'a [u8], base: u64, complete: bool) -> Lexer<'a> {
        Lexer {
            buf,
            pos: 0,
            base,
            complete,
        }
    }

    /// Current position relative to the slice.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (relative to the slice).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.buf.len());
    }

    /// Absolute offset of the current position.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Absolute offset of the slice start.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The whole slice.
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }

    /// True when the slice is the end of the data.
    pub fn complete(&self) -> bool {
        self.complete
    }

    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    fn end_error(&self) -> Error {
        if self.complete {
            Error::malformed(self.offset(), "unexpected end of data")
        } else {
            Error::eof(self.offset())
        }
    }

    /// Skips whitespace and comments.
    pub fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if is_ws(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next token.
    pub fn next(&mut self) -> Result<Token<'a>> {
        self.skip_ws();
        let start = self.pos;
        let Some(b) = self.peek() else {
            return if self.complete {
                Ok(Token::Eof)
            } else {
                Err(Error::eof(self.offset()))
            };
        };
        match b {
            b'[' => {
                self.pos += 1;
                Ok(Token::ArrayOpen)
            }
            b']' => {
                self.pos += 1;
                Ok(Token::ArrayClose)
            }
            b'{' | b'}' => {
                self.pos += 1;
                Ok(Token::Keyword(
                    self.buf.get(start..self.pos).unwrap_or_default(),
                ))
            }
            b'(' => self.literal_string(),
            b'<' => match self.buf.get(self.pos + 1) {
                Some(b'<') => {
                    self.pos += 2;
                    Ok(Token::DictOpen)
                }
                None if !self.complete => Err(Error::eof(self.offset())),
                _ => self.hex_string(),
            },
            b'>' => match self.buf.get(self.pos + 1) {
                Some(b'>') => {
                    self.pos += 2;
                    Ok(Token::DictClose)
                }
                None if !self.complete => Err(Error::eof(self.offset())),
                _ => Err(Error::malformed(self.offset(), "stray '>'")),
            },
            b')' => Err(Error::malformed(self.offset(), "stray ')'")),
            b'/' => self.name(),
            _ => self.regular(),
        }
    }

    /// A run of regular characters: a number or a keyword.
    fn regular(&mut self) -> Result<Token<'a>> {
        let start = self.pos;
        while self.peek().is_some_and(is_regular) {
            self.pos += 1;
        }
        if self.pos == self.buf.len() && !self.complete {
            return Err(Error::eof(self.offset()));
        }
        let run = self.buf.get(start..self.pos).unwrap_or_default();
        Ok(parse_number(run).unwrap_or(Token::Keyword(run)))
    }

    fn name(&mut self) -> Result<Token<'a>> {
        self.pos += 1;
        let mut out = Vec::new();
        while let Some(b) = self.peek() {
            if !is_regular(b) {
                break;
            }
            if b == b'#' {
                let h = self.buf.get(self.pos + 1..self.pos + 3);
                match h.and_then(|h| Some(hex_val(*h.first()?)? << 4 | hex_val(*h.get(1)?)?)) {
                    Some(v) => {
                        out.push(v);
                        self.pos += 3;
                        continue;
                    }
                    None if h.is_none_or(|h| h.len() < 2) && !self.complete => {
                        return Err(Error::eof(self.offset()));
                    }
                    None => {}
                }
            }
            out.push(b);
            self.pos += 1;
        }
        if self.pos == self.buf.len() && !self.complete {
            return Err(Error::eof(self.offset()));
        }
        Ok(Token::Name(out))
    }

    fn hex_string(&mut self) -> Result<Token<'a>> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.end_error());
            };
            self.pos += 1;
            if b == b'>' {
                break;
            }
            let Some(v) = hex_val(b) else {
                continue; // whitespace and junk are ignored
            };
            match hi.take() {
                Some(h) => out.push(h << 4 | v),
                None => hi = Some(v),
            }
        }
        if let Some(h) = hi {
            out.push(h << 4);
        }
        Ok(Token::Str(out))
    }

    fn literal_string(&mut self) -> Result<Token<'a>> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut depth = 1usize;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.end_error());
            };
            self.pos += 1;
            match b {
                b'(' => {
                    depth += 1;
                    out.push(b);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(b);
                }
                b'\\' => self.escape(&mut out)?,
                b'\r' => {
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                    }
                    out.push(b'\n');
                }
                _ => out.push(b),
            }
        }
        Ok(Token::Str(out))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let Some(c) = self.peek() else {
            return Err(self.end_error());
        };
        self.pos += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'\r' => {
                if self.peek() == Some(b'\n') {
                    self.pos += 1;
                }
            }
            b'\n' => {}
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            _ => out.push(c),
        }
        Ok(())
    }
}

/// The value of a hex digit.
pub(crate) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Parses a number token leniently (`+5`, `-.5`, `5.`, `--5`); `None` when
/// the run is not a number.
pub(crate) fn parse_number(run: &[u8]) -> Option<Token<'_>> {
    let mut i = 0;
    let mut neg = false;
    while let Some(&c) = run.get(i) {
        match c {
            b'-' => neg = !neg,
            b'+' => {}
            _ => break,
        }
        i += 1;
    }
    let digits = run.get(i..)?;
    if digits.is_empty() {
        return None;
    }
    let mut int: i64 = 0;
    let mut overflow = false;
    let mut seen_dot = false;
    let mut any_digit = false;
    let mut frac = 0.0f64;
    let mut scale = 1.0f64;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                any_digit = true;
                let d = i64::from(c - b'0');
                if seen_dot {
                    scale /= 10.0;
                    frac += d as f64 * scale;
                } else {
                    match int.checked_mul(10).and_then(|v| v.checked_add(d)) {
                        Some(v) => int = v,
                        None => overflow = true,
                    }
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => return None,
        }
    }
    if !any_digit {
        return if seen_dot {
            Some(Token::Real(0.0))
        } else {
            None
        };
    }
    if !seen_dot && !overflow {
        return Some(Token::Int(if neg { -int } else { int }));
    }
    let text = std::str::from_utf8(digits).ok()?;
    let v: f64 = if overflow {
        text.parse().ok()?
    } else {
        int as f64 + frac
    };
    Some(Token::Real(if neg { -v } else { v }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &[u8]) -> Vec<Token<'_>> {
        let mut lx = Lexer::new(s, 0, true);
        let mut v = Vec::new();
        loop {
            match lx.next().unwrap() {
                Token::Eof => return v,
                t => v.push(t),
            }
        }
    }

    #[test]
    fn tokens() {
        let t = all(b"<< /A#20b 12 -3.5 .5 +7 (a(b)\\)\\101\\\n) <41 4> [true] >> % c\n R");
        assert_eq!(
            t,
            vec![
                Token::DictOpen,
                Token::Name(b"A b".to_vec()),
                Token::Int(12),
                Token::Real(-3.5),
                Token::Real(0.5),
                Token::Int(7),
                Token::Str(b"a(b))A".to_vec()),
                Token::Str(b"A@".to_vec()),
                Token::ArrayOpen,
                Token::Keyword(b"true"),
                Token::ArrayClose,
                Token::DictClose,
                Token::Keyword(b"R"),
            ]
        );
    }

    #[test]
    fn incomplete_slices_ask_for_more() {
        let mut lx = Lexer::new(b"<< /Ab", 100, false);
        assert_eq!(lx.next().unwrap(), Token::DictOpen);
        let e = lx.next().unwrap_err();
        assert!(e.is_eof());
        let mut lx = Lexer::new(b"(abc", 100, true);
        let e = lx.next().unwrap_err();
        assert!(!e.is_eof());
        assert_eq!(e.offset(), Some(104));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number(b"--5"), Some(Token::Int(5)));
        assert_eq!(
            parse_number(b"99999999999999999999"),
            Some(Token::Real(1e20))
        );
        assert_eq!(parse_number(b"1.2.3"), None);
        assert_eq!(parse_number(b"abc"), None);
        assert_eq!(parse_number(b"-"), None);
    }
}
