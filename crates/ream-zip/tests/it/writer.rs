//! A tiny ZIP writer so that each test builds (and shows) its own input.
//! Fields are public so tests can lie about sizes, CRCs, flags and offsets.

use std::io::Write;

/// One entry to write.
#[derive(Clone, Debug)]
pub struct Ent {
    pub name: String,
    /// 0 stored, 8 deflate, anything else written as is.
    pub method: u16,
    pub flags: u16,
    pub crc: u32,
    /// The bytes written after the local header.
    pub raw: Vec<u8>,
    /// Declared uncompressed size.
    pub size: u64,
    /// Declared compressed size, when it should differ from `raw.len()`.
    pub csize: Option<u64>,
    /// Write no local header: point the central entry at entry `i`'s.
    pub same_header_as: Option<usize>,
}

impl Ent {
    pub fn stored(name: &str, data: &[u8]) -> Ent {
        Ent {
            name: name.to_string(),
            method: 0,
            flags: 0,
            crc: crc32fast::hash(data),
            raw: data.to_vec(),
            size: data.len() as u64,
            csize: None,
            same_header_as: None,
        }
    }

    /// Deflated with flate2 (zlib-rs), best compression.
    pub fn deflated(name: &str, data: &[u8]) -> Ent {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(data).unwrap();
        Ent {
            method: 8,
            raw: enc.finish().unwrap(),
            ..Ent::stored(name, data)
        }
    }

    /// Deflated with libdeflate, level 12.
    pub fn deflated_ld(name: &str, data: &[u8]) -> Ent {
        let lvl = libdeflater::CompressionLvl::new(12).unwrap();
        let mut c = libdeflater::Compressor::new(lvl);
        let mut raw = vec![0; c.deflate_compress_bound(data.len())];
        let n = c.deflate_compress(data, &mut raw).unwrap();
        raw.truncate(n);
        Ent {
            method: 8,
            raw,
            ..Ent::stored(name, data)
        }
    }
}

/// `mib` MiB of zeros deflated at about 1000:1, built cheaply: the second
/// 1 MiB chunk (sync-flushed, so byte-aligned, back-references into a
/// window of zeros) is repeated, then a final empty block is appended.
pub fn deflated_zeros(name: &str, mib: usize) -> Ent {
    assert!(mib >= 2);
    let chunk = vec![0u8; 1 << 20];
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&chunk).unwrap();
    enc.flush().unwrap();
    let first = enc.get_ref().len();
    enc.write_all(&chunk).unwrap();
    enc.flush().unwrap();
    let second = enc.get_ref().len();
    let all = enc.finish().unwrap();
    let repeat = all[first..second].to_vec();
    let mut raw = all[..second].to_vec();
    for _ in 2..mib {
        raw.extend_from_slice(&repeat);
    }
    raw.extend_from_slice(&all[second..]);
    let mut h = crc32fast::Hasher::new();
    let mut mb = crc32fast::Hasher::new();
    mb.update(&chunk);
    for _ in 0..mib {
        h.combine(&mb);
    }
    Ent {
        name: name.to_string(),
        method: 8,
        flags: 0,
        crc: h.finalize(),
        raw,
        size: (mib as u64) << 20,
        csize: None,
        same_header_as: None,
    }
}

/// Archive-wide options.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    pub comment: Vec<u8>,
    /// Saturate every 32-bit field and write Zip64 extra fields, the Zip64
    /// end-of-central-directory record and its locator.
    pub zip64: bool,
    /// Set flag bit 3: zero sizes/CRC in local headers, a data descriptor
    /// after each entry's data.
    pub descriptor: bool,
}

