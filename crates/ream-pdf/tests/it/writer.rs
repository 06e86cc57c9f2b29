//! A tiny test-only PDF writer: each test shows the objects it writes.
//!
//! A file is a list of revisions; each appends its objects (some packed
//! into an object stream), then an xref section of the chosen kind whose
//! trailer points at the previous one with `/Prev`.

use flate2::{Compression, write::ZlibEncoder};
use std::io::Write;

/// An object body: plain text, or a stream (dictionary text without
/// `/Length`, which the writer adds, and the data as stored).
#[derive(Clone, Debug)]
pub enum Body {
    Plain(String),
    Stream(String, Vec<u8>),
}

/// One indirect object.
#[derive(Clone, Debug)]
pub struct Obj {
    pub num: u32,
    pub body: Body,
}

/// `num 0 obj <text> endobj`.
pub fn obj(num: u32, text: &str) -> Obj {
    Obj {
        num,
        body: Body::Plain(text.to_string()),
    }
}

/// A stream object: `dict` is the dictionary's inside (without `<< >>`).
pub fn stream(num: u32, dict: &str, data: &[u8]) -> Obj {
    Obj {
        num,
        body: Body::Stream(dict.to_string(), data.to_vec()),
    }
}

/// The kind of xref section a revision ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xref {
    Table,
    Stream,
    Hybrid,
}

/// One revision.
#[derive(Clone, Debug)]
pub struct Rev {
    pub objects: Vec<Obj>,
    /// Plain objects packed into object stream `objstm` (needs Stream or Hybrid).
    pub packed: Vec<Obj>,
    pub objstm: u32,
    pub xref: Xref,
    /// Extra trailer entries, e.g. `/Info 9 0 R`.
    pub trailer: String,
    /// Objects marked free in this section.
    pub freed: Vec<u32>,
}

impl Rev {
    pub fn new(xref: Xref, objects: Vec<Obj>) -> Rev {
        Rev {
            objects,
            packed: Vec::new(),
            objstm: 0,
            xref,
            trailer: String::new(),
            freed: Vec::new(),
        }
    }
}

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn write_obj(out: &mut Vec<u8>, o: &Obj) {
    match &o.body {
        Body::Plain(t) => {
            out.extend_from_slice(format!("{} 0 obj\n{t}\nendobj\n", o.num).as_bytes())
        }
        Body::Stream(d, data) => {
            out.extend_from_slice(
                format!(
                    "{} 0 obj\n<< {d} /Length {} >>\nstream\n",
                    o.num,
                    data.len()
                )
                .as_bytes(),
            );
            out.extend_from_slice(data);
            out.extend_from_slice(b"\nendstream\nendobj\n");
        }
    }
}

/// Entry kinds while building: (num, type, f2, f3).
type Entry = (u32, u8, u64, u64);

/// PNG-Up predicted, then zlib-compressed xref stream rows.
fn xref_stream_data(entries: &[Entry]) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut prev = [0u8; 7];
    for &(_, t, f2, f3) in entries {
        let mut row = [0u8; 7];
        row[0] = t;
        row[1..5].copy_from_slice(&(f2 as u32).to_be_bytes());
        row[5..7].copy_from_slice(&(f3 as u16).to_be_bytes());
        raw.push(2); // PNG "Up"
        for i in 0..7 {
            raw.push(row[i].wrapping_sub(prev[i]));
        }
        prev = row;
    }
    zlib(&raw)
}

