//! Finds every `<table:table` start tag (the name followed by white
//! space, `>` or `/`): the table candidates that `split.rs` (whole part)
//! and `load.rs` (sliding window) count, which must agree exactly.
//!
//! `memmem` stops at every `<table:table-cell` and `-row`, about five
//! times a cell. The x86-64 loops test 32 (AVX2) or 16 (SSE2) positions at
//! once for `<`, `e` eleven bytes on and no `-` twelve bytes on, which
//! every start has and cell and row tags lack, and check the whole name
//! only where all three hold. One scan of seed.ods's content.xml (18 MB,
//! callgrind): 6.0 M instructions AVX2, 22.3 M SSE2, 39.4 M `memmem`; of
//! giant.ods's (1.2 GB): 39 ms, 64 ms, 80 ms. Miri checks the unsafe
//! loads: `MIRIFLAGS=-Zmiri-disable-isolation cargo +nightly miri test -p
//! ream-sheet --lib ods::starts` (SSE2), and with `RUSTFLAGS="-C
//! target-feature=+avx2"` the two fixed tests (AVX2).

use super::xml::ends_name;

/// The element name searched for, with its `<`.
pub(super) const NEEDLE: &[u8; 12] = b"<table:table";

/// Whether a table start tag begins at `at`.
#[inline]
fn is_start(hay: &[u8], at: usize) -> bool {
    hay.get(at..at + NEEDLE.len()) == Some(NEEDLE.as_slice())
        && ends_name(hay.get(at + NEEDLE.len()))
}

/// Calls `found` with the offset of every table start tag in `hay`, in
/// order. A start whose following byte is not in `hay` is not reported
/// (that byte decides), like a start cut short.
pub(super) fn each_table_start(hay: &[u8], mut found: impl FnMut(usize)) {
    let done = simd::scan(hay, &mut found);
    scalar(hay, done, &mut found);
}

