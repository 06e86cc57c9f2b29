//! The incremental update (ISO 32000-1 §7.5.6): changed and new objects
//! plus one cross-reference section appended after the original bytes.

use super::commit::{self, Faults, Target, UpdateReport};
use super::ser::{self, Entry};
use crate::doc::Pdf;
use crate::error::{Error, Result};
use crate::object::{Dict, ObjRef, Object};
use crate::xref::{XrefEntry, XrefKind};
use ream_io::ErrorKind;
use std::collections::BTreeMap;
use std::path::Path;

/// The body of an object the update writes.
#[derive(Debug, Clone)]
enum Body {
    /// A non-stream object (or a stream of the original file, whose raw
    /// data is copied).
    Object(Object),
    /// A new stream: dictionary (without `/Length`) and data as stored.
    Stream(Dict, Vec<u8>),
}

/// An incremental update being built: objects to replace or add and Info
/// entries to set. Nothing is written until [`Update::write_to`] or
/// [`Update::write_in_place`]; the original bytes are never changed.
///
/// ```no_run
/// # fn main() -> ream_pdf::Result<()> {
/// let pdf = ream_pdf::Pdf::open("in.pdf", &ream_pdf::PdfOptions::new())?;
/// let mut u = pdf.update();
/// u.set_info("Title", "Annual report");
/// u.write_to("out.pdf")?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Update<'a> {
    pdf: &'a Pdf,
    objects: BTreeMap<u32, (u16, Body)>,
    info: Vec<(Vec<u8>, Object)>,
    next: u32,
}

/// The bytes of one appended revision and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct RevisionBytes {
    pub bytes: Vec<u8>,
    pub kind: XrefKind,
    pub objects: usize,
}

impl Pdf {
    /// Starts an incremental update of this document.
    pub fn update(&self) -> Update<'_> {
        let st = self.read_state();
        let max_num = st.entries.max_num().unwrap_or(0);
        let size = st
            .trailer
            .int(b"Size")
            .and_then(|s| u32::try_from(s).ok())
            .unwrap_or(0);
        Update {
            pdf: self,
            objects: BTreeMap::new(),
            info: Vec::new(),
            next: size.max(max_num.saturating_add(1)).max(1),
        }
    }
}

impl<'a> Update<'a> {
    /// Sets Info entry `key` (name without the slash) to the text `value`
    /// (PDFDocEncoding when printable ASCII, else UTF-16BE).
    pub fn set_info(&mut self, key: &str, value: &str) -> &mut Self {
        self.set_info_object(key, ser::text_string(value))
    }

    /// Sets Info entry `key` to any value (a name for `/Trapped`, a date
    /// string, ...). `Object::Null` removes the entry.
    pub fn set_info_object(&mut self, key: &str, value: Object) -> &mut Self {
        let key = key.trim_start_matches('/').as_bytes().to_vec();
        self.info.retain(|(k, _)| *k != key);
        self.info.push((key, value));
        self
    }

    /// Replaces object `r` (its generation is kept). A stream read from this
    /// document (`Object::Stream`) is written with its raw data copied.
    pub fn set_object(&mut self, r: ObjRef, o: Object) -> &mut Self {
        self.objects.insert(r.num, (r.generation, Body::Object(o)));
        self.next = self.next.max(r.num.saturating_add(1));
        self
    }

    /// Replaces object `r` by a stream with dictionary `dict` (its
    /// `/Length` is set) and `data` as stored (already encoded for the
    /// filters `dict` names).
    pub fn set_stream(&mut self, r: ObjRef, dict: Dict, data: Vec<u8>) -> &mut Self {
        self.objects
            .insert(r.num, (r.generation, Body::Stream(dict, data)));
        self.next = self.next.max(r.num.saturating_add(1));
        self
    }

    /// Adds a new object; returns its reference.
    pub fn add_object(&mut self, o: Object) -> ObjRef {
        let r = ObjRef::new(self.next, 0);
        self.set_object(r, o);
        r
    }

    /// Adds a new stream (see [`Update::set_stream`]); returns its reference.
    pub fn add_stream(&mut self, dict: Dict, data: Vec<u8>) -> ObjRef {
        let r = ObjRef::new(self.next, 0);
        self.set_stream(r, dict, data);
        r
    }

