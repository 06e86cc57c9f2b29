//! The full rewrite ("save as"): live objects renumbered compactly and
//! written front to back through one large aligned buffer, optionally
//! packing small objects into object streams, optionally unbuffered.

use super::commit::temp_path;
use super::ser::{self, Entry};
use super::sink::SeqWriter;
use crate::crypt::Crypt;
use crate::doc::Pdf;
use crate::error::{Error, Result, Warning};
use crate::object::{Dict, ObjRef, Object};
use ream_io::ErrorKind;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// How [`Pdf::rewrite`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewriteOptions {
    /// Pack non-stream objects into compressed object streams (and end
    /// with an xref stream). Default false: plain objects and a classic
    /// xref table.
    pub object_streams: bool,
    /// Objects per object stream. Default 100.
    pub objects_per_stream: usize,
    /// zlib level (0-9) for object streams and the xref stream. Default 6.
    pub compression: u32,
    /// Write unbuffered (`O_DIRECT`, Linux): for one-pass output that would
    /// otherwise flood the page cache. Falls back, with a warning, where
    /// the filesystem refuses. Default false.
    pub direct_io: bool,
    /// Output buffer (one write per full buffer), rounded up to 4 KiB.
    /// Default 4 MiB.
    pub buffer_size: usize,
    /// Fsync the file before renaming it into place. Default true; turn
    /// off only for scratch output.
    pub sync: bool,
    /// Write an encrypted document in the clear (no `/Encrypt`). Default
    /// false: the copy keeps the encryption (same `/Encrypt`, `/ID` and
    /// key; every string and stream encrypted again for its new number).
    pub decrypt: bool,
}

impl Default for RewriteOptions {
    fn default() -> RewriteOptions {
        RewriteOptions {
            object_streams: false,
            objects_per_stream: 100,
            compression: 6,
            direct_io: false,
            buffer_size: 4 << 20,
            sync: true,
            decrypt: false,
        }
    }
}

/// What a rewrite wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteReport {
    /// The file written.
    pub path: PathBuf,
    /// Its length.
    pub bytes: u64,
    /// Live objects written (object streams and the xref stream excluded).
    pub objects: u64,
    /// Object streams written.
    pub object_streams: u64,
    /// Streams whose data was copied.
    pub streams: u64,
    /// Write calls issued.
    pub writes: u64,
    /// True when the file was written unbuffered to the end.
    pub direct_io: bool,
    /// Fallbacks and objects that could not be read (written as null).
    pub warnings: Vec<String>,
}

/// Objects waiting to be packed: (new number, text).
#[derive(Default)]
struct Batch {
    items: Vec<(u32, Vec<u8>)>,
}

/// Largest non-stream object packed into an object stream.
const MAX_PACKED: usize = 256 << 10;

impl Pdf {
    /// Writes a compact copy of the document to `path`: only objects
    /// reachable from the trailer (`/Root`, `/Info`), renumbered from 1 in
    /// the order they are reached, streams copied as stored, one
    /// cross-reference section. Written to a temporary file in the same
    /// folder, fsynced and renamed over `path`. An encrypted document keeps
    /// its encryption unless [`RewriteOptions::decrypt`]; one that could not
    /// be decrypted is refused (`Encrypted`).
    pub fn rewrite(&self, path: impl AsRef<Path>, opts: &RewriteOptions) -> Result<RewriteReport> {
        if self.is_locked() {
            return Err(self.locked_error("cannot rewrite"));
        }
        let dest = path.as_ref();
        let tmp = temp_path(dest);
        let result = self.rewrite_to(&tmp, dest, opts);
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }

