//! Encrypted PDFs: the qpdf-made fixtures in `tests/data` (every
//! revision, user and owner passwords, wrong passwords, clear-text
//! metadata, object streams), and updates and rewrites that keep the
//! encryption (checked by qpdf when it is installed).

use ream_pdf::{ErrorKind, InfoValue, ObjRef, Object, Pdf, PdfOptions, RewriteOptions};
use std::path::{Path, PathBuf};

const FIXTURES: [(&str, &str); 7] = [
    ("enc-r2-rc4-40.pdf", "V 1 R 2, RC4 40-bit"),
    ("enc-r3-rc4-128.pdf", "V 2 R 3, RC4 128-bit"),
    ("enc-r3-rc4-128-emptyuser.pdf", "V 2 R 3, RC4 128-bit"),
    ("enc-r4-aes128-objstm.pdf", "V 4 R 4, AESV2 128-bit"),
    ("enc-r4-aes128-clearmeta.pdf", "V 4 R 4, AESV2 128-bit"),
    ("enc-r5-aes256.pdf", "V 5 R 5, AESV3 256-bit"),
    ("enc-r6-aes256-objstm.pdf", "V 5 R 6, AESV3 256-bit"),
];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn open(name: &str, password: Option<&str>) -> ream_pdf::Result<Pdf> {
    let mut o = PdfOptions::new();
    if let Some(p) = password {
        o = o.password(p);
    }
    Pdf::open(data(name), &o)
}

fn title(pdf: &Pdf) -> Option<String> {
    pdf.info()
        .unwrap()
        .into_iter()
        .find(|(k, _)| k == "Title")
        .map(|(_, v)| v.to_string())
}

/// Every fixture: the user and the owner password open it; strings,
/// Info, XMP and the content stream come out decrypted.
#[test]
fn every_revision_with_user_and_owner_password() {
    for (name, what) in FIXTURES {
        for (pw, opened) in [("user", "user"), ("owner", "owner")] {
            let pdf = open(name, Some(pw)).unwrap_or_else(|e| panic!("{name} {pw}: {e}"));
            let e = pdf.encryption().unwrap();
            assert!(e.describe().contains(what), "{name}: {}", e.describe());
            // An empty-user-password file given "user" opens with the
            // empty user password (and a warning), given "owner" as owner.
            assert_eq!(e.opened_with.as_deref(), Some(opened), "{name} {pw}");
            assert!(pdf.is_encrypted() && !pdf.is_locked());
            assert_eq!(pdf.page_count().unwrap(), 2, "{name}");
            assert_eq!(pdf.pages().unwrap().len(), 2, "{name}");
            assert_eq!(title(&pdf).as_deref(), Some("Encrypted fixture"), "{name}");
            let author = pdf.info().unwrap().into_iter().find(|(k, _)| k == "Author");
            assert_eq!(
                author.map(|(_, v)| v),
                Some(InfoValue::Text("Éè".into())),
                "{name}"
            );
            let xmp = pdf.xmp().unwrap().unwrap();
            assert!(
                String::from_utf8_lossy(&xmp).contains("Secret XMP"),
                "{name}"
            );
            let page = pdf.pages().unwrap()[0].object.unwrap();
            let Object::Dict(d) = pdf.object(page).unwrap() else {
                panic!("{name}: page")
            };
            let contents = pdf.resolve(d.get(b"Contents").unwrap()).unwrap();
            let data = pdf
                .stream_data(contents.as_stream().unwrap(), true)
                .unwrap();
            assert!(
                String::from_utf8_lossy(&data).contains("Hello encrypted world"),
                "{name}"
            );
        }
    }
}

