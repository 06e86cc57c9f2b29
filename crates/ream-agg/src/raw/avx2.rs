//! The x86-64 hot loop with AVX2 and BMI1/2, chosen at run time.
//!
//! A row whose key is shorter than 32 bytes (every 413-station name, 90%
//! of the 10,000-station rows): two 32-byte loads at the row start give the
//! delimiter and the line break (one compare and one movemask each); the
//! key is the first load masked to its length, hashed by its first word
//! and compared with the slot's 32 key bytes in one compare (no branch on
//! the 16-byte boundary of the SSE2 loop); the value is parsed by
//! [`super::value::strict`]. The next row start comes from the line break,
//! so a cursor's dependency chain is load, compare, bit scan. The table's
//! slots, shift and mask stay in registers; BMI2 gives shifts that need no
//! `cl`. Keys of 32 bytes or more take [`long_row`].
//!
//! Measured (callgrind, one thread, 10 M rows; CPU time of `examples/agg`,
//! two threads, 100 M rows, machine shared with other work): 413 stations
//! 118 -> 73 instructions and 10.4 -> 7.9 ns a row, 10,000 stations 140 ->
//! 88 instructions and 19.0 -> 12.9 ns a row, against the SSE2 loop. Three or
//! four cursors were slower (register spills), one 21% slower.

use super::value::strict;
use crate::fast::SAFE_TAIL;
use crate::table::{ARENA_PAD, Slot, View, hash};
use std::arch::x86_64::{
    __m256i, _mm_cvtsi128_si64, _mm256_and_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi8,
    _mm256_load_si256, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
};
use std::marker::PhantomData;

// The slot's first 32 bytes are its key words and slots are 64-byte
// aligned: one aligned 32-byte load compares a key.
const _: () = assert!(
    std::mem::offset_of!(Slot, w0) == 0
        && std::mem::offset_of!(Slot, w1) == 8
        && std::mem::offset_of!(Slot, w2) == 16
        && std::mem::offset_of!(Slot, w3) == 24
        && std::mem::align_of::<Slot>() >= 32
);
// A short row reads 64 bytes: the key, the value and the line break.
const _: () = assert!(SAFE_TAIL >= 64);

/// True when this CPU runs [`rows_n`]: AVX2, BMI1 and BMI2 (the standard
/// library caches the answer).
#[inline]
pub(crate) fn available() -> bool {
    #[cfg(test)]
    if tests::SSE2_ONLY.with(std::cell::Cell::get) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
}

/// 32 bytes of `0xFF`, then 32 zeros: the 32 bytes at `32 - n` keep the
/// first `n` bytes of 32.
static KEEP: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        // Const evaluation: an out-of-range index fails the build.
        #[allow(clippy::indexing_slicing)]
        {
            t[i] = 0xFF;
        }
        i += 1;
    }
    t
};

/// What the rows of one call share, in registers: the input, the table's
/// slots (as a pointer, for unchecked indexing), hash shift, index mask
/// and arena.
struct Hot<'a> {
    data: &'a [u8],
    slots: *mut Slot,
    shift: u32,
    mask: usize,
    arena: &'a [u8],
    splat: __m256i,
    /// `\n` in every byte.
    newline: __m256i,
    max_key: usize,
    /// The slots are borrowed mutably for `'a`.
    _slots: PhantomData<&'a mut [Slot]>,
}