fn index_of(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| format!("{} 1", e.0))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Builds the file.
pub fn build(version: &str, revs: &[Rev]) -> Vec<u8> {
    let mut out = format!("%PDF-{version}\n%\u{e2}\u{e3}\n").into_bytes();
    let mut prev: Option<usize> = None;
    let mut size = 1u32;
    for rev in revs {
        let mut entries: Vec<Entry> = Vec::new();
        for o in &rev.objects {
            entries.push((o.num, 1, out.len() as u64, 0));
            write_obj(&mut out, o);
            size = size.max(o.num + 1);
        }
        let mut packed_entries = Vec::new();
        if !rev.packed.is_empty() {
            let mut head = String::new();
            let mut body = String::new();
            for (i, o) in rev.packed.iter().enumerate() {
                let Body::Plain(t) = &o.body else {
                    panic!("streams cannot be packed")
                };
                head.push_str(&format!("{} {} ", o.num, body.len()));
                body.push_str(t);
                body.push('\n');
                packed_entries.push((o.num, 2, rev.objstm as u64, i as u64));
                size = size.max(o.num + 1);
            }
            let data = format!("{head}{body}");
            let s = stream(
                rev.objstm,
                &format!(
                    "/Type /ObjStm /N {} /First {} /Filter /FlateDecode",
                    rev.packed.len(),
                    head.len()
                ),
                &zlib(data.as_bytes()),
            );
            entries.push((rev.objstm, 1, out.len() as u64, 0));
            write_obj(&mut out, &s);
            size = size.max(rev.objstm + 1);
        }
        for &f in &rev.freed {
            entries.push((f, 0, 0, 0));
        }
        if prev.is_none() {
            entries.push((0, 0, 0, 65535));
        }
        let prev_entry = prev.map(|p| format!(" /Prev {p}")).unwrap_or_default();
        let xref_at;
        match rev.xref {
            Xref::Table | Xref::Hybrid => {
                let mut xrefstm = String::new();
                if rev.xref == Xref::Hybrid && !packed_entries.is_empty() {
                    let num = size;
                    size += 1;
                    let mut all = packed_entries.clone();
                    all.sort();
                    let s = stream(
                        num,
                        &format!(
                            "/Type /XRef /W [1 4 2] /Size {size} /Index [{}] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>",
                            index_of(&all)
                        ),
                        &xref_stream_data(&all),
                    );
                    xrefstm = format!(" /XRefStm {}", out.len());
                    write_obj(&mut out, &s);
                }
                assert!(
                    rev.xref == Xref::Hybrid || packed_entries.is_empty(),
                    "tables cannot list packed objects"
                );
                entries.sort();
                xref_at = out.len();
                out.extend_from_slice(b"xref\n");
                for &(num, t, f2, f3) in &entries {
                    let kind = if t == 1 { 'n' } else { 'f' };
                    out.extend_from_slice(
                        format!("{num} 1\n{f2:010} {f3:05} {kind} \n").as_bytes(),
                    );
                }
                out.extend_from_slice(
                    format!(
                        "trailer\n<< /Size {size} /Root 1 0 R{prev_entry}{xrefstm} {} >>\n",
                        rev.trailer
                    )
                    .as_bytes(),
                );
            }
            Xref::Stream => {
                let num = size;
                size += 1;
                xref_at = out.len();
                entries.push((num, 1, xref_at as u64, 0));
                entries.extend(packed_entries);
                entries.sort();
                let s = stream(
                    num,
                    &format!(
                        "/Type /XRef /W [1 4 2] /Size {size} /Index [{}] /Root 1 0 R{prev_entry} {} /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>",
                        index_of(&entries),
                        rev.trailer
                    ),
                    &xref_stream_data(&entries),
                );
                write_obj(&mut out, &s);
            }
        }
        out.extend_from_slice(format!("startxref\n{xref_at}\n%%EOF\n").as_bytes());
        prev = Some(xref_at);
    }
    out
}

/// Catalog 1, page tree 2, `n` pages from object 10 on (the first has its
/// own MediaBox and Rotate 90), Info 3 with a PDFDocEncoding Title and a
/// UTF-16BE Author.
pub fn doc(n: u32) -> Vec<Obj> {
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut v = vec![
        obj(1, "<< /Type /Catalog /Pages 2 0 R >>"),
        obj(
            2,
            &format!(
                "<< /Type /Pages /Kids [{}] /Count {n} /MediaBox [0 0 612 792] /Rotate 180 >>",
                kids.join(" ")
            ),
        ),
        obj(
            3,
            "<< /Title (Caf\\351 \\200 report) /Author <FEFF0141006F0064017A> /Trapped /False >>",
        ),
    ];
    for i in 0..n {
        let extra = if i == 0 {
            " /MediaBox [0 0 100 200] /Rotate 90"
        } else {
            ""
        };
        v.push(obj(
            10 + i,
            &format!("<< /Type /Page /Parent 2 0 R{extra} >>"),
        ));
    }
    v
}

/// A single revision of `doc(n)` with `/Info 3 0 R`.
pub fn simple(xref: Xref, n: u32) -> Vec<u8> {
    let mut r = Rev::new(xref, doc(n));
    r.trailer = "/Info 3 0 R".into();
    build("1.7", &[r])
}
