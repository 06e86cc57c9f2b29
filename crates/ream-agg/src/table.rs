//! The per-worker open-addressing table.
//!
//! A slot keeps the first 32 key bytes as four little-endian words (zero
//! padded), so a key of up to 16 bytes is compared with two word compares
//! and a length compare, up to 32 bytes with four (or one 32-byte SIMD
//! compare, in the AVX2 loop). Bytes past the 32nd live in a compact arena
//! owned by the table, copied once when a worker first meets the key: with
//! 10,000 keys, comparing against the key's first occurrence in the mapping
//! (scattered over the first tens of megabytes) missed the caches on most
//! rows; the arena stays in L2. Nothing is allocated or copied per row.
//!
//! Linear probing, power-of-two capacity, at most an eighth full (few
//! collisions, so few mispredicted probe branches) up to 16 MiB, half full
//! beyond; it doubles as keys arrive. Slots are one cache line each (32-byte
//! slots with the key's tail in a parallel array were tried: no faster on
//! the 413 stations, 5% slower on 10,000).

use crate::acc::{Acc, DecAcc};
use crate::decimal::Dec;

/// Slots in a new table.
const INITIAL_SLOTS: usize = 4096;
/// The table grows before more than 1 / this of its slots are used: a
/// probe that misses its home slot mispredicts a branch, and that cost
/// more than the memory (10,000 keys: 8 MiB at 1/8, 7% faster than 1/4).
const MAX_LOAD_INVERSE: usize = 8;
/// Past this many slots (16 MiB) the table fills up to half instead.
const SPARSE_SLOTS: usize = 1 << 18;
/// `Slot::float` when the key has no general-value part.
const NO_FLOAT: u32 = u32::MAX;
/// `Slot::w0` of an empty slot. No key matches it: an empty slot has
/// length 0, and a real key of length 0 has `w0 == 0`.
const EMPTY_W0: u64 = u64::MAX;
/// Zero bytes kept after the arena's last key, so that 32-byte loads from
/// any key tail stay inside it.
pub(crate) const ARENA_PAD: usize = 32;

/// One key's hot accumulator, one cache line: a row touches one line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Slot {
    pub w0: u64,
    pub w1: u64,
    /// Key bytes 16..32, zero padded.
    pub w2: u64,
    pub w3: u64,
    pub sum: i64,
    /// Key length in bytes; 0 for an empty slot.
    pub len: u32,
    pub min: i16,
    pub max: i16,
    /// Offset in the arena of the key bytes past the 32nd.
    pub tail: u32,
    float: u32,
    /// Not next to `sum`: adjacent, the two adds were vectorised into five
    /// instructions instead of two.
    pub count: u64,
}

impl Slot {
    const EMPTY: Slot = Slot {
        w0: EMPTY_W0,
        w1: 0,
        w2: 0,
        w3: 0,
        sum: 0,
        len: 0,
        min: i16::MAX,
        max: i16::MIN,
        tail: 0,
        float: NO_FLOAT,
        count: 0,
    };

    /// Adds one exact value (tenths).
    #[inline(always)]
    pub fn add(&mut self, tenths: i16) {
        self.add_wide(i64::from(tenths));
    }

    /// [`Slot::add`] of a value in `i16` range given as `i64` (as the AVX2
    /// parser makes it: no sign extension).
    #[inline(always)]
    pub fn add_wide(&mut self, value: i64) {
        debug_assert!(i16::try_from(value).is_ok());
        self.sum += value;
        self.count += 1;
        let tenths = value as i16;
        // Branches, not conditional moves: a new extreme is rare after a
        // key's first rows, and two stores on every row cost 3% of the
        // AVX2 loop's time.
        if tenths < self.min {
            self.min = tenths;
        }
        if tenths > self.max {
            self.max = tenths;
        }
    }

    /// True when this slot holds the key of `len` <= 16 bytes whose
    /// zero-padded words are `w0`, `w1` (or, for a longer key, when its
    /// first 16 bytes and its length match).
    #[inline(always)]
    pub fn holds_short(&self, w0: u64, w1: u64, len: usize) -> bool {
        ((self.w0 ^ w0) | (self.w1 ^ w1) | (self.len as u64 ^ len as u64)) == 0
    }

