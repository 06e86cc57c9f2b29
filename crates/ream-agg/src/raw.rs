//! The crate's only `unsafe`: unchecked loads and SIMD in the hot loop.
//!
//! On x86-64 CPUs with AVX2, BMI1 and BMI2 (detected at run time) the loop
//! of [`avx2`] runs, with the value parser of `value`; other x86-64 CPUs
//! run the SSE2 loop below; other targets the portable SWAR loop of
//! `fast.rs`.
//!
//! Measured on the 413-station set, one thread (callgrind instructions per
//! row, task-clock): bounds-checked word loads cost 7 instructions each and
//! about 11% of the time; the SSE2 delimiter search (16 bytes, one compare,
//! one movemask, exact) takes the key in about 10 instructions where the
//! SWAR search took about 30 (148 -> 121 instructions per row); the AVX2
//! loop takes 73 (see `avx2.rs`). Every load is justified by the callers'
//! `pos + SAFE_TAIL <= data.len()` (or an explicit bound); SSE2 is part of
//! x86-64 (the cfg).

#![allow(unsafe_code)]

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod value;

/// [`crate::fast::rows`] on x86-64: the AVX2 loop when the CPU has its
/// features ([`avx2::available`]), else the SSE2 one.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) fn rows_x86<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    pos: usize,
    safe: usize,
) -> usize {
    if !avx2::available() {
        return rows_sse2::<CRLF>(data, view, delim, max_key, pos, safe);
    }
    let mut cur = [pos];
    // SAFETY: the CPU has AVX2, BMI1 and BMI2 (checked just above).
    unsafe { avx2::rows_n::<1, CRLF>(data, view, delim, max_key, &mut cur, &[safe]) };
    cur[0]
}

/// [`crate::fast::rows_n`] on x86-64: the AVX2 loop when the CPU has its
/// features ([`avx2::available`]), else the SSE2 one.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) fn rows_n_x86<const N: usize, const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    cur: &mut [usize; N],
    ends: &[usize; N],
) -> Option<usize> {
    if !avx2::available() {
        return rows_n_sse2::<N, CRLF>(data, view, delim, max_key, cur, ends);
    }
    // SAFETY: the CPU has AVX2, BMI1 and BMI2 (checked just above).
    unsafe { avx2::rows_n::<N, CRLF>(data, view, delim, max_key, cur, ends) }
}

/// The 8 bytes at `at` as a little-endian word.
///
/// The caller guarantees `at + 8 <= data.len()` (checked in debug builds).
#[inline(always)]
pub(crate) fn load_in_bounds(data: &[u8], at: usize) -> u64 {
    debug_assert!(at.checked_add(8).is_some_and(|e| e <= data.len()));
    // SAFETY: the caller guarantees `at + 8 <= data.len()`, so the 8 bytes
    // lie inside `data`; `read_unaligned` has no alignment requirement.
    let word = unsafe { data.as_ptr().add(at).cast::<u64>().read_unaligned() };
    u64::from_le(word)
}

/// One row of the x86-64 hot loop at `pos` (with `pos + SAFE_TAIL <=
/// data.len()`): the next row start, or `None` when the row needs the
/// general parser.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn row_sse2<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    splat: std::arch::x86_64::__m128i,
    delim: u8,
    max_key: usize,
    pos: usize,
) -> Option<usize> {
    use crate::fast::{add_value, short_key};
    use crate::table::hash;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_unpackhi_epi64,
    };
    debug_assert!(pos + crate::fast::SAFE_TAIL <= data.len());
    // SAFETY: SSE2 is enabled at compile time (the cfg above; part of
    // x86-64). The callers keep `pos + 32 <= data.len()` (see `safe` in
    // `rows_sse2` and `rows_n_sse2`), so the 16 bytes at `pos` lie inside
    // `data`; `loadu` needs no alignment.
    let (bits, w0, w1) = unsafe {
        let v = _mm_loadu_si128(data.as_ptr().add(pos).cast::<__m128i>());
        let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, splat)) as u32;
        let w0 = _mm_cvtsi128_si64(v) as u64;
        let w1 = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
        (bits, w0, w1)
    };
    if bits != 0 {
        let len = bits.trailing_zeros() as usize;
        let (k0, k1) = short_key(w0, w1, len);
        let slot = view.find_short(k0, k1, len, hash(k0, len));
        add_value::<CRLF>(data, slot, pos + len + 1)
    } else {
        long_row_sse2::<CRLF>(data, view, splat, delim, max_key, pos, w0, w1)
    }
}

