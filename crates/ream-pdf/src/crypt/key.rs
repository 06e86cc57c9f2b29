//! Key derivation and password checks of the standard security handler
//! (ISO 32000-2 §7.6.4.3 and §7.6.4.4, algorithms 2 to 7, 2.A and 2.B).

use super::cipher::{Method, aes_cbc_raw_decrypt, aes128_cbc_raw_encrypt, rc4};
use crate::error::{Error, Result};
use crate::object::{Dict, ObjRef, Object};
use md5::{Digest, Md5};
use ream_io::ErrorKind;
use sha2::{Sha256, Sha384, Sha512};

/// The 32 bytes a short password is padded with (revisions 2 to 4).
const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

/// What the `/Encrypt` dictionary says, checked.
#[derive(Debug, Clone)]
pub(super) struct Params {
    r: i64,
    /// File key length in bytes (5 to 16; 32 for revisions 5 and 6).
    pub key_len: usize,
    o: Vec<u8>,
    u: Vec<u8>,
    oe: Vec<u8>,
    ue: Vec<u8>,
    /// `/Perms` (revisions 5 and 6), empty when absent.
    perms: Vec<u8>,
    p: i32,
    id0: Vec<u8>,
    pub encrypt_metadata: bool,
    pub strings: Method,
    pub streams: Method,
    pub embedded: Method,
    /// The crypt filters of `/CF` by name.
    pub named: Vec<(Vec<u8>, Method)>,
    /// `/Length` was absent for V 2: 128 bits is tried after 40.
    guess_128: bool,
}

fn refuse(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Encrypted, message)
}

/// The bytes of string entry `key`, at least `min` long.
fn string_entry(d: &Dict, key: &str, min: usize) -> Result<Vec<u8>> {
    match d.get(key.as_bytes()) {
        Some(Object::String(s)) if s.len() >= min => Ok(s.clone()),
        Some(Object::String(s)) => Err(refuse(format!(
            "/{key} is {} bytes, at least {min} expected",
            s.len()
        ))),
        Some(o) => Err(refuse(format!(
            "/{key} is a {}, not a string",
            o.type_name()
        ))),
        None => Err(refuse(format!("/{key} is missing"))),
    }
}

/// The method `/CFM` names in crypt filter dictionary `cf`.
fn cfm(cf: &Dict) -> Result<Method> {
    match cf.name(b"CFM") {
        None | Some(b"None") => Ok(Method::Identity),
        Some(b"V2") => Ok(Method::Rc4),
        Some(b"AESV2") => Ok(Method::Aes128),
        Some(b"AESV3") => Ok(Method::Aes256),
        Some(n) => Err(refuse(format!(
            "crypt filter method /{} is not supported",
            String::from_utf8_lossy(n)
        ))),
    }
}

impl Params {
    /// Checks `/Filter`, `/V`, `/R`, `/Length`, `/O`, `/U` (and `/OE`,
    /// `/UE` for revisions 5 and 6) and the crypt filters.
    pub fn read(d: &Dict, id0: &[u8]) -> Result<Params> {
        match d.name(b"Filter") {
            Some(b"Standard") => {}
            Some(n) => {
                return Err(refuse(format!(
                    "security handler /{} is not supported (only /Standard, the password handler)",
                    String::from_utf8_lossy(n)
                )));
            }
            None => return Err(refuse("/Filter (the security handler) is missing")),
        }
        let v = d.int(b"V").unwrap_or(0);
        let r = d
            .int(b"R")
            .ok_or_else(|| refuse("/R (the revision) is missing"))?;
        if !(2..=6).contains(&r) {
            return Err(refuse(format!(
                "revision /R {r} is not supported (2 to 6 are)"
            )));
        }
        let p = d.int(b"P").unwrap_or(-4);
        // /P is a 32-bit signed value; some writers store it unsigned.
        let p = p as i32;
        let encrypt_metadata = !matches!(d.get(b"EncryptMetadata"), Some(Object::Bool(false)));
        let (o_len, u_len) = if r >= 5 { (48, 48) } else { (32, 32) };
        let mut params = Params {
            r,
            key_len: 5,
            o: string_entry(d, "O", o_len)?,
            u: string_entry(d, "U", u_len)?,
            oe: Vec::new(),
            ue: Vec::new(),
            perms: match d.get(b"Perms") {
                Some(Object::String(s)) => s.clone(),
                _ => Vec::new(),
            },
            p,
            id0: id0.to_vec(),
            encrypt_metadata,
            strings: Method::Rc4,
            streams: Method::Rc4,
            embedded: Method::Rc4,
            named: Vec::new(),
            guess_128: false,
        };
        let length = match d.get(b"Length") {
            None => None,
            Some(Object::Int(n)) => Some(*n),
            Some(o) => {
                return Err(refuse(format!(
                    "/Length is a {}, not an integer",
                    o.type_name()
                )));
            }
        };
        let bits_ok = |n: i64| (40..=128).contains(&n) && n % 8 == 0;
        match v {
            1 => params.key_len = 5,
            2 => match length {
                Some(n) if bits_ok(n) => params.key_len = (n / 8) as usize,
                Some(n) => {
                    return Err(refuse(format!(
                        "/Length {n}: key length must be 40 to 128 bits, a multiple of 8"
                    )));
                }
                None => params.guess_128 = true,
            },
            4 | 5 => {
                params.read_crypt_filters(d, v, length)?;
                if v == 5 {
                    params.key_len = 32;
                    params.oe = string_entry(d, "OE", 32)?;
                    params.ue = string_entry(d, "UE", 32)?;
                }
            }
            v => {
                return Err(refuse(format!(
                    "algorithm /V {v} is not supported (1, 2, 4 and 5 are)"
                )));
            }
        }
        if (v == 5) != (r >= 5) {
            return Err(refuse(format!("/V {v} does not go with /R {r}")));
        }
        Ok(params)
    }