    /// True when this slot holds the key of `len` > 16 bytes whose first
    /// 32 bytes (zero padded) are `w`; bytes past 32 are not compared.
    #[inline(always)]
    pub fn holds_long(&self, w: [u64; 4], len: usize) -> bool {
        ((self.w0 ^ w[0])
            | (self.w1 ^ w[1])
            | (self.w2 ^ w[2])
            | (self.w3 ^ w[3])
            | (self.len as u64 ^ len as u64))
            == 0
    }

    /// True when this slot holds `key` (whose first 16 bytes are `w0`, `w1`).
    fn holds(&self, w0: u64, w1: u64, key: &[u8], arena: &[u8]) -> bool {
        if key.len() <= 16 {
            return self.holds_short(w0, w1, key.len());
        }
        let (w2, w3) = key_words(key.get(16..).unwrap_or_default());
        self.holds_long([w0, w1, w2, w3], key.len())
            && tail_equals(arena, self.tail, key.get(32..).unwrap_or_default())
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The first 16 bytes of `key` as two little-endian words, zero padded.
#[inline]
pub(crate) fn key_words(key: &[u8]) -> (u64, u64) {
    let mut buf = [0u8; 16];
    let n = key.len().min(16);
    if let (Some(dst), Some(src)) = (buf.get_mut(..n), key.get(..n)) {
        dst.copy_from_slice(src);
    }
    let (a, b) = buf.split_at(8);
    let w = |s: &[u8]| s.try_into().map_or(0, u64::from_le_bytes);
    (w(a), w(b))
}

/// The table hash of a key from its first 8 bytes (`w0`, zero padded) and
/// its length: one multiplication, the home slot is the top bits. On the
/// 413 and 10,000 station names it spreads as well as a hash of the first
/// 16 bytes (about 4% of keys off their home slot at an eighth full), and
/// the hot loop gets it without the second word.
#[inline(always)]
pub(crate) fn hash(w0: u64, len: usize) -> u64 {
    (w0 ^ (len as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// True when the arena bytes at `tail` equal `rest` (the key past its 32nd
/// byte).
#[inline(always)]
fn tail_equals(arena: &[u8], tail: u32, rest: &[u8]) -> bool {
    let t = tail as usize;
    arena.get(t..t + rest.len()) == Some(rest)
}

/// A borrowed table for lookups only: see [`Table::view`].
pub(crate) struct View<'t> {
    slots: &'t mut [Slot],
    arena: &'t [u8],
    shift: u32,
    mask: usize,
}

impl View<'_> {
    /// The slots, the hash shift (the home slot of hash `h` is `h >>
    /// shift`), the index mask (slot count - 1) and the arena, for the
    /// unchecked lookups of `raw`.
    #[inline(always)]
    pub fn raw_parts(&mut self) -> (&mut [Slot], u32, usize, &[u8]) {
        (&mut *self.slots, self.shift, self.mask, self.arena)
    }

    /// The slot holding the key of `len` <= 16 bytes with words `w0`, `w1`
    /// ([`hash`] `h`).
    #[inline(always)]
    pub fn find_short(&mut self, w0: u64, w1: u64, len: usize, h: u64) -> Option<&mut Slot> {
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots.get(i)?;
            if s.holds_short(w0, w1, len) {
                return self.slots.get_mut(i);
            }
            if s.is_empty() {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The slot holding the key of `len` > 16 bytes whose first 32 bytes
    /// (zero padded) are `w` and whose bytes past 32 satisfy `rest` (called
    /// with the arena bytes of the candidate, padded by [`ARENA_PAD`]
    /// zeros); `h` is its [`hash`].
    #[inline(always)]
    pub fn find_long(
        &mut self,
        w: [u64; 4],
        len: usize,
        h: u64,
        rest: impl Fn(&[u8]) -> bool,
    ) -> Option<&mut Slot> {
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots.get(i)?;
            if s.holds_long(w, len)
                && (len <= 32 || rest(self.arena.get(s.tail as usize..).unwrap_or_default()))
            {
                return self.slots.get_mut(i);
            }
            if s.is_empty() {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }
}

/// A worker's keys and accumulators.
pub(crate) struct Table {
    slots: Vec<Slot>,
    mask: usize,
    shift: u32,
    used: usize,
    /// Key bytes past the 32nd, then [`ARENA_PAD`] zeros.
    arena: Vec<u8>,
    /// The general-value parts, indexed by `Slot::float`.
    floats: Vec<DecAcc>,
    /// [`key_cost`] of every key held.
    cost: usize,
}

/// Bytes a key counts against [`crate::AggOptions::max_key_memory`]:
/// [`crate::KEY_OVERHEAD_BYTES`] plus its length.
pub(crate) fn key_cost(key: &[u8]) -> usize {
    key.len().saturating_add(crate::options::KEY_OVERHEAD_BYTES)
}

impl Table {
    pub fn new() -> Table {
        Table {
            slots: vec![Slot::EMPTY; INITIAL_SLOTS],
            mask: INITIAL_SLOTS - 1,
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
            used: 0,
            arena: vec![0; ARENA_PAD],
            floats: Vec::new(),
            cost: 0,
        }
    }

    /// The slots and probing parameters, for a loop that only looks up
    /// and updates keys (no insert) and wants them in registers.
    pub fn view(&mut self) -> View<'_> {
        View {
            slots: &mut self.slots,
            arena: &self.arena,
            shift: self.shift,
            mask: self.mask,
        }
    }

    /// Distinct keys held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.used
    }

    /// The [`key_cost`] of all keys held.
    pub fn cost(&self) -> usize {
        self.cost
    }

    /// The home slot of hash `h`: its top bits.
    #[inline(always)]
    fn index(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// The index of the slot holding `key` (first 16 bytes `w0`, `w1`,
    /// hash `h`), or of the empty slot where it would go.
    fn probe(&self, w0: u64, w1: u64, key: &[u8], h: u64) -> (usize, bool) {
        let mut i = self.index(h);
        loop {
            let Some(s) = self.slots.get(i) else {
                return (i, false);
            };
            if s.holds(w0, w1, key, &self.arena) {
                return (i, true);
            }
            if s.is_empty() {
                return (i, false);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The slot holding `key` (`w0`, `w1` its first 16 bytes, `h` its hash).
    pub fn find(&mut self, w0: u64, w1: u64, key: &[u8], h: u64) -> Option<&mut Slot> {
        match self.probe(w0, w1, key, h) {
            (i, true) => self.slots.get_mut(i),
            _ => None,
        }
    }

    /// Inserts a key known to be absent and returns its slot. The caller
    /// checks the key-count limit first; a key longer than `u32::MAX` or an
    /// arena past 4 GiB is refused (`None`), which the limits rule out.
    pub fn insert(&mut self, w0: u64, w1: u64, key: &[u8], h: u64) -> Option<&mut Slot> {
        let inverse = if self.slots.len() < SPARSE_SLOTS {
            MAX_LOAD_INVERSE
        } else {
            2
        };
        if (self.used + 1) * inverse > self.slots.len() {
            self.grow();
        }
        let len = u32::try_from(key.len()).ok()?;
        let (w2, w3) = key_words(key.get(16..).unwrap_or_default());
        let tail = match key.get(32..) {
            Some(rest) if !rest.is_empty() => {
                let at = self.arena.len() - ARENA_PAD;
                self.arena.truncate(at);
                self.arena.extend_from_slice(rest);
                self.arena.extend_from_slice(&[0; ARENA_PAD]);
                u32::try_from(at).ok()?
            }
            _ => 0,
        };
        let (i, _) = self.probe(w0, w1, key, h);
        let s = self.slots.get_mut(i)?;
        *s = Slot {
            w0,
            w1,
            w2,
            w3,
            len,
            tail,
            ..Slot::EMPTY
        };
        self.used += 1;
        self.cost = self.cost.saturating_add(key_cost(key));
        Some(s)
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![Slot::EMPTY; n]);
        self.mask = n - 1;
        self.shift = 64 - n.trailing_zeros();
        for s in old.into_iter().filter(|s| !s.is_empty()) {
            let mut i = self.index(hash(s.w0, s.len as usize));
            while let Some(d) = self.slots.get_mut(i) {
                if d.is_empty() {
                    *d = s;
                    break;
                }
                i = (i + 1) & self.mask;
            }
        }
    }

    /// Finds `key` (which must be present) and adds a general value.
    pub fn add_dec(&mut self, w0: u64, w1: u64, key: &[u8], h: u64, v: Dec) {
        let (i, true) = self.probe(w0, w1, key, h) else {
            return;
        };
        let Some(s) = self.slots.get_mut(i) else {
            return;
        };
        if s.float == NO_FLOAT {
            s.float = u32::try_from(self.floats.len()).unwrap_or(NO_FLOAT);
            self.floats.push(DecAcc::EMPTY);
        }
        if let Some(f) = self.floats.get_mut(s.float as usize) {
            f.add(v);
        }
    }

    /// Calls `f` with every key and its accumulator, in slot order.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], Acc)) {
        let mut key = Vec::new();
        for s in self.slots.iter().filter(|s| !s.is_empty()) {
            key.clear();
            for w in [s.w0, s.w1, s.w2, s.w3] {
                key.extend_from_slice(&w.to_le_bytes());
            }
            let len = s.len as usize;
            key.truncate(len.min(32));
            if len > 32 {
                let t = s.tail as usize;
                key.extend_from_slice(self.arena.get(t..t + len - 32).unwrap_or_default());
            }
            let float = if s.float == NO_FLOAT {
                DecAcc::EMPTY
            } else {
                self.floats
                    .get(s.float as usize)
                    .copied()
                    .unwrap_or(DecAcc::EMPTY)
            };
            let (min, max) = if s.count == 0 {
                (i64::MAX, i64::MIN)
            } else {
                (i64::from(s.min), i64::from(s.max))
            };
            let acc = Acc {
                count: s.count,
                sum: s.sum,
                min,
                max,
                dec: float,
            };
            f(&key, acc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_grow() {
        let keys: Vec<Vec<u8>> = (0..5000)
            .map(|i| format!("key-{i}-{}", "x".repeat(i % 40)).into_bytes())
            .collect();
        let mut t = Table::new();
        for k in &keys {
            let (w0, w1) = key_words(k);
            let h = hash(w0, k.len());
            assert!(t.find(w0, w1, k, h).is_none());
            t.insert(w0, w1, k, h).unwrap().add(5);
        }
        assert_eq!(t.len(), 5000);
        for k in &keys {
            let (w0, w1) = key_words(k);
            let h = hash(w0, k.len());
            t.find(w0, w1, k, h).unwrap().add(-7);
            let mut v = t.view();
            let s = if k.len() <= 16 {
                v.find_short(w0, w1, k.len(), h)
            } else {
                let (w2, w3) = key_words(&k[16..]);
                let rest = k.get(32..).unwrap_or_default();
                v.find_long([w0, w1, w2, w3], k.len(), h, |a| {
                    a.get(..rest.len()) == Some(rest)
                })
            };
            s.unwrap().add(1);
            t.add_dec(w0, w1, k, h, Dec { m: 15, scale: 1 });
        }
        let mut seen = 0;
        t.for_each(|key, acc| {
            assert!(keys.iter().any(|k| k == key));
            assert_eq!((acc.count, acc.sum, acc.min, acc.max), (3, -1, -7, 5));
            assert_eq!(acc.dec.count, 1);
            seen += 1;
        });
        assert_eq!(seen, 5000);
        // The empty key never matches an empty slot.
        let h = hash(0, 0);
        assert!(t.find(0, 0, b"", h).is_none());
        assert!(t.view().find_short(0, 0, 0, h).is_none());
    }
}
