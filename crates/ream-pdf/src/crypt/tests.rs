//! Hand-built encrypted files (RC4 revision 3, AES-256 revision 6) and
//! hostile `/Encrypt` dictionaries.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use super::cipher::{Method, aes_cbc_encrypt, rc4};
use super::key::{build, object_key};
use crate::{ErrorKind, ObjRef, Object, Pdf, PdfOptions};

pub(super) const ID0: [u8; 16] = *b"0123456789abcdef";

pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A one-page PDF whose Info /Title and content stream are encrypted by
/// `enc(object, data)`, with `encrypt` as object 6 and `extra` as objects
/// 7 and up.
fn file_with(encrypt: &str, extra: &[&str], enc: &dyn Fn(u32, &[u8]) -> Vec<u8>) -> Vec<u8> {
    file_full("<< /Type /Catalog /Pages 2 0 R >>", encrypt, extra, enc)
}

/// [`file_with`] with `catalog` as object 1 (extra objects go unused
/// unless it, or the extra objects, refer to them).
pub(super) fn file_full(
    catalog: &str,
    encrypt: &str,
    extra: &[&str],
    enc: &dyn Fn(u32, &[u8]) -> Vec<u8>,
) -> Vec<u8> {
    let extra: Vec<Vec<u8>> = extra.iter().map(|e| e.as_bytes().to_vec()).collect();
    file_bytes(catalog, encrypt, &extra, enc)
}

