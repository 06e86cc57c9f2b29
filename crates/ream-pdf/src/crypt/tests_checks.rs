//! Hand-built encrypted files for the finer points: passwords that need
//! SASLprep or PDFDocEncoding, the revision 6 `/Perms` check, signature
//! `/Contents` in the clear, per-stream `/Crypt` filters written in the
//! clear, and where a broken `/Encrypt` is.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use super::cipher::{Method, aes_cbc_encrypt, rc4};
use super::key::{build, object_key};
use super::tests::{ID0, file_bytes, file_full, hex};
use crate::{ObjRef, Object, Pdf, PdfOptions, RewriteOptions};
use std::io::Write;

const CATALOG: &str = "<< /Type /Catalog /Pages 2 0 R >>";

/// An AES-256 revision 6 file whose user password hashes as `user`,
/// with `/P` `p` and `/Perms` `perms` (`None`: the right one for /P -4).
fn r6_file(user: &[u8], p: i32, perms: Option<Option<Vec<u8>>>) -> Vec<u8> {
    let key = [5u8; 32];
    let [o, u, oe, ue] = build::r6(user, b"owner", &key);
    let perms = match perms {
        None => format!("/Perms <{}>", hex(&build::perms(&key, -4, true))),
        Some(Some(b)) => format!("/Perms <{}>", hex(&b)),
        Some(None) => String::new(),
    };
    let dict = format!(
        "<< /Filter /Standard /V 5 /R 6 /P {p} /O <{}> /U <{}> /OE <{}> /UE <{}> {perms} \
         /CF << /StdCF << /CFM /AESV3 >> >> /StmF /StdCF /StrF /StdCF >>",
        hex(&o),
        hex(&u),
        hex(&oe),
        hex(&ue)
    );
    let enc = move |_: u32, data: &[u8]| aes_cbc_encrypt(&key, &[9u8; 16], data).unwrap();
    file_full(CATALOG, &dict, &[], &enc)
}

fn title(bytes: Vec<u8>, pw: &str) -> crate::Result<String> {
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().password(pw))?;
    Ok(pdf.info()?[0].1.to_string())
}

/// A revision 6 password is hashed in its SASLprep form (a no-break
/// space mapped to a space, a soft hyphen dropped); one stored by a writer
/// that skipped SASLprep opens too. Revision 3 hashes PDFDocEncoding.
#[test]
fn passwords_are_prepared_per_revision() {
    let typed = "p\u{a0}ss\u{ad}word";
    let prepared = r6_file(b"p ssword", -4, None);
    assert_eq!(title(prepared.clone(), typed).unwrap(), "Hand-built title");
    assert_eq!(title(prepared, "p ssword").unwrap(), "Hand-built title");
    let unprepared = r6_file(typed.as_bytes(), -4, None);
    assert_eq!(title(unprepared, typed).unwrap(), "Hand-built title");
    let e = title(r6_file(b"p ssword", -4, None), "pssword").unwrap_err();
    assert!(e.to_string().contains("wrong password"), "{e}");

    // Revision 3: "café" hashed as the Latin-1/PDFDocEncoding bytes.
    let (o, u, key) = build::r3(b"caf\xe9", b"owner", -4, &ID0, 16);
    let dict = format!(
        "<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <{}> /U <{}> >>",
        hex(&o),
        hex(&u)
    );
    let enc = move |num: u32, data: &[u8]| {
        rc4(&object_key(&key, ObjRef::new(num, 0), Method::Rc4), data).unwrap()
    };
    let bytes = file_full(CATALOG, &dict, &[], &enc);
    assert_eq!(title(bytes, "caf\u{e9}").unwrap(), "Hand-built title");
}

/// `/Perms` that does not match `/P`, that is not a permissions record,
/// or that is missing: opened all the same, with a warning naming the
/// `/Encrypt` object.
#[test]
fn perms_mismatch_is_a_warning() {
    let pdf = Pdf::from_bytes(
        r6_file(b"user", -4, None),
        &PdfOptions::new().password("user"),
    )
    .unwrap();
    assert!(pdf.warnings().is_empty(), "{:?}", pdf.warnings());
    let key = [5u8; 32];
    let cases = [
        (
            r6_file(b"user", -3904, None),
            "the /Perms entry does not match /P: it holds -4, /P is -3904 \
             (tampered or miswritten; /P is used) (in /Encrypt object 6 0)",
        ),
        (
            r6_file(b"user", -4, Some(Some(vec![0u8; 16]))),
            "the /Perms entry does not decrypt to a permissions record \
             (tampered or miswritten) (in /Encrypt object 6 0)",
        ),
        (
            r6_file(b"user", -4, Some(Some(build::perms(&key, -4, false)))),
            "the /Perms entry does not match /EncryptMetadata true \
             (tampered or miswritten) (in /Encrypt object 6 0)",
        ),
        (
            r6_file(b"user", -4, Some(None)),
            "the /Perms entry is missing, so /P cannot be checked \
             (tampered or miswritten) (in /Encrypt object 6 0)",
        ),
    ];
    for (bytes, want) in cases {
        let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().password("user")).unwrap();
        assert_eq!(pdf.info().unwrap()[0].1.to_string(), "Hand-built title");
        let w: Vec<String> = pdf.warnings().iter().map(ToString::to_string).collect();
        assert_eq!(w, vec![want.to_string()]);
    }
}