    /// Reads `/CF`, `/StmF`, `/StrF` and `/EFF` (V 4 and 5) and sets the
    /// key length from the crypt filter in use.
    fn read_crypt_filters(&mut self, d: &Dict, v: i64, length: Option<i64>) -> Result<()> {
        let cf = match d.get(b"CF") {
            None => None,
            Some(Object::Dict(cf)) => Some(cf),
            Some(o) => {
                return Err(refuse(format!(
                    "/CF is a {}, not a dictionary",
                    o.type_name()
                )));
            }
        };
        if let Some(cf) = cf {
            for (name, f) in cf.iter() {
                let Object::Dict(f) = f else {
                    return Err(refuse(format!(
                        "/CF entry /{} is a {}, not a crypt filter dictionary",
                        String::from_utf8_lossy(name),
                        f.type_name()
                    )));
                };
                let m = cfm(f)?;
                if v == 5 && m != Method::Aes256 && m != Method::Identity {
                    return Err(refuse(format!(
                        "/V 5 with crypt filter method {}",
                        m.name()
                    )));
                }
                if v == 4 && m == Method::Aes256 {
                    return Err(refuse("/V 4 with crypt filter method AESV3"));
                }
                self.named.push((name.to_vec(), m));
            }
        }
        let pick = |key: &[u8], default: Method| -> Result<Method> {
            match d.name(key) {
                None => Ok(default),
                Some(b"Identity") => Ok(Method::Identity),
                Some(n) => self
                    .named
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, m)| *m)
                    .ok_or_else(|| {
                        refuse(format!(
                            "/{} names crypt filter /{}, which /CF does not define",
                            String::from_utf8_lossy(key),
                            String::from_utf8_lossy(n)
                        ))
                    }),
            }
        };
        self.streams = pick(b"StmF", Method::Identity)?;
        self.strings = pick(b"StrF", Method::Identity)?;
        self.embedded = pick(b"EFF", self.streams)?;
        // V 4: the key length of the crypt filter in use (bytes or bits),
        // else /Length, else 128 bits.
        let cf_len = [self.streams, self.strings]
            .iter()
            .find(|m| **m != Method::Identity)
            .and_then(|_| {
                let cf = match d.get(b"CF") {
                    Some(Object::Dict(cf)) => cf,
                    _ => return None,
                };
                let name = d.name(b"StmF").or_else(|| d.name(b"StrF"))?;
                cf.get(name)?.as_dict()?.int(b"Length")
            });
        let bits = match cf_len.or(length) {
            Some(n) if (5..=16).contains(&n) => n * 8,
            Some(n) => n,
            None => 128,
        };
        self.key_len = if (40..=128).contains(&bits) && bits % 8 == 0 {
            (bits / 8) as usize
        } else {
            16
        };
        if [self.streams, self.strings].contains(&Method::Aes128) {
            self.key_len = 16;
        }
        Ok(())
    }

    /// The revision `/R`.
    pub fn r(&self) -> i64 {
        self.r
    }

    /// Revisions 5 and 6: checks `/Perms` with file key `key` (AES-256 ECB:
    /// bytes 0 to 3 are `/P` little-endian, byte 8 `T` or `F` for
    /// `/EncryptMetadata`, bytes 9 to 11 `adb`). Gives what is wrong, or
    /// `None` when it matches (or, for revision 5, is absent).
    pub fn check_perms(&self, key: &[u8]) -> Option<String> {
        if self.r < 5 {
            return None;
        }
        if self.perms.is_empty() {
            return (self.r == 6).then(|| {
                "the /Perms entry is missing, so /P cannot be checked (tampered or miswritten)"
                    .to_string()
            });
        }
        let mut block = self.perms.get(..16).unwrap_or_default().to_vec();
        if block.len() < 16 || aes_cbc_raw_decrypt(key, &[0u8; 16], &mut block).is_err() {
            return Some(format!(
                "the /Perms entry is {} bytes, not 16 (tampered or miswritten)",
                self.perms.len()
            ));
        }
        if block.get(9..12) != Some(b"adb".as_slice()) {
            return Some(
                "the /Perms entry does not decrypt to a permissions record (tampered or miswritten)"
                    .to_string(),
            );
        }
        let p = block
            .get(..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(i32::from_le_bytes);
        if p != Some(self.p) {
            return Some(format!(
                "the /Perms entry does not match /P: it holds {}, /P is {} (tampered or miswritten; /P is used)",
                p.unwrap_or(0),
                self.p
            ));
        }
        let meta = block.get(8).copied();
        let want = if self.encrypt_metadata { b'T' } else { b'F' };
        if meta != Some(want) {
            return Some(format!(
                "the /Perms entry does not match /EncryptMetadata {} (tampered or miswritten)",
                self.encrypt_metadata
            ));
        }
        None
    }

    /// The file key when `pw` is the user password.
    pub fn user_key(&self, pw: &[u8]) -> Option<Vec<u8>> {
        if self.r >= 5 {
            return self.user_key_aes256(pw);
        }
        let lens: &[usize] = if self.guess_128 {
            &[5, 16]
        } else {
            &[self.key_len]
        };
        lens.iter()
            .find_map(|&n| self.check_user(&self.file_key(pw, n), n))
    }

    /// The file key when `pw` is the owner password.
    pub fn owner_key(&self, pw: &[u8]) -> Option<Vec<u8>> {
        if self.r >= 5 {
            return self.owner_key_aes256(pw);
        }
        let lens: &[usize] = if self.guess_128 {
            &[5, 16]
        } else {
            &[self.key_len]
        };
        for &n in lens {
            let mut h: [u8; 16] = Md5::digest(padded(pw)).into();
            if self.r >= 3 {
                for _ in 0..50 {
                    h = Md5::digest(h).into();
                }
            }
            let okey = h.get(..n)?;
            let mut user = self.o.get(..32)?.to_vec();
            if self.r == 2 {
                user = rc4(okey, &user).ok()?;
            } else {
                for i in (0..20u8).rev() {
                    let k: Vec<u8> = okey.iter().map(|b| b ^ i).collect();
                    user = rc4(&k, &user).ok()?;
                }
            }
            if let Some(k) = self.check_user(&self.file_key(&user, n), n) {
                return Some(k);
            }
        }
        None
    }

    /// Algorithm 2: the file key of `n` bytes from user password `pw`.
    fn file_key(&self, pw: &[u8], n: usize) -> Vec<u8> {
        let mut h = Md5::new();
        h.update(padded(pw));
        h.update(self.o.get(..32).unwrap_or_default());
        h.update(self.p.to_le_bytes());
        h.update(&self.id0);
        if self.r >= 4 && !self.encrypt_metadata {
            h.update([0xFF; 4]);
        }
        let mut d: [u8; 16] = h.finalize().into();
        if self.r >= 3 {
            for _ in 0..50 {
                d = Md5::digest(d.get(..n).unwrap_or_default()).into();
            }
        }
        d.get(..n).unwrap_or_default().to_vec()
    }

    /// Algorithms 4 and 5: `key` when it reproduces `/U`.
    fn check_user(&self, key: &[u8], n: usize) -> Option<Vec<u8>> {
        let ok = if self.r == 2 {
            rc4(key, &PAD).ok()?.as_slice() == self.u.get(..32)?
        } else {
            let mut h = Md5::new();
            h.update(PAD);
            h.update(&self.id0);
            let mut x = h.finalize().to_vec();
            for i in 0..20u8 {
                let k: Vec<u8> = key.iter().take(n).map(|b| b ^ i).collect();
                x = rc4(&k, &x).ok()?;
            }
            x.get(..16)? == self.u.get(..16)?
        };
        ok.then(|| key.to_vec())
    }

    /// Algorithm 2.A, user password (revisions 5 and 6).
    fn user_key_aes256(&self, pw: &[u8]) -> Option<Vec<u8>> {
        let pw = pw.get(..pw.len().min(127))?;
        let check = self.hash(pw, self.u.get(32..40)?, &[]);
        if check.get(..32)? != self.u.get(..32)? {
            return None;
        }
        let k = self.hash(pw, self.u.get(40..48)?, &[]);
        let mut key = self.ue.get(..32)?.to_vec();
        aes_cbc_raw_decrypt(k.get(..32)?, &[0u8; 16], &mut key).ok()?;
        Some(key)
    }

    /// Algorithm 2.A, owner password (revisions 5 and 6).
    fn owner_key_aes256(&self, pw: &[u8]) -> Option<Vec<u8>> {
        let pw = pw.get(..pw.len().min(127))?;
        let u48 = self.u.get(..48)?;
        let check = self.hash(pw, self.o.get(32..40)?, u48);
        if check.get(..32)? != self.o.get(..32)? {
            return None;
        }
        let k = self.hash(pw, self.o.get(40..48)?, u48);
        let mut key = self.oe.get(..32)?.to_vec();
        aes_cbc_raw_decrypt(k.get(..32)?, &[0u8; 16], &mut key).ok()?;
        Some(key)
    }

    /// The revision 5 hash (SHA-256) or the revision 6 one (algorithm 2.B).
    fn hash(&self, pw: &[u8], salt: &[u8], udata: &[u8]) -> Vec<u8> {
        let mut h = Sha256::new();
        h.update(pw);
        h.update(salt);
        h.update(udata);
        let mut k = h.finalize().to_vec();
        if self.r == 5 {
            return k;
        }
        let mut round: u32 = 0;
        loop {
            let mut k1 = Vec::with_capacity(64 * (pw.len() + k.len() + udata.len()));
            for _ in 0..64 {
                k1.extend_from_slice(pw);
                k1.extend_from_slice(&k);
                k1.extend_from_slice(udata);
            }
            let (Some(key), Some(iv)) = (k.get(..16), k.get(16..32)) else {
                return k;
            };
            if aes128_cbc_raw_encrypt(key, iv, &mut k1).is_err() {
                return k;
            }
            let e = k1;
            let sum: u32 = e.iter().take(16).map(|&b| u32::from(b)).sum();
            k = match sum % 3 {
                0 => Sha256::digest(&e).to_vec(),
                1 => Sha384::digest(&e).to_vec(),
                _ => Sha512::digest(&e).to_vec(),
            };
            round += 1;
            let last = u32::from(e.last().copied().unwrap_or(0));
            if round >= 64 && last + 32 <= round {
                break;
            }
        }
        k.truncate(32);
        k
    }
}

