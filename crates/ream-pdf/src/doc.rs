//! [`Pdf`]: opening, the merged xref index, lazy object resolution.

use crate::crypt::{self, Crypt, Encryption, Method};
use crate::error::{Error, Result, Warning};
use crate::filters;
use crate::index::Index;
use crate::object::{Dict, ObjRef, Object, Stream};
use crate::objstm::{Cache, ObjStm};
use crate::options::PdfOptions;
use crate::reader::Reader;
use crate::revisions::{Revision, revisions};
use crate::xref::{XrefEntry, XrefKind, chain, repair};
use ream_io::{ByteSource, Bytes, ErrorKind, IoCounters, MapSource, SourceKind, open_source};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// How many references may be followed while resolving one object
/// (`/Length` of an object stream pointing into another, ...).
const MAX_REF_DEPTH: u32 = 32;

/// An open PDF: objects are read lazily through the cross-reference index.
///
/// `Send + Sync`; every method takes `&self` (the index, the object stream
/// cache and the warnings sit behind locks). Opening reads the header, the
/// tail, the xref sections along `/Prev`, the catalog and the root of the
/// page tree, nothing else.
#[derive(Debug)]
pub struct Pdf {
    pub(crate) reader: Reader,
    pub(crate) opts: PdfOptions,
    version: String,
    state: RwLock<State>,
    cache: Mutex<Cache>,
    warnings: Mutex<Vec<Warning>>,
    dropped_warnings: AtomicU64,
    revisions: Vec<Revision>,
    encrypted: bool,
    /// What `/Encrypt` says and whether a password opened it.
    encryption: Option<Encryption>,
    /// The decryption state, when the document is encrypted and a password
    /// matched.
    pub(crate) crypt: Option<Crypt>,
    /// The file it was opened from (`None` for buffers and other sources).
    path: Option<PathBuf>,
    /// Offset and syntax of the newest xref section (`startxref`); `None`
    /// when the index was rebuilt from scratch.
    newest: Option<(u64, XrefKind)>,
}

/// The merged index and trailer (replaced as a whole by a repair).
#[derive(Debug, Default)]
pub(crate) struct State {
    pub entries: Index,
    pub trailer: Dict,
    pub repaired: bool,
    /// The object streams a repair found (indexed again once the document
    /// can be decrypted).
    pub objstms: Vec<u32>,
}

