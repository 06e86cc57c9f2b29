//! Objects from tokens: direct objects and `N G obj ... endobj`.

use crate::error::{Error, Result};
use crate::lexer::{Lexer, Token};
use crate::object::{Dict, ObjRef, Object, Stream};

/// Parses objects from a [`Lexer`] with a nesting limit.
pub(crate) struct Parser<'a> {
    pub lx: Lexer<'a>,
    max_depth: usize,
}

impl<'a> Parser<'a> {
    pub fn new(lx: Lexer<'a>, max_depth: usize) -> Parser<'a> {
        Parser { lx, max_depth }
    }

    /// One direct object (a reference `N G R` included).
    pub fn object(&mut self) -> Result<Object> {
        let at = self.lx.offset();
        let t = self.lx.next()?;
        self.object_from(t, at, 0)
    }

    fn object_from(&mut self, t: Token<'a>, at: u64, depth: usize) -> Result<Object> {
        Ok(match t {
            Token::Int(i) => self.maybe_ref(i)?,
            Token::Real(r) => Object::Real(r),
            Token::Str(s) => Object::String(s),
            Token::Name(n) => Object::Name(n),
            Token::ArrayOpen => self.array(at, depth + 1)?,
            Token::DictOpen => Object::Dict(self.dict(at, depth + 1)?),
            Token::Keyword(b"true") => Object::Bool(true),
            Token::Keyword(b"false") => Object::Bool(false),
            Token::Keyword(b"null") => Object::Null,
            Token::Keyword(k) => {
                return Err(Error::malformed(
                    at,
                    format!("unexpected keyword {:?}", String::from_utf8_lossy(k)),
                ));
            }
            Token::ArrayClose | Token::DictClose => {
                return Err(Error::malformed(at, "unexpected closing delimiter"));
            }
            Token::Eof => return Err(Error::malformed(at, "unexpected end of data")),
        })
    }

    /// After an integer: `N G R` is a reference, otherwise the integer.
    fn maybe_ref(&mut self, num: i64) -> Result<Object> {
        let save = self.lx.pos();
        let r = (|| -> Result<Option<ObjRef>> {
            let Token::Int(generation) = self.lx.next()? else {
                return Ok(None);
            };
            if self.lx.next()? != Token::Keyword(b"R") {
                return Ok(None);
            }
            match (u32::try_from(num), u16::try_from(generation)) {
                (Ok(n), Ok(g)) => Ok(Some(ObjRef::new(n, g))),
                _ => Ok(None),
            }
        })();
        match r {
            Ok(Some(r)) => Ok(Object::Ref(r)),
            Err(e) if e.is_eof() => Err(e),
            _ => {
                self.lx.seek(save);
                Ok(Object::Int(num))
            }
        }
    }

    fn check_depth(&self, at: u64, depth: usize) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::limit(format!(
                "objects nested deeper than max_nesting ({})",
                self.max_depth
            ))
            .at(at));
        }
        Ok(())
    }

    fn array(&mut self, at: u64, depth: usize) -> Result<Object> {
        self.check_depth(at, depth)?;
        let mut v = Vec::new();
        loop {
            let here = self.lx.offset();
            match self.lx.next()? {
                Token::ArrayClose => return Ok(Object::Array(v)),
                // `>>` inside an array: the array was never closed; end it
                // here and let the enclosing dictionary take the `>>`.
                Token::DictClose if depth > 1 => {
                    self.lx.seek(self.lx.pos() - 2);
                    return Ok(Object::Array(v));
                }
                Token::Eof => return Err(Error::malformed(at, "unterminated array")),
                Token::Keyword(k @ (b"endobj" | b"obj" | b"stream" | b"endstream")) => {
                    let k = String::from_utf8_lossy(k).into_owned();
                    return Err(Error::malformed(
                        here,
                        format!("unterminated array before {k}"),
                    ));
                }
                // Junk tokens inside an array read as null (as qpdf and
                // pdf.js recover).
                Token::Keyword(k) if !matches!(k, b"true" | b"false" | b"null") => {
                    v.push(Object::Null)
                }
                t => v.push(self.object_from(t, here, depth)?),
            }
        }
    }

    fn dict(&mut self, at: u64, depth: usize) -> Result<Dict> {
        self.check_depth(at, depth)?;
        let mut d = Dict::new();
        loop {
            let here = self.lx.offset();
            match self.lx.next()? {
                Token::DictClose => return Ok(d),
                Token::Name(key) => {
                    let vat = self.lx.offset();
                    match self.lx.next()? {
                        Token::DictClose => {
                            d.insert(key, Object::Null);
                            return Ok(d);
                        }
                        Token::Keyword(k)
                            if !matches!(
                                k,
                                b"true"
                                    | b"false"
                                    | b"null"
                                    | b"endobj"
                                    | b"obj"
                                    | b"stream"
                                    | b"endstream"
                            ) =>
                        {
                            d.insert(key, Object::Null);
                        }
                        t => {
                            let v = self.object_from(t, vat, depth)?;
                            d.insert(key, v);
                        }
                    }
                }
                Token::Eof => return Err(Error::malformed(at, "unterminated dictionary")),
                Token::Keyword(k @ (b"endobj" | b"obj" | b"stream" | b"endstream")) => {
                    let k = String::from_utf8_lossy(k).into_owned();
                    return Err(Error::malformed(
                        here,
                        format!("unterminated dictionary before {k}"),
                    ));
                }
                // Junk where a key belongs: skip it (as pdf.js does).
                Token::ArrayOpen | Token::DictOpen => {
                    return Err(Error::malformed(here, "dictionary key is not a name"));
                }
                _ => {}
            }
        }
    }
}