    /// True when nothing has been set.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty() && self.info.is_empty()
    }

    /// Writes the original bytes plus the new revision to a temporary file
    /// next to `path`, fsyncs it and renames it over `path` (which may be
    /// the original file: it is replaced atomically). On any failure the
    /// temporary file is removed and `path` is untouched.
    pub fn write_to(&self, path: impl AsRef<Path>) -> Result<UpdateReport> {
        self.write_with(Target::Copy(path.as_ref()), &Faults::default())
    }

    /// Appends the new revision to the file the document was opened from,
    /// under an exclusive lock; on any failure the file is truncated back
    /// to its original length. Refuses when the file changed since it was
    /// opened.
    pub fn write_in_place(&self) -> Result<UpdateReport> {
        let path = self.pdf.path().ok_or_else(|| {
            Error::new(
                ErrorKind::Usage,
                "in-place update needs a document opened from a file",
            )
        })?;
        self.write_with(Target::InPlace(path), &Faults::default())
    }

    /// [`Update::write_to`] or [`Update::write_in_place`] with injected
    /// failures (for crash-safety tests).
    #[doc(hidden)]
    pub fn write_with_faults(&self, path: Option<&Path>, faults: &Faults) -> Result<UpdateReport> {
        match path {
            Some(p) => self.write_with(Target::Copy(p), faults),
            None => {
                let p = self
                    .pdf
                    .path()
                    .ok_or_else(|| Error::new(ErrorKind::Usage, "in-place update needs a file"))?;
                self.write_with(Target::InPlace(p), faults)
            }
        }
    }

    fn write_with(&self, target: Target<'_>, faults: &Faults) -> Result<UpdateReport> {
        let rev = self.revision_bytes()?;
        commit::commit(self.pdf, target, &rev, faults)
    }

    /// The bytes this update appends after the original file.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(self.revision_bytes()?.bytes)
    }

    pub(crate) fn revision_bytes(&self) -> Result<RevisionBytes> {
        let pdf = self.pdf;
        if pdf.is_locked() {
            return Err(pdf.locked_error("cannot update"));
        }
        let Some((prev, newest_kind)) = pdf.newest_xref() else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the cross-reference data was rebuilt by scanning: an incremental update would chain to broken data; rewrite the file instead",
            ));
        };
        if pdf.was_repaired() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the file needed repair: an incremental update would keep the broken data; rewrite the file instead",
            ));
        }
        if self.is_empty() {
            return Err(Error::new(ErrorKind::Usage, "nothing to update"));
        }
        let mut objects = self.objects.clone();
        let mut next = self.next;
        let mut trailer = pdf.trailer();
        if !self.info.is_empty() {
            self.apply_info(&mut objects, &mut next, &mut trailer)?;
        }

        let base = pdf.len();
        let mut out = Vec::new();
        // Start on a line of our own when the file does not end with an EOL.
        let last = pdf
            .reader
            .src_with(base.saturating_sub(1), 1, <[u8]>::to_vec)?;
        if !matches!(last.last(), Some(b'\n' | b'\r')) {
            out.push(b'\n');
        }
        let mut entries: Vec<(u32, Entry)> = Vec::with_capacity(objects.len() + 1);
        for (&num, (generation, body)) in &objects {
            let r = ObjRef::new(num, *generation);
            let at = base + out.len() as u64;
            entries.push((num, Entry::InFile(at, *generation)));
            if let Some(c) = &pdf.crypt
                && c.encrypt_ref.is_none_or(|e| e.num != num)
            {
                encrypted_object(pdf, c, &mut out, r, body)?;
                continue;
            }
            match body {
                Body::Object(Object::Stream(s)) => {
                    let (_, len) = pdf.stream_range(s)?;
                    ser::stream_head(&mut out, r, &s.dict, len);
                    pdf.stream_chunks(s, 1 << 20, &mut |b| {
                        out.extend_from_slice(b);
                        Ok(())
                    })?;
                    out.extend_from_slice(ser::STREAM_TAIL);
                }
                Body::Object(o) => ser::plain_object(&mut out, r, o),
                Body::Stream(d, data) => ser::stream_object(&mut out, r, d, data),
            }
        }
        let max_entry = pdf.read_state().entries.max_num().unwrap_or(0);
        let old_size = trailer
            .int(b"Size")
            .and_then(|s| u32::try_from(s).ok())
            .unwrap_or(0);
        let mut size = old_size
            .max(max_entry.saturating_add(1))
            .max(next)
            .max(objects.keys().last().map_or(0, |n| n.saturating_add(1)));

        let mut t = Dict::new();
        for key in [&b"Root"[..], b"Info", b"Encrypt"] {
            if let Some(v) = trailer.get(key) {
                t.insert(key.to_vec(), v.clone());
            }
        }
        if let Some(Object::Array(id)) = trailer.get(b"ID")
            && let Some(first) = id.first()
        {
            t.insert(
                b"ID".to_vec(),
                Object::Array(vec![first.clone(), Object::String(ser::id_bytes(&out))]),
            );
        }
        t.insert(b"Prev".to_vec(), Object::Int(prev as i64));

        let kind = match newest_kind {
            XrefKind::Stream => XrefKind::Stream,
            XrefKind::Table | XrefKind::Hybrid => XrefKind::Table,
        };
        let xref_at = base + out.len() as u64;
        match kind {
            XrefKind::Stream => {
                let num = size;
                size = size.saturating_add(1);
                entries.push((num, Entry::InFile(xref_at, 0)));
                entries.sort_by_key(|(n, _)| *n);
                let (mut d, data) = ser::xref_stream_rows(&entries);
                d.insert(b"Size".to_vec(), Object::Int(i64::from(size)));
                for (k, v) in t.iter() {
                    d.insert(k.to_vec(), v.clone());
                }
                ser::stream_object(&mut out, ObjRef::new(num, 0), &d, &data);
            }
            _ => {
                entries.sort_by_key(|(n, _)| *n);
                ser::xref_table(&mut out, &entries);
                t.insert(b"Size".to_vec(), Object::Int(i64::from(size)));
                out.extend_from_slice(b"trailer\n");
                ser::push_object(&mut out, &Object::Dict(t));
                out.push(b'\n');
            }
        }
        ser::startxref(&mut out, xref_at);
        Ok(RevisionBytes {
            bytes: out,
            kind,
            objects: objects.len(),
        })
    }

    /// Folds the Info changes into `objects` and `trailer`: the Info object
    /// is replaced (or created when the trailer has none or a direct one).
    fn apply_info(
        &self,
        objects: &mut BTreeMap<u32, (u16, Body)>,
        next: &mut u32,
        trailer: &mut Dict,
    ) -> Result<()> {
        let pdf = self.pdf;
        let (target, mut dict) = match trailer.get(b"Info").cloned() {
            Some(Object::Ref(r)) => {
                let d = match objects.get(&r.num) {
                    Some((_, Body::Object(Object::Dict(d)))) => Some(d.clone()),
                    _ => match pdf.object(r) {
                        Ok(Object::Dict(d)) => Some(d),
                        _ => None,
                    },
                };
                match d {
                    Some(d) => {
                        let generation = match pdf.xref_entry(r.num) {
                            Some(XrefEntry::InFile { generation, .. }) => generation,
                            _ => r.generation,
                        };
                        (ObjRef::new(r.num, generation), d)
                    }
                    None => (ObjRef::new(*next, 0), Dict::new()),
                }
            }
            Some(Object::Dict(d)) => (ObjRef::new(*next, 0), d),
            _ => (ObjRef::new(*next, 0), Dict::new()),
        };
        for (k, v) in &self.info {
            if *v == Object::Null {
                dict.remove(k);
            } else {
                dict.insert(k.clone(), v.clone());
            }
        }
        if target.num == *next {
            *next = next.saturating_add(1);
        }
        objects.insert(
            target.num,
            (target.generation, Body::Object(Object::Dict(dict))),
        );
        trailer.insert(b"Info".to_vec(), Object::Ref(target));
        Ok(())
    }
}