/// An RC4 file with a signature field: object 7 the field pointing at
/// signature 8 (no `/Type`, no `/ByteRange`: known only through the field),
/// object 9 a `/Type /Sig` dictionary, object 10 a field with a direct
/// signature value. Every `/Contents` stays as stored; other strings are
/// encrypted.
fn signed_file() -> Vec<u8> {
    let (o, u, key) = build::r3(b"", b"owner", -4, &ID0, 16);
    let dict = format!(
        "<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <{}> /U <{}> >>",
        hex(&o),
        hex(&u)
    );
    let enc = move |num: u32, data: &[u8]| {
        rc4(&object_key(&key, ObjRef::new(num, 0), Method::Rc4), data).unwrap()
    };
    let field = format!(
        "<< /FT /Sig /T <{}> /V 8 0 R >>",
        hex(&enc(7, b"Signature1"))
    );
    let sig8 = format!(
        "<< /Filter /Adobe.PPKLite /Contents <3082aa01> /Name <{}> >>",
        hex(&enc(8, b"Signer"))
    );
    let sig9 = format!(
        "<< /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 1 2 3] /Contents <3082bb02> \
         /Reason <{}> >>",
        hex(&enc(9, b"Approval"))
    );
    let field10 = format!(
        "<< /FT /Sig /T <{}> /V << /Filter /X /Contents <3082cc03> /M <{}> >> >>",
        hex(&enc(10, b"Signature2")),
        hex(&enc(10, b"D:2026"))
    );
    file_full(
        "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R 10 0 R] >> /Sig 9 0 R >>",
        &dict,
        &[&field, &sig8, &sig9, &field10],
        &enc,
    )
}

fn dict_of(pdf: &Pdf, o: &Object) -> crate::Dict {
    pdf.resolve(o).unwrap().as_dict().unwrap().clone()
}

fn string(d: &crate::Dict, key: &[u8]) -> Vec<u8> {
    d.get(key).unwrap().as_string().unwrap().to_vec()
}