/// Parses `N G obj <object> [endobj]` at the start of `buf` (absolute
/// offset `base`). Leading whitespace is skipped. A stream's data offset is
/// recorded, its data is not read. `complete` tells whether `buf` runs to
/// the end of the file.
pub(crate) fn parse_indirect(
    buf: &[u8],
    base: u64,
    complete: bool,
    max_depth: usize,
) -> Result<(ObjRef, Object)> {
    let mut p = Parser::new(Lexer::new(buf, base, complete), max_depth);
    let at = p.lx.offset();
    let (Token::Int(num), Token::Int(generation), Token::Keyword(b"obj")) =
        (p.lx.next()?, p.lx.next()?, p.lx.next()?)
    else {
        return Err(Error::malformed(at, "expected 'N G obj'"));
    };
    let (Ok(num), Ok(generation)) = (u32::try_from(num), u16::try_from(generation)) else {
        return Err(Error::malformed(at, "object number out of range"));
    };
    let r = ObjRef::new(num, generation);
    let obj = body(&mut p).map_err(|e| e.in_object(r))?;
    Ok((r, obj))
}

/// The object after `N G obj`, and a stream's data offset.
fn body(p: &mut Parser<'_>) -> Result<Object> {
    let at = p.lx.offset();
    let t = p.lx.next()?;
    if let Token::Keyword(b"endobj") = t {
        return Ok(Object::Null);
    }
    let obj = p.object_from(t, at, 0)?;
    let Object::Dict(dict) = obj else {
        return Ok(obj);
    };
    let save = p.lx.pos();
    match p.lx.next() {
        Ok(Token::Keyword(b"stream")) => {}
        Err(e) if e.is_eof() => return Err(e),
        _ => {
            p.lx.seek(save);
            return Ok(Object::Dict(dict));
        }
    }
    // The data starts after CRLF or LF (a lone CR is tolerated; so are
    // spaces before the EOL).
    let buf = p.lx.buf();
    let mut i = p.lx.pos();
    while buf.get(i) == Some(&b' ') {
        i += 1;
    }
    match (buf.get(i), buf.get(i + 1)) {
        (Some(b'\r'), Some(b'\n')) => i += 2,
        (Some(b'\r'), None) if !p.lx.complete() => return Err(Error::eof(p.lx.base() + i as u64)),
        (Some(b'\r' | b'\n'), _) => i += 1,
        (None, _) if !p.lx.complete() => return Err(Error::eof(p.lx.base() + i as u64)),
        _ => {}
    }
    Ok(Object::Stream(Box::new(Stream {
        dict,
        data_offset: p.lx.base() + i as u64,
        object: None,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &[u8]) -> Result<Object> {
        Parser::new(Lexer::new(s, 0, true), 8).object()
    }

    #[test]
    fn objects_and_refs() {
        let o = one(b"<< /Kids [1 0 R 2 0 R 3] /N 4 0 /X >>").unwrap();
        let d = o.as_dict().unwrap();
        assert_eq!(
            d.get(b"Kids").unwrap().as_array().unwrap(),
            &[
                Object::Ref(ObjRef::new(1, 0)),
                Object::Ref(ObjRef::new(2, 0)),
                Object::Int(3)
            ]
        );
        assert_eq!(d.get(b"N"), Some(&Object::Int(4)));
        assert_eq!(d.get(b"X"), Some(&Object::Null));
        assert_eq!(o.to_string(), "<< /Kids [1 0 R 2 0 R 3] /N 4 /X null >>");
    }

    #[test]
    fn depth_limit() {
        let e = one(b"[[[[[[[[[[[[1]]]]]]]]]]]]").unwrap_err();
        assert_eq!(e.kind(), ream_io::ErrorKind::LimitExceeded);
        assert!(one(b"[[[[1]]]]").is_ok());
    }

    #[test]
    fn indirect_stream() {
        let b = b"  7 0 obj\n<< /Length 3 >>\nstream\r\nabc\nendstream endobj";
        let (r, o) = parse_indirect(b, 1000, true, 8).unwrap();
        assert_eq!(r, ObjRef::new(7, 0));
        assert_eq!(o.as_stream().unwrap().data_offset, 1000 + 34);
        let e = parse_indirect(&b[..20], 1000, false, 8).unwrap_err();
        assert!(e.is_eof());
        let e = parse_indirect(b"x 0 obj", 50, true, 8).unwrap_err();
        assert_eq!(e.offset(), Some(50));
    }
}
