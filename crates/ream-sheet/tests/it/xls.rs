//! The XLS reader on hand-built BIFF8 streams: every value record, the
//! same cells on 1 to 8 threads and inside a CFB container, and hostile
//! records named by kind, stream and offset.

use ream_sheet::{DateKind, ErrorKind, Limits, OpenOptions, Value, Workbook};
use std::io::Write;

/// One BIFF record.
pub(crate) fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut v = typ.to_le_bytes().to_vec();
    v.extend((data.len() as u16).to_le_bytes());
    v.extend(data);
    v
}

pub(crate) fn bof(dt: u16) -> Vec<u8> {
    let mut d = vec![0x00, 0x06];
    d.extend(dt.to_le_bytes());
    d.extend([0u8; 12]);
    rec(0x0809, &d)
}

pub(crate) fn eof() -> Vec<u8> {
    rec(0x000A, &[])
}

/// A cell record's first 6 bytes: row, column, XF.
pub(crate) fn cell(row: u16, col: u16, xf: u16) -> Vec<u8> {
    [row.to_le_bytes(), col.to_le_bytes(), xf.to_le_bytes()].concat()
}

/// A compressed (8-bit) XLUnicodeString with a 16-bit length.
pub(crate) fn ustr(s: &str) -> Vec<u8> {
    let mut v = (s.len() as u16).to_le_bytes().to_vec();
    v.push(0);
    v.extend(s.as_bytes());
    v
}

/// A workbook stream: `globals` records, then one worksheet per entry,
/// with BOUNDSHEET offsets computed.
pub(crate) fn book(globals: &[Vec<u8>], sheets: &[(&str, Vec<Vec<u8>>)]) -> Vec<u8> {
    let bound_len = |name: &str| 4 + 8 + name.len();
    let head: usize = bof(5).len()
        + globals.iter().map(Vec::len).sum::<usize>()
        + sheets.iter().map(|(n, _)| bound_len(n)).sum::<usize>()
        + eof().len();
    let mut offsets = Vec::new();
    let mut at = head;
    for (_, recs) in sheets {
        offsets.push(at);
        at += bof(0x10).len() + recs.iter().map(Vec::len).sum::<usize>() + eof().len();
    }
    let mut out = bof(5);
    for g in globals {
        out.extend(g);
    }
    for ((name, _), off) in sheets.iter().zip(&offsets) {
        let mut d = (*off as u32).to_le_bytes().to_vec();
        d.extend([0, 0, name.len() as u8, 0]);
        d.extend(name.as_bytes());
        out.extend(rec(0x0085, &d));
    }
    out.extend(eof());
    for (_, recs) in sheets {
        out.extend(bof(0x10));
        for r in recs {
            out.extend(r);
        }
        out.extend(eof());
    }
    out
}

