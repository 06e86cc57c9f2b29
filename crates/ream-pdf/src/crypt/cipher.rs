//! The ciphers of the standard security handler: RC4 and AES in CBC mode
//! (RustCrypto), with the IV stored before the data and PKCS#7 padding.

use crate::error::{Error, Result};
use aes::cipher::block_padding::{NoPadding, Pkcs7};
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit, StreamCipher};
use ream_io::ErrorKind;

/// How one class of data (strings, streams) is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// Stored in the clear.
    Identity,
    /// RC4 with the object key (`/V2`, and V 1 and 2).
    Rc4,
    /// AES-128-CBC with the object key (`/AESV2`).
    Aes128,
    /// AES-256-CBC with the file key (`/AESV3`).
    Aes256,
}

const BLOCK: usize = 16;

impl Method {
    /// The name `/CFM` gives it (`RC4` for `/V2`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Identity => "Identity",
            Method::Rc4 => "RC4",
            Method::Aes128 => "AESV2",
            Method::Aes256 => "AESV3",
        }
    }

    /// True for the AES methods (whose object keys take the `sAlT`).
    pub fn is_aes(self) -> bool {
        matches!(self, Method::Aes128 | Method::Aes256)
    }

    /// Decrypts `data` with `key`. AES data shorter than one block is an
    /// error; a tail that is not a whole block is dropped, and padding that
    /// is not valid PKCS#7 is kept (what other readers do).
    pub fn decrypt(self, key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        match self {
            Method::Identity => Ok(data.to_vec()),
            Method::Rc4 => rc4(key, data),
            Method::Aes128 | Method::Aes256 => aes_cbc_decrypt(key, data),
        }
    }

    /// Encrypts `data` with `key` (AES: a fresh random IV first, PKCS#7
    /// padding).
    pub fn encrypt(self, key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        match self {
            Method::Identity => Ok(data.to_vec()),
            Method::Rc4 => rc4(key, data),
            Method::Aes128 | Method::Aes256 => {
                let mut iv = [0u8; BLOCK];
                getrandom::fill(&mut iv).map_err(|e| {
                    Error::new(ErrorKind::Io, format!("no random bytes for an AES IV: {e}"))
                })?;
                aes_cbc_encrypt(key, &iv, data)
            }
        }
    }
}

/// RC4 over `data` (encryption and decryption are the same).
pub(crate) fn rc4(key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
    let mut c = rc4::Rc4::new_from_slice(key).map_err(|_| {
        Error::new(
            ErrorKind::Malformed,
            format!("RC4 key of {} bytes (1 to 32 allowed)", key.len()),
        )
    })?;
    let mut out = data.to_vec();
    c.apply_keystream(&mut out);
    Ok(out)
}

fn bad_key(n: usize) -> Error {
    Error::new(
        ErrorKind::Malformed,
        format!("AES key of {n} bytes (16 or 32 expected)"),
    )
}

/// AES-CBC decryption of `iv || ciphertext`, PKCS#7 padding removed when
/// valid.
pub(crate) fn aes_cbc_decrypt(key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
    let (iv, body) = data.split_at_checked(BLOCK).ok_or_else(|| {
        Error::new(
            ErrorKind::Malformed,
            format!(
                "AES-encrypted data of {} bytes: shorter than its 16-byte IV",
                data.len()
            ),
        )
    })?;
    let whole = body.len() / BLOCK * BLOCK;
    let mut buf = body.get(..whole).unwrap_or_default().to_vec();
    aes_cbc_raw_decrypt(key, iv, &mut buf)?;
    if let Some(&p) = buf.last() {
        let p = usize::from(p);
        if (1..=BLOCK).contains(&p)
            && p <= buf.len()
            && buf
                .get(buf.len() - p..)
                .is_some_and(|t| t.iter().all(|&b| usize::from(b) == p))
        {
            buf.truncate(buf.len() - p);
        }
    }
    Ok(buf)
}

/// AES-CBC decryption in place without padding (`buf` whole blocks).
pub(crate) fn aes_cbc_raw_decrypt(key: &[u8], iv: &[u8], buf: &mut [u8]) -> Result<()> {
    let done = match key.len() {
        16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
            .map_err(|_| bad_key(key.len()))?
            .decrypt_padded::<NoPadding>(buf)
            .map(|_| ()),
        32 => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
            .map_err(|_| bad_key(key.len()))?
            .decrypt_padded::<NoPadding>(buf)
            .map(|_| ()),
        n => return Err(bad_key(n)),
    };
    done.map_err(|_| Error::new(ErrorKind::Malformed, "AES data is not whole 16-byte blocks"))
}

/// AES-CBC encryption of `data` with PKCS#7 padding: `iv || ciphertext`.
pub(crate) fn aes_cbc_encrypt(key: &[u8], iv: &[u8; BLOCK], data: &[u8]) -> Result<Vec<u8>> {
    let padded = (data.len() / BLOCK + 1) * BLOCK;
    let mut buf = vec![0u8; padded];
    buf.get_mut(..data.len())
        .ok_or_else(|| bad_key(0))?
        .copy_from_slice(data);
    let n = match key.len() {
        16 => cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
            .map_err(|_| bad_key(key.len()))?
            .encrypt_padded::<Pkcs7>(&mut buf, data.len())
            .map(<[u8]>::len),
        32 => cbc::Encryptor::<aes::Aes256>::new_from_slices(key, iv)
            .map_err(|_| bad_key(key.len()))?
            .encrypt_padded::<Pkcs7>(&mut buf, data.len())
            .map(<[u8]>::len),
        n => return Err(bad_key(n)),
    }
    .map_err(|_| Error::new(ErrorKind::Malformed, "AES padding failed"))?;
    buf.truncate(n);
    let mut out = Vec::with_capacity(BLOCK + n);
    out.extend_from_slice(iv);
    out.extend_from_slice(&buf);
    Ok(out)
}

/// AES-128-CBC encryption without padding (`buf` whole blocks), for the
/// revision 6 hash.
pub(crate) fn aes128_cbc_raw_encrypt(key: &[u8], iv: &[u8], buf: &mut [u8]) -> Result<()> {
    let len = buf.len();
    cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
        .map_err(|_| bad_key(key.len()))?
        .encrypt_padded::<NoPadding>(buf, len)
        .map(|_| ())
        .map_err(|_| Error::new(ErrorKind::Malformed, "AES data is not whole 16-byte blocks"))
}
