//! The crate's only `unsafe`: unchecked loads and SIMD in the hot loop.
//!
//! On x86-64 CPUs with AVX2, BMI1 and BMI2 (detected at run time) the loop
//! of [`avx2`] runs, with the value parser of `value`; other x86-64 CPUs
//! run the SSE2 loop below; other targets the portable SWAR loop at the
//! end of this file. The functions that load without a bounds check are
//! `unsafe fn`s stating their bound; the loops that call them clamp their
//! ends to `data.len() - SAFE_TAIL` first, so they are safe to call with
//! any arguments.
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

#[cfg(test)]
thread_local! {
    /// Makes the x86-64 dispatch below take the portable SWAR loops on
    /// this thread, so that tests run them against the SIMD loops.
    pub(crate) static SWAR_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

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
    #[cfg(test)]
    if SWAR_ONLY.with(std::cell::Cell::get) {
        return rows_swar::<CRLF>(data, view, delim, max_key, pos, safe);
    }
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
    #[cfg(test)]
    if SWAR_ONLY.with(std::cell::Cell::get) {
        return rows_n_swar::<N, CRLF>(data, view, delim, max_key, cur, ends);
    }
    if !avx2::available() {
        return rows_n_sse2::<N, CRLF>(data, view, delim, max_key, cur, ends);
    }
    // SAFETY: the CPU has AVX2, BMI1 and BMI2 (checked just above).
    unsafe { avx2::rows_n::<N, CRLF>(data, view, delim, max_key, cur, ends) }
}

/// The 8 bytes at `at` as a little-endian word, loaded without a bounds
/// check (checked in debug builds only).
///
/// # Safety
/// `at + 8 <= data.len()` (without overflow): the 8 bytes lie inside
/// `data`.
#[inline(always)]
pub(crate) unsafe fn load_in_bounds(data: &[u8], at: usize) -> u64 {
    debug_assert!(at.checked_add(8).is_some_and(|e| e <= data.len()));
    // SAFETY: the caller guarantees `at + 8 <= data.len()`, so the 8 bytes
    // lie inside `data`; `read_unaligned` has no alignment requirement.
    let word = unsafe { data.as_ptr().add(at).cast::<u64>().read_unaligned() };
    u64::from_le(word)
}

/// The 8 bytes at `at` as a little-endian word, or 0 when they do not all
/// lie inside `data` (one compare, then the unchecked load).
#[inline(always)]
pub(crate) fn word_or_zero(data: &[u8], at: usize) -> u64 {
    if at.checked_add(8).is_some_and(|end| end <= data.len()) {
        // SAFETY: `at + 8 <= data.len()`, just checked.
        unsafe { load_in_bounds(data, at) }
    } else {
        0
    }
}

/// One row of the x86-64 hot loop at `pos`: the next row start, or `None`
/// when the row needs the general parser. The 16 bytes at `pos` are loaded
/// without a bounds check.
///
/// # Safety
/// `pos + SAFE_TAIL <= data.len()` ([`crate::fast::SAFE_TAIL`], 64 bytes;
/// the load needs 16 of them). Checked in debug builds only.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
unsafe fn row_sse2<const CRLF: bool>(
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
    // x86-64). The caller guarantees `pos + SAFE_TAIL <= data.len()`, so
    // the 16 bytes at `pos` lie inside `data`; `loadu` needs no alignment.
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
        // SAFETY: `pos < safe <= data.len() - SAFE_TAIL` (clamped above).
        match unsafe { row_sse2::<CRLF>(data, view, splat, delim, max_key, pos) } {
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
            // SAFETY: `*c < ends[i] <= data.len() - SAFE_TAIL` (the loop
            // condition, `ends` clamped above).
            match unsafe { row_sse2::<CRLF>(data, view, splat, delim, max_key, *c) } {
                Some(n) => *c = n,
                None => return Some(i),
            }
        }
    }
    None
}