/// Without a password only the empty-user-password file opens; the
/// others give `Encrypted` naming handler, V and R.
#[test]
fn missing_and_wrong_password() {
    for (name, what) in FIXTURES {
        let none = open(name, None);
        if name.contains("emptyuser") {
            assert!(none.is_ok(), "{name}");
            continue;
        }
        let e = none.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted, "{name}");
        assert!(e.to_string().contains("/Filter /Standard"), "{e}");
        assert!(e.to_string().contains(what), "{e}");
        assert!(e.to_string().contains("needs a password"), "{e}");
        let e = open(name, Some("nope")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted);
        assert!(e.to_string().contains("wrong password"), "{e}");
        // Structure only when asked for.
        let pdf = Pdf::open(
            data(name),
            &PdfOptions::new().allow_encrypted(true).password("nope"),
        )
        .unwrap();
        assert!(pdf.is_locked());
        if name.contains("objstm") {
            // The page tree sits in an object stream, which is encrypted.
            let e = pdf.page_count().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
        } else {
            assert_eq!(pdf.page_count().unwrap(), 2);
        }
        assert_eq!(pdf.info().unwrap_err().kind(), ErrorKind::Encrypted);
        let err = pdf.xmp().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Encrypted, "{name}");
        assert!(err.to_string().contains("wrong password"), "{err}");
    }
}

/// `/EncryptMetadata false`: the metadata stream is stored in the clear
/// and read as it is; other streams are decrypted.
#[test]
fn clear_text_metadata() {
    let raw = std::fs::read(data("enc-r4-aes128-clearmeta.pdf")).unwrap();
    assert!(memchr::memmem::find(&raw, b"Secret XMP").is_some());
    let pdf = open("enc-r4-aes128-clearmeta.pdf", Some("user")).unwrap();
    assert!(!pdf.encryption().unwrap().encrypt_metadata);
    let xmp = pdf.xmp().unwrap().unwrap();
    assert!(xmp.starts_with(b"<?xpacket"));
    // The encrypted kind keeps it encrypted on disk.
    let raw = std::fs::read(data("enc-r4-aes128-objstm.pdf")).unwrap();
    assert!(memchr::memmem::find(&raw, b"Secret XMP").is_none());
}

/// The `/Encrypt` dictionary is read as stored (its strings are not
/// decrypted).
#[test]
fn encrypt_dictionary_not_decrypted() {
    let pdf = open("enc-r3-rc4-128.pdf", Some("user")).unwrap();
    let t = pdf.trailer();
    let enc = pdf.resolve(t.get(b"Encrypt").unwrap()).unwrap();
    let o = enc
        .as_dict()
        .unwrap()
        .get(b"O")
        .unwrap()
        .as_string()
        .unwrap();
    let raw = std::fs::read(data("enc-r3-rc4-128.pdf")).unwrap();
    let hex: String = o.iter().map(|b| format!("{b:02x}")).collect();
    let text = String::from_utf8_lossy(&raw).to_lowercase();
    assert!(text.contains(&hex), "/O changed by decryption");
}

