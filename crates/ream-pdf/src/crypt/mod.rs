//! The standard security handler (ISO 32000-2 §7.6.4): the `/Encrypt`
//! dictionary read, the password checked, the file key derived, and
//! strings and stream data decrypted (or encrypted for writing) object by
//! object.
//!
//! Supported: `/Filter /Standard` with V 1, 2 (RC4, 40 to 128 bits,
//! revisions 2 and 3), V 4 (crypt filters `/V2` RC4 or `/AESV2` AES-128,
//! revision 4) and V 5 (`/AESV3` AES-256, revisions 5 and 6). Public-key
//! handlers, other `/Filter`s, V 3 and unknown revisions are refused by
//! name.

mod cipher;
mod key;
mod password;
mod plain;
pub(crate) mod sig;

use crate::error::{Error, Result};
use crate::object::{Dict, ObjRef, Object};
use ream_io::ErrorKind;

pub(crate) use cipher::Method;
pub use password::{MAX_PASSWORD, Password};
pub(crate) use plain::strip_crypt_filter;

/// What a document's encryption is, as found in its `/Encrypt`
/// dictionary, and whether ream could decrypt it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encryption {
    /// The security handler (`/Filter`), such as `Standard`.
    pub handler: String,
    /// The algorithm version `/V` (0 when absent).
    pub v: i64,
    /// The revision `/R` (0 when absent).
    pub r: i64,
    /// Key length in bits (40 to 256).
    pub key_bits: u32,
    /// The method for streams: `RC4`, `AESV2`, `AESV3` or `Identity`.
    pub stream_method: String,
    /// The method for strings.
    pub string_method: String,
    /// False when `/EncryptMetadata false`: metadata streams are stored
    /// in the clear.
    pub encrypt_metadata: bool,
    /// The permission bits `/P`.
    pub permissions: i64,
    /// Which password opened it: `user` or `owner`; `None` when it could
    /// not be decrypted.
    pub opened_with: Option<String>,
    /// Why it could not be decrypted (wrong password, unsupported
    /// handler); `None` when it was.
    pub error: Option<String>,
}

impl Encryption {
    /// `Standard V 2 R 3, RC4 128-bit` (the words `show` and errors use).
    pub fn describe(&self) -> String {
        format!(
            "/Filter /{} V {} R {}, {} {}-bit",
            self.handler, self.v, self.r, self.stream_method, self.key_bits
        )
    }
}

/// The state needed to decrypt and encrypt objects: the file key and the
/// methods for strings, streams and embedded files.
#[derive(Debug, Clone)]
pub(crate) struct Crypt {
    key: Vec<u8>,
    strings: Method,
    streams: Method,
    embedded: Method,
    named: Vec<(Vec<u8>, Method)>,
    pub encrypt_metadata: bool,
    /// The `/Encrypt` dictionary's object, never decrypted.
    pub encrypt_ref: Option<ObjRef>,
    /// Objects that are the `/V` of a signature field (`/FT /Sig`): their
    /// `/Contents` is stored in the clear.
    pub sig_values: std::collections::HashSet<u32>,
}

/// Where the `/Encrypt` dictionary is, for messages: `(in /Encrypt
/// object 6 0)`, or `(in the trailer's /Encrypt dictionary)` when it is
/// direct.
pub(crate) fn encrypt_place(encrypt_ref: Option<ObjRef>) -> String {
    match encrypt_ref {
        Some(r) => format!("(in /Encrypt object {r})"),
        None => "(in the trailer's /Encrypt dictionary)".to_string(),
    }
}

/// What [`open`] found: the summary, the decryption state when a password
/// matched, and warnings (a `/Perms` entry that does not match).
pub(crate) struct Opened {
    pub info: Encryption,
    pub crypt: Option<Crypt>,
    pub warnings: Vec<String>,
}