impl Hot<'_> {
    /// The slot of key `key` (32 bytes, zero past `len`; its first 32 bytes
    /// for a longer key) of `len` bytes with hash `h`, for which `rest`
    /// (given the slot's arena offset) is true; `None` when absent.
    ///
    /// # Safety
    /// The CPU has AVX2 (inlined into the `target_feature` functions).
    #[inline(always)]
    unsafe fn find(
        &mut self,
        key: __m256i,
        len: usize,
        h: u64,
        rest: impl Fn(usize) -> bool,
    ) -> Option<&mut Slot> {
        let mut i = (h >> self.shift) as usize;
        loop {
            // SAFETY: `i` is `h >> shift` (below `2^(64 - shift)`, the slot
            // count) or masked by `mask` (the slot count - 1): a slot of the
            // table borrowed for `'a`, not referenced elsewhere meanwhile.
            let slot = unsafe { &mut *self.slots.add(i) };
            // SAFETY: a slot is 64-byte aligned and starts with its 32 key
            // bytes (asserted above); AVX2 is there (the contract).
            let same = unsafe {
                let words = _mm256_load_si256((slot as *const Slot).cast::<__m256i>());
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(key, words)) as u32
            };
            if same == u32::MAX && slot.len as usize == len && rest(slot.tail as usize) {
                return Some(slot);
            }
            if slot.len == 0 {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The value word at `at`.
    ///
    /// # Safety
    /// `at + 8 <= data.len()`.
    #[inline(always)]
    unsafe fn word(&self, at: usize) -> u64 {
        debug_assert!(at + 8 <= self.data.len());
        // SAFETY: the caller's bound; no alignment needed.
        u64::from_le(unsafe { self.data.as_ptr().add(at).cast::<u64>().read_unaligned() })
    }

    /// The 32 bytes at `at`.
    ///
    /// # Safety
    /// `at + 32 <= data.len()`, and the CPU has AVX2.
    #[inline(always)]
    unsafe fn load(&self, at: usize) -> __m256i {
        debug_assert!(at + 32 <= self.data.len());
        // SAFETY: the caller's contract; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(self.data.as_ptr().add(at).cast::<__m256i>()) }
    }
}

/// One row at `pos`: the next row start, or `None` for the general
/// parser.
///
/// # Safety
/// `pos + SAFE_TAIL <= data.len()`; the CPU has AVX2, BMI1 and BMI2. A
/// `target_feature` function cannot be `inline(always)`, and a call a row
/// cost about 20 instructions: this one inlines into [`rows_n`], where the
/// intrinsics inline too.
#[inline(always)]
unsafe fn row<const CRLF: bool>(hot: &mut Hot<'_>, pos: usize) -> Option<usize> {
    // SAFETY: `pos + 64 <= data.len()` (the contract, SAFE_TAIL >= 64).
    let (v, v2) = unsafe { (hot.load(pos), hot.load(pos + 32)) };
    // SAFETY: AVX2 (the contract), register-only.
    let (bits, nl) = unsafe {
        let nl = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, hot.newline)) as u32 as u64
            | (_mm256_movemask_epi8(_mm256_cmpeq_epi8(v2, hot.newline)) as u32 as u64) << 32;
        (
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, hot.splat)) as u32,
            nl,
        )
    };
    if bits == 0 {
        // SAFETY: the CPU has the features (the contract).
        return unsafe { long_row::<CRLF>(hot, pos, v) };
    }
    let len = bits.trailing_zeros() as usize;
    // SAFETY: `len <= 31`, so the 32 bytes at `32 - len` lie in KEEP; AVX2.
    let (key, w0) = unsafe {
        let keep = _mm256_loadu_si256(KEEP.as_ptr().add(32 - len).cast::<__m256i>());
        let key = _mm256_and_si256(v, keep);
        (key, _mm_cvtsi128_si64(_mm256_castsi256_si128(key)) as u64)
    };
    // SAFETY: the value starts at `pos + len + 1 <= pos + 32`, its word
    // ends by `pos + 40 <= pos + SAFE_TAIL`; SSE2.
    let (tenths, _) = unsafe { strict::<CRLF>(hot.word(pos + len + 1)) }?;
    // SAFETY: AVX2 (the contract).
    unsafe { hot.find(key, len, hash(w0, len), |_| true) }?.add_wide(tenths);
    // The row is `key;value` and its line break, at most 31 + 1 + 7 bytes,
    // with no `\n` before its end (a table key has none): the next row
    // starts after the first `\n` of the 64 bytes. Found from the loads of
    // the row start, not from the value, it keeps the cursor's dependency
    // chain short (load, compare, bit scan).
    Some(pos + nl.trailing_zeros() as usize + 1)
}

