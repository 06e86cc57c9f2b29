//! The hot loop for `key<delim>value` rows whose key is already known and
//! whose value has the strict 1BRC form: find the delimiter in the first
//! 16 bytes, look the key up by its zero-padded words, parse the value with
//! one 8-byte load, add. Anything else returns to the caller, which takes
//! the row through the general parser.
//!
//! On x86-64 the delimiter search uses SSE2 (one compare and one movemask
//! for 16 bytes, exact, about 10 instructions for the key instead of about
//! 30 for the SWAR search); elsewhere SWAR on two words. The loops with
//! unchecked loads live in `raw.rs`; this module only dispatches to them
//! and holds their checked helpers.

use crate::parse::{fast_value, fast_value_crlf};
use crate::raw::word_or_zero;
use crate::table::{Slot, View, hash};

/// Bytes a row start must have after it for the loops' unchecked loads:
/// the AVX2 loop reads 64 (the key and the line break), the SSE2 loop 16
/// for the key and 8 for a value that starts at most 16 bytes in.
pub(crate) const SAFE_TAIL: usize = 64;

/// `KEY_MASKS[n]` keeps the first `n` bytes of a 16-byte key as two words.
const KEY_MASKS: [(u64, u64); 17] = {
    let mut t = [(0u64, 0u64); 17];
    let mut n = 1;
    while n <= 16 {
        let lo = if n >= 8 {
            u64::MAX
        } else {
            u64::MAX >> (64 - 8 * n)
        };
        let hi = if n <= 8 {
            0
        } else {
            u64::MAX >> (64 - 8 * (n - 8))
        };
        // Indexing a const array in a const block with n <= 16.
        #[allow(clippy::indexing_slicing)]
        {
            t[n] = (lo, hi);
        }
        n += 1;
    }
    t
};

/// Aggregates rows from `pos` while they start before `safe` (clamped to
/// `data.len() - SAFE_TAIL` on every target, so the loops' unchecked loads
/// stay in bounds whatever `safe` is), their key is in `view` and their
/// value is strict and ends with `\n`. Returns the first row it does not
/// take.
#[inline(never)]
pub(crate) fn rows<const CRLF: bool>(
    data: &[u8],
    view: &mut View<'_>,
    delim: u8,
    max_key: usize,
    pos: usize,
    safe: usize,
) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        crate::raw::rows_x86::<CRLF>(data, view, delim, max_key, pos, safe)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        crate::raw::rows_swar::<CRLF>(data, view, delim, max_key, pos, safe)
    }
}

/// `N` cursors at `cur` (row starts) with ends `ends` (at most
/// `data.len() - SAFE_TAIL` for the cursors to move), one row of each per
/// iteration so that their dependency chains overlap. Returns `Some(i)`
/// when cursor `i` meets a row for the general parser, `None` when a cursor
/// reaches its end.
#[inline(never)]
pub(crate) fn rows_n<const N: usize, const CRLF: bool>(
    data: &[u8],
    view: &mut View<'_>,
    delim: u8,
    max_key: usize,
    cur: &mut [usize; N],
    ends: &[usize; N],
) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        crate::raw::rows_n_x86::<N, CRLF>(data, view, delim, max_key, cur, ends)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        crate::raw::rows_n_swar::<N, CRLF>(data, view, delim, max_key, cur, ends)
    }
}

/// Adds the value at `vpos` to `slot` if it is strict: the next row start.
#[inline(always)]
pub(crate) fn add_value<const CRLF: bool>(
    data: &[u8],
    slot: Option<&mut Slot>,
    vpos: usize,
) -> Option<usize> {
    // A value cut by the end of the input reads as 0, which no strict
    // value parses from: the general parser takes the row.
    let v = word_or_zero(data, vpos);
    // The line ending is a property of the file (chosen per chunk from its
    // first line): rows with the other ending take the general parser.
    let (tenths, used) = if CRLF {
        fast_value_crlf(v)?
    } else {
        fast_value(v)?
    };
    slot?.add(tenths);
    Some(vpos + used)
}

/// The key words of a key of `len` <= 16 bytes whose first 16 bytes are
/// `w0`, `w1`, zero padded.
#[inline(always)]
pub(crate) fn short_key(w0: u64, w1: u64, len: usize) -> (u64, u64) {
    let (m0, m1) = KEY_MASKS.get(len).copied().unwrap_or_default();
    (w0 & m0, w1 & m1)
}

/// A row whose key has no delimiter in its first 16 bytes: searches on
/// (up to `max_key` + 1 bytes), looks the key up, adds the value. The next
/// row start, or `None` for the general parser.
#[inline(never)]
pub(crate) fn long_row<const CRLF: bool>(
    data: &[u8],
    view: &mut View<'_>,
    delim: u8,
    max_key: usize,
    pos: usize,
    w0: u64,
    w1: u64,
) -> Option<usize> {
    let limit = (pos + max_key + 1).min(data.len());
    let i = memchr::memchr(delim, data.get(pos + 16..limit)?)?;
    let key = data.get(pos..pos + 16 + i)?;
    let (w2, w3) = crate::table::key_words(key.get(16..)?);
    let rest = key.get(32..).unwrap_or_default();
    let slot = view.find_long([w0, w1, w2, w3], key.len(), hash(w0, key.len()), |a| {
        a.get(..rest.len()) == Some(rest)
    });
    add_value::<CRLF>(data, slot, pos + key.len() + 1)
}
