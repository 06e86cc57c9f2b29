//! Decryption of an encrypted BIFF8 `Workbook` stream (a FILEPASS record
//! in the globals), per MS-XLS 2.2.10 and MS-OFFCRYPTO 2.3.5/2.3.6.
//!
//! * **RC4** (FILEPASS encryption type 1, version 1.1): the key of every
//!   1024-byte block is MD5(first 5 bytes of MD5(the first 5 bytes of
//!   MD5(password) and the salt, 16 times) and the block number).
//! * **RC4 CryptoAPI** (type 1, versions 2.2, 3.2 and 4.2): the key of
//!   every block is the first `KeySize` bits of SHA-1(SHA-1(salt and
//!   password) and the block number); a 40-bit key is padded with zeros
//!   to 128 bits.
//!
//! Both check the password with the header's verifier first. The default
//! password "VelvetSweatshop" (what Excel uses for a workbook protected
//! without a password to open) is tried first, then
//! [`OpenOptions::password`](crate::OpenOptions::password). XOR
//! obfuscation (type 0, and every BIFF5 FILEPASS) is refused as
//! [`ErrorKind::Encrypted`].
//!
//! The stream is decrypted whole, once, into a new buffer that the
//! globals and the sheets are then parsed from unchanged. The cipher runs
//! over absolute stream offsets: block `n` covers stream bytes
//! `1024 n .. 1024 (n + 1)`, and the keystream advances over the bytes
//! that are not encrypted too. Not encrypted: record headers, the data of
//! BOF, FILEPASS, USREXCL, FILELOCK, INTERFACEHDR, RRDINFO and RRDHEAD,
//! the first 4 bytes (the stream offset) of BOUNDSHEET, and every record
//! before the FILEPASS record.

use super::records::{Record, Records, malformed, u16_at, u32_at};
use crate::error::{Error, ErrorKind, Result};
use md5::Md5;
use rc4::{KeyInit, Rc4, StreamCipher};
use sha1::{Digest, Sha1};

/// FILEPASS: the workbook is encrypted.
pub(super) const FILEPASS: u16 = 0x002F;
const BOF: u16 = 0x0809;
const EOF: u16 = 0x000A;
const BOUNDSHEET: u16 = 0x0085;
/// Records whose data is never encrypted (besides BOF and FILEPASS).
const USREXCL: u16 = 0x0194;
const FILELOCK: u16 = 0x0195;
const INTERFACEHDR: u16 = 0x00E1;
const RRDINFO: u16 = 0x0196;
const RRDHEAD: u16 = 0x0138;

/// The password Excel encrypts with when none is set to open the file.
pub(super) const DEFAULT_PASSWORD: &str = "VelvetSweatshop";
/// Bytes of stream under one RC4 key.
const BLOCK: usize = 1024;
/// CryptoAPI algorithm id of RC4, and of SHA-1.
const CALG_RC4: u32 = 0x6801;
const CALG_SHA1: u32 = 0x8004;

/// The FILEPASS record of the globals substream at the start of `stream`,
/// if there is one before the globals' EOF. A stream whose records cannot
/// be walked gives `None` (the globals reader reports the fault).
pub(super) fn find_filepass(stream: &[u8]) -> Option<Record<'_>> {
    let mut recs = Records::new(stream, 0);
    while let Ok(Some(r)) = recs.next_record() {
        match r.typ {
            FILEPASS => return Some(r),
            EOF => return None,
            _ => {}
        }
    }
    None
}

/// How the key of a block is made.
enum Keys {
    /// RC4 (version 1.1): the 5 truncated bytes of the second MD5.
    Rc4 { trunc: [u8; 5] },
    /// RC4 CryptoAPI: SHA-1(salt and password), and the key length in
    /// bytes (5 to 16).
    CryptoApi { h0: [u8; 20], key_bytes: usize },
}

impl Keys {
    /// The RC4 cipher of block `block`.
    fn cipher(&self, block: u32) -> Option<Rc4> {
        match self {
            Keys::Rc4 { trunc } => {
                let mut h = Md5::new();
                h.update(trunc);
                h.update(block.to_le_bytes());
                Rc4::new_from_slice(&h.finalize()).ok()
            }
            Keys::CryptoApi { h0, key_bytes } => {
                let mut h = Sha1::new();
                h.update(h0);
                h.update(block.to_le_bytes());
                let full = h.finalize();
                let mut key = [0u8; 16];
                let n = (*key_bytes).clamp(5, 16);
                for (k, b) in key.iter_mut().zip(full.iter()).take(n) {
                    *k = *b;
                }
                // A 40-bit key is used as 128 bits, zero padded.
                let len = if n == 5 { 16 } else { n };
                Rc4::new_from_slice(key.get(..len)?).ok()
            }
        }
    }
}

/// What the FILEPASS record declares.
enum Scheme {
    Rc4 {
        salt: [u8; 16],
        /// The encrypted verifier and its encrypted MD5.
        verifier: [u8; 32],
    },
    CryptoApi {
        key_bits: usize,
        salt: [u8; 16],
        /// The encrypted verifier and its encrypted SHA-1.
        verifier: [u8; 36],
    },
}