/// Writes object `r` of an encrypted document: its strings encrypted with
/// the object's key, a stream's data decrypted from where it was read
/// (unless it is the same object) and encrypted for `r` (AES with a fresh
/// IV).
fn encrypted_object(
    pdf: &Pdf,
    c: &crate::crypt::Crypt,
    out: &mut Vec<u8>,
    r: ObjRef,
    body: &Body,
) -> Result<()> {
    let resolve = |o: &Object| pdf.resolve(o).unwrap_or(Object::Null);
    match body {
        Body::Object(Object::Stream(s)) if s.object == Some(r) => {
            let mut d = Object::Dict(s.dict.clone());
            c.encrypt_object(r, r.num, &mut d)?;
            let Object::Dict(d) = d else { return Ok(()) };
            let (_, len) = pdf.stream_range(s)?;
            ser::stream_head(out, r, &d, len);
            pdf.stream_chunks(s, 1 << 20, &mut |b| {
                out.extend_from_slice(b);
                Ok(())
            })?;
            out.extend_from_slice(ser::STREAM_TAIL);
        }
        Body::Object(Object::Stream(s)) => {
            let data = pdf.stream_data(s, false)?;
            encrypted_stream(c, out, r, &s.dict, &data, &resolve)?;
        }
        Body::Object(o) => {
            let mut o = o.clone();
            c.encrypt_object(r, r.num, &mut o)?;
            ser::plain_object(out, r, &o);
        }
        Body::Stream(d, data) => encrypted_stream(c, out, r, d, data, &resolve)?,
    }
    Ok(())
}

/// A stream object `r` whose `data` (as stored, in the clear) and
/// dictionary strings are encrypted.
pub(crate) fn encrypted_stream(
    c: &crate::crypt::Crypt,
    out: &mut Vec<u8>,
    r: ObjRef,
    dict: &Dict,
    data: &[u8],
    resolve: &dyn Fn(&Object) -> Object,
) -> Result<()> {
    let m = c.stream_method(dict, resolve)?;
    let data = c.encrypt_data(r, m, data)?;
    let mut d = Object::Dict(dict.clone());
    c.encrypt_object(r, r.num, &mut d)?;
    let Object::Dict(d) = d else { return Ok(()) };
    ser::stream_object(out, r, &d, &data);
    Ok(())
}