    fn rewrite_to(&self, tmp: &Path, dest: &Path, opts: &RewriteOptions) -> Result<RewriteReport> {
        let mut w = SeqWriter::create(tmp, opts.buffer_size, opts.direct_io)?;
        let mut version = match self.version() {
            "" => "1.4".to_string(),
            v => v.to_string(),
        };
        if opts.object_streams && version.as_str() < "1.5" {
            version = "1.5".to_string();
        }
        w.put(format!("%PDF-{version}\n%\u{e2}\u{e3}\u{cf}\u{d3}\n").as_bytes())?;

        let mut map: HashMap<u32, u32> = HashMap::new();
        let mut queue: VecDeque<ObjRef> = VecDeque::new();
        // entries[n] is where new object n went; 0 is the free head.
        let mut entries: Vec<Entry> = vec![Entry::Free];
        let assign = |r: ObjRef,
                      map: &mut HashMap<u32, u32>,
                      queue: &mut VecDeque<ObjRef>,
                      entries: &mut Vec<Entry>|
         -> ObjRef {
            let n = *map.entry(r.num).or_insert_with(|| {
                queue.push_back(r);
                entries.push(Entry::Free);
                (entries.len() - 1) as u32
            });
            ObjRef::new(n, 0)
        };

        let old_trailer = self.trailer();
        let mut trailer = Dict::new();
        // The encryption kept, and the old number of the /Encrypt object.
        let keep = if opts.decrypt {
            None
        } else {
            self.crypt.as_ref()
        };
        // Old numbers of the /Encrypt dictionary and the objects it refers
        // to (its crypt filters): written in the clear, never packed into
        // an object stream (a reader needs them before it can decrypt).
        let mut clear_old: HashSet<u32> = self
            .crypt
            .as_ref()
            .and_then(|c| c.encrypt_ref)
            .map(|r| r.num)
            .into_iter()
            .collect();
        let resolve = |o: &Object| self.resolve(o).unwrap_or(Object::Null);
        let keys: &[&[u8]] = if keep.is_some() {
            &[b"Root", b"Info", b"Encrypt"]
        } else {
            &[b"Root", b"Info"]
        };
        for &key in keys {
            match old_trailer.get(key) {
                Some(Object::Ref(r)) => {
                    let nr = assign(*r, &mut map, &mut queue, &mut entries);
                    trailer.insert(key.to_vec(), Object::Ref(nr));
                }
                Some(o @ Object::Dict(_)) => {
                    // A direct Info: keep it, with its references renumbered.
                    let mut o = o.clone();
                    ser::map_refs(&mut o, &mut |r| {
                        assign(r, &mut map, &mut queue, &mut entries)
                    });
                    trailer.insert(key.to_vec(), o);
                }
                _ => {}
            }
        }
        if trailer.get(b"Root").is_none() {
            return Err(Error::new(
                ErrorKind::Malformed,
                "trailer has no /Root: nothing to rewrite",
            ));
        }
        if let Some(id @ Object::Array(_)) = old_trailer.get(b"ID") {
            trailer.insert(b"ID".to_vec(), id.clone());
        }

        let mut report = RewriteReport {
            path: dest.to_path_buf(),
            bytes: 0,
            objects: 0,
            object_streams: 0,
            streams: 0,
            writes: 0,
            direct_io: false,
            warnings: Vec::new(),
        };
        let per_stream = opts.objects_per_stream.max(1);
        let mut batch = Batch::default();
        let mut text = Vec::new();
        while let Some(old) = queue.pop_front() {
            let new = map.get(&old.num).copied().unwrap_or(0);
            let nr = ObjRef::new(new, 0);
            let mut obj = match self.object(old) {
                Ok(o) => o,
                Err(e)
                    if e.kind() == ErrorKind::Malformed || e.kind() == ErrorKind::LimitExceeded =>
                {
                    report.warnings.push(
                        Warning::from_error(
                            &format!("object {old} unreadable, written as null"),
                            &e,
                        )
                        .to_string(),
                    );
                    Object::Null
                }
                Err(e) => return Err(e),
            };
            report.objects += 1;
            let is_encrypt_dict = clear_old.contains(&old.num);
            if is_encrypt_dict {
                ser::map_refs(&mut obj.clone(), &mut |r| {
                    clear_old.insert(r.num);
                    r
                });
            }
            if let Object::Stream(s) = &mut obj
                && self.crypt.is_some()
            {
                // Decrypted from its old number, encrypted for its new one.
                let data = self.stream_data(s, false)?;
                let method = match keep {
                    Some(c) if !is_encrypt_dict => Some(c.stream_method(&s.dict, &resolve)?),
                    _ => None,
                };
                if keep.is_none() {
                    // Written in the clear: a /Crypt filter would name a
                    // crypt filter the copy no longer has.
                    crate::crypt::strip_crypt_filter(&mut s.dict, &resolve);
                }
                s.dict.remove(b"Length");
                let mut o = Object::Dict(std::mem::take(&mut s.dict));
                ser::map_refs(&mut o, &mut |r| {
                    assign(r, &mut map, &mut queue, &mut entries)
                });
                let data = match (keep, method) {
                    (Some(c), Some(m)) => {
                        c.encrypt_object(nr, old.num, &mut o)?;
                        c.encrypt_data(nr, m, &data)?
                    }
                    _ => data,
                };
                let Object::Dict(dict) = o else { continue };
                if let Some(slot) = entries.get_mut(new as usize) {
                    *slot = Entry::InFile(w.pos(), 0);
                }
                text.clear();
                ser::stream_object(&mut text, nr, &dict, &data);
                w.put(&text)?;
                report.streams += 1;
                continue;
            }
            if let Object::Stream(s) = &mut obj {
                let range = self.stream_range(s);
                s.dict.remove(b"Length");
                let mut o = Object::Dict(std::mem::take(&mut s.dict));
                ser::map_refs(&mut o, &mut |r| {
                    assign(r, &mut map, &mut queue, &mut entries)
                });
                let Object::Dict(dict) = o else { continue };
                if let Some(slot) = entries.get_mut(new as usize) {
                    *slot = Entry::InFile(w.pos(), 0);
                }
                text.clear();
                match range {
                    Ok((off, len)) => {
                        ser::stream_head(&mut text, nr, &dict, len);
                        w.put(&text)?;
                        self.raw_chunks(off, len, 1 << 20, &mut |b| w.put(b))?;
                    }
                    Err(e) => {
                        report.warnings.push(
                            Warning::from_error(
                                &format!("stream {old} data unreadable, written empty"),
                                &e,
                            )
                            .to_string(),
                        );
                        ser::stream_head(&mut text, nr, &dict, 0);
                        w.put(&text)?;
                    }
                }
                w.put(ser::STREAM_TAIL)?;
                report.streams += 1;
                continue;
            }
            ser::map_refs(&mut obj, &mut |r| {
                assign(r, &mut map, &mut queue, &mut entries)
            });
            text.clear();
            if opts.object_streams && !is_encrypt_dict {
                ser::push_object(&mut text, &obj);
                if text.len() <= MAX_PACKED {
                    batch.items.push((new, std::mem::take(&mut text)));
                    if batch.items.len() >= per_stream {
                        flush_batch(&mut w, &mut batch, &mut entries, opts, keep)?;
                        report.object_streams += 1;
                    }
                    continue;
                }
                text.clear();
            }
            if let Some(slot) = entries.get_mut(new as usize) {
                *slot = Entry::InFile(w.pos(), 0);
            }
            if let Some(c) = keep
                && !is_encrypt_dict
            {
                c.encrypt_object(nr, old.num, &mut obj)?;
            }
            ser::plain_object(&mut text, nr, &obj);
            w.put(&text)?;
        }
        if !batch.items.is_empty() {
            flush_batch(&mut w, &mut batch, &mut entries, opts, keep)?;
            report.object_streams += 1;
        }

        // The cross-reference section.
        let xref_at = w.pos();
        text.clear();
        if opts.object_streams {
            let num = entries.len() as u32;
            entries.push(Entry::InFile(xref_at, 0));
            let rows: Vec<(u32, Entry)> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| (i as u32, *e))
                .collect();
            let (mut d, data) = ser::xref_stream_rows(&rows);
            d.insert(b"Size".to_vec(), Object::Int(entries.len() as i64));
            for (k, v) in trailer.iter() {
                d.insert(k.to_vec(), v.clone());
            }
            ser::stream_object(&mut text, ObjRef::new(num, 0), &d, &data);
        } else {
            let rows: Vec<(u32, Entry)> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| (i as u32, *e))
                .collect();
            ser::xref_table(&mut text, &rows);
            trailer.insert(b"Size".to_vec(), Object::Int(entries.len() as i64));
            text.extend_from_slice(b"trailer\n");
            ser::push_object(&mut text, &Object::Dict(trailer));
            text.push(b'\n');
        }
        ser::startxref(&mut text, xref_at);
        w.put(&text)?;
        let (bytes, warnings, writes, direct) = w.finish(opts.sync)?;
        std::fs::rename(tmp, dest)?;
        if opts.sync {
            let _ = ream_io::fs::sync_parent_dir(dest);
        }
        report.bytes = bytes;
        report.writes = writes;
        report.direct_io = direct;
        report.warnings.extend(warnings);
        Ok(report)
    }
}