/// Globals with a shared-string table whose second string crosses into
/// a CONTINUE record (switching to UTF-16 there), a date format and XFs
/// 0 (General) and 1 (the date format).
pub(crate) fn globals() -> Vec<Vec<u8>> {
    let mut sst = 3u32.to_le_bytes().to_vec();
    sst.extend(3u32.to_le_bytes());
    sst.extend(ustr("alpha"));
    sst.extend([5, 0, 0, b'b', b'e']); // "be" then the CONTINUE
    let mut cont = vec![1u8];
    cont.extend(
        "\u{3b3}\u{3b4}\u{3b5}"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    cont.extend(ustr("zeta"));
    let mut fmt = 164u16.to_le_bytes().to_vec();
    fmt.extend(ustr("yyyy-mm-dd"));
    let xf = |ifmt: u16| {
        let mut d = vec![0u8; 20];
        d[2..4].copy_from_slice(&ifmt.to_le_bytes());
        rec(0x00E0, &d)
    };
    vec![
        rec(0x0042, &1252u16.to_le_bytes()),
        rec(0x041E, &fmt),
        xf(0),
        xf(164),
        rec(0x00FC, &sst),
        rec(0x003C, &cont),
    ]
}

fn values_sheet() -> Vec<Vec<u8>> {
    let rk_int = |v: i32| ((v as u32) << 2) | 2;
    let mut mulrk = cell(1, 0, 0)[..4].to_vec();
    for v in [10, 20, 30] {
        mulrk.extend(0u16.to_le_bytes());
        mulrk.extend(rk_int(v).to_le_bytes());
    }
    mulrk.extend(2u16.to_le_bytes());
    let mut formula_str = cell(3, 0, 0);
    formula_str.extend([0, 0, 0, 0, 0, 0, 0xFF, 0xFF]);
    formula_str.extend([0u8; 6]);
    let mut formula_err = cell(3, 1, 0);
    formula_err.extend([2, 0, 0x07, 0, 0, 0, 0xFF, 0xFF]);
    formula_err.extend([0u8; 6]);
    let mut number = cell(4, 0, 1);
    number.extend(45_000.0f64.to_le_bytes());
    let mut row_hidden = vec![0u8; 16];
    row_hidden[0..2].copy_from_slice(&5u16.to_le_bytes());
    row_hidden[12..16].copy_from_slice(&0x20u32.to_le_bytes());
    let mut merged = 1u16.to_le_bytes().to_vec();
    for v in [6u16, 7, 0, 1] {
        merged.extend(v.to_le_bytes());
    }
    vec![
        rec(
            0x00FD,
            &[cell(0, 0, 0), 0u32.to_le_bytes().to_vec()].concat(),
        ),
        rec(
            0x00FD,
            &[cell(0, 1, 0), 1u32.to_le_bytes().to_vec()].concat(),
        ),
        rec(
            0x00FD,
            &[cell(0, 2, 0), 2u32.to_le_bytes().to_vec()].concat(),
        ),
        rec(0x00BD, &mulrk),
        rec(0x0204, &[cell(2, 0, 0), ustr("label")].concat()),
        rec(0x0205, &[cell(2, 1, 0), vec![1, 0]].concat()),
        rec(0x0205, &[cell(2, 2, 0), vec![0x2A, 1]].concat()),
        rec(0x0006, &formula_str),
        rec(0x0207, &ustr("from formula")),
        rec(0x0006, &formula_err),
        rec(0x0203, &number),
        rec(
            0x027E,
            &[cell(4, 1, 0), ((1234u32 << 2) | 3).to_le_bytes().to_vec()].concat(),
        ),
        rec(0x0208, &row_hidden),
        rec(0x00E5, &merged),
    ]
}

pub(crate) fn open(data: &[u8], threads: usize) -> Result<Workbook, ream_sheet::Error> {
    Workbook::from_bytes(data.to_vec(), &OpenOptions::new().threads(threads))
}

/// Every cell of every sheet as (sheet, row, col, value text).
fn dump(wb: &Workbook) -> Vec<(usize, u32, u32, String)> {
    wb.sheets()
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.cells()
                .map(move |c| (i, c.row, c.col, format!("{:?}", c.value)))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_value_record_reads_into_the_model() {
    let data = book(&globals(), &[("Values", values_sheet())]);
    let wb = open(&data, 1).unwrap();
    let s = &wb.sheets()[0];
    assert_eq!(s.name(), "Values");
    let v = |r, c| s.get(r, c).map(|c| c.value);
    assert_eq!(v(0, 0), Some(Value::String("alpha")));
    assert_eq!(v(0, 1), Some(Value::String("be\u{3b3}\u{3b4}\u{3b5}")));
    assert_eq!(v(0, 2), Some(Value::String("zeta")));
    assert_eq!(v(1, 2), Some(Value::Number(30.0)));
    assert_eq!(v(2, 0), Some(Value::String("label")));
    assert_eq!(v(2, 1), Some(Value::Bool(true)));
    assert_eq!(v(2, 2).map(|x| format!("{x:?}")), Some("Error(NA)".into()));
    assert_eq!(v(3, 0), Some(Value::String("from formula")));
    assert_eq!(
        v(3, 1).map(|x| format!("{x:?}")),
        Some("Error(Div0)".into())
    );
    match v(4, 0) {
        Some(Value::DateTime(d)) => {
            assert_eq!(d.kind, DateKind::DateTime);
            assert_eq!(d.to_iso(), "2023-03-15");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(v(4, 1), Some(Value::Number(12.34)));
    assert_eq!(s.hidden_rows(), &[5]);
    assert_eq!(s.merged().len(), 1);
    assert_eq!(wb.shared_string_count(), 3);
}

#[test]
fn the_same_cells_on_every_thread_count_and_inside_a_container() {
    let sheets: Vec<(&str, Vec<Vec<u8>>)> = ["A", "B", "C", "D", "E"]
        .into_iter()
        .map(|n| (n, values_sheet()))
        .collect();
    let data = book(&globals(), &sheets);
    let want = dump(&open(&data, 1).unwrap());
    assert_eq!(want.len(), 5 * 13);
    for t in 2..=8 {
        assert_eq!(dump(&open(&data, t).unwrap()), want, "{t} threads");
    }
    let mut cf = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    cf.create_stream("/Workbook")
        .unwrap()
        .write_all(&data)
        .unwrap();
    let wrapped = cf.into_inner().into_inner();
    assert_eq!(dump(&open(&wrapped, 2).unwrap()), want);
    // Rows stream the loaded cells.
    let wb = open(&wrapped, 1).unwrap();
    let rows = wb.rows(0).unwrap().count();
    assert_eq!(rows, 5);
}

#[test]
fn a_container_with_a_swapped_byte_order_mark_reads_with_a_warning() {
    let data = book(&globals(), &[("A", values_sheet())]);
    let mut cf = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    cf.create_stream("/Workbook")
        .unwrap()
        .write_all(&data)
        .unwrap();
    let mut wrapped = cf.into_inner().into_inner();
    let want = dump(&open(&wrapped, 1).unwrap());
    assert_eq!(&wrapped[28..30], &[0xFE, 0xFF]);
    wrapped[28..30].copy_from_slice(&[0xFF, 0xFE]);
    let wb = open(&wrapped, 1).unwrap();
    assert_eq!(dump(&wb), want);
    let warned = wb
        .warnings()
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>();
    assert!(
        warned.iter().any(|w| w.contains("byte order mark")),
        "{warned:?}"
    );
    // Any other mark stays an error naming the container.
    wrapped[28..30].copy_from_slice(&[0x12, 0x34]);
    let err = open(&wrapped, 1).unwrap_err().to_string();
    assert!(err.contains("CFB"), "{err}");
}

#[test]
fn a_record_running_past_the_stream_is_named() {
    let mut data = book(&globals(), &[("S", values_sheet())]);
    let n = data.len();
    data.truncate(n - 6); // cuts the sheet's last record
    let e = open(&data, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert_eq!(e.part(), Some("Workbook"));
    assert_eq!(e.sheet(), Some("S"));
    assert!(e.to_string().contains("runs past the end"), "{e}");
    assert!(e.offset().is_some());
}

#[test]
fn a_sheet_offset_out_of_range_is_named() {
    let mut data = book(&globals(), &[("S", values_sheet())]);
    // The BOUNDSHEET's offset field sits right after the globals' records.
    let pos = data
        .windows(4)
        .position(|w| w == [0x85, 0x00, 9, 0])
        .unwrap();
    data[pos + 4..pos + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = open(&data, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert!(e.to_string().contains("BOUNDSHEET offset"), "{e}");
}

#[test]
fn a_huge_shared_string_count_reserves_only_what_the_data_holds() {
    let mut g = globals();
    let mut sst = u32::MAX.to_le_bytes().to_vec();
    sst.extend(u32::MAX.to_le_bytes());
    sst.extend(ustr("only"));
    g[4] = rec(0x00FC, &sst);
    g.pop();
    let data = book(
        &g,
        &[(
            "S",
            vec![rec(
                0x00FD,
                &[cell(0, 0, 0), 0u32.to_le_bytes().to_vec()].concat(),
            )],
        )],
    );
    let wb = open(&data, 1).unwrap();
    assert_eq!(wb.shared_string_count(), 1);
    assert_eq!(
        wb.sheets()[0].get(0, 0).unwrap().value,
        Value::String("only")
    );
}

#[test]
fn encrypted_and_old_workbooks_are_refused_by_kind() {
    let mut g = globals();
    g.insert(0, rec(0x002F, &[0, 0, 0x12, 0x34, 0x56, 0x78]));
    let e = open(&book(&g, &[]), 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
    assert!(e.to_string().contains("XOR obfuscation"), "{e}");
    let biff4 = [rec(0x0409, &[0, 4, 0x10, 0, 0, 0]), eof()].concat();
    let e = open(&biff4, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("BIFF2-4"), "{e}");
}

#[test]
fn the_cell_limit_names_the_sheet_and_cell() {
    let data = book(&globals(), &[("S", values_sheet())]);
    let opts = OpenOptions::new().limits(Limits::default().max_cells_per_sheet(4));
    let e = Workbook::from_bytes(data, &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!(e.sheet(), Some("S"));
    assert!(e.cell().is_some(), "{e}");
}

/// The 1024 keystream bytes of one block under `key`.
fn block_keystream(key: &[u8]) -> Vec<u8> {
    use rc4::{KeyInit, StreamCipher};
    let mut ks = vec![0u8; 1024];
    rc4::Rc4::new_from_slice(key)
        .unwrap()
        .apply_keystream(&mut ks);
    ks
}

/// Encrypts a plain workbook stream whose globals hold a FILEPASS record
/// (written by the caller) as Excel does: record data after the FILEPASS
/// XORed with the keystream of its absolute stream offset, except record
/// headers, BOF/FILEPASS/INTERFACEHDR data and BOUNDSHEET's offset.
fn encrypt(plain: &[u8], key_of: &dyn Fn(u32) -> Vec<u8>) -> Vec<u8> {
    let mut out = plain.to_vec();
    let mut at = 0;
    let mut after_filepass = false;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    while at + 4 <= out.len() {
        let typ = u16::from_le_bytes([out[at], out[at + 1]]);
        let len = u16::from_le_bytes([out[at + 2], out[at + 3]]) as usize;
        let data = at + 4;
        if after_filepass {
            let plain_bytes = match typ {
                0x0809 | 0x002F | 0x00E1 | 0x0194 | 0x0195 | 0x0196 | 0x0138 => len,
                0x0085 => 4,
                _ => 0,
            };
            for p in data + plain_bytes..data + len {
                let b = p / 1024;
                while blocks.len() <= b {
                    blocks.push(block_keystream(&key_of(blocks.len() as u32)));
                }
                out[p] ^= blocks[b][p % 1024];
            }
        }
        after_filepass |= typ == 0x002F;
        at = data + len;
    }
    out
}

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// The RC4 key of a stream block.
type KeyOf = Box<dyn Fn(u32) -> Vec<u8>>;

/// FILEPASS for RC4 (version 1.1) and the block keys of `password`.
fn rc4_filepass(password: &str) -> (Vec<u8>, KeyOf) {
    use md5::{Digest, Md5};
    let salt: [u8; 16] = core::array::from_fn(|i| (i * 7 + 3) as u8);
    let h0 = Md5::digest(utf16(password));
    let mut buf = Vec::new();
    for _ in 0..16 {
        buf.extend(&h0[..5]);
        buf.extend(salt);
    }
    let trunc = Md5::digest(&buf)[..5].to_vec();
    let key_of = move |b: u32| {
        let mut h = Md5::new();
        h.update(&trunc);
        h.update(b.to_le_bytes());
        h.finalize().to_vec()
    };
    let verifier: [u8; 16] = core::array::from_fn(|i| (i * 13 + 1) as u8);
    let mut v = verifier.to_vec();
    v.extend(Md5::digest(verifier));
    let ks = block_keystream(&key_of(0));
    let ev: Vec<u8> = v.iter().zip(&ks).map(|(a, b)| a ^ b).collect();
    let mut d = vec![1, 0, 1, 0, 1, 0];
    d.extend(salt);
    d.extend(ev);
    (rec(0x002F, &d), Box::new(key_of))
}

/// FILEPASS for RC4 CryptoAPI (version 4.2) with a `bits`-bit key.
fn cryptoapi_filepass(password: &str, bits: u32) -> (Vec<u8>, KeyOf) {
    use sha1::{Digest, Sha1};
    let salt: [u8; 16] = core::array::from_fn(|i| (i * 11 + 5) as u8);
    let mut h = Sha1::new();
    h.update(salt);
    h.update(utf16(password));
    let h0 = h.finalize().to_vec();
    let key_of = move |b: u32| {
        let mut h = Sha1::new();
        h.update(&h0);
        h.update(b.to_le_bytes());
        let full = h.finalize();
        let n = (bits / 8) as usize;
        let mut k = full[..n].to_vec();
        if n == 5 {
            k.resize(16, 0);
        }
        k
    };
    let verifier: [u8; 16] = core::array::from_fn(|i| (i * 5 + 9) as u8);
    let mut v = verifier.to_vec();
    v.extend(Sha1::digest(verifier));
    let ks = block_keystream(&key_of(0));
    let ev: Vec<u8> = v.iter().zip(&ks).map(|(a, b)| a ^ b).collect();
    let mut d = vec![1, 0, 4, 0, 2, 0];
    d.extend(0x24u32.to_le_bytes()); // flags
    d.extend(32u32.to_le_bytes()); // header size
    for x in [0x24u32, 0, 0x6801, 0x8004, bits, 1, 0, 0] {
        d.extend(x.to_le_bytes());
    }
    d.extend(16u32.to_le_bytes());
    d.extend(salt);
    d.extend(&ev[..16]);
    d.extend(20u32.to_le_bytes());
    d.extend(&ev[16..]);
    (rec(0x002F, &d), Box::new(key_of))
}

/// A workbook of several sheets (over many 1024-byte blocks) with
/// `filepass` first in its globals, encrypted with `key_of`.
fn encrypted_book(filepass: Vec<u8>, key_of: &dyn Fn(u32) -> Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    let sheets: Vec<(&str, Vec<Vec<u8>>)> = ["A", "B", "C"]
        .into_iter()
        .map(|n| {
            let mut recs = values_sheet();
            for r in 10..200u16 {
                let mut d = cell(r, 3, 0);
                d.extend((f64::from(r) * 1.5).to_le_bytes());
                recs.push(rec(0x0203, &d));
            }
            (n, recs)
        })
        .collect();
    let plain = book(&globals(), &sheets);
    let mut g = globals();
    g.insert(0, filepass);
    let data = encrypt(&book(&g, &sheets), key_of);
    (plain, data)
}

#[test]
fn rc4_with_the_default_password_decrypts() {
    let (fp, key_of) = rc4_filepass("VelvetSweatshop");
    let (plain, data) = encrypted_book(fp, &*key_of);
    assert!(data.len() > 4 * 1024);
    let want = dump(&open(&plain, 1).unwrap());
    assert_eq!(want.len(), 3 * (13 + 190));
    for t in [1, 3] {
        assert_eq!(dump(&open(&data, t).unwrap()), want, "{t} threads");
    }
}

#[test]
fn rc4_cryptoapi_decrypts_with_both_key_sizes() {
    for bits in [40, 128] {
        let (fp, key_of) = cryptoapi_filepass("VelvetSweatshop", bits);
        let (plain, data) = encrypted_book(fp, &*key_of);
        let want = dump(&open(&plain, 1).unwrap());
        assert_eq!(dump(&open(&data, 2).unwrap()), want, "{bits} bits");
    }
}

#[test]
fn a_password_opens_and_a_wrong_one_is_refused() {
    for (fp, key_of) in [rc4_filepass("s3cret"), cryptoapi_filepass("s3cret", 128)] {
        let (plain, data) = encrypted_book(fp, &*key_of);
        let e = open(&data, 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
        assert!(e.to_string().contains("no password was given"), "{e}");
        let opts = |p: &str| OpenOptions::new().password(p);
        let e = Workbook::from_bytes(data.clone(), &opts("wrong")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
        assert!(e.to_string().contains("nor does the password given"), "{e}");
        assert!(e.to_string().contains("RC4"), "{e}");
        let wb = Workbook::from_bytes(data.clone(), &opts("s3cret")).unwrap();
        assert_eq!(dump(&wb), dump(&open(&plain, 1).unwrap()));
    }
}

#[test]
fn broken_filepass_records_are_clear_errors() {
    let (good, _) = cryptoapi_filepass("VelvetSweatshop", 128);
    let body = good[4..].to_vec();
    let with = |d: &[u8]| {
        let mut g = globals();
        g.insert(0, rec(0x002F, d));
        open(&book(&g, &[]), 1).unwrap_err()
    };
    // Cut at every length: never a panic, always an error.
    for n in 0..body.len() {
        let e = with(&body[..n]);
        assert!(
            matches!(e.kind(), ErrorKind::Malformed | ErrorKind::Encrypted),
            "{n}: {e}"
        );
    }
    let mut absurd = body.clone();
    absurd[14 + 16..14 + 20].copy_from_slice(&4096u32.to_le_bytes());
    let e = with(&absurd);
    assert!(e.to_string().contains("4096 bits"), "{e}");
    let mut huge_header = body.clone();
    huge_header[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = with(&huge_header);
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    let e = with(&[1, 0, 9, 0, 9, 0]);
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("version 9.9"), "{e}");
}

/// The corpus's RC4 and RC4 CryptoAPI workbooks saved with the default
/// password open (the references refuse them); skipped without the corpus.
#[test]
fn corpus_default_password_workbooks_open() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/xls");
    for name in [
        "phpss__tests_data_Reader_XLS_pwtest.xls",
        "phpss__tests_data_Reader_XLS_pwtest3.xls",
        "poi__test-data_spreadsheet_50833.xls",
        "calamine__tests_issue_385.xls",
    ] {
        let path = dir.join(name);
        if !path.exists() {
            eprintln!("skipped: {} is absent", path.display());
            continue;
        }
        let wb = Workbook::open(&path, &OpenOptions::new()).unwrap();
        assert_eq!(wb.sheets()[0].name(), "Sheet1", "{name}");
        if name.contains("50833") {
            assert_eq!(
                wb.sheets()[0].get(0, 0).map(|c| c.value),
                Some(Value::String("test cell value"))
            );
        }
    }
}