/// A row whose key has no delimiter in its first 32 bytes (`first`): the
/// search goes on 32 bytes a step up to `max_key`, the slot is found by
/// the first 32 bytes and the length, and the bytes past 32 are compared
/// with the table's arena. A row whose key or value comes within 64 bytes
/// of the end of the input goes to the general parser (`None`), as rows
/// over the key limit do.
#[inline(never)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn long_row<const CRLF: bool>(hot: &mut Hot<'_>, pos: usize, first: __m256i) -> Option<usize> {
    let data = hot.data;
    let mut at = pos + 32;
    let len = loop {
        if at > pos + hot.max_key {
            return None; // over the key limit: the general parser says so
        }
        if at + 32 > data.len() {
            return None; // near the end of the input: the general parser
        }
        // SAFETY: `at + 32 <= data.len()` (just checked).
        let bits = _mm256_movemask_epi8(_mm256_cmpeq_epi8(unsafe { hot.load(at) }, hot.splat));
        if bits != 0 {
            break at - pos + (bits as u32).trailing_zeros() as usize;
        }
        at += 32;
    };
    // The tail compare reads up to `pos + len + 31`, the value word up to
    // `pos + len + 9`.
    if pos + len + 64 > data.len() {
        return None;
    }
    let rest = len - 32;
    let w0 = _mm_cvtsi128_si64(_mm256_castsi256_si128(first)) as u64;
    let arena = hot.arena;
    // SAFETY: `pos + 32 + rest + 32 = pos + len + 32 < pos + len + 64 <=
    // data.len()` (checked above).
    let tail = |t: usize| unsafe { tail_equals(data, pos + 32, rest, arena, t) };
    // SAFETY: the value word ends by `pos + len + 9 < data.len()` (checked
    // above); SSE2.
    let (tenths, used) = unsafe { strict::<CRLF>(hot.word(pos + len + 1)) }?;
    // SAFETY: AVX2 is enabled here; `tail_equals` reads up to `pos + 32 +
    // rest + 31 < pos + len + 64 <= data.len()`.
    unsafe { hot.find(first, len, hash(w0, len), tail) }?.add_wide(tenths);
    Some(pos + len + 1 + used)
}

/// True when the `rest` bytes of `data` at `at` equal the arena bytes at
/// `tail`, compared 32 at a time. The data is loaded without a bounds
/// check; the arena bound is checked (the arena ends with [`ARENA_PAD`]
/// zeros, so a stored tail passes).
///
/// # Safety
/// `at + rest + 32 <= data.len()` (checked in debug builds only).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn tail_equals(data: &[u8], at: usize, rest: usize, arena: &[u8], tail: usize) -> bool {
    if tail + rest + ARENA_PAD > arena.len() {
        return false;
    }
    debug_assert!(at + rest + 32 <= data.len());
    let mut k = 0;
    while k < rest {
        let n = rest - k;
        let want = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        // SAFETY: `k < rest`: the arena load ends by `tail + rest + 31 <
        // arena.len()` (checked above), the data load by `at + rest + 31`
        // (the caller's bound).
        let same = unsafe {
            let a = _mm256_loadu_si256(arena.as_ptr().add(tail + k).cast::<__m256i>());
            let b = _mm256_loadu_si256(data.as_ptr().add(at + k).cast::<__m256i>());
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b)) as u32
        };
        if same & want != want {
            return false;
        }
        k += 32;
    }
    true
}