impl Scheme {
    fn describe(&self) -> String {
        match self {
            Scheme::Rc4 { .. } => "RC4 (FILEPASS version 1.1)".to_string(),
            Scheme::CryptoApi { key_bits, .. } => {
                format!("RC4 CryptoAPI (FILEPASS, {key_bits}-bit key)")
            }
        }
    }

    /// The keys for `password`, when its verifier matches.
    fn keys_for(&self, password: &str) -> Option<Keys> {
        let pw: Vec<u8> = password.encode_utf16().flat_map(u16::to_le_bytes).collect();
        match self {
            Scheme::Rc4 { salt, verifier } => {
                let h0 = Md5::digest(&pw);
                let mut h = Md5::new();
                for _ in 0..16 {
                    h.update(h0.get(..5)?);
                    h.update(salt);
                }
                let h1 = h.finalize();
                let trunc: [u8; 5] = h1.get(..5)?.try_into().ok()?;
                let keys = Keys::Rc4 { trunc };
                let mut v = *verifier;
                keys.cipher(0)?.apply_keystream(&mut v);
                let (plain, hash) = v.split_at(16);
                (Md5::digest(plain).as_slice() == hash).then_some(keys)
            }
            Scheme::CryptoApi {
                key_bits,
                salt,
                verifier,
            } => {
                let mut h = Sha1::new();
                h.update(salt);
                h.update(&pw);
                let h0: [u8; 20] = h.finalize().into();
                let keys = Keys::CryptoApi {
                    h0,
                    key_bytes: key_bits / 8,
                };
                let mut v = *verifier;
                keys.cipher(0)?.apply_keystream(&mut v);
                let (plain, hash) = v.split_at(16);
                (Sha1::digest(plain).as_slice() == hash).then_some(keys)
            }
        }
    }
}

/// An error about the FILEPASS record at `offset`.
fn refuse(kind: ErrorKind, msg: String, offset: usize) -> Error {
    Error::new(kind, msg)
        .in_part("Workbook")
        .at_offset(offset as u64)
}

/// `n` bytes of `b` from `at` as an array; `None` when `b` is shorter.
fn array<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Reads the FILEPASS record `r` of a stream whose BOF says `biff8`.
fn scheme(r: &Record<'_>, biff8: bool) -> Result<Scheme> {
    let d = r.data;
    let short = |what: &str| {
        malformed(
            format!(
                "the FILEPASS record ({} bytes) is too short for its {what}",
                d.len()
            ),
            r.offset,
        )
    };
    if !biff8 {
        return Err(refuse(
            ErrorKind::Encrypted,
            "the workbook is encrypted with BIFF5 XOR obfuscation (FILEPASS), which ream does not decrypt".into(),
            r.offset,
        ));
    }
    if d.len() < 2 {
        return Err(short("encryption type"));
    }
    match u16_at(d, 0) {
        0 => {
            return Err(refuse(
                ErrorKind::Encrypted,
                "the workbook is encrypted with XOR obfuscation (FILEPASS type 0), which ream does not decrypt".into(),
                r.offset,
            ));
        }
        1 => {}
        t => {
            return Err(refuse(
                ErrorKind::Unsupported,
                format!("the workbook is encrypted with an unknown FILEPASS encryption type {t}"),
                r.offset,
            ));
        }
    }
    if d.len() < 6 {
        return Err(short("version"));
    }
    let (major, minor) = (u16_at(d, 2), u16_at(d, 4));
    match (major, minor) {
        (1, 1) => {
            let (Some(salt), Some(verifier)) = (array::<16>(d, 6), array::<32>(d, 22)) else {
                return Err(short("RC4 salt and verifier"));
            };
            Ok(Scheme::Rc4 { salt, verifier })
        }
        (2..=4, 2) => {
            // Flags (4), header size (4), the header, then the verifier.
            if d.len() < 14 {
                return Err(short("RC4 CryptoAPI header size"));
            }
            let header_size = u32_at(d, 10) as usize;
            let h = 14usize;
            let v = h.saturating_add(header_size);
            if header_size < 32 || v > d.len() {
                return Err(malformed(
                    format!(
                        "the FILEPASS record declares an RC4 CryptoAPI header of {header_size} bytes (at least 32, at most the {} bytes left)",
                        d.len().saturating_sub(h)
                    ),
                    r.offset,
                ));
            }
            let alg = u32_at(d, h + 8);
            let alg_hash = u32_at(d, h + 12);
            if (alg != 0 && alg != CALG_RC4) || (alg_hash != 0 && alg_hash != CALG_SHA1) {
                return Err(refuse(
                    ErrorKind::Unsupported,
                    format!(
                        "the workbook is encrypted with CryptoAPI algorithm 0x{alg:04X} and hash 0x{alg_hash:04X}: ream decrypts RC4 with SHA-1 only"
                    ),
                    r.offset,
                ));
            }
            let key_bits = match u32_at(d, h + 16) {
                0 => 40,
                k if (40..=128).contains(&k) && k % 8 == 0 => k as usize,
                k => {
                    return Err(malformed(
                        format!(
                            "the FILEPASS record declares an RC4 key of {k} bits (40 to 128, in steps of 8)"
                        ),
                        r.offset,
                    ));
                }
            };
            let salt_size = u32_at(d, v);
            let hash_size = u32_at(d, v + 36);
            if salt_size != 16 || hash_size != 20 {
                return Err(malformed(
                    format!(
                        "the FILEPASS record declares a {salt_size}-byte salt and a {hash_size}-byte verifier hash (16 and 20 expected)"
                    ),
                    r.offset,
                ));
            }
            let (Some(salt), Some(a), Some(b)) = (
                array::<16>(d, v + 4),
                array::<16>(d, v + 20),
                array::<20>(d, v + 40),
            ) else {
                return Err(short("RC4 CryptoAPI verifier"));
            };
            let mut verifier = [0u8; 36];
            let (va, vb) = verifier.split_at_mut(16);
            va.copy_from_slice(&a);
            vb.copy_from_slice(&b);
            Ok(Scheme::CryptoApi {
                key_bits,
                salt,
                verifier,
            })
        }
        _ => Err(refuse(
            ErrorKind::Unsupported,
            format!(
                "the workbook is encrypted with RC4 FILEPASS version {major}.{minor}, which ream does not know (1.1, 2.2, 3.2, 4.2)"
            ),
            r.offset,
        )),
    }
}