impl Pdf {
    /// Opens `path` with the byte source chosen in `opts`. A directory is
    /// an I/O error saying so.
    pub fn open(path: impl AsRef<Path>, opts: &PdfOptions) -> Result<Pdf> {
        let path = path.as_ref();
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(Error::new(ErrorKind::Io, "is a directory, not a PDF file"));
        }
        let src = open_source(path, &opts.source)?;
        let mut pdf = Pdf::from_source(src, opts)?;
        pdf.path = Some(path.to_path_buf());
        Ok(pdf)
    }

    /// Reads a PDF held in memory.
    pub fn from_bytes(bytes: Vec<u8>, opts: &PdfOptions) -> Result<Pdf> {
        Pdf::from_source(
            Arc::new(MapSource::from_bytes(Bytes::from_vec(bytes))),
            opts,
        )
    }

    /// Reads a PDF from any byte source.
    pub fn from_source(src: Arc<dyn ByteSource>, opts: &PdfOptions) -> Result<Pdf> {
        let reader = Reader {
            src,
            limits: opts.limits,
        };
        if reader.len() == 0 {
            return Err(Error::malformed(0, "empty file"));
        }
        let mut warnings = Vec::new();
        let version = header_version(&reader, opts.strict, &mut warnings)?;
        let loaded = chain::startxref(&reader).and_then(|s| chain::load(&reader, s, &mut warnings));
        let mut suspicious = false;
        let mut newest = None;
        let (state, revs) = match loaded {
            Ok((sections, looped)) => {
                suspicious = looped;
                newest = sections.first().map(|s| (s.offset, s.kind));
                let revs = revisions(&reader, &sections);
                (merge(&sections, opts.limits.max_objects)?, revs)
            }
            Err(e)
                if opts.strict
                    || e.kind() == ErrorKind::Io
                    || e.kind() == ErrorKind::LimitExceeded =>
            {
                return Err(e);
            }
            Err(e) => {
                warnings.push(Warning::from_error(
                    "cross-reference data unreadable, rebuilt by scanning",
                    &e,
                ));
                (State::default(), Vec::new())
            }
        };
        let needs_scan = state.entries.is_empty();
        let pdf = Pdf {
            reader,
            opts: *opts,
            version,
            state: RwLock::new(state),
            cache: Mutex::new(Cache::new(
                opts.limits.objstm_cache_bytes,
                opts.limits.objstm_cache_streams,
            )),
            warnings: Mutex::new(Vec::new()),
            dropped_warnings: AtomicU64::new(0),
            revisions: revs,
            encrypted: false,
            encryption: None,
            crypt: None,
            path: None,
            newest,
        };
        for w in warnings {
            pdf.warn(w);
        }
        if needs_scan {
            pdf.repair()?;
        }
        let mut pdf = pdf;
        let encrypted = pdf
            .read_state()
            .trailer
            .get(b"Encrypt")
            .is_some_and(|e| *e != Object::Null);
        pdf.encrypted = encrypted;
        if pdf.encrypted {
            let opened = pdf.open_encryption();
            pdf.encryption = Some(opened.info);
            pdf.crypt = opened.crypt;
            for w in opened.warnings {
                pdf.warn(Warning::new(w));
            }
            if pdf.crypt.is_none() && !opts.allow_encrypted {
                return Err(pdf.locked_error("the document is encrypted"));
            }
            if pdf.crypt.is_some() && pdf.read_state().repaired {
                pdf.index_objstms();
            }
        }
        if suspicious && !opts.strict && !pdf.read_state().repaired {
            pdf.repair()?;
        }
        if !pdf.has_page_tree() && !opts.strict && !pdf.read_state().repaired && !pdf.is_locked() {
            pdf.warn(Warning::new(
                "document catalog or page tree unreadable, xref rebuilt by scanning",
            ));
            pdf.repair()?;
        }
        if let Err(e) = pdf.catalog() {
            if opts.strict {
                return Err(e);
            }
            pdf.warn(Warning::from_error("no document catalog", &e));
        }
        pdf.find_sig_values();
        Ok(pdf)
    }

    pub(crate) fn read_state(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a warning (up to `max_warnings`; later ones are counted).
    pub(crate) fn warn(&self, w: Warning) {
        let mut v = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() < self.opts.limits.max_warnings {
            if !v.contains(&w) {
                v.push(w);
            }
        } else {
            self.dropped_warnings.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The warnings so far (repairs, lenient parses, lies found), plus one
    /// line counting those dropped past `max_warnings`.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut v = self
            .warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let dropped = self.dropped_warnings.load(Ordering::Relaxed);
        if dropped > 0 {
            v.push(Warning::new(format!("{dropped} more warnings not kept")));
        }
        v
    }

    /// The version in the `%PDF-x.y` header; `1.2` when there is no header
    /// (what qpdf and pikepdf report), empty when the header has no digits.
    /// The catalog's `/Version` is not applied.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// True when the trailer has `/Encrypt` (whether or not a password
    /// opened it).
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// True when the document is encrypted and could not be decrypted
    /// (wrong or missing password, unsupported handler: only possible with
    /// [`PdfOptions::allow_encrypted`]); strings stay encrypted and stream
    /// data is refused.
    pub fn is_locked(&self) -> bool {
        self.encrypted && self.crypt.is_none()
    }

    /// The encryption of an encrypted document: handler, V, R, key length,
    /// methods, and which password opened it or why none did.
    pub fn encryption(&self) -> Option<&Encryption> {
        self.encryption.as_ref()
    }

    /// The `Encrypted` error for `what` of a locked document, naming the
    /// handler, V and R and why it could not be decrypted.
    pub(crate) fn locked_error(&self, what: &str) -> Error {
        let why = self
            .encryption
            .as_ref()
            .and_then(|e| e.error.clone())
            .unwrap_or_else(|| "no usable /Encrypt dictionary".to_string());
        Error::new(
            ErrorKind::Encrypted,
            format!("{what}: cannot decrypt: {why}"),
        )
    }

    /// Reads `/Encrypt` (direct or indirect, never decrypted) and the first
    /// `/ID` string, and tries the passwords.
    fn open_encryption(&self) -> crypt::Opened {
        let trailer = self.trailer();
        let enc = trailer.get(b"Encrypt").cloned().unwrap_or(Object::Null);
        let enc_ref = enc.as_ref();
        let dict = match self.resolve(&enc) {
            Ok(Object::Dict(d)) => Ok(d),
            Ok(o) => Err(format!(
                "/Encrypt is a {}, not a dictionary {}",
                o.type_name(),
                crypt::encrypt_place(enc_ref)
            )),
            Err(e) => Err(format!(
                "/Encrypt unreadable: {e} {}",
                crypt::encrypt_place(enc_ref)
            )),
        };
        let dict = match dict {
            Ok(mut d) => {
                // /CF and the crypt filters in it may be indirect.
                if let Some(cf) = d.get(b"CF").cloned()
                    && let Ok(Object::Dict(mut cf)) = self.resolve(&cf)
                {
                    for v in cf.values_mut() {
                        if let Ok(o) = self.resolve(v) {
                            *v = o;
                        }
                    }
                    d.insert(b"CF".to_vec(), Object::Dict(cf));
                }
                d
            }
            Err(why) => {
                let info = Encryption {
                    handler: "?".to_string(),
                    v: 0,
                    r: 0,
                    key_bits: 0,
                    stream_method: String::new(),
                    string_method: String::new(),
                    encrypt_metadata: true,
                    permissions: 0,
                    opened_with: None,
                    error: Some(why),
                };
                return crypt::Opened {
                    info,
                    crypt: None,
                    warnings: Vec::new(),
                };
            }
        };
        let id0 = match trailer.get(b"ID") {
            Some(Object::Array(a)) => a
                .first()
                .and_then(Object::as_string)
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        crypt::open(&dict, enc_ref, &id0, self.opts.password.as_ref())
    }

    /// Records in the decryption state the objects that signature fields
    /// point at (their `/Contents` is stored in the clear), walking the
    /// form's field tree once.
    fn find_sig_values(&mut self) {
        if self.crypt.is_none() {
            return;
        }
        let Ok(root) = self.catalog() else { return };
        let resolve = |r: ObjRef| self.object(r).unwrap_or(Object::Null);
        let (found, stopped) = crypt::sig::sig_values(&root, &resolve);
        if stopped {
            self.warn(Warning::new(format!(
                "more than {} form fields: signature fields past them are not looked for, \
                 so a signature there without /Type /Sig may show its /Contents garbled",
                crypt::sig::MAX_FIELDS
            )));
        }
        if let Some(c) = self.crypt.as_mut() {
            c.sig_values = found;
        }
    }

    /// True when the index was rebuilt by scanning.
    pub fn was_repaired(&self) -> bool {
        self.read_state().repaired
    }

    /// File length in bytes.
    pub fn len(&self) -> u64 {
        self.reader.len()
    }

    /// True for an empty file (never: opening one fails).
    pub fn is_empty(&self) -> bool {
        self.reader.len() == 0
    }

    /// The revisions (xref sections) oldest first; empty after a repair
    /// from scratch.
    pub fn revisions(&self) -> &[Revision] {
        &self.revisions
    }

    /// The file this document was opened from (`None` for in-memory
    /// buffers and other byte sources).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Offset and syntax of the newest cross-reference section (the one
    /// `startxref` points at); `None` when the index was rebuilt by
    /// scanning from scratch.
    pub fn newest_xref(&self) -> Option<(u64, XrefKind)> {
        self.newest
    }

    /// The I/O counters of the byte source.
    pub fn io_counters(&self) -> IoCounters {
        self.reader.src.counters()
    }

    /// Which byte source reads the file.
    pub fn source_kind(&self) -> SourceKind {
        self.reader.src.kind()
    }

    /// Object stream cache hits and misses so far.
    pub fn objstm_cache_stats(&self) -> (u64, u64) {
        let c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        (c.hits, c.misses)
    }

    /// The merged trailer (newest section's keys, older ones filling gaps).
    pub fn trailer(&self) -> Dict {
        self.read_state().trailer.clone()
    }

    /// Where object `num` lives.
    pub fn xref_entry(&self, num: u32) -> Option<XrefEntry> {
        self.read_state().entries.get(&num).copied()
    }

    /// The numbers of all objects in use, ascending.
    pub fn object_numbers(&self) -> Vec<u32> {
        let st = self.read_state();
        let mut v: Vec<u32> = st
            .entries
            .iter()
            .filter(|(_, e)| *e != XrefEntry::Free)
            .map(|(n, _)| n)
            .collect();
        v.sort_unstable();
        v
    }

    /// The document catalog (`/Root`).
    pub fn catalog(&self) -> Result<Dict> {
        let root = self.read_state().trailer.get(b"Root").cloned();
        let root = root.ok_or_else(|| Error::new(ErrorKind::Malformed, "trailer has no /Root"))?;
        match self.resolve(&root)? {
            Object::Dict(d) => Ok(d),
            o => Err(Error::new(
                ErrorKind::Malformed,
                format!("/Root is a {}, not a dictionary", o.type_name()),
            )),
        }
    }

    /// True when the catalog's `/Pages` resolves to a dictionary.
    fn has_page_tree(&self) -> bool {
        self.catalog()
            .ok()
            .and_then(|c| c.get(b"Pages").cloned())
            .is_some_and(|p| self.resolve(&p).is_ok_and(|p| p.as_dict().is_some()))
    }

    /// Reads object `r` (by number; a generation mismatch is tolerated).
    /// Free and missing objects are `Null`. In lenient mode a malformed
    /// object makes the reader rebuild the index by scanning once and retry.
    pub fn object(&self, r: ObjRef) -> Result<Object> {
        let first = {
            let st = self.read_state();
            self.object_in(&st, r, 0)
        };
        match first {
            Err(e)
                if e.kind() == ErrorKind::Malformed
                    && !self.opts.strict
                    && !self.read_state().repaired =>
            {
                self.warn(Warning::from_error(
                    "object unreadable, xref rebuilt by scanning",
                    &e,
                ));
                self.repair()?;
                let st = self.read_state();
                self.object_in(&st, r, 0)
            }
            r => r,
        }
    }

    /// Follows references until a direct object.
    pub fn resolve(&self, o: &Object) -> Result<Object> {
        let mut cur = o.clone();
        for _ in 0..MAX_REF_DEPTH {
            match cur {
                Object::Ref(r) => cur = self.object(r)?,
                o => return Ok(o),
            }
        }
        Err(Error::new(
            ErrorKind::Malformed,
            "reference chain too long (a cycle?)",
        ))
    }

    /// The data of stream `s`: raw, or decoded through its filters (image
    /// codecs stay encoded: decoding stops at DCT/JPX/JBIG2/CCITT).
    ///
    /// In an encrypted document the data is decrypted first (`decoded`
    /// false gives the stored data decrypted, its filters not applied).
    pub fn stream_data(&self, s: &Stream, decoded: bool) -> Result<Vec<u8>> {
        if self.is_locked() {
            return Err(self.locked_error("stream data"));
        }
        let st = self.read_state();
        self.stream_in(&st, s, decoded, 0)
    }

    pub(crate) fn object_in(&self, st: &State, r: ObjRef, depth: u32) -> Result<Object> {
        if depth > MAX_REF_DEPTH {
            return Err(Error::new(
                ErrorKind::Malformed,
                "references nested too deep (a cycle?)",
            )
            .in_object(r));
        }
        match st.entries.get(&r.num).copied() {
            None | Some(XrefEntry::Free) => Ok(Object::Null),
            Some(XrefEntry::InFile { offset, .. }) => {
                let (got, mut obj) = self
                    .reader
                    .indirect_at(offset)
                    .map_err(|e| e.in_object(r))?;
                if got.num != r.num {
                    return Err(
                        Error::malformed(offset, format!("xref points at object {got}"))
                            .in_object(r),
                    );
                }
                if let Object::Stream(s) = &mut obj {
                    s.object = Some(got);
                }
                if let Some(c) = &self.crypt {
                    c.decrypt_object(got, &mut obj)
                        .map_err(|e| e.at(offset).in_object(r))?;
                }
                Ok(obj)
            }
            Some(XrefEntry::InStream { stream, index }) => {
                let s = self
                    .objstm(st, stream, depth + 1)
                    .map_err(|e| e.in_object(r))?;
                match s.object(r, index, self.opts.limits.max_nesting)? {
                    Some(o) => Ok(o),
                    None => {
                        self.warn(Warning {
                            object: Some(r),
                            ..Warning::new(format!(
                                "object stream {stream} does not hold this object"
                            ))
                        });
                        Ok(Object::Null)
                    }
                }
            }
        }
    }

    fn objstm(&self, st: &State, num: u32, depth: u32) -> Result<Arc<ObjStm>> {
        if let Some(s) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(num)
        {
            return Ok(s);
        }
        let o = Arc::new(self.objstm_uncached(st, num, depth)?);
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(num, Arc::clone(&o));
        Ok(o)
    }

    /// Decodes object stream `num` without touching the cache.
    pub(crate) fn objstm_uncached(&self, st: &State, num: u32, depth: u32) -> Result<ObjStm> {
        if !matches!(st.entries.get(&num), Some(XrefEntry::InFile { .. })) {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!(
                    "object stream {num} is not a stream in the file (compressed in itself or another)"
                ),
            ));
        }
        if self.is_locked() {
            return Err(self.locked_error("object streams"));
        }
        let Object::Stream(s) = self.object_in(st, ObjRef::new(num, 0), depth)? else {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("object stream {num} is not a stream"),
            ));
        };
        let n = s.dict.int(b"N").unwrap_or(0).max(0) as u64;
        let first = s.dict.int(b"First").unwrap_or(0).max(0) as usize;
        let data = self.stream_in(st, &s, true, depth)?;
        ObjStm::new(data, n, first, self.opts.limits.max_objstm_objects)
    }

    /// Where the raw data of stream `s` lies: `(offset, length)`, the
    /// declared `/Length` when `endstream` follows it, else the length
    /// found by scanning (with a warning).
    pub fn stream_range(&self, s: &Stream) -> Result<(u64, u64)> {
        let st = self.read_state();
        self.stream_range_in(&st, s, 0)
    }

    /// Runs `f` on consecutive chunks (at most `chunk` bytes each) of the
    /// raw data of stream `s`, without holding it all in memory.
    pub fn stream_chunks(
        &self,
        s: &Stream,
        chunk: usize,
        f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> Result<u64> {
        let (off, len) = self.stream_range(s)?;
        self.raw_chunks(off, len, chunk, f)?;
        Ok(len)
    }

    /// Runs `f` on consecutive chunks of the file's bytes `off..off + len`.
    pub(crate) fn raw_chunks(
        &self,
        off: u64,
        len: u64,
        chunk: usize,
        f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> Result<()> {
        let chunk = chunk.max(1) as u64;
        let mut at = 0u64;
        while at < len {
            let n = (len - at).min(chunk) as usize;
            let mut res = Ok(());
            let mut got = 0usize;
            self.reader.src.read_with(off + at, n, &mut |b| {
                got = b.len();
                res = f(b);
            })?;
            res?;
            if got == 0 {
                return Err(Error::malformed(off + at, "stream data ends early"));
            }
            at += got as u64;
        }
        Ok(())
    }

    fn stream_range_in(&self, st: &State, s: &Stream, depth: u32) -> Result<(u64, u64)> {
        let length = match s.dict.get(b"Length") {
            Some(Object::Int(n)) => u64::try_from(*n).ok(),
            Some(Object::Ref(r)) => self
                .object_in(st, *r, depth + 1)
                .ok()
                .and_then(|o| o.as_int())
                .and_then(|n| u64::try_from(n).ok()),
            _ => None,
        };
        let (len, warn) = self.reader.stream_len(s.data_offset, length)?;
        if let Some(w) = warn {
            self.warn(Warning {
                offset: Some(s.data_offset),
                ..Warning::new(w)
            });
        }
        Ok((s.data_offset, len))
    }

    pub(crate) fn stream_in(
        &self,
        st: &State,
        s: &Stream,
        decoded: bool,
        depth: u32,
    ) -> Result<Vec<u8>> {
        let (_, len) = self.stream_range_in(st, s, depth)?;
        let n = usize::try_from(len).map_err(|_| Error::limit("stream longer than memory"))?;
        let resolve = |o: &Object| match o {
            Object::Ref(r) => self.object_in(st, *r, depth + 1).unwrap_or(Object::Null),
            o => o.clone(),
        };
        let method = match (&self.crypt, s.object) {
            (Some(c), Some(_)) => c.stream_method(&s.dict, &resolve)?,
            _ => Method::Identity,
        };
        let decrypted = match (&self.crypt, s.object) {
            (Some(c), Some(r)) if method != Method::Identity => Some(
                self.reader
                    .src_with(s.data_offset, n, |raw| c.decrypt_data(r, method, raw))?
                    .map_err(|e| e.at(s.data_offset))?,
            ),
            _ => None,
        };
        if method.is_aes() && n > 16 && (n - 16) % 16 != 0 {
            self.warn(Warning {
                offset: Some(s.data_offset),
                object: s.object,
                ..Warning::new(format!(
                    "AES-encrypted stream of {n} bytes: the last {} bytes are not a whole block and were dropped",
                    (n - 16) % 16
                ))
            });
        }
        if !decoded {
            return match decrypted {
                Some(d) => Ok(d),
                None => self.reader.src_with(s.data_offset, n, <[u8]>::to_vec),
            };
        }
        let mut chain = chain::filter_chain(&s.dict, &resolve);
        // A /Crypt filter was applied above (or names /Identity).
        if chain.first().is_some_and(|f| f.name == b"Crypt")
            && (self.crypt.is_some()
                || chain
                    .first()
                    .and_then(|f| f.parms.as_ref())
                    .and_then(|p| p.name(b"Name"))
                    .is_none_or(|n| n == b"Identity"))
        {
            chain.remove(0);
        }
        let budget = self.opts.limits.max_decoded_stream;
        let d = match decrypted {
            Some(data) => filters::decode(&data, &chain, budget),
            None => self
                .reader
                .src_with(s.data_offset, n, |raw| filters::decode(raw, &chain, budget))?,
        }
        .map_err(|e| e.at(s.data_offset))?;
        for w in d.warnings {
            self.warn(Warning {
                offset: Some(s.data_offset),
                ..Warning::new(w)
            });
        }
        Ok(d.data)
    }

    /// Rebuilds the index by scanning the file (once); refused when strict.
    pub(crate) fn repair(&self) -> Result<()> {
        if self.opts.strict {
            return Err(Error::new(
                ErrorKind::Malformed,
                "repair needed but the strict option refuses it",
            ));
        }
        let mut guard = self.state.write().unwrap_or_else(|e| e.into_inner());
        if guard.repaired {
            return Ok(());
        }
        let scan = repair::scan(&self.reader)?;
        let mut st = State {
            entries: guard.entries.clone(),
            trailer: Dict::new(),
            repaired: true,
            objstms: scan.objstms.clone(),
        };
        for &(num, generation, offset) in &scan.objects {
            match st.entries.get(&num) {
                // Keep a compressed version when its container is a real
                // stream in the file (it is newer than any plain copy).
                Some(XrefEntry::InStream { stream, .. })
                    if *stream != num
                        && matches!(guard.entries.get(stream), Some(XrefEntry::InFile { .. })) => {}
                _ => {
                    st.entries
                        .insert(num, XrefEntry::InFile { offset, generation });
                }
            }
        }
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.index_objstms_in(&mut st);
        st.trailer = self.repaired_trailer(&st, &guard.trailer, &scan);
        if st.entries.is_empty() {
            return Err(Error::new(
                ErrorKind::Malformed,
                "no objects found by scanning: not a PDF",
            ));
        }
        self.warn(Warning::new(format!(
            "index rebuilt by scanning: {} objects",
            st.entries.len()
        )));
        *guard = st;
        Ok(())
    }

    /// Indexes the members of the object streams a repair found (those
    /// not indexed already).
    fn index_objstms_in(&self, st: &mut State) {
        for num in st.objstms.clone() {
            let Ok(s) = self.objstm(st, num, 0) else {
                continue;
            };
            for (i, &(member, _)) in s.entries.iter().enumerate() {
                st.entries.insert_if_absent(
                    member,
                    XrefEntry::InStream {
                        stream: num,
                        index: u32::try_from(i).unwrap_or(u32::MAX),
                    },
                );
            }
        }
    }

    /// [`Pdf::index_objstms_in`] on the current state (after a repair that
    /// ran before the document could be decrypted).
    fn index_objstms(&self) {
        let mut guard = self.state.write().unwrap_or_else(|e| e.into_inner());
        let mut st = std::mem::take(&mut *guard);
        self.index_objstms_in(&mut st);
        *guard = st;
    }

    fn repaired_trailer(&self, st: &State, old: &Dict, scan: &repair::Scan) -> Dict {
        let root_ok = |t: &Dict| {
            t.get(b"Root").and_then(Object::as_ref).is_some_and(|r| {
                self.object_in(st, r, 0)
                    .is_ok_and(|o| matches!(o, Object::Dict(_)))
            })
        };
        let mut candidates: Vec<Dict> = vec![old.clone()];
        candidates.extend(scan.trailers.iter().rev().cloned());
        for &off in scan.xrefs.iter().rev() {
            if let Ok((_, o)) = self.reader.indirect_at(off)
                && let Some(d) = o.as_dict()
            {
                candidates.push(d.clone());
            }
        }
        let mut out = match candidates.iter().find(|t| root_ok(t)) {
            Some(t) => t.clone(),
            None => {
                let mut t = Dict::new();
                let cat = scan.catalogs.iter().rev().find(|(n, _)| {
                    self.object_in(st, ObjRef::new(*n, 0), 0)
                        .is_ok_and(|o| o.as_dict().is_some_and(|d| d.is_type(b"Catalog")))
                });
                if let Some(&(n, g)) = cat {
                    t.insert(b"Root".to_vec(), Object::Ref(ObjRef::new(n, g)));
                }
                t
            }
        };
        for t in &candidates {
            if out.get(b"Info").is_none()
                && let Some(i) = t.get(b"Info")
            {
                out.insert(b"Info".to_vec(), i.clone());
            }
        }
        out
    }
}

/// Merges sections (newest first): the first section naming an object
/// wins; trailers merge the same way.
fn merge(sections: &[crate::xref::Section], max_objects: u64) -> Result<State> {
    let count: usize = sections.iter().map(|s| s.entries.len()).sum();
    let hint = sections
        .iter()
        .flat_map(|s| s.entries.iter().map(|(n, _)| *n as usize + 1))
        .max()
        .unwrap_or(0);
    let mut st = State {
        entries: Index::with_hint(hint, count),
        ..State::default()
    };
    for s in sections {
        for &(num, e) in &s.entries {
            st.entries.insert_if_absent(num, e);
        }
        if st.entries.len() as u64 > max_objects {
            return Err(Error::limit(format!(
                "more than max_objects ({max_objects}) objects"
            )));
        }
        for (k, v) in s.trailer.iter() {
            if st.trailer.get(k).is_none() && k != b"Prev" && k != b"XRefStm" {
                st.trailer.insert(k.to_vec(), v.clone());
            }
        }
    }
    Ok(st)
}

/// The `x.y` after `%PDF-` in the first KiB.
fn header_version(r: &Reader, strict: bool, warnings: &mut Vec<Warning>) -> Result<String> {
    let head = r.src_with(0, 1024, <[u8]>::to_vec)?;
    match memchr::memmem::find(&head, b"%PDF-") {
        Some(i) => {
            let v: String = head
                .get(i + 5..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b'.')
                .map(|&b| b as char)
                .collect();
            if i > 0 {
                warnings.push(Warning::new(format!("{i} bytes before the %PDF header")));
            }
            Ok(v)
        }
        None if strict => Err(Error::malformed(
            0,
            "no %PDF- header in the first 1024 bytes",
        )),
        None => {
            warnings.push(Warning::new(
                "no %PDF- header in the first 1024 bytes; version taken as 1.2",
            ));
            Ok("1.2".to_string())
        }
    }
}
