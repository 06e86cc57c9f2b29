//! Every byte source gives identical results; the window remaps.

use crate::writer::{Rev, Xref, build, doc, stream};
use ream_pdf::{ObjRef, Object, Pdf, PdfOptions, SourceKind};
use std::path::PathBuf;

pub fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ream-pdf-it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Everything observable about a file, as text.
pub fn summary(pdf: &Pdf) -> String {
    let mut s = format!(
        "{} {:?} {:?}\n",
        pdf.version(),
        pdf.page_count(),
        pdf.pages()
    );
    s += &format!("{:?}\n{:?}\n", pdf.info(), pdf.revisions());
    for n in pdf.object_numbers() {
        let o = pdf.object(ObjRef::new(n, 0));
        s += &format!("{n}: {o:?}\n");
        if let Ok(Object::Stream(st)) = &o {
            s += &format!(
                "  raw {:?}\n  decoded {:?}\n",
                pdf.stream_data(st, false),
                pdf.stream_data(st, true)
            );
        }
    }
    s + &format!("{:?}", pdf.warnings())
}

fn big_file() -> Vec<u8> {
    // Large incompressible-ish streams between the objects so a 4 KiB
    // window has to slide.
    let mut objs = doc(5);
    for i in 0..6u32 {
        let data: Vec<u8> = (0..20_000u32)
            .map(|j| (j.wrapping_mul(2_654_435_761).wrapping_add(i) >> 13) as u8)
            .collect();
        objs.insert(2, stream(50 + i, "", &data));
    }
    let (plain, packed): (Vec<_>, Vec<_>) =
        objs.into_iter().partition(|o| o.num != 11 && o.num != 12);
    let mut r1 = Rev::new(Xref::Stream, plain);
    r1.packed = packed;
    r1.objstm = 40;
    r1.trailer = "/Info 3 0 R".into();
    let r2 = Rev::new(
        Xref::Table,
        vec![crate::writer::obj(3, "<< /Title (v2) >>")],
    );
    let mut r2 = r2;
    r2.trailer = "/Info 3 0 R".into();
    build("1.6", &[r1, r2])
}

#[test]
fn every_source_agrees() {
    let bytes = big_file();
    let path = temp("sources.pdf", &bytes);
    let base = summary(&Pdf::from_bytes(bytes.clone(), &PdfOptions::new()).unwrap());
    for kind in SourceKind::ALL {
        for (window, buffer) in [(4096, 1000), (1 << 20, 256 << 10)] {
            let opts = PdfOptions::new()
                .source(kind)
                .window_size(window)
                .buffer_size(buffer);
            let pdf = Pdf::open(&path, &opts).unwrap();
            assert_eq!(
                summary(&pdf),
                base,
                "{kind} window {window} buffer {buffer}"
            );
            let c = pdf.io_counters();
            match kind {
                SourceKind::Window if window == 4096 => {
                    assert!(c.remaps > 0, "{c:?}");
                    assert_eq!(c.maps, c.unmaps + 1);
                    assert_eq!(c.bytes_copied, 0);
                }
                SourceKind::Mmap => assert_eq!((c.maps, c.reads), (1, 0)),
                SourceKind::Pread => assert_eq!(c.reads, c.requests),
                SourceKind::Buffered if buffer > bytes.len() => assert!(c.reads <= 3, "{c:?}"),
                _ => {}
            }
        }
    }
}

#[test]
fn pdf_is_send_and_sync_and_shares_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Pdf>();
    let path = temp("threads.pdf", &big_file());
    let pdf = Pdf::open(
        &path,
        &PdfOptions::new()
            .source(SourceKind::Window)
            .window_size(4096),
    )
    .unwrap();
    let want = summary(&pdf);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| assert_eq!(summary(&pdf), want));
        }
    });
}

#[test]
fn truncated_while_open_is_an_error_for_buffered_pread_and_window() {
    for kind in [SourceKind::Buffered, SourceKind::Pread, SourceKind::Window] {
        let bytes = big_file();
        let path = temp(&format!("shrink-{kind}.pdf"), &bytes);
        let pdf = Pdf::open(
            &path,
            &PdfOptions::new()
                .source(kind)
                .window_size(4096)
                .buffer_size(4096),
        )
        .unwrap();
        // Move the live view to the start: the window source re-checks the
        // length only when it remaps (reads inside a live view past the new
        // end would fault; see ream_io::source).
        pdf.object(ObjRef::new(1, 0)).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2000)
            .unwrap();
        // Objects near the end are past the new length: errors, not SIGBUS.
        let last = *pdf.object_numbers().last().unwrap();
        let r = pdf.object(ObjRef::new(last, 0));
        assert!(r.is_err(), "{kind}: {r:?}");
    }
}