/// The keystream over absolute stream offsets: a new key every block,
/// keystream bytes skipped up to the offset asked for.
struct Keystream<'k> {
    keys: &'k Keys,
    block: Option<usize>,
    /// Keystream bytes of the current block used so far.
    pos: usize,
    cipher: Option<Rc4>,
}

impl Keystream<'_> {
    /// Decrypts `buf[from..to]` (stream offsets), in increasing order of
    /// calls.
    fn apply(&mut self, buf: &mut [u8], from: usize, to: usize) {
        let mut p = from;
        let to = to.min(buf.len());
        let mut skip = [0u8; BLOCK];
        while p < to {
            let block = p / BLOCK;
            if self.block != Some(block) {
                self.block = Some(block);
                self.pos = 0;
                self.cipher = u32::try_from(block).ok().and_then(|b| self.keys.cipher(b));
            }
            let in_block = p % BLOCK;
            let end = to.min((block + 1) * BLOCK);
            let Some(c) = self.cipher.as_mut() else {
                return;
            };
            if self.pos < in_block {
                if let Some(s) = skip.get_mut(..in_block - self.pos) {
                    c.apply_keystream(s);
                }
                self.pos = in_block;
            }
            if let Some(s) = buf.get_mut(p..end) {
                c.apply_keystream(s);
            }
            self.pos += end - p;
            p = end;
        }
    }
}

/// The stream with every encrypted record data decrypted, records from
/// `start` (the end of the FILEPASS record) on.
fn decrypt(stream: &[u8], keys: &Keys, start: usize) -> Vec<u8> {
    let mut out = stream.to_vec();
    let mut ks = Keystream {
        keys,
        block: None,
        pos: 0,
        cipher: None,
    };
    let mut at = start;
    while let Some(head) = out.get(at..at.saturating_add(4)) {
        let typ = u16_at(head, 0);
        let len = usize::from(u16_at(head, 2));
        let data = at + 4;
        let end = data.saturating_add(len).min(out.len());
        let plain = match typ {
            BOF | FILEPASS | USREXCL | FILELOCK | INTERFACEHDR | RRDINFO | RRDHEAD => len,
            BOUNDSHEET => 4,
            _ => 0,
        };
        ks.apply(&mut out, data.saturating_add(plain).min(end), end);
        at = data.saturating_add(len);
    }
    out
}

/// Decrypts `stream`, whose globals hold the FILEPASS record `fp`, with
/// the default password or `password`. A password that does not open it
/// (or none) is [`ErrorKind::Encrypted`], naming the encryption.
pub(super) fn decrypt_stream(
    stream: &[u8],
    fp: &Record<'_>,
    password: Option<&str>,
) -> Result<Vec<u8>> {
    let biff8 = matches!(
        Records::new(stream, 0).next_record(),
        Ok(Some(r)) if r.typ == BOF && u16_at(r.data, 0) == 0x0600
    );
    let scheme = scheme(fp, biff8)?;
    let mut tries = vec![DEFAULT_PASSWORD];
    if let Some(p) = password.filter(|p| *p != DEFAULT_PASSWORD) {
        tries.push(p);
    }
    let Some(keys) = tries.iter().find_map(|p| scheme.keys_for(p)) else {
        let given = if password.is_some() {
            "nor does the password given"
        } else {
            "and no password was given (OpenOptions::password, --password)"
        };
        return Err(refuse(
            ErrorKind::Encrypted,
            format!(
                "the workbook is encrypted with {}: the default password \"{DEFAULT_PASSWORD}\" does not open it, {given}",
                scheme.describe()
            ),
            fp.offset,
        ));
    };
    let start = fp.offset + 4 + fp.data.len();
    Ok(decrypt(stream, &keys, start))
}