/// [`crate::fast::rows_n`] on AVX2: `N` cursors at `cur` with ends `ends`,
/// one row of each per iteration. Returns `Some(i)` when cursor `i` meets
/// a row for the general parser (cursors before it have taken their row of
/// the iteration), `None` when a cursor reaches its end or the last
/// [`SAFE_TAIL`] bytes of the input.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(crate) fn rows_n<const N: usize, const CRLF: bool>(
    data: &[u8],
    view: &mut View<'_>,
    delim: u8,
    max_key: usize,
    cur: &mut [usize; N],
    ends: &[usize; N],
) -> Option<usize> {
    let safe = data.len().saturating_sub(SAFE_TAIL);
    let ends = ends.map(|e| e.min(safe));
    let (slots, shift, mask, arena) = view.raw_parts();
    debug_assert!(slots.len() == mask + 1);
    debug_assert!(1u64.checked_shl(64 - shift) == Some(slots.len() as u64));
    let mut hot = Hot {
        data,
        slots: slots.as_mut_ptr(),
        shift,
        mask,
        arena,
        splat: _mm256_set1_epi8(delim as i8),
        newline: _mm256_set1_epi8(b'\n' as i8),
        max_key,
        _slots: PhantomData,
    };
    // The cursors live in registers; written back on every exit.
    let mut c = *cur;
    let stop = 'rows: loop {
        for (p, e) in c.iter().zip(&ends) {
            if p >= e {
                break 'rows None;
            }
        }
        for (i, p) in c.iter_mut().enumerate() {
            // SAFETY: the features are enabled here; `*p < ends[i] <=
            // data.len() - SAFE_TAIL`.
            match unsafe { row::<CRLF>(&mut hot, *p) } {
                Some(n) => *p = n,
                None => break 'rows Some(i),
            }
        }
    };
    *cur = c;
    stop
}

#[cfg(test)]
mod tests {
    use crate::{AggOptions, aggregate_bytes};
    use std::cell::Cell;

    thread_local! {
        /// Makes [`super::available`] false on this thread, so that a
        /// one-thread run takes the SSE2 loop.
        pub(super) static SSE2_ONLY: Cell<bool> = const { Cell::new(false) };
    }

    /// The 1BRC output of `data`, or the error, on the SSE2 or AVX2 loop.
    fn run(data: &[u8], opts: &AggOptions, sse2: bool) -> String {
        SSE2_ONLY.with(|f| f.set(sse2));
        let out = match aggregate_bytes(data, opts) {
            Ok(a) => {
                let mut v = Vec::new();
                a.write_1brc(&mut v)
                    .map_err(|e| e.to_string())
                    .unwrap_or_default();
                String::from_utf8_lossy(&v).into_owned()
            }
            Err(e) => format!("error: {e}"),
        };
        SSE2_ONLY.with(|f| f.set(false));
        out
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Keys of every length class (1..=15, 16..=31, 32 and more), some
    /// sharing their first 16 or 32 bytes, one with a zero byte.
    fn keys() -> Vec<Vec<u8>> {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for len in [
            1, 2, 7, 8, 9, 15, 16, 17, 30, 31, 32, 33, 47, 48, 63, 64, 65, 99, 100,
        ] {
            keys.push((0..len).map(|i| b'a' + (i * 7 % 26) as u8).collect());
            let mut k = vec![b'Q'; len];
            if let Some(b) = k.last_mut() {
                *b = b'z';
            }
            keys.push(k);
        }
        // Same length and first 32 bytes, different tails.
        for len in [33, 48, 64, 65, 100] {
            for at in [32, 47, len - 1] {
                if at < len {
                    let mut k = vec![b'R'; len];
                    if let Some(b) = k.get_mut(at) {
                        *b = b'r';
                    }
                    keys.push(k);
                }
            }
        }
        // Same first 16 bytes, different lengths or bytes 16..32.
        keys.push(b"0123456789abcdefXY".to_vec());
        keys.push(b"0123456789abcdefXZ".to_vec());
        keys.push(b"0123456789abcdefX".to_vec());
        keys.push(b"ab\0".to_vec());
        keys.push(b"ab".to_vec());
        keys.push("Zürich-ÅÄÖ".as_bytes().to_vec());
        keys
    }

    /// A value: mostly strict, sometimes another decimal form, rarely bad.
    fn value(r: &mut Rng, bad: bool) -> String {
        let t = r.below(1999) as i32 - 999;
        let a = t.unsigned_abs();
        let strict = format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10);
        match r.below(40) {
            0 => format!("{strict}5"),
            1 => "100.0".into(),
            2 => "-0.0".into(),
            3 => "7".into(),
            4 => "1e2".into(),
            5 if bad => "x1.0".into(),
            _ => strict,
        }
    }

