use super::*;
use std::path::PathBuf;

fn temp_file(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ream-io-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 % 251) as u8).collect()
}

fn all_sources(p: &Path) -> Vec<Arc<dyn ByteSource>> {
    SourceKind::ALL
        .into_iter()
        .map(|kind| {
            let opts = SourceOptions {
                kind,
                window_size: 4096,
                buffer_size: 1000,
            };
            open_source(p, &opts).unwrap()
        })
        .collect()
}

#[test]
fn every_source_reads_the_same_bytes() {
    let d = data(50_000);
    let p = temp_file("same.bin", &d);
    let reqs = [
        (0u64, 10usize),
        (4090, 20),
        (49_990, 100),
        (50_000, 5),
        (12_345, 20_000),
        (100, 0),
        (8192, 4096),
    ];
    for s in all_sources(&p) {
        assert_eq!(s.len(), 50_000);
        for (off, len) in reqs {
            let got = s.read_vec(off, len).unwrap();
            let end = (off as usize + len).min(d.len());
            assert_eq!(got, &d[off as usize..end], "{} at {off}+{len}", s.kind());
        }
        assert!(s.read_vec(50_001, 1).is_err(), "{}", s.kind());
        assert!(s.counters().requests >= reqs.len() as u64);
    }
}

#[test]
fn window_fast_path_grow_and_remap_counts() {
    let d = data(64 * 1024);
    let p = temp_file("window.bin", &d);
    let w = WindowSource::open(&p, 16 * 1024).unwrap();
    // First map, then two reads inside the same view: no new syscall.
    w.read_vec(100, 10).unwrap();
    let c1 = w.counters();
    w.read_vec(2000, 10).unwrap();
    w.read_vec(10_000, 100).unwrap();
    let c2 = w.counters();
    assert_eq!((c1.maps, c2.maps), (1, 1));
    assert_eq!(c1.syscalls, c2.syscalls);
    // A read straddling the view end grows one view to cover it.
    let got = w.read_vec(16_000, 5_000).unwrap();
    assert_eq!(got, &d[16_000..21_000]);
    let c3 = w.counters();
    assert_eq!((c3.maps, c3.unmaps, c3.remaps), (2, 1, 1));
    // A read near EOF is clamped.
    assert_eq!(w.read_vec(65_000, 10_000).unwrap(), &d[65_000..]);
    assert_eq!(w.counters().bytes_copied, 0);
}

#[test]
fn pread_counts_one_read_per_request_and_buffer_reads_ahead() {
    let d = data(10_000);
    let p = temp_file("counts.bin", &d);
    let r = PreadSource::open(&p).unwrap();
    let b = BufferedSource::open(&p, 4096).unwrap();
    for off in (0..4000).step_by(100) {
        r.read_vec(off, 50).unwrap();
        b.read_vec(off, 50).unwrap();
    }
    assert_eq!(r.counters().reads, 40);
    assert_eq!(b.counters().reads, 1);
}

#[test]
fn truncated_file_is_an_error_not_a_crash() {
    for kind in [SourceKind::Window, SourceKind::Buffered, SourceKind::Pread] {
        let d = data(64 * 1024);
        let p = temp_file(&format!("trunc-{kind}.bin"), &d);
        let s = open_source(
            &p,
            &SourceOptions {
                kind,
                window_size: 4096,
                buffer_size: 4096,
            },
        )
        .unwrap();
        s.read_vec(0, 10).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(8192)
            .unwrap();
        let e = s.read_vec(40_000, 100).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{kind}: {e}");
        // Still inside the new length: fine.
        assert_eq!(s.read_vec(5000, 10).unwrap(), &d[5000..5010]);
    }
}

#[test]
fn in_memory_map_source() {
    let s = MapSource::from_bytes(crate::Bytes::from_vec(b"hello".to_vec()));
    assert_eq!(s.with(1, 3, |b| b.to_vec()).unwrap(), b"ell");
    assert_eq!(s.read_vec(5, 3).unwrap(), b"");
    assert!(s.read_vec(6, 1).is_err());
    assert_eq!("window".parse::<SourceKind>().unwrap(), SourceKind::Window);
}

#[test]
fn auto_maps_small_files_whole_and_windows_big_ones() {
    let small = temp_file("auto-small", &data(4096));
    let src = open_source(&small, &SourceOptions::default()).unwrap();
    assert_eq!(src.kind(), SourceKind::Mmap);
    // A sparse file at the threshold: no disk blocks, but its length counts.
    let big = temp_file("auto-big", b"");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(AUTO_WINDOW_FROM)
        .unwrap();
    let src = open_source(&big, &SourceOptions::kind(SourceKind::Auto)).unwrap();
    assert_eq!(src.kind(), SourceKind::Window);
    assert_eq!(src.len(), AUTO_WINDOW_FROM);
    let tail = src.read_vec(AUTO_WINDOW_FROM - 3, 10).unwrap();
    assert_eq!(tail, [0, 0, 0]);
    // An explicit kind is kept whatever the size.
    let src = open_source(&big, &SourceOptions::kind(SourceKind::Mmap)).unwrap();
    assert_eq!(src.kind(), SourceKind::Mmap);
    assert!(open_source(small.with_extension("missing"), &SourceOptions::default()).is_err());
    assert_eq!("auto".parse::<SourceKind>(), Ok(SourceKind::Auto));
    assert_eq!(SourceKind::default().as_str(), "auto");
    let _ = std::fs::remove_file(small);
    let _ = std::fs::remove_file(big);
}