/// Writes the pending objects as one object stream (encrypted as a whole
/// when `crypt` is given).
fn flush_batch(
    w: &mut SeqWriter,
    batch: &mut Batch,
    entries: &mut Vec<Entry>,
    opts: &RewriteOptions,
    crypt: Option<&Crypt>,
) -> Result<()> {
    let num = entries.len() as u32;
    entries.push(Entry::InFile(w.pos(), 0));
    let mut head = Vec::new();
    let mut body = Vec::new();
    for (i, (n, t)) in batch.items.iter().enumerate() {
        head.extend_from_slice(format!("{n} {} ", body.len()).as_bytes());
        body.extend_from_slice(t);
        body.push(b'\n');
        if let Some(slot) = entries.get_mut(*n as usize) {
            *slot = Entry::InStream(num, i as u32);
        }
    }
    head.push(b'\n');
    let first = head.len();
    head.extend_from_slice(&body);
    let mut data = ser::deflate(&head, opts.compression.min(9));
    let mut d = Dict::new();
    d.insert(b"Type".to_vec(), Object::Name(b"ObjStm".to_vec()));
    d.insert(b"N".to_vec(), Object::Int(batch.items.len() as i64));
    d.insert(b"First".to_vec(), Object::Int(first as i64));
    d.insert(b"Filter".to_vec(), Object::Name(b"FlateDecode".to_vec()));
    if let Some(c) = crypt {
        let m = c.stream_method(&d, &|o: &Object| o.clone())?;
        data = c.encrypt_data(ObjRef::new(num, 0), m, &data)?;
    }
    let mut out = Vec::with_capacity(data.len() + 128);
    ser::stream_object(&mut out, ObjRef::new(num, 0), &d, &data);
    w.put(&out)?;
    batch.items.clear();
    Ok(())
}
