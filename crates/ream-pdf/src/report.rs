//! The reports tools print about a PDF, as JSON documents: what
//! `ream pdf info --json` and `ream pdf update --json` print and what the
//! Python package returns as dicts, built in one place.

use crate::{InfoValue, Pdf, Result, UpdateReport, Warning};
use serde_json::{Value, json};

/// What `ream pdf info` reports about a document: the page count, the
/// Info entries and the XMP packet, each read separately so one failing
/// does not hide the others.
#[derive(Debug)]
pub struct InfoReport {
    /// The page count: `/Count`, or the pages found by walking the tree
    /// when [`verified`](Self::verified).
    pub pages: Result<u64>,
    /// True when the page tree was walked instead of trusting `/Count`.
    pub verified: bool,
    /// The Info dictionary's entries, in file order.
    pub info: Result<Vec<(String, InfoValue)>>,
    /// The XMP packet, if any (`Ok(None)` for an encrypted file that could
    /// not be decrypted).
    pub xmp: Result<Option<Vec<u8>>>,
}

impl InfoReport {
    /// Reads the page count (walking the tree when `verify_pages`), the
    /// Info entries and the XMP packet of `pdf`.
    pub fn new(pdf: &Pdf, verify_pages: bool) -> InfoReport {
        let pages = if verify_pages {
            pdf.pages().map(|p| p.len() as u64)
        } else {
            pdf.page_count()
        };
        let xmp = if pdf.is_locked() { Ok(None) } else { pdf.xmp() };
        InfoReport {
            pages,
            verified: verify_pages,
            info: pdf.info(),
            xmp,
        }
    }

    /// The JSON document of `ream pdf info --json` for `pdf` named `file`:
    /// file, bytes, version, pages (null when unreadable), pages_verified,
    /// encrypted, encryption (null for a clear file; else handler, v, r,
    /// key_bits, stream_method, string_method, encrypt_metadata,
    /// permissions, opened_with and error), repaired, objects, info (null
    /// when unreadable; texts as strings, names as `/Name`), xmp_bytes
    /// (null without XMP), revisions and warnings.
    pub fn to_json(&self, pdf: &Pdf, file: &str) -> Value {
        let pages = match &self.pages {
            Ok(n) => json!(n),
            Err(_) => Value::Null,
        };
        let info = match &self.info {
            Ok(i) => Value::Object(i.iter().map(|(k, v)| (k.clone(), info_json(v))).collect()),
            Err(_) => Value::Null,
        };
        json!({
            "file": file,
            "bytes": pdf.len(),
            "version": pdf.version(),
            "pages": pages,
            "pages_verified": self.verified,
            "encrypted": pdf.is_encrypted(),
            "encryption": pdf.encryption().map(encryption_json),
            "repaired": pdf.was_repaired(),
            "objects": pdf.object_numbers().len(),
            "info": info,
            "xmp_bytes": self.xmp.as_ref().ok().and_then(|x| x.as_ref().map(Vec::len)),
            "revisions": revisions_json(pdf),
            "warnings": warnings_json(&pdf.warnings()),
        })
    }
}

/// An Info value as JSON: texts as strings, names as `/Name`, booleans
/// and numbers as themselves.
fn info_json(v: &InfoValue) -> Value {
    match v {
        InfoValue::Text(s) | InfoValue::Other(s) => json!(s),
        InfoValue::Name(n) => json!(format!("/{n}")),
        InfoValue::Bool(b) => json!(b),
        InfoValue::Int(i) => json!(i),
        InfoValue::Real(r) => json!(r),
    }
}

/// The encryption summary as JSON.
pub fn encryption_json(e: &crate::Encryption) -> Value {
    json!({
        "handler": e.handler,
        "v": e.v,
        "r": e.r,
        "key_bits": e.key_bits,
        "stream_method": e.stream_method,
        "string_method": e.string_method,
        "encrypt_metadata": e.encrypt_metadata,
        "permissions": e.permissions,
        "opened_with": e.opened_with,
        "error": e.error,
    })
}

fn warnings_json(w: &[Warning]) -> Value {
    Value::Array(w.iter().map(|w| json!(w.to_string())).collect())
}

fn revisions_json(pdf: &Pdf) -> Value {
    Value::Array(
        pdf.revisions()
            .iter()
            .map(|r| {
                json!({"number": r.number, "xref_offset": r.xref_offset, "kind": r.kind.as_str(),
                       "start": r.start, "size": r.size(), "objects": r.objects})
            })
            .collect(),
    )
}

/// The JSON document of `ream pdf update --json`: file, original_bytes,
/// appended_bytes, objects, xref, in_place, copy (the copy method, null
/// in place) and `seconds`, the time the write took.
pub fn update_json(rep: &UpdateReport, seconds: f64) -> Value {
    json!({
        "file": rep.path.display().to_string(),
        "original_bytes": rep.original_len,
        "appended_bytes": rep.appended,
        "objects": rep.objects,
        "xref": rep.xref_kind.as_str(),
        "in_place": rep.in_place,
        "copy": rep.copy.map(|m| m.as_str()),
        "seconds": seconds,
    })
}

/// An Info key as [`Update::set_info`](crate::Update::set_info) takes it:
/// `key` without surrounding blanks and without a leading `/`; `None`
/// when that leaves nothing or a blank inside.
pub fn info_key(key: &str) -> Option<&str> {
    let k = key.trim().trim_start_matches('/');
    (!k.is_empty() && !k.bytes().any(|b| b.is_ascii_whitespace())).then_some(k)
}

#[cfg(test)]
mod tests {
    #[test]
    fn info_keys() {
        assert_eq!(super::info_key(" /Title "), Some("Title"));
        assert_eq!(super::info_key("/"), None);
        assert_eq!(super::info_key("My Key"), None);
    }
}