fn qpdf_check(path: &Path, password: &str) {
    let Ok(o) = std::process::Command::new("qpdf")
        .arg("--check")
        .arg(format!("--password={password}"))
        .arg(path)
        .output()
    else {
        eprintln!("qpdf not installed: --check skipped");
        return;
    };
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && !text.contains("WARNING"),
        "qpdf --check {}: {text}",
        path.display()
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ream-pdf-crypt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// An incremental update of every fixture keeps its encryption: the new
/// Info is encrypted on disk, reopening with the password reads it, and
/// qpdf accepts the file.
#[test]
fn update_keeps_encryption() {
    for (name, _) in FIXTURES {
        let pdf = open(name, Some("owner")).unwrap();
        let mut u = pdf.update();
        u.set_info("Title", "Nouveau titre secret");
        let out = scratch(&format!("upd-{name}"));
        let rep = u.write_to(&out).unwrap();
        assert!(rep.appended < 64 << 10, "{name}: {}", rep.appended);
        let bytes = std::fs::read(&out).unwrap();
        assert!(
            memchr::memmem::find(&bytes, b"Nouveau titre").is_none(),
            "{name}: Title written in the clear"
        );
        let back = Pdf::open(&out, &PdfOptions::new().password("user")).unwrap();
        assert_eq!(
            title(&back).as_deref(),
            Some("Nouveau titre secret"),
            "{name}"
        );
        assert_eq!(back.pages().unwrap().len(), 2);
        assert_eq!(
            back.encryption().unwrap().describe(),
            pdf.encryption().unwrap().describe()
        );
        let xmp = back.xmp().unwrap().unwrap();
        assert!(String::from_utf8_lossy(&xmp).contains("Secret XMP"));
        qpdf_check(&out, "owner");
    }
}

/// A new stream added by an update is encrypted for its object number.
#[test]
fn update_adds_encrypted_stream() {
    for name in ["enc-r3-rc4-128.pdf", "enc-r6-aes256-objstm.pdf"] {
        let pdf = open(name, Some("user")).unwrap();
        let mut u = pdf.update();
        let r = u.add_stream(ream_pdf::Dict::new(), b"plain stream text".to_vec());
        let out = scratch(&format!("add-{name}"));
        u.write_to(&out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        assert!(memchr::memmem::find(&bytes, b"plain stream text").is_none());
        let back = Pdf::open(&out, &PdfOptions::new().password("user")).unwrap();
        let o = back.object(ObjRef::new(r.num, 0)).unwrap();
        let d = back.stream_data(o.as_stream().unwrap(), true).unwrap();
        assert_eq!(d, b"plain stream text");
    }
}

/// A rewrite keeps the encryption (objects renumbered, so every string
/// and stream encrypted again), with or without object streams;
/// `decrypt` writes a clear file.
#[test]
fn rewrite_keeps_or_drops_encryption() {
    for (name, _) in FIXTURES {
        let pdf = open(name, Some("user")).unwrap();
        for object_streams in [false, true] {
            let out = scratch(&format!("rw-{object_streams}-{name}"));
            let o = RewriteOptions {
                object_streams,
                sync: false,
                ..RewriteOptions::default()
            };
            pdf.rewrite(&out, &o).unwrap();
            assert!(Pdf::open(&out, &PdfOptions::new()).is_err() || name.contains("emptyuser"));
            let back = Pdf::open(&out, &PdfOptions::new().password("owner")).unwrap();
            assert!(back.is_encrypted());
            assert_eq!(title(&back).as_deref(), Some("Encrypted fixture"));
            assert_eq!(back.pages().unwrap().len(), 2);
            assert!(String::from_utf8_lossy(&back.xmp().unwrap().unwrap()).contains("Secret XMP"));
            qpdf_check(&out, "owner");
        }
        let out = scratch(&format!("rw-clear-{name}"));
        let o = RewriteOptions {
            decrypt: true,
            sync: false,
            ..RewriteOptions::default()
        };
        pdf.rewrite(&out, &o).unwrap();
        let back = Pdf::open(&out, &PdfOptions::new()).unwrap();
        assert!(!back.is_encrypted());
        assert_eq!(title(&back).as_deref(), Some("Encrypted fixture"));
        let bytes = std::fs::read(&out).unwrap();
        assert!(memchr::memmem::find(&bytes, b"Encrypted fixture").is_some());
        qpdf_check(&out, "");
    }
}

/// A document that cannot be decrypted is refused by update and rewrite.
#[test]
fn locked_document_is_not_written() {
    let pdf = Pdf::open(
        data("enc-r6-aes256-objstm.pdf"),
        &PdfOptions::new().allow_encrypted(true),
    )
    .unwrap();
    let mut u = pdf.update();
    u.set_info("Title", "x");
    let e = u.to_bytes().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Encrypted);
    assert!(e.to_string().contains("cannot update"), "{e}");
    let e = pdf
        .rewrite(scratch("locked.pdf"), &RewriteOptions::default())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Encrypted);
}

/// pdf.js's SASLprep test file (`REAM_CORPUS`, else the shared corpus;
/// skipped when absent): its revision 6 user password is given as
/// `S<U+00AA>SL<U+00AD>prep` and hashed in its prepared form `SaSLprep`.
#[test]
fn saslprep_password_from_the_pdfjs_corpus() {
    let corpus = match std::env::var_os("REAM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let path = corpus.join("pdf/pdfjs__test_pdfs_saslprep-r6.pdf");
    if !path.exists() {
        eprintln!("{}: absent, skipped", path.display());
        return;
    }
    for pw in ["S\u{AA}SL\u{AD}prep", "SaSLprep"] {
        let pdf = Pdf::open(&path, &PdfOptions::new().password(pw)).unwrap();
        let e = pdf.encryption().unwrap();
        assert_eq!((e.r, e.opened_with.as_deref()), (6, Some("user")), "{pw}");
        assert!(pdf.warnings().is_empty(), "{:?}", pdf.warnings());
    }
}
