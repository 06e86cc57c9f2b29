//! A tiny test-only XLSX builder, so that every hostile-input test shows its
//! own input.
//!
//! * [`xlsx`] writes a valid ZIP (deflate, correct CRCs) of the given parts.
//! * [`minimal`] / [`minimal_sst`] wrap one worksheet in the boilerplate
//!   parts; [`sheet`] wraps `<row>`s in a `<worksheet><sheetData>`.
//! * [`Zip`] keeps the parts editable before [`Zip::build`]: every entry can
//!   lie about its CRC or sizes, be stored, carry raw bytes, share another
//!   entry's local header or point at any offset.
//! * [`Rle`] writes fixed-Huffman deflate by hand: long runs cost 13 bits
//!   per 258 bytes, so tests get big, valid deflate streams in microseconds.

#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing)]

use std::io::Write;

pub const SHEET: &str = "xl/worksheets/sheet1.xml";
pub const SST: &str = "xl/sharedStrings.xml";
pub const WORKBOOK: &str = "xl/workbook.xml";

pub const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#;

pub const ROOT_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;

pub const WORKBOOK_XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#;

pub const WORKBOOK_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#;

/// `<worksheet><sheetData>{rows}</sheetData></worksheet>`.
pub fn sheet(rows: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData>{rows}</sheetData></worksheet>"#
    )
}

/// `<sst>` holding one `<si><t>` per string (text inserted verbatim).
pub fn sst(strings: &[&str]) -> String {
    let mut s = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{n}" uniqueCount="{n}">"#,
        n = strings.len()
    );
    for t in strings {
        s.push_str(&format!("<si><t>{t}</t></si>"));
    }
    s.push_str("</sst>");
    s
}

/// The boilerplate parts plus one worksheet and (optionally) shared strings.
pub fn minimal_parts<'a>(sheet_xml: &'a str, sst_xml: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut v = vec![
        ("[Content_Types].xml", CONTENT_TYPES),
        ("_rels/.rels", ROOT_RELS),
        (WORKBOOK, WORKBOOK_XML),
        ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        (SHEET, sheet_xml),
    ];
    if let Some(s) = sst_xml {
        v.push((SST, s));
    }
    v
}

/// A valid ZIP (deflate, correct CRCs) holding `parts` in order.
pub fn xlsx(parts: &[(&str, &str)]) -> Vec<u8> {
    Zip::from_parts(parts).build()
}

/// One worksheet and the boilerplate parts.
pub fn minimal(sheet_xml: &str) -> Vec<u8> {
    xlsx(&minimal_parts(sheet_xml, None))
}

/// One worksheet, shared strings and the boilerplate parts.
pub fn minimal_sst(sheet_xml: &str, sst_xml: &str) -> Vec<u8> {
    xlsx(&minimal_parts(sheet_xml, Some(sst_xml)))
}

/// Raw deflate (no zlib header) of `data`.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// One ZIP entry and its lies.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Name in both headers.
    pub name: String,
    /// The true (uncompressed) content.
    pub data: Vec<u8>,
    /// Store instead of deflate.
    pub stored: bool,
    /// Declared CRC-32 (default: the true one, or `Rle`'s).
    pub crc: Option<u32>,
    /// Declared uncompressed size (default: `data.len()`).
    pub size: Option<u64>,
    /// Declared compressed size (default: the raw bytes' length).
    pub csize: Option<u64>,
    /// Bytes written after the local header instead of compressing `data`.
    pub raw: Option<Vec<u8>>,
    /// General-purpose flags (bit 0: encrypted).
    pub flags: u16,
    /// Write no local header: the central entry points at entry `i`'s.
    pub header_of: Option<usize>,
    /// Central entry's local-header offset, whatever was written.
    pub header_offset: Option<u64>,
}

impl Entry {
    pub fn new(name: &str, data: impl Into<Vec<u8>>) -> Entry {
        Entry {
            name: name.to_string(),
            data: data.into(),
            stored: false,
            crc: None,
            size: None,
            csize: None,
            raw: None,
            flags: 0,
            header_of: None,
            header_offset: None,
        }
    }

    /// An entry whose deflate stream, CRC and size come from `rle`.
    pub fn rle(name: &str, rle: Rle) -> Entry {
        let (raw, crc, size) = rle.finish();
        Entry {
            crc: Some(crc),
            size: Some(size),
            raw: Some(raw),
            ..Entry::new(name, Vec::new())
        }
    }