/// A row whose key has no delimiter in its first 16 bytes: SSE2 search on
/// (16 bytes a step, up to `max_key`), lookup by the first 32 bytes and an
/// SSE2 compare of the rest. Rows near the end of the input take the
/// portable [`crate::fast::long_row`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn long_row_sse2<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    splat: std::arch::x86_64::__m128i,
    delim: u8,
    max_key: usize,
    pos: usize,
    w0: u64,
    w1: u64,
) -> Option<usize> {
    use crate::fast::{add_value, long_row, short_key};
    use crate::table::hash;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_unpackhi_epi64,
    };
    // Every 16-byte load below starts before `pos + max_key + 16` (search)
    // or before the delimiter (compare), so this bound keeps them inside
    // `data`; rows closer to the end take the checked path.
    if pos + max_key + 32 > data.len() {
        return long_row::<CRLF>(data, view, delim, max_key, pos, w0, w1);
    }
    let load = |at: usize| {
        // SAFETY: SSE2 is enabled (cfg). Callers below only pass `at` with
        // `at + 16 <= pos + max_key + 32 <= data.len()`.
        unsafe { _mm_loadu_si128(data.as_ptr().add(at).cast::<__m128i>()) }
    };
    let mut at = pos + 16;
    let first = load(at);
    // SAFETY: SSE2 is enabled (cfg); register-only operations.
    let mut bits = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(first, splat)) } as u32;
    while bits == 0 {
        at += 16;
        if at > pos + max_key {
            return None; // key over the limit: the general parser says so
        }
        // SAFETY: as above; `at <= pos + max_key`.
        bits = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(load(at), splat)) } as u32;
    }
    let len = at - pos + bits.trailing_zeros() as usize;
    // SAFETY: SSE2 is enabled (cfg); register-only operations.
    let (w2, w3) = unsafe {
        (
            _mm_cvtsi128_si64(first) as u64,
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(first, first)) as u64,
        )
    };
    let (w2, w3) = short_key(w2, w3, (len - 16).min(16));
    let rest = len.saturating_sub(32);
    let slot = view.find_long([w0, w1, w2, w3], len, hash(w0, len), |arena| {
        // The candidate's bytes past 32 against the row's, 16 at a time;
        // the arena is padded, the row's loads end before `pos + max_key +
        // 16`.
        if arena.len() < rest + 16 {
            return false;
        }
        let mut k = 0;
        while k < rest {
            let want = if rest - k >= 16 {
                0xFFFF
            } else {
                (1u32 << (rest - k)) - 1
            };
            // SAFETY: SSE2 is enabled (cfg); `k < rest` and `arena.len() >=
            // rest + 16` keep the arena load in bounds; the row load is at
            // `pos + 32 + k < pos + len <= pos + max_key`.
            let eq = unsafe {
                let b = _mm_loadu_si128(arena.as_ptr().add(k).cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(load(pos + 32 + k), b)) as u32
            };
            if eq & want != want {
                return false;
            }
            k += 16;
        }
        true
    });
    add_value::<CRLF>(data, slot, pos + len + 1)
}

/// The x86-64 hot loop of [`crate::fast::rows`], with the SSE2 delimiter
/// search. Same contract: `safe <= data.len() - SAFE_TAIL`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn rows_sse2<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    mut pos: usize,
    safe: usize,
) -> usize {
    // SAFETY: SSE2 is enabled at compile time (the cfg above).
    let splat = unsafe { std::arch::x86_64::_mm_set1_epi8(delim as i8) };
    let safe = safe.min(data.len().saturating_sub(crate::fast::SAFE_TAIL));
    while pos < safe {
        match row_sse2::<CRLF>(data, view, splat, delim, max_key, pos) {
            Some(n) => pos = n,
            None => return pos,
        }
    }
    pos
}

/// `N` cursors of the x86-64 hot loop, one row of each per iteration, so
/// that the rows' dependency chains (delimiter, hash, slot load) overlap.
/// Returns `Some(i)` when cursor `i` meets a row for the general parser
/// (cursors before it have taken their row of the iteration), `None` when
/// a cursor reaches its end (or the end of the unchecked range).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn rows_n_sse2<const N: usize, const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    cur: &mut [usize; N],
    ends: &[usize; N],
) -> Option<usize> {
    // SAFETY: SSE2 is enabled at compile time (the cfg above).
    let splat = unsafe { std::arch::x86_64::_mm_set1_epi8(delim as i8) };
    let safe = data.len().saturating_sub(crate::fast::SAFE_TAIL);
    let ends = ends.map(|e| e.min(safe));
    while cur.iter().zip(&ends).all(|(c, e)| c < e) {
        for (i, c) in cur.iter_mut().enumerate() {
            match row_sse2::<CRLF>(data, view, splat, delim, max_key, *c) {
                Some(n) => *c = n,
                None => return Some(i),
            }
        }
    }
    None
}
