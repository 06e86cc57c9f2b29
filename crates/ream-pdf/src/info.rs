//! The Info dictionary and XMP metadata.

use crate::doc::Pdf;
use crate::error::Result;
use crate::object::Object;
use crate::text::decode_text;

/// One value of the Info dictionary.
#[derive(Debug, Clone, PartialEq)]
pub enum InfoValue {
    /// A text string, decoded (UTF-16BE, UTF-8 or PDFDocEncoding).
    Text(String),
    /// A name (such as `/Trapped /True`), without the slash.
    Name(String),
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// Anything else, in PDF syntax.
    Other(String),
}

impl std::fmt::Display for InfoValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InfoValue::Text(s) | InfoValue::Other(s) => f.write_str(s),
            InfoValue::Name(n) => write!(f, "/{n}"),
            InfoValue::Bool(b) => write!(f, "{b}"),
            InfoValue::Int(i) => write!(f, "{i}"),
            InfoValue::Real(r) => write!(f, "{r}"),
        }
    }
}

impl Pdf {
    /// The Info dictionary's entries in file order (keys without the
    /// slash); empty when the trailer has no usable `/Info`.
    /// Strings of an encrypted document are decrypted; `Encrypted` when it
    /// could not be (see [`Pdf::is_locked`]).
    pub fn info(&self) -> Result<Vec<(String, InfoValue)>> {
        if self.is_locked() {
            return Err(self.locked_error("the Info strings"));
        }
        let Some(i) = self.trailer().get(b"Info").cloned() else {
            return Ok(Vec::new());
        };
        let Object::Dict(d) = self.resolve(&i)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let v = match v {
                Object::Ref(_) => self.resolve(v).unwrap_or(Object::Null),
                v => v.clone(),
            };
            let value = match v {
                Object::String(s) => InfoValue::Text(decode_text(&s)),
                Object::Name(n) => InfoValue::Name(String::from_utf8_lossy(&n).into_owned()),
                Object::Bool(b) => InfoValue::Bool(b),
                Object::Int(n) => InfoValue::Int(n),
                Object::Real(r) => InfoValue::Real(r),
                other => InfoValue::Other(other.to_string()),
            };
            out.push((String::from_utf8_lossy(k).into_owned(), value));
        }
        Ok(out)
    }

    /// The raw XMP packet (`/Metadata` stream of the catalog, decoded),
    /// or `None`.
    pub fn xmp(&self) -> Result<Option<Vec<u8>>> {
        let Some(m) = self.catalog()?.get(b"Metadata").cloned() else {
            return Ok(None);
        };
        match self.resolve(&m)? {
            Object::Stream(s) => self.stream_data(&s, true).map(Some),
            _ => Ok(None),
        }
    }
}