/// The portable search from `from` on.
fn scalar(hay: &[u8], from: usize, found: &mut impl FnMut(usize)) {
    let Some(rest) = hay.get(from..) else {
        return;
    };
    for i in memchr::memmem::find_iter(rest, NEEDLE) {
        if is_start(hay, from + i) {
            found(from + i);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod simd {
    use super::{NEEDLE, is_start};
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_testz_si256,
    };

    /// Bytes read past a tested position: the `-` test at offset 12.
    const REACH: usize = NEEDLE.len();

    /// Searches `hay` up to where a full vector no longer fits; returns
    /// where the portable search must go on.
    pub(super) fn scan(hay: &[u8], found: &mut impl FnMut(usize)) -> usize {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { avx2(hay, found) }
        } else {
            // SAFETY: SSE2 is part of every x86-64 CPU.
            unsafe { sse2(hay, found) }
        }
    }

    /// Reports the starts among the set bits of `mask` (positions from
    /// `base`).
    #[inline(always)]
    fn report(hay: &[u8], base: usize, mut mask: u32, found: &mut impl FnMut(usize)) {
        while mask != 0 {
            let at = base + mask.trailing_zeros() as usize;
            if is_start(hay, at) {
                found(at);
            }
            mask &= mask - 1;
        }
    }

    /// The candidate mask of the 32 positions at `p`: `<` there, `e`
    /// eleven bytes on and no `-` twelve bytes on, still as bytes.
    ///
    /// # Safety
    /// The CPU has AVX2, and `p .. p + 44` is readable.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn candidates(p: *const u8) -> __m256i {
        let (lt, e, dash) = (
            _mm256_set1_epi8(b'<' as i8),
            _mm256_set1_epi8(b'e' as i8),
            _mm256_set1_epi8(b'-' as i8),
        );
        // SAFETY: the caller keeps `p .. p + 44` inside the haystack.
        let (a, b, c) = unsafe {
            (
                _mm256_loadu_si256(p.cast::<__m256i>()),
                _mm256_loadu_si256(p.add(11).cast::<__m256i>()),
                _mm256_loadu_si256(p.add(12).cast::<__m256i>()),
            )
        };
        _mm256_andnot_si256(
            _mm256_cmpeq_epi8(c, dash),
            _mm256_and_si256(_mm256_cmpeq_epi8(a, lt), _mm256_cmpeq_epi8(b, e)),
        )
    }

    /// 64 positions a round, one branch for both halves: candidates are
    /// about one per table (32 positions and three masks a round took
    /// 11.0 M instructions on seed.ods). The last 75 bytes or less are left
    /// to the portable search.
    #[target_feature(enable = "avx2")]
    fn avx2(hay: &[u8], found: &mut impl FnMut(usize)) -> usize {
        let mut i = 0;
        while i + 64 + REACH <= hay.len() {
            // SAFETY: AVX2 is enabled here, and `i + 64 + 12 <= hay.len()`
            // keeps both 44-byte reads (at `i` and `i + 32`) inside `hay`.
            let (lo, hi) = unsafe {
                let p = hay.as_ptr().add(i);
                (candidates(p), candidates(p.add(32)))
            };
            if _mm256_testz_si256(_mm256_or_si256(lo, hi), _mm256_or_si256(lo, hi)) == 0 {
                report(hay, i, _mm256_movemask_epi8(lo) as u32, found);
                report(hay, i + 32, _mm256_movemask_epi8(hi) as u32, found);
            }
            i += 64;
        }
        i
    }

    #[target_feature(enable = "sse2")]
    fn sse2(hay: &[u8], found: &mut impl FnMut(usize)) -> usize {
        let (lt, e, dash) = (
            _mm_set1_epi8(b'<' as i8),
            _mm_set1_epi8(b'e' as i8),
            _mm_set1_epi8(b'-' as i8),
        );
        let mut i = 0;
        while i + 16 + REACH <= hay.len() {
            // SAFETY: `i + 12 + 16 <= hay.len()`, so each 16-byte load at
            // `i`, `i + 11` and `i + 12` stays inside `hay`.
            let (a, b, c) = unsafe {
                let p = hay.as_ptr().add(i);
                (
                    _mm_loadu_si128(p.cast::<__m128i>()),
                    _mm_loadu_si128(p.add(11).cast::<__m128i>()),
                    _mm_loadu_si128(p.add(12).cast::<__m128i>()),
                )
            };
            let m = _mm_movemask_epi8(_mm_cmpeq_epi8(a, lt))
                & _mm_movemask_epi8(_mm_cmpeq_epi8(b, e))
                & !_mm_movemask_epi8(_mm_cmpeq_epi8(c, dash));
            if m != 0 {
                report(hay, i, m as u32, found);
            }
            i += 16;
        }
        i
    }

    /// The SSE2 loop alone, for tests on machines with AVX2.
    #[cfg(test)]
    pub(super) fn scan_sse2(hay: &[u8], found: &mut impl FnMut(usize)) -> usize {
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { sse2(hay, found) }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    /// No vector loop here: the portable search does it all.
    pub(super) fn scan(_hay: &[u8], _found: &mut impl FnMut(usize)) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, one position at a time.
    fn naive(hay: &[u8]) -> Vec<usize> {
        (0..hay.len()).filter(|&i| is_start(hay, i)).collect()
    }

    fn fast(hay: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        each_table_start(hay, |i| v.push(i));
        v
    }

    #[test]
    fn finds_starts_and_skips_cells_rows_and_cut_names() {
        let xml = b"<table:table table:name=\"a\"><table:table-row><table:table-cell/></table:table-row></table:table><table:table>\
            <table:table/><table:table\t><table:tablex><table:table";
        let want = naive(xml);
        assert_eq!(want.len(), 4);
        assert_eq!(fast(xml), want);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_loop_agrees() {
        let mut xml = Vec::new();
        for k in 0..40 {
            xml.extend_from_slice(b"<table:table-cell><text:p>e</text:p></table:table-cell>");
            if k % 7 == 0 {
                xml.extend_from_slice(b"<table:table>");
            }
        }
        let mut v = Vec::new();
        let done = simd::scan_sse2(&xml, &mut |i| v.push(i));
        scalar(&xml, done, &mut |i| v.push(i));
        assert_eq!(v, naive(&xml));
    }

    /// Pieces that make near misses likely: every prefix of the name,
    /// the cell and row names, and each byte that may end a name.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            (1..=12usize).prop_map(|n| NEEDLE[..n].to_vec()),
            Just(b"<table:table-cell".to_vec()),
            Just(b"<table:table-row>".to_vec()),
            Just(b"e-".to_vec()),
            prop::sample::select(vec![
                b' ', b'\t', b'\r', b'\n', b'>', b'/', b'-', b'e', b'<'
            ])
            .prop_map(|c| vec![c]),
            prop::collection::vec(any::<u8>(), 0..8),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn vector_search_matches_the_definition(
            pieces in prop::collection::vec(piece(), 0..60),
            skip in 0usize..40,
        ) {
            let hay: Vec<u8> = pieces.concat();
            let hay = hay.get(skip.min(hay.len())..).unwrap_or_default();
            prop_assert_eq!(fast(hay), naive(hay));
        }
    }
}