/// Reads the three signatures from the catalog of `pdf`.
fn check_signatures(pdf: &Pdf) {
    let root = pdf.catalog().unwrap();
    let form = dict_of(pdf, root.get(b"AcroForm").unwrap());
    let fields = form.get(b"Fields").unwrap().as_array().unwrap().to_vec();
    let f7 = dict_of(pdf, &fields[0]);
    assert_eq!(string(&f7, b"T"), b"Signature1");
    let s8 = dict_of(pdf, f7.get(b"V").unwrap());
    assert_eq!(string(&s8, b"Contents"), [0x30, 0x82, 0xaa, 0x01]);
    assert_eq!(string(&s8, b"Name"), b"Signer");
    let s9 = dict_of(pdf, root.get(b"Sig").unwrap());
    assert_eq!(string(&s9, b"Contents"), [0x30, 0x82, 0xbb, 0x02]);
    assert_eq!(string(&s9, b"Reason"), b"Approval");
    let f10 = dict_of(pdf, &fields[1]);
    assert_eq!(string(&f10, b"T"), b"Signature2");
    let v = f10.get(b"V").unwrap().as_dict().unwrap();
    assert_eq!(string(v, b"Contents"), [0x30, 0x82, 0xcc, 0x03]);
    assert_eq!(string(v, b"M"), b"D:2026");
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ream-crypt-checks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn quick() -> RewriteOptions {
    RewriteOptions {
        sync: false,
        ..RewriteOptions::default()
    }
}

/// Signature `/Contents` is not decrypted when read, is written unchanged
/// by a decrypting rewrite, and is not encrypted by one that keeps the
/// encryption.
#[test]
fn signature_contents_stay_as_stored() {
    let pdf = Pdf::from_bytes(signed_file(), &PdfOptions::new()).unwrap();
    check_signatures(&pdf);
    let clear = scratch("signed-clear.pdf");
    pdf.rewrite(
        &clear,
        &RewriteOptions {
            decrypt: true,
            ..quick()
        },
    )
    .unwrap();
    let back = Pdf::open(&clear, &PdfOptions::new()).unwrap();
    assert!(!back.is_encrypted());
    check_signatures(&back);
    let kept = scratch("signed-kept.pdf");
    pdf.rewrite(&kept, &quick()).unwrap();
    let back = Pdf::open(&kept, &PdfOptions::new()).unwrap();
    assert!(back.is_encrypted());
    check_signatures(&back);
    let raw = std::fs::read(&kept).unwrap();
    assert!(raw.windows(8).any(|w| w == b"3082bb02" || w == b"3082BB02"));
}

/// A revision 4 file whose stream 7 goes through a named `/Crypt` filter
/// (AES-128) then Flate, and stream 8 through the `/Identity` crypt
/// filter: a decrypting rewrite drops the `/Crypt` filters and keeps the
/// data readable.
#[test]
fn decrypting_rewrite_drops_crypt_filters() {
    let (o, u, key) = build::r3(b"", b"owner", -4, &ID0, 16);
    let dict = format!(
        "<< /Filter /Standard /V 4 /R 4 /P -4 /O <{}> /U <{}> \
         /CF << /StdCF << /CFM /V2 /Length 16 >> /Strong << /CFM /AESV2 >> >> \
         /StmF /StdCF /StrF /StdCF >>",
        hex(&o),
        hex(&u)
    );
    let k2 = key.clone();
    let enc = move |num: u32, data: &[u8]| {
        rc4(&object_key(&k2, ObjRef::new(num, 0), Method::Rc4), data).unwrap()
    };
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b"strong secret").unwrap();
    let deflated = z.finish().unwrap();
    let aes = aes_cbc_encrypt(
        &object_key(&key, ObjRef::new(7, 0), Method::Aes128),
        &[4u8; 16],
        &deflated,
    )
    .unwrap();
    let mut s7 = format!(
        "<< /Length {} /Filter [/Crypt /FlateDecode] /DecodeParms [<< /Type /CryptFilterDecodeParms /Name /Strong >> null] >>\nstream\n",
        aes.len()
    )
    .into_bytes();
    s7.extend_from_slice(&aes);
    s7.extend_from_slice(b"\nendstream");
    let s8 = b"<< /Length 11 /Filter /Crypt /DecodeParms << /Name /Identity >> >>\nstream\nplain bytes\nendstream";
    let bytes = file_bytes(
        "<< /Type /Catalog /Pages 2 0 R /Extra [7 0 R 8 0 R] >>",
        &dict,
        &[s7, s8.to_vec()],
        &enc,
    );
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new()).unwrap();
    let read = |pdf: &Pdf, i: usize| {
        let root = pdf.catalog().unwrap();
        let extra = root.get(b"Extra").unwrap().as_array().unwrap().to_vec();
        let s = pdf.resolve(&extra[i]).unwrap();
        let s = s.as_stream().unwrap().clone();
        (s.dict.clone(), pdf.stream_data(&s, true).unwrap())
    };
    assert_eq!(read(&pdf, 0).1, b"strong secret");
    assert_eq!(read(&pdf, 1).1, b"plain bytes");
    let clear = scratch("crypt-filters-clear.pdf");
    pdf.rewrite(
        &clear,
        &RewriteOptions {
            decrypt: true,
            ..quick()
        },
    )
    .unwrap();
    let back = Pdf::open(&clear, &PdfOptions::new()).unwrap();
    assert!(!back.is_encrypted());
    let (d7, data7) = read(&back, 0);
    assert_eq!(data7, b"strong secret");
    assert_eq!(
        d7.get(b"Filter"),
        Some(&Object::Name(b"FlateDecode".to_vec()))
    );
    assert_eq!(d7.get(b"DecodeParms"), None);
    let (d8, data8) = read(&back, 1);
    assert_eq!(data8, b"plain bytes");
    assert_eq!(d8.get(b"Filter"), None);
    assert_eq!(d8.get(b"DecodeParms"), None);
    assert!(back.warnings().is_empty(), "{:?}", back.warnings());
    qpdf_check(&clear);
}

/// Runs `qpdf --check` on `path` when qpdf is installed.
fn qpdf_check(path: &std::path::Path) {
    match std::process::Command::new("qpdf")
        .arg("--check")
        .arg(path)
        .output()
    {
        Ok(o) => assert!(
            o.status.success(),
            "qpdf --check: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => eprintln!("qpdf not installed: --check skipped"),
    }
}

/// A direct `/Encrypt` dictionary is named as the trailer's.
#[test]
fn inline_encrypt_errors_name_the_trailer() {
    let ou = format!("/O <{0}> /U <{0}>", "00".repeat(32));
    let dict = format!("<< /Filter /Standard /V 7 /R 3 {ou} >>");
    let enc = |_: u32, d: &[u8]| d.to_vec();
    let bytes = file_full(CATALOG, "null", &[], &enc);
    let text = String::from_utf8(bytes).unwrap();
    let text = text.replace("/Encrypt 6 0 R", &format!("/Encrypt {dict}"));
    let e = Pdf::from_bytes(text.into_bytes(), &PdfOptions::new()).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "algorithm /V 7 is not supported (1, 2, 4 and 5 are) (in the trailer's /Encrypt dictionary)"
        ),
        "{e}"
    );
}