/// One row of the portable loop: SWAR search for the delimiter in the two
/// words at `pos`, loaded without a bounds check.
///
/// # Safety
/// `pos + SAFE_TAIL <= data.len()` (the loads need 16 of the 64 bytes).
/// Checked in debug builds only.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
unsafe fn row_swar<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    splat: u64,
    delim: u8,
    max_key: usize,
    pos: usize,
) -> Option<usize> {
    debug_assert!(pos + crate::fast::SAFE_TAIL <= data.len());
    // SAFETY: `pos + 16 <= pos + SAFE_TAIL <= data.len()` (the contract).
    let (w0, w1) = unsafe { (load_in_bounds(data, pos), load_in_bounds(data, pos + 8)) };
    let m = crate::parse::match_byte(w0, splat) as u128
        | (crate::parse::match_byte(w1, splat) as u128) << 64;
    use crate::fast::{add_value, long_row, short_key};
    use crate::table::hash;
    if m != 0 {
        // The lowest match bit is exact: bit 7 of the delimiter byte.
        let len = (m.trailing_zeros() >> 3) as usize;
        let (k0, k1) = short_key(w0, w1, len);
        let slot = view.find_short(k0, k1, len, hash(k0, len));
        add_value::<CRLF>(data, slot, pos + len + 1)
    } else {
        long_row::<CRLF>(data, view, delim, max_key, pos, w0, w1)
    }
}

/// The portable loop of [`crate::fast::rows`]. Like the x86-64 loops it clamps `safe`
/// to `data.len() - SAFE_TAIL`, so any `safe` keeps its loads in bounds.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(crate) fn rows_swar<const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    mut pos: usize,
    safe: usize,
) -> usize {
    let splat = crate::parse::splat(delim);
    let safe = safe.min(data.len().saturating_sub(crate::fast::SAFE_TAIL));
    while pos < safe {
        // SAFETY: `pos < safe <= data.len() - SAFE_TAIL` (clamped above).
        match unsafe { row_swar::<CRLF>(data, view, splat, delim, max_key, pos) } {
            Some(n) => pos = n,
            None => return pos,
        }
    }
    pos
}

/// The portable loop of [`crate::fast::rows_n`]: `N` cursors, one row of
/// each per iteration. `ends` are clamped to `data.len() - SAFE_TAIL`.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(crate) fn rows_n_swar<const N: usize, const CRLF: bool>(
    data: &[u8],
    view: &mut crate::table::View<'_>,
    delim: u8,
    max_key: usize,
    cur: &mut [usize; N],
    ends: &[usize; N],
) -> Option<usize> {
    let safe = data.len().saturating_sub(crate::fast::SAFE_TAIL);
    let ends = ends.map(|e| e.min(safe));
    let splat = crate::parse::splat(delim);
    while cur.iter().zip(&ends).all(|(c, e)| c < e) {
        for (i, c) in cur.iter_mut().enumerate() {
            // SAFETY: `*c < ends[i] <= data.len() - SAFE_TAIL` (the loop
            // condition, `ends` clamped above).
            match unsafe { row_swar::<CRLF>(data, view, splat, delim, max_key, *c) } {
                Some(n) => *c = n,
                None => return Some(i),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::table::{Table, hash, key_words};

    /// The sums of a table whose one key `abc` was fed `data`.
    fn sums(t: &Table) -> Vec<(Vec<u8>, u64, i64)> {
        let mut v = Vec::new();
        t.for_each(|k, acc| v.push((k.to_vec(), acc.count, acc.sum)));
        v
    }

    fn table() -> Table {
        let mut t = Table::new();
        let (w0, w1) = key_words(b"abc");
        t.insert(w0, w1, b"abc", hash(w0, 3));
        t
    }

    /// The portable loops clamp their ends to `data.len() - SAFE_TAIL`
    /// like the x86-64 ones: given the whole input (160 bytes) as the end,
    /// they stop 64 bytes before it (12 rows of 20) instead of loading
    /// past it.
    #[test]
    fn swar_loops_clamp_their_ends() {
        let data = b"abc;1.5\n".repeat(20);
        let mut t = table();
        let stop = super::rows_swar::<false>(&data, &mut t.view(), b';', 100, 0, data.len());
        assert_eq!(stop, 12 * 8);
        assert_eq!(sums(&t), [(b"abc".to_vec(), 12, 12 * 15)]);

        let mut t = table();
        let mut cur = [0, 8 * 10];
        let stop = super::rows_n_swar::<2, false>(
            &data,
            &mut t.view(),
            b';',
            100,
            &mut cur,
            &[data.len(), data.len()],
        );
        assert_eq!(stop, None);
        assert!(
            cur.iter()
                .all(|&c| c <= data.len() - crate::fast::SAFE_TAIL)
        );
    }
}