/// The password padded or truncated to 32 bytes.
fn padded(pw: &[u8]) -> [u8; 32] {
    let mut out = PAD;
    let n = pw.len().min(32);
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = if i < n {
            pw.get(i).copied().unwrap_or(0)
        } else {
            PAD.get(i - n).copied().unwrap_or(0)
        };
    }
    out
}

/// Algorithm 1: the key of object `r` (the file key for AES-256).
pub(super) fn object_key(file_key: &[u8], r: ObjRef, m: Method) -> Vec<u8> {
    if m == Method::Aes256 || m == Method::Identity {
        return file_key.to_vec();
    }
    let mut h = Md5::new();
    h.update(file_key);
    h.update(r.num.to_le_bytes().get(..3).unwrap_or_default());
    h.update(r.generation.to_le_bytes());
    if m.is_aes() {
        h.update(b"sAlT");
    }
    let d = h.finalize();
    let n = (file_key.len() + 5).min(16);
    d.get(..n).unwrap_or_default().to_vec()
}

/// The `/O`, `/U` (and `/OE`, `/UE`, `/Perms`) a writer stores for the
/// given passwords, for tests that build encrypted files by hand.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
pub(super) mod build {
    use super::*;

    /// `/O` and `/U` and the file key for RC4 revision 3 with a key of `n`
    /// bytes.
    pub fn r3(
        user: &[u8],
        owner: &[u8],
        p: i32,
        id0: &[u8],
        n: usize,
    ) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        let mut h: [u8; 16] = Md5::digest(padded(owner)).into();
        for _ in 0..50 {
            h = Md5::digest(h).into();
        }
        let okey = &h[..n];
        let mut o = padded(user).to_vec();
        for i in 0..20u8 {
            let k: Vec<u8> = okey.iter().map(|b| b ^ i).collect();
            o = rc4(&k, &o).unwrap();
        }
        let params = Params {
            r: 3,
            key_len: n,
            o: o.clone(),
            u: vec![0; 32],
            oe: Vec::new(),
            ue: Vec::new(),
            perms: Vec::new(),
            p,
            id0: id0.to_vec(),
            encrypt_metadata: true,
            strings: Method::Rc4,
            streams: Method::Rc4,
            embedded: Method::Rc4,
            named: Vec::new(),
            guess_128: false,
        };
        let key = params.file_key(user, n);
        let mut hh = Md5::new();
        hh.update(PAD);
        hh.update(id0);
        let mut x = hh.finalize().to_vec();
        for i in 0..20u8 {
            let k: Vec<u8> = key.iter().map(|b| b ^ i).collect();
            x = rc4(&k, &x).unwrap();
        }
        x.extend_from_slice(&[0u8; 16]);
        (o, x, key)
    }

    /// `/O`, `/U`, `/OE`, `/UE` for AES-256 revision 6 with file key `key`
    /// and fixed salts.
    pub fn r6(user: &[u8], owner: &[u8], key: &[u8; 32]) -> [Vec<u8>; 4] {
        let p6 = Params {
            r: 6,
            key_len: 32,
            o: Vec::new(),
            u: Vec::new(),
            oe: Vec::new(),
            ue: Vec::new(),
            perms: Vec::new(),
            p: -4,
            id0: Vec::new(),
            encrypt_metadata: true,
            strings: Method::Aes256,
            streams: Method::Aes256,
            embedded: Method::Aes256,
            named: Vec::new(),
            guess_128: false,
        };
        let enc = |k: &[u8], data: &[u8]| {
            let mut b = data.to_vec();
            let len = b.len();
            cbc::Encryptor::<aes::Aes256>::new_from_slices(k, &[0u8; 16])
                .unwrap()
                .encrypt_padded::<aes::cipher::block_padding::NoPadding>(&mut b, len)
                .unwrap();
            b
        };
        use aes::cipher::{BlockModeEncrypt, KeyIvInit};
        let (uvs, uks) = (b"uvsalt01", b"uksalt01");
        let mut u = p6.hash(user, uvs, &[]);
        u.extend_from_slice(uvs);
        u.extend_from_slice(uks);
        let ue = enc(&p6.hash(user, uks, &[]), key);
        let (ovs, oks) = (b"ovsalt01", b"oksalt01");
        let mut o = p6.hash(owner, ovs, &u);
        o.extend_from_slice(ovs);
        o.extend_from_slice(oks);
        let oe = enc(&p6.hash(owner, oks, &u), key);
        [o, u, oe, ue]
    }

    /// The `/Perms` a writer stores for permissions `p` with file key
    /// `key` (revision 6).
    pub fn perms(key: &[u8; 32], p: i32, encrypt_metadata: bool) -> Vec<u8> {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&p.to_le_bytes());
        b[4..8].copy_from_slice(&[0xFF; 4]);
        b[8] = if encrypt_metadata { b'T' } else { b'F' };
        b[9..12].copy_from_slice(b"adb");
        b[12..].copy_from_slice(b"rand");
        use aes::cipher::{BlockModeEncrypt, KeyIvInit};
        cbc::Encryptor::<aes::Aes256>::new_from_slices(key, &[0u8; 16])
            .unwrap()
            .encrypt_padded::<aes::cipher::block_padding::NoPadding>(&mut b, 16)
            .unwrap();
        b.to_vec()
    }
}