/// Reads `encrypt` and tries the passwords: each form of `password` (see
/// [`Password`]) as user and as owner password, then the empty password as
/// user and as owner password (with a warning when a password was given
/// but only the empty one matched). Gives the summary and, when a password
/// matched, the decryption state. A malformed dictionary's error ends by
/// naming it ([`encrypt_place`]).
pub(crate) fn open(
    encrypt: &Dict,
    encrypt_ref: Option<ObjRef>,
    id0: &[u8],
    password: Option<&Password>,
) -> Opened {
    let params = key::Params::read(encrypt, id0);
    let mut info = Encryption {
        handler: encrypt.name(b"Filter").map_or_else(
            || "?".to_string(),
            |n| String::from_utf8_lossy(n).into_owned(),
        ),
        v: encrypt.int(b"V").unwrap_or(0),
        r: encrypt.int(b"R").unwrap_or(0),
        key_bits: 0,
        stream_method: String::new(),
        string_method: String::new(),
        encrypt_metadata: !matches!(encrypt.get(b"EncryptMetadata"), Some(Object::Bool(false))),
        permissions: encrypt.int(b"P").unwrap_or(0),
        opened_with: None,
        error: None,
    };
    let mut warnings = Vec::new();
    let params = match params {
        Ok(p) => p,
        Err(e) => {
            info.error = Some(format!(
                "{}: {} {}",
                info.describe_short(),
                e.message(),
                encrypt_place(encrypt_ref)
            ));
            return Opened {
                info,
                crypt: None,
                warnings,
            };
        }
    };
    info.key_bits = params.key_len as u32 * 8;
    info.stream_method = params.streams.name().to_string();
    info.string_method = params.strings.name().to_string();
    // The given password first (so an owner password opens as owner even
    // when the empty user password would open the file too), then the
    // empty one.
    let mut tries: Vec<(Vec<u8>, bool)> = Vec::new();
    if let Some(p) = password {
        for c in p.candidates(params.r()) {
            tries.push((c.clone(), false));
            tries.push((c, true));
        }
    }
    let given = tries.len();
    tries.push((Vec::new(), false));
    tries.push((Vec::new(), true));
    for (i, (pw, owner)) in tries.into_iter().enumerate() {
        let found = if owner {
            params.owner_key(&pw)
        } else {
            params.user_key(&pw)
        };
        if let Some(k) = found {
            if let Some(w) = params.check_perms(&k) {
                warnings.push(format!("{w} {}", encrypt_place(encrypt_ref)));
            }
            if given > 0 && i >= given {
                warnings.push(format!(
                    "the password given is neither the user nor the owner password; \
                     the empty {} password opened the document",
                    if owner { "owner" } else { "user" }
                ));
            }
            info.opened_with = Some(if owner { "owner" } else { "user" }.to_string());
            let crypt = Crypt {
                key: k,
                strings: params.strings,
                streams: params.streams,
                embedded: params.embedded,
                named: params.named.clone(),
                encrypt_metadata: params.encrypt_metadata,
                encrypt_ref,
                sig_values: std::collections::HashSet::new(),
            };
            return Opened {
                info,
                crypt: Some(crypt),
                warnings,
            };
        }
    }
    info.error = Some(format!(
        "{}: {}",
        info.describe(),
        match password {
            None => "the document needs a password (the empty user password does not open it)",
            Some(_) => "wrong password (neither the user nor the owner password)",
        }
    ));
    Opened {
        info,
        crypt: None,
        warnings,
    }
}

impl Encryption {
    fn describe_short(&self) -> String {
        format!("/Filter /{} V {} R {}", self.handler, self.v, self.r)
    }
}

impl Crypt {
    /// The key of object `r` for `m` (the file key itself for AES-256).
    fn object_key(&self, r: ObjRef, m: Method) -> Vec<u8> {
        key::object_key(&self.key, r, m)
    }

    /// Decrypts one string of object `r`.
    pub fn decrypt_string(&self, r: ObjRef, data: &[u8]) -> Result<Vec<u8>> {
        let k = self.object_key(r, self.strings);
        self.strings.decrypt(&k, data)
    }

    /// Encrypts one string of object `r`.
    pub fn encrypt_string(&self, r: ObjRef, data: &[u8]) -> Result<Vec<u8>> {
        let k = self.object_key(r, self.strings);
        self.strings.encrypt(&k, data)
    }