    fn method(&self) -> u16 {
        if self.stored { 0 } else { 8 }
    }

    fn body(&self) -> Vec<u8> {
        match (&self.raw, self.stored) {
            (Some(r), _) => r.clone(),
            (None, true) => self.data.clone(),
            (None, false) => deflate(&self.data),
        }
    }
}

/// An editable list of entries.
#[derive(Clone, Debug, Default)]
pub struct Zip {
    pub entries: Vec<Entry>,
}

fn u16le(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn u32le(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

impl Zip {
    pub fn from_parts(parts: &[(&str, &str)]) -> Zip {
        Zip {
            entries: parts
                .iter()
                .map(|(n, d)| Entry::new(n, d.as_bytes()))
                .collect(),
        }
    }

    /// The boilerplate parts plus one worksheet (and optional shared strings).
    pub fn minimal(sheet_xml: &str, sst_xml: Option<&str>) -> Zip {
        Zip::from_parts(&minimal_parts(sheet_xml, sst_xml))
    }

    /// Appends an entry.
    pub fn push(mut self, e: Entry) -> Zip {
        self.entries.push(e);
        self
    }

    /// Edits the (first) entry called `name`.
    pub fn with(mut self, name: &str, edit: impl FnOnce(&mut Entry)) -> Zip {
        let e = self.entries.iter_mut().find(|e| e.name == name).unwrap();
        edit(e);
        self
    }

    /// Replaces (or adds) the content of entry `name`.
    pub fn set(self, name: &str, data: impl Into<Vec<u8>>) -> Zip {
        let data = data.into();
        if self.entries.iter().any(|e| e.name == name) {
            self.with(name, |e| e.data = data)
        } else {
            self.push(Entry::new(name, data))
        }
    }

    /// Drops entry `name`.
    pub fn remove(mut self, name: &str) -> Zip {
        self.entries.retain(|e| e.name != name);
        self
    }

    /// Writes the archive: local headers and data, central directory, EOCD.
    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut offsets: Vec<u64> = Vec::new();
        let mut fields = Vec::new(); // (crc, csize, size) per entry
        for e in &self.entries {
            let body = e.body();
            let crc = e.crc.unwrap_or_else(|| crc32fast::hash(&e.data));
            let size = e.size.unwrap_or(e.data.len() as u64);
            let csize = e.csize.unwrap_or(body.len() as u64);
            fields.push((crc, csize, size));
            if let Some(i) = e.header_of {
                offsets.push(offsets[i]);
                continue;
            }
            offsets.push(out.len() as u64);
            u32le(&mut out, 0x0403_4b50);
            u16le(&mut out, 20);
            u16le(&mut out, e.flags);
            u16le(&mut out, e.method());
            u16le(&mut out, 0);
            u16le(&mut out, 0x21);
            u32le(&mut out, crc);
            u32le(&mut out, csize as u32);
            u32le(&mut out, size as u32);
            u16le(&mut out, e.name.len() as u16);
            u16le(&mut out, 0);
            out.extend_from_slice(e.name.as_bytes());
            out.extend_from_slice(&body);
        }
        let cd_start = out.len();
        for (i, e) in self.entries.iter().enumerate() {
            let (crc, csize, size) = fields[i];
            u32le(&mut out, 0x0201_4b50);
            u16le(&mut out, 0x0314);
            u16le(&mut out, 20);
            u16le(&mut out, e.flags);
            u16le(&mut out, e.method());
            u16le(&mut out, 0);
            u16le(&mut out, 0x21);
            u32le(&mut out, crc);
            u32le(&mut out, csize as u32);
            u32le(&mut out, size as u32);
            u16le(&mut out, e.name.len() as u16);
            u16le(&mut out, 0); // extra
            u16le(&mut out, 0); // comment
            u16le(&mut out, 0); // disk
            u16le(&mut out, 0); // internal attributes
            u32le(&mut out, 0); // external attributes
            u32le(&mut out, e.header_offset.unwrap_or(offsets[i]) as u32);
            out.extend_from_slice(e.name.as_bytes());
        }
        let cd_size = out.len() - cd_start;
        let n = self.entries.len() as u16;
        u32le(&mut out, 0x0605_4b50);
        u16le(&mut out, 0);
        u16le(&mut out, 0);
        u16le(&mut out, n);
        u16le(&mut out, n);
        u32le(&mut out, cd_size as u32);
        u32le(&mut out, cd_start as u32);
        u16le(&mut out, 0);
        out
    }
}

/// Feeds `n` copies of `byte` to `h` in O(log n) (CRC combination).
fn hash_run(h: &mut crc32fast::Hasher, byte: u8, n: u64) {
    let block = [byte; 4096];
    h.update(&block[..(n % 4096) as usize]);
    let mut power = crc32fast::Hasher::new();
    power.update(&block);
    let mut units = n / 4096;
    while units > 0 {
        if units & 1 == 1 {
            h.combine(&power);
        }
        let copy = power.clone();
        power.combine(&copy);
        units >>= 1;
    }
}

/// A hand-written fixed-Huffman deflate stream: literals plus runs of one
/// repeated byte (matches of length 258 at distance 1). Tracks the CRC and
/// size of what it encodes.
pub struct Rle {
    out: Vec<u8>,
    acc: u64,
    nbits: u32,
    crc: crc32fast::Hasher,
    size: u64,
}

impl Default for Rle {
    fn default() -> Rle {
        Rle::new()
    }
}

impl Rle {
    pub fn new() -> Rle {
        let mut r = Rle {
            out: Vec::new(),
            acc: 0,
            nbits: 0,
            crc: crc32fast::Hasher::new(),
            size: 0,
        };
        r.bits(1, 1); // BFINAL
        r.bits(1, 2); // BTYPE = fixed Huffman
        r
    }

    fn bits(&mut self, value: u32, n: u32) {
        self.acc |= u64::from(value) << self.nbits;
        self.nbits += n;
        while self.nbits >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.nbits -= 8;
        }
    }

    /// A Huffman code: written most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let rev = code.reverse_bits() >> (32 - len);
        self.bits(rev, len);
    }

    fn symbol(&mut self, s: u32) {
        match s {
            0..=143 => self.code(0x30 + s, 8),
            144..=255 => self.code(0x190 + s - 144, 9),
            256..=279 => self.code(s - 256, 7),
            _ => self.code(0xC0 + s - 280, 8),
        }
    }

    /// Literal bytes.
    pub fn lit(mut self, bytes: &[u8]) -> Rle {
        for &b in bytes {
            self.symbol(u32::from(b));
        }
        self.crc.update(bytes);
        self.size += bytes.len() as u64;
        self
    }

    /// `n` copies of `byte`.
    pub fn run(mut self, byte: u8, n: u64) -> Rle {
        if n == 0 {
            return self;
        }
        self = self.lit(&[byte]);
        let mut left = n - 1;
        let mut mid = 0u64;
        while left >= 258 {
            self.symbol(285); // length 258
            self.code(0, 5); // distance 1
            left -= 258;
            mid += 258;
        }
        hash_run(&mut self.crc, byte, mid);
        self.size += mid;
        self.lit(&vec![byte; left as usize])
    }

    /// (raw deflate, CRC-32, size).
    pub fn finish(mut self) -> (Vec<u8>, u32, u64) {
        self.symbol(256);
        if self.nbits > 0 {
            self.bits(0, 8 - self.nbits);
        }
        (self.out, self.crc.finalize(), self.size)
    }
}

#[test]
fn kit_round_trips() {
    use ream_sheet::{OpenOptions, Value, Workbook};
    let xml = sheet(r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>2.5</v></c></row>"#);
    let wb = Workbook::from_bytes(minimal_sst(&xml, &sst(&["hi"])), &OpenOptions::new()).unwrap();
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.get(0, 0).unwrap().value, Value::String("hi"));
    assert_eq!(s.get(0, 1).unwrap().value, Value::Number(2.5));
    // The hand-made deflate decodes to what it claims.
    let (raw, crc, size) = Rle::new().lit(b"ab").run(b'x', 20_000).lit(b"yz").finish();
    let mut back = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&raw[..]), &mut back)
        .unwrap();
    let mut want = b"ab".to_vec();
    want.extend(std::iter::repeat_n(b'x', 20_000));
    want.extend_from_slice(b"yz");
    assert_eq!(back, want);
    assert_eq!((crc, size), (crc32fast::hash(&want), want.len() as u64));
}