    fn case(r: &mut Rng, keys: &[Vec<u8>], crlf: bool, bad: bool) -> Vec<u8> {
        let mut data = Vec::new();
        for _ in 0..r.below(400) + 1 {
            let k = &keys[r.below(keys.len())];
            data.extend_from_slice(k);
            data.push(b';');
            data.extend_from_slice(value(r, bad).as_bytes());
            data.extend_from_slice(if crlf && r.below(50) != 0 {
                b"\r\n"
            } else {
                b"\n"
            });
        }
        if r.below(3) == 0 {
            data.pop(); // no final line break
        }
        data
    }

    #[test]
    fn avx2_and_sse2_agree() {
        if !super::available() {
            return;
        }
        let keys = keys();
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        for n in 0..300 {
            let data = case(&mut r, &keys, n % 3 == 1, n % 5 == 4);
            let opts = AggOptions {
                threads: 1,
                chunk_bytes: [64, 1000, 1 << 20][n % 3],
                max_key_bytes: if n % 7 == 6 { 40 } else { 100 },
                ..AggOptions::default()
            };
            let avx2 = run(&data, &opts, false);
            assert_eq!(avx2, run(&data, &opts, true), "case {n}");
            assert!(
                n % 5 == 4 || n % 7 == 6 || !avx2.starts_with("error"),
                "case {n}: {avx2}"
            );
        }
    }

    /// The portable SWAR loops (the hot loop off x86-64) give what the
    /// SIMD loops give, on the same cases.
    #[test]
    fn swar_agrees_with_the_simd_loops() {
        let keys = keys();
        let mut r = Rng(0x2545_F491_4F6C_DD1D);
        for n in 0..300 {
            let data = case(&mut r, &keys, n % 3 == 1, n % 5 == 4);
            let opts = AggOptions {
                threads: 1,
                chunk_bytes: [64, 1000, 1 << 20][n % 3],
                max_key_bytes: if n % 7 == 6 { 40 } else { 100 },
                ..AggOptions::default()
            };
            let simd = run(&data, &opts, false);
            crate::raw::SWAR_ONLY.with(|f| f.set(true));
            let swar = run(&data, &opts, false);
            crate::raw::SWAR_ONLY.with(|f| f.set(false));
            assert_eq!(swar, simd, "case {n}");
        }
    }

    #[test]
    fn equal_windows_of_other_lengths_stay_apart() {
        // `abc` and `abc` + NUL have the same zero-padded key bytes. Put
        // `abc` at the home slot of `abc\0` (insert takes the hash as
        // given), so that the probe for `abc\0` meets it first: only the
        // length tells them apart.
        if !super::available() {
            return;
        }
        use crate::table::{Table, hash, key_words};
        let (short, long) = (&b"abc"[..], &b"abc\0"[..]);
        let (w0, w1) = key_words(long);
        let mut t = Table::new();
        t.insert(w0, w1, short, hash(w0, long.len()));
        t.insert(w0, w1, long, hash(w0, long.len()));
        let data = b"abc\0;1.5\n".repeat(20);
        let mut cur = [0];
        // SAFETY: the CPU has the features (checked above).
        let stop = unsafe {
            super::rows_n::<1, false>(&data, &mut t.view(), b';', 100, &mut cur, &[data.len()])
        };
        assert_eq!(stop, None);
        let mut sums = Vec::new();
        t.for_each(|k, acc| sums.push((k.to_vec(), acc.count, acc.sum)));
        sums.sort();
        // The loop stops `SAFE_TAIL` bytes before the end: 13 rows of 20.
        assert_eq!(sums, [(short.to_vec(), 0, 0), (long.to_vec(), 13, 13 * 15)]);
    }

    #[test]
    fn sse2_only_switch_works() {
        SSE2_ONLY.with(|f| f.set(true));
        assert!(!super::available());
        SSE2_ONLY.with(|f| f.set(false));
    }
}