    /// Decrypts every string inside `o`, an object numbered `r`, except
    /// the `/Contents` of a signature dictionary (stored in the clear).
    pub fn decrypt_object(&self, r: ObjRef, o: &mut Object) -> Result<()> {
        if self.strings == Method::Identity || self.encrypt_ref.is_some_and(|e| e.num == r.num) {
            return Ok(());
        }
        if let Object::Stream(s) = o
            && s.dict.is_type(b"XRef")
        {
            return Ok(());
        }
        let sig = self.sig_values.contains(&r.num);
        walk_strings(o, sig, &mut |s| self.decrypt_string(r, s))
    }

    /// Encrypts every string inside `o`, to be written as object `r`, but
    /// the `/Contents` of a signature dictionary (the caller leaves the
    /// `/Encrypt` dictionary alone). `was` is the number `o` had when it
    /// was read (it tells whether a signature field points at it).
    pub fn encrypt_object(&self, r: ObjRef, was: u32, o: &mut Object) -> Result<()> {
        if self.strings == Method::Identity {
            return Ok(());
        }
        let sig = self.sig_values.contains(&was);
        walk_strings(o, sig, &mut |s| self.encrypt_string(r, s))
    }

    /// The method for the data of a stream with dictionary `d`
    /// (`Identity` for cross-reference streams, clear-text metadata, and a
    /// `/Crypt` filter naming `/Identity`). `resolve` follows references
    /// in `/Filter` and `/DecodeParms`.
    pub fn stream_method(&self, d: &Dict, resolve: &dyn Fn(&Object) -> Object) -> Result<Method> {
        if d.is_type(b"XRef") {
            return Ok(Method::Identity);
        }
        if !self.encrypt_metadata && d.is_type(b"Metadata") {
            return Ok(Method::Identity);
        }
        let chain = crate::xref::chain::filter_chain(d, resolve);
        if let Some(f) = chain.first()
            && f.name == b"Crypt"
        {
            let name = f
                .parms
                .as_ref()
                .and_then(|p| p.name(b"Name"))
                .unwrap_or(b"Identity");
            if name == b"Identity" {
                return Ok(Method::Identity);
            }
            return self
                .named
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, m)| *m)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Unsupported,
                        format!(
                            "the stream's /Crypt filter names /{}, which /CF does not define",
                            String::from_utf8_lossy(name)
                        ),
                    )
                });
        }
        if d.is_type(b"EmbeddedFile") {
            return Ok(self.embedded);
        }
        Ok(self.streams)
    }

    /// Decrypts the stored data of stream object `r` with method `m`.
    pub fn decrypt_data(&self, r: ObjRef, m: Method, data: &[u8]) -> Result<Vec<u8>> {
        m.decrypt(&self.object_key(r, m), data)
    }

    /// Encrypts data to be stored in stream object `r` with method `m`.
    pub fn encrypt_data(&self, r: ObjRef, m: Method, data: &[u8]) -> Result<Vec<u8>> {
        m.encrypt(&self.object_key(r, m), data)
    }
}

/// Runs `f` on every string in `o` (arrays, dictionaries, a stream's
/// dictionary), replacing each by its result, except the `/Contents`
/// string of a signature dictionary: `o` itself when `sig_value`, one that
/// [`sig::is_sig_dict`] recognises, or the direct `/V` of a signature
/// field.
fn walk_strings(
    o: &mut Object,
    sig_value: bool,
    f: &mut dyn FnMut(&[u8]) -> Result<Vec<u8>>,
) -> Result<()> {
    match o {
        Object::String(s) => {
            *s = f(s)?;
            Ok(())
        }
        Object::Array(a) => a.iter_mut().try_for_each(|x| walk_strings(x, false, f)),
        Object::Dict(d) => walk_dict(d, sig_value, f),
        Object::Stream(s) => walk_dict(&mut s.dict, false, f),
        _ => Ok(()),
    }
}

fn walk_dict(
    d: &mut Dict,
    sig_value: bool,
    f: &mut dyn FnMut(&[u8]) -> Result<Vec<u8>>,
) -> Result<()> {
    let is_sig = sig_value || sig::is_sig_dict(d);
    let sig_field = d.name(b"FT") == Some(b"Sig");
    for (k, v) in d.iter_mut() {
        if is_sig && k == b"Contents" && matches!(v, Object::String(_)) {
            continue;
        }
        walk_strings(v, sig_field && k == b"V", f)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_checks;