/// [`file_full`] with extra objects given as bytes (binary stream data).
pub(super) fn file_bytes(
    catalog: &str,
    encrypt: &str,
    extra: &[Vec<u8>],
    enc: &dyn Fn(u32, &[u8]) -> Vec<u8>,
) -> Vec<u8> {
    let content = enc(4, b"BT (Hand built) Tj ET");
    let title = enc(5, b"Hand-built title");
    let mut objs: Vec<Vec<u8>> = vec![
        catalog.as_bytes().to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >>".to_vec(),
    ];
    let mut s = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    s.extend_from_slice(&content);
    s.extend_from_slice(b"\nendstream");
    objs.push(s);
    objs.push(format!("<< /Title <{}> >>", hex(&title)).into_bytes());
    objs.push(encrypt.as_bytes().to_vec());
    objs.extend(extra.iter().cloned());
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offs = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offs.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let x = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offs {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {size} /Root 1 0 R /Info 5 0 R /Encrypt 6 0 R /ID [<{0}> <{0}>] >>\nstartxref\n{x}\n%%EOF\n",
            hex(&ID0),
            size = objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn file(encrypt: &str, enc: &dyn Fn(u32, &[u8]) -> Vec<u8>) -> Vec<u8> {
    file_with(encrypt, &[], enc)
}

fn rc4_r3_file(encrypt_override: Option<&str>) -> Vec<u8> {
    rc4_r3_file_for(b"user", encrypt_override)
}

/// An RC4 128-bit revision 3 file with user password `user` and owner
/// password `owner`.
fn rc4_r3_file_for(user: &[u8], encrypt_override: Option<&str>) -> Vec<u8> {
    let (o, u, key) = build::r3(user, b"owner", -4, &ID0, 16);
    let dict = format!(
        "<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <{}> /U <{}> >>",
        hex(&o),
        hex(&u)
    );
    let enc = move |num: u32, data: &[u8]| {
        let k = object_key(&key, ObjRef::new(num, 0), Method::Rc4);
        rc4(&k, data).unwrap()
    };
    file(encrypt_override.unwrap_or(&dict), &enc)
}

fn aes_r6_file() -> Vec<u8> {
    aes_r6_file_cf(false)
}

/// An AES-256 file; `indirect_cf` puts `/CF` and its crypt filter in
/// objects 7 and 8.
fn aes_r6_file_cf(indirect_cf: bool) -> Vec<u8> {
    let key = [7u8; 32];
    let [o, u, oe, ue] = build::r6(b"user", b"owner", &key);
    let perms = hex(&build::perms(&key, -4, true));
    let cf = if indirect_cf {
        "7 0 R"
    } else {
        "<< /StdCF << /CFM /AESV3 /Length 32 /AuthEvent /DocOpen >> >>"
    };
    let dict = format!(
        "<< /Filter /Standard /V 5 /R 6 /Length 256 /P -4 /O <{}> /U <{}> /OE <{}> /UE <{}> \
         /Perms <{perms}> /CF {cf} /StmF /StdCF /StrF /StdCF >>",
        hex(&o),
        hex(&u),
        hex(&oe),
        hex(&ue)
    );
    let extra: &[&str] = if indirect_cf {
        &["<< /StdCF 8 0 R >>", "<< /CFM /AESV3 /Length 32 >>"]
    } else {
        &[]
    };
    let enc = move |_num: u32, data: &[u8]| aes_cbc_encrypt(&key, &[9u8; 16], data).unwrap();
    file_with(&dict, extra, &enc)
}

/// `/CF` and its filters in objects of their own: read before anything
/// can be decrypted, and kept out of object streams by a rewrite.
#[test]
fn indirect_crypt_filters_survive_a_rewrite() {
    check_open(aes_r6_file_cf(true), "user", "user");
    let pdf = Pdf::from_bytes(aes_r6_file_cf(true), &PdfOptions::new().password("user")).unwrap();
    let dir = std::env::temp_dir().join(format!("ream-crypt-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("indirect-cf.pdf");
    let o = crate::RewriteOptions {
        object_streams: true,
        sync: false,
        ..crate::RewriteOptions::default()
    };
    pdf.rewrite(&out, &o).unwrap();
    let back = Pdf::open(&out, &PdfOptions::new().password("owner")).unwrap();
    assert_eq!(back.info().unwrap()[0].1.to_string(), "Hand-built title");
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_open(bytes: Vec<u8>, pw: &str, opened: &str) {
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().password(pw)).unwrap();
    assert_eq!(
        pdf.encryption().unwrap().opened_with.as_deref(),
        Some(opened)
    );
    let info = pdf.info().unwrap();
    assert_eq!(info[0].1.to_string(), "Hand-built title");
    let o = pdf.object(ObjRef::new(4, 0)).unwrap();
    let data = pdf.stream_data(o.as_stream().unwrap(), true).unwrap();
    assert_eq!(data, b"BT (Hand built) Tj ET");
}

#[test]
fn hand_built_rc4_r3() {
    check_open(rc4_r3_file(None), "user", "user");
    check_open(rc4_r3_file(None), "owner", "owner");
    let e = Pdf::from_bytes(rc4_r3_file(None), &PdfOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Encrypted);
    assert!(
        e.to_string()
            .contains("/Filter /Standard V 2 R 3, RC4 128-bit: the document needs a password"),
        "{e}"
    );
}

#[test]
fn hand_built_aes256_r6() {
    check_open(aes_r6_file(), "user", "user");
    check_open(aes_r6_file(), "owner", "owner");
    let e = Pdf::from_bytes(aes_r6_file(), &PdfOptions::new().password("x")).unwrap_err();
    assert!(
        e.to_string()
            .contains("V 5 R 6, AESV3 256-bit: wrong password"),
        "{e}"
    );
}

/// Each broken or unsupported `/Encrypt` gives `Encrypted` naming the
/// problem, in bounded time.
#[test]
fn hostile_encrypt_dictionaries() {
    let ou = format!("/O <{0}> /U <{0}>", "00".repeat(32));
    let cases: Vec<(String, &str)> = vec![
        (
            format!("<< /Filter /Adobe.PubSec /V 4 /R 4 {ou} >>"),
            "security handler /Adobe.PubSec is not supported",
        ),
        (
            format!("<< /Filter /Custom /V 2 /R 3 {ou} >>"),
            "security handler /Custom",
        ),
        (
            format!("<< /V 2 /R 3 {ou} >>"),
            "/Filter (the security handler) is missing",
        ),
        (
            format!("<< /Filter /Standard /V 2 {ou} >>"),
            "/R (the revision) is missing",
        ),
        (
            format!("<< /Filter /Standard /V 2 /R 9 {ou} >>"),
            "revision /R 9 is not supported",
        ),
        (
            format!("<< /Filter /Standard /V 3 /R 3 {ou} >>"),
            "algorithm /V 3 is not supported",
        ),
        (
            format!("<< /Filter /Standard /V 2 /R 3 /Length 99999 {ou} >>"),
            "/Length 99999",
        ),
        (
            format!("<< /Filter /Standard /V 2 /R 3 /Length (x) {ou} >>"),
            "/Length is a string",
        ),
        (
            "<< /Filter /Standard /V 2 /R 3 /O <00> /U <00> >>".to_string(),
            "/O is 1 bytes, at least 32 expected",
        ),
        (
            format!("<< /Filter /Standard /V 2 /R 3 /O <{}> >>", "00".repeat(32)),
            "/U is missing",
        ),
        (
            format!(
                "<< /Filter /Standard /V 5 /R 6 /O <{0}> /U <{0}> >>",
                "00".repeat(48)
            ),
            "/OE is missing",
        ),
        (
            format!("<< /Filter /Standard /V 4 /R 4 /StmF /Foo {ou} >>"),
            "/StmF names crypt filter /Foo, which /CF does not define",
        ),
        (
            format!("<< /Filter /Standard /V 4 /R 4 /CF << /X << /CFM /Rot13 >> >> {ou} >>"),
            "crypt filter method /Rot13 is not supported",
        ),
        (
            "<< /Filter /Standard >> /Junk".to_string(),
            "/R (the revision) is missing",
        ),
        ("[1 2 3]".to_string(), "/Encrypt is a array"),
        (
            format!(
                "<< /Filter /Standard /V 2 /R 3 /O <{0}{0}> /U <00{0}> >>",
                "00".repeat(16)
            ),
            "/U is 17 bytes, at least 32 expected",
        ),
        (
            format!("<< /Filter /Standard /V 4 /R 4 /CF 5 {ou} >>"),
            "/CF is a int, not a dictionary",
        ),
        (
            format!("<< /Filter /Standard /V 4 /R 4 /CF << /StdCF /AESV2 >> {ou} >>"),
            "/CF entry /StdCF is a name, not a crypt filter dictionary",
        ),
    ];
    for (dict, want) in cases {
        let bytes = rc4_r3_file(Some(&dict));
        let e = Pdf::from_bytes(bytes.clone(), &PdfOptions::new()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted, "{dict}: {e}");
        assert!(e.to_string().contains(want), "{dict}: {e}");
        assert!(
            e.to_string().ends_with(" (in /Encrypt object 6 0)"),
            "{dict}: {e}"
        );
        // Structure only when allowed: the page tree, no strings.
        let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().allow_encrypted(true)).unwrap();
        assert!(pdf.is_locked());
        assert_eq!(pdf.page_count().unwrap(), 1);
        let e = pdf.info().unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
}

/// AES data shorter than its IV is an error naming the object; a tail
/// that is not a whole block is dropped; bad padding is kept.
#[test]
fn aes_edge_cases() {
    let key = [1u8; 16];
    let e = Method::Aes128.decrypt(&key, &[0u8; 5]).unwrap_err();
    assert!(e.to_string().contains("shorter than its 16-byte IV"), "{e}");
    assert_eq!(Method::Aes128.decrypt(&key, &[0u8; 16]).unwrap(), b"");
    let c = aes_cbc_encrypt(&key, &[3u8; 16], b"hello").unwrap();
    assert_eq!(c.len(), 32);
    assert_eq!(Method::Aes128.decrypt(&key, &c).unwrap(), b"hello");
    let mut tail = c.clone();
    tail.extend_from_slice(b"xyz");
    assert_eq!(Method::Aes128.decrypt(&key, &tail).unwrap(), b"hello");
    let e = Method::Aes128.decrypt(&[0u8; 7], &c).unwrap_err();
    assert!(e.to_string().contains("AES key of 7 bytes"), "{e}");
    // Random IVs: two encryptions differ, both decrypt.
    let a = Method::Aes256.encrypt(&[2u8; 32], b"x").unwrap();
    let b = Method::Aes256.encrypt(&[2u8; 32], b"x").unwrap();
    assert_ne!(a, b);
    assert_eq!(Method::Aes256.decrypt(&[2u8; 32], &b).unwrap(), b"x");
    // A string that fails to decrypt names its object.
    let bytes = rc4_r3_file(None);
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().password("user")).unwrap();
    assert!(matches!(
        pdf.object(ObjRef::new(5, 0)).unwrap(),
        Object::Dict(_)
    ));
}

/// An AES stream whose length is not IV + whole blocks: the tail is
/// dropped with a warning naming the object.
#[test]
fn aes_stream_tail_is_dropped_with_a_warning() {
    let key = [7u8; 32];
    let [o, u, oe, ue] = build::r6(b"user", b"owner", &key);
    let dict = format!(
        "<< /Filter /Standard /V 5 /R 6 /P -4 /O <{}> /U <{}> /OE <{}> /UE <{}> \
         /Perms <{}> /CF << /StdCF << /CFM /AESV3 >> >> /StmF /StdCF /StrF /StdCF >>",
        hex(&o),
        hex(&u),
        hex(&oe),
        hex(&ue),
        hex(&build::perms(&key, -4, true))
    );
    let enc = move |num: u32, data: &[u8]| {
        let mut c = aes_cbc_encrypt(&key, &[9u8; 16], data).unwrap();
        if num == 4 {
            c.extend_from_slice(b"xyz");
        }
        c
    };
    let pdf = Pdf::from_bytes(file(&dict, &enc), &PdfOptions::new().password("user")).unwrap();
    let s = pdf.object(ObjRef::new(4, 0)).unwrap();
    let data = pdf.stream_data(s.as_stream().unwrap(), true).unwrap();
    assert_eq!(data, b"BT (Hand built) Tj ET");
    let w = pdf.warnings();
    assert!(
        w.iter().any(|w| w.object == Some(ObjRef::new(4, 0))
            && w.message.contains("last 3 bytes are not a whole block")),
        "{w:?}"
    );
}

/// An RC4 file whose user password is empty: the owner password given
/// opens it as owner; a wrong one falls back to the empty user password
/// with a warning saying so.
#[test]
fn a_given_password_is_tried_before_the_empty_one() {
    let bytes = rc4_r3_file_for(b"", None);
    let opened = |pw: Option<&str>| {
        let opts = match pw {
            Some(p) => PdfOptions::new().password(p),
            None => PdfOptions::new(),
        };
        let pdf = Pdf::from_bytes(bytes.clone(), &opts).unwrap();
        assert_eq!(pdf.info().unwrap()[0].1.to_string(), "Hand-built title");
        let warned = pdf.warnings().iter().any(|w| {
            w.to_string()
                .contains("neither the user nor the owner password")
        });
        (
            pdf.encryption().unwrap().opened_with.clone().unwrap(),
            warned,
        )
    };
    assert_eq!(opened(None), ("user".to_string(), false));
    assert_eq!(opened(Some("owner")), ("owner".to_string(), false));
    assert_eq!(opened(Some("wrong")), ("user".to_string(), true));
}