fn u16le(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn u32le(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn u64le(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// A size that must fit a classic 32-bit field (else use `Opts::zip64`).
fn small(v: u64) -> u32 {
    u32::try_from(v).expect("size needs Zip64: set Opts::zip64")
}

/// Writes `entries` into a ZIP archive.
pub fn build(entries: &[Ent], o: &Opts) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    let version = if o.zip64 { 45 } else { 20 };
    for e in entries {
        let csize = e.csize.unwrap_or(e.raw.len() as u64);
        if let Some(i) = e.same_header_as {
            offsets.push(offsets[i]);
            continue;
        }
        offsets.push(out.len() as u64);
        let flags = e.flags | if o.descriptor { 8 } else { 0 };
        u32le(&mut out, 0x0403_4b50);
        u16le(&mut out, version);
        u16le(&mut out, flags);
        u16le(&mut out, e.method);
        u16le(&mut out, 0); // time
        u16le(&mut out, 0x21); // 1980-01-01
        let mut extra = Vec::new();
        if o.descriptor {
            out.extend_from_slice(&[0; 12]);
        } else if o.zip64 {
            u32le(&mut out, e.crc);
            u32le(&mut out, u32::MAX);
            u32le(&mut out, u32::MAX);
            u16le(&mut extra, 1);
            u16le(&mut extra, 16);
            u64le(&mut extra, e.size);
            u64le(&mut extra, csize);
        } else {
            u32le(&mut out, e.crc);
            u32le(&mut out, small(csize));
            u32le(&mut out, small(e.size));
        }
        u16le(&mut out, e.name.len() as u16);
        u16le(&mut out, extra.len() as u16);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&extra);
        out.extend_from_slice(&e.raw);
        if o.descriptor {
            u32le(&mut out, 0x0807_4b50);
            u32le(&mut out, e.crc);
            if o.zip64 {
                u64le(&mut out, csize);
                u64le(&mut out, e.size);
            } else {
                u32le(&mut out, small(csize));
                u32le(&mut out, small(e.size));
            }
        }
    }
    let cd_start = out.len() as u64;
    for (e, &off) in entries.iter().zip(&offsets) {
        let csize = e.csize.unwrap_or(e.raw.len() as u64);
        let flags = e.flags | if o.descriptor { 8 } else { 0 };
        u32le(&mut out, 0x0201_4b50);
        u16le(&mut out, 0x0300 | version);
        u16le(&mut out, version);
        u16le(&mut out, flags);
        u16le(&mut out, e.method);
        u16le(&mut out, 0);
        u16le(&mut out, 0x21);
        u32le(&mut out, e.crc);
        let mut extra = Vec::new();
        if o.zip64 {
            out.extend_from_slice(&[0xFF; 8]);
            u16le(&mut extra, 1);
            u16le(&mut extra, 24);
            u64le(&mut extra, e.size);
            u64le(&mut extra, csize);
            u64le(&mut extra, off);
        } else {
            u32le(&mut out, small(csize));
            u32le(&mut out, small(e.size));
        }
        u16le(&mut out, e.name.len() as u16);
        u16le(&mut out, extra.len() as u16);
        u16le(&mut out, 0); // comment
        u16le(&mut out, 0); // disk
        u16le(&mut out, 0); // internal attributes
        u32le(&mut out, 0); // external attributes
        u32le(&mut out, if o.zip64 { u32::MAX } else { off as u32 });
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&extra);
    }
    let cd_end = out.len() as u64;
    let n = entries.len() as u64;
    if o.zip64 {
        u32le(&mut out, 0x0606_4b50);
        u64le(&mut out, 44);
        u16le(&mut out, 45);
        u16le(&mut out, 45);
        u32le(&mut out, 0);
        u32le(&mut out, 0);
        u64le(&mut out, n);
        u64le(&mut out, n);
        u64le(&mut out, cd_end - cd_start);
        u64le(&mut out, cd_start);
        u32le(&mut out, 0x0706_4b50);
        u32le(&mut out, 0);
        u64le(&mut out, cd_end);
        u32le(&mut out, 1);
    }
    u32le(&mut out, 0x0605_4b50);
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    if o.zip64 {
        u16le(&mut out, u16::MAX);
        u16le(&mut out, u16::MAX);
        u32le(&mut out, u32::MAX);
        u32le(&mut out, u32::MAX);
    } else {
        u16le(&mut out, n as u16);
        u16le(&mut out, n as u16);
        u32le(&mut out, (cd_end - cd_start) as u32);
        u32le(&mut out, cd_start as u32);
    }
    u16le(&mut out, o.comment.len() as u16);
    out.extend_from_slice(&o.comment);
    out
}

/// [`build`] with default options.
pub fn zip(entries: &[Ent]) -> Vec<u8> {
    build(entries, &Opts::default())
}
