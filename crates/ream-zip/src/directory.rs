//! End-of-central-directory search (Zip64 included), central directory
//! parsing, local header resolution and archive-level validation.
//!
//! Every offset read from the file is a `u64` and is bounds-checked before
//! use; no allocation is sized from an untrusted field without first being
//! capped by the number of bytes that actually exist.

use crate::{Entry, Error, ErrorKind, Limits, Method, Result};
use memchr::memmem;

const EOCD_SIG: &[u8; 4] = b"PK\x05\x06";
const EOCD_LEN: usize = 22;
/// The EOCD record (22 bytes) plus the longest possible comment (65,535).
const EOCD_SEARCH: usize = EOCD_LEN + 0xFFFF;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_LOCATOR_LEN: usize = 20;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const ZIP64_EOCD_LEN: usize = 56;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const CENTRAL_LEN: usize = 46;
const LOCAL_SIG: u32 = 0x0403_4b50;
const LOCAL_LEN: u64 = 30;

/// Reads `N` bytes at `off`, or `None` past the end.
fn bytes_at<const N: usize>(data: &[u8], off: usize) -> Option<[u8; N]> {
    let end = off.checked_add(N)?;
    data.get(off..end)?.try_into().ok()
}
pub(crate) fn u16_at(data: &[u8], off: usize) -> Option<u16> {
    bytes_at::<2>(data, off).map(u16::from_le_bytes)
}
pub(crate) fn u32_at(data: &[u8], off: usize) -> Option<u32> {
    bytes_at::<4>(data, off).map(u32::from_le_bytes)
}
pub(crate) fn u64_at(data: &[u8], off: usize) -> Option<u64> {
    bytes_at::<8>(data, off).map(u64::from_le_bytes)
}

fn malformed(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Malformed, msg)
}

/// `u64` file offset to `usize`, or `None` when it cannot index memory.
fn to_usize(v: u64) -> Option<usize> {
    usize::try_from(v).ok()
}

/// Where the central directory is and how many entries it declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Directory {
    pub entries: u64,
    pub offset: u64,
    pub size: u64,
    /// Offset of the first byte after the directory that belongs to the
    /// end records (Zip64 EOCD or classic EOCD).
    pub end: u64,
}

/// Finds the classic EOCD record, preferring one whose comment ends exactly
/// at the end of the file (so a comment containing the signature cannot
/// fool the search), else the last one whose comment fits.
fn find_eocd(data: &[u8]) -> Option<usize> {
    let start = data.len().saturating_sub(EOCD_SEARCH);
    let tail = data.get(start..)?;
    let mut fallback = None;
    for rel in memmem::rfind_iter(tail, EOCD_SIG) {
        let pos = start.checked_add(rel)?;
        let Some(clen) = u16_at(data, pos.checked_add(20)?) else {
            continue;
        };
        let Some(end) = pos
            .checked_add(EOCD_LEN)
            .and_then(|e| e.checked_add(usize::from(clen)))
        else {
            continue;
        };
        if end == data.len() {
            return Some(pos);
        }
        if end < data.len() && fallback.is_none() {
            fallback = Some(pos);
        }
    }
    fallback
}

/// Locates the central directory from the (Zip64) end records.
pub(crate) fn locate(data: &[u8]) -> Result<Directory> {
    let eocd = find_eocd(data)
        .ok_or_else(|| malformed("not a ZIP archive: no end-of-central-directory record").at(0))?;
    let eocd_off = eocd as u64;
    let field16 = |rel: usize| eocd.checked_add(rel).and_then(|o| u16_at(data, o));
    let field32 = |rel: usize| eocd.checked_add(rel).and_then(|o| u32_at(data, o));
    let (Some(disk), Some(cd_disk), Some(n_disk), Some(n_total), Some(size), Some(offset)) = (
        field16(4),
        field16(6),
        field16(8),
        field16(10),
        field32(12),
        field32(16),
    ) else {
        return Err(malformed("truncated end-of-central-directory record").at(eocd_off));
    };
    let saturated = disk == 0xFFFF
        || cd_disk == 0xFFFF
        || n_disk == 0xFFFF
        || n_total == 0xFFFF
        || size == 0xFFFF_FFFF
        || offset == 0xFFFF_FFFF;
    // A broken Zip64 record is fatal only when the classic fields defer to
    // it; with no locator at all the classic values are used as they are
    // (an archive of exactly 65,535 entries, say) and validated below.
    let dir = match zip64_directory(data, eocd) {
        Ok(Some(d)) => d,
        Err(e) if saturated => return Err(e),
        _ => {
            if disk != 0 || cd_disk != 0 || n_disk != n_total {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "multi-disk (spanned) archives are not supported",
                )
                .at(eocd_off));
            }
            Directory {
                entries: u64::from(n_total),
                offset: u64::from(offset),
                size: u64::from(size),
                end: eocd_off,
            }
        }
    };
    match dir.offset.checked_add(dir.size) {
        Some(cd_end) if cd_end <= dir.end => Ok(dir),
        _ => Err(malformed(format!(
            "truncated central directory: {} bytes at offset {} run past byte {}",
            dir.size, dir.offset, dir.end
        ))
        .at(dir.offset)),
    }
}

/// Reads the Zip64 locator just before the EOCD and the record it points
/// to. `Ok(None)` when there is no locator.
fn zip64_directory(data: &[u8], eocd: usize) -> Result<Option<Directory>> {
    let Some(loc) = eocd.checked_sub(ZIP64_LOCATOR_LEN) else {
        return Ok(None);
    };
    if u32_at(data, loc) != Some(ZIP64_LOCATOR_SIG) {
        return Ok(None);
    }
    let loc_off = loc as u64;
    let bad = |msg: &str| malformed(msg.to_string()).at(loc_off);
    let disk = u32_at(data, loc + 4).ok_or_else(|| bad("truncated Zip64 locator"))?;
    let rec_off = u64_at(data, loc + 8).ok_or_else(|| bad("truncated Zip64 locator"))?;
    let disks = u32_at(data, loc + 16).ok_or_else(|| bad("truncated Zip64 locator"))?;
    if disk != 0 || disks > 1 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "multi-disk (spanned) archives are not supported",
        )
        .at(loc_off));
    }
    let rec = to_usize(rec_off)
        .filter(|r| r.checked_add(ZIP64_EOCD_LEN).is_some_and(|end| end <= loc))
        .ok_or_else(|| {
            malformed(format!(
                "Zip64 end-of-central-directory record at {rec_off} is out of bounds"
            ))
            .at(loc_off)
        })?;
    if u32_at(data, rec) != Some(ZIP64_EOCD_SIG) {
        return Err(malformed("bad Zip64 end-of-central-directory signature").at(rec_off));
    }
    let field32 = |rel: usize| rec.checked_add(rel).and_then(|o| u32_at(data, o));
    let field64 = |rel: usize| rec.checked_add(rel).and_then(|o| u64_at(data, o));
    let (Some(disk), Some(cd_disk), Some(n_disk), Some(n_total), Some(size), Some(offset)) = (
        field32(16),
        field32(20),
        field64(24),
        field64(32),
        field64(40),
        field64(48),
    ) else {
        return Err(malformed("truncated Zip64 end-of-central-directory record").at(rec_off));
    };
    if disk != 0 || cd_disk != 0 || n_disk != n_total {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "multi-disk (spanned) archives are not supported",
        )
        .at(rec_off));
    }
    Ok(Some(Directory {
        entries: n_total,
        offset,
        size,
        end: rec_off,
    }))
}

/// Parses every central directory entry, resolves its data offset from the
/// local header and validates it on its own (bounds, encryption). Checks
/// that involve several entries (overlap, duplicates) are done by the
/// caller.
pub(crate) fn read_entries(data: &[u8], dir: &Directory, limits: &Limits) -> Result<Vec<Entry>> {
    if dir.entries > limits.max_entries {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "archive declares {} entries, limit is {}",
                dir.entries, limits.max_entries
            ),
        )
        .at(dir.offset));
    }
    let fits = (dir.size / CENTRAL_LEN as u64) >= dir.entries;
    if !fits {
        return Err(malformed(format!(
            "truncated central directory: {} entries cannot fit in {} bytes",
            dir.entries, dir.size
        ))
        .at(dir.offset));
    }
    let cd_end = dir.offset.checked_add(dir.size);
    let (Some(start), Some(end)) = (to_usize(dir.offset), cd_end.and_then(to_usize)) else {
        return Err(malformed("central directory out of bounds").at(dir.offset));
    };
    let cd = data
        .get(start..end)
        .ok_or_else(|| malformed("central directory out of bounds").at(dir.offset))?;
    // `fits` bounds the count by the directory's real length.
    let mut entries = Vec::with_capacity(to_usize(dir.entries).unwrap_or(0));
    let mut pos = 0usize;
    for _ in 0..dir.entries {
        let (entry, next) = central_entry(cd, pos, dir.offset)?;
        let entry = resolve_local(data, entry, dir.offset)?;
        entries.push(entry);
        pos = next;
    }
    Ok(entries)
}

/// Parses the central entry at `pos` within the directory `cd`; returns it
/// (with `data_offset` still unset) and the position of the next entry.
fn central_entry(cd: &[u8], pos: usize, cd_off: u64) -> Result<(Entry, usize)> {
    let at = cd_off.saturating_add(pos as u64);
    let trunc = || malformed("truncated central directory entry").at(at);
    let field16 = |rel: usize| pos.checked_add(rel).and_then(|o| u16_at(cd, o));
    let field32 = |rel: usize| pos.checked_add(rel).and_then(|o| u32_at(cd, o));
    match field32(0) {
        Some(CENTRAL_SIG) => {}
        Some(_) => return Err(malformed("bad central directory entry signature").at(at)),
        None => return Err(trunc()),
    }
    let (
        Some(flags),
        Some(method),
        Some(crc32),
        Some(csize),
        Some(usize_),
        Some(nlen),
        Some(xlen),
        Some(clen),
        Some(disk),
        Some(hoff),
    ) = (
        field16(8),
        field16(10),
        field32(16),
        field32(20),
        field32(24),
        field16(28),
        field16(30),
        field16(32),
        field16(34),
        field32(42),
    )
    else {
        return Err(trunc());
    };
    let name_start = pos.checked_add(CENTRAL_LEN).ok_or_else(trunc)?;
    let extra_start = name_start
        .checked_add(usize::from(nlen))
        .ok_or_else(trunc)?;
    let extra_end = extra_start
        .checked_add(usize::from(xlen))
        .ok_or_else(trunc)?;
    let next = extra_end.checked_add(usize::from(clen)).ok_or_else(trunc)?;
    let (Some(name), Some(extra), true) = (
        cd.get(name_start..extra_start),
        cd.get(extra_start..extra_end),
        next <= cd.len(),
    ) else {
        return Err(trunc());
    };
    let name = String::from_utf8_lossy(name).into_owned();
    let named = |e: Error| e.entry_name(name.clone());
    let mut entry = Entry {
        name: String::new(),
        method: match method {
            0 => Method::Stored,
            8 => Method::Deflate,
            m => Method::Other(m),
        },
        flags,
        crc32,
        compressed_size: u64::from(csize),
        uncompressed_size: u64::from(usize_),
        header_offset: u64::from(hoff),
        data_offset: 0,
    };
    zip64_extra(extra, &mut entry, usize_, csize, hoff, disk).map_err(|e| named(e.at(at)))?;
    if flags & 1 != 0 {
        return Err(named(
            Error::new(ErrorKind::Encrypted, "entry is encrypted").at(at),
        ));
    }
    entry.name = name;
    Ok((entry, next))
}

/// Applies the Zip64 extended information extra field (0x0001): each
/// 64-bit value is present only when its 32-bit field is saturated.
fn zip64_extra(
    extra: &[u8],
    entry: &mut Entry,
    usize_: u32,
    csize: u32,
    hoff: u32,
    disk: u16,
) -> Result<()> {
    let need_u = usize_ == u32::MAX;
    let need_c = csize == u32::MAX;
    let need_o = hoff == u32::MAX;
    if !(need_u || need_c || need_o || disk == u16::MAX) {
        return Ok(());
    }
    let mut p = 0usize;
    while let (Some(id), Some(len)) = (
        u16_at(extra, p),
        p.checked_add(2).and_then(|q| u16_at(extra, q)),
    ) {
        let body_start = p.saturating_add(4);
        let body_end = body_start.saturating_add(usize::from(len));
        let body = extra
            .get(body_start..body_end)
            .ok_or_else(|| malformed("truncated extra field"))?;
        if id == 0x0001 {
            let mut q = 0usize;
            let mut take = |wanted: bool| -> Result<Option<u64>> {
                if !wanted {
                    return Ok(None);
                }
                let v = u64_at(body, q).ok_or_else(|| malformed("truncated Zip64 extra field"))?;
                q = q.saturating_add(8);
                Ok(Some(v))
            };
            if let Some(v) = take(need_u)? {
                entry.uncompressed_size = v;
            }
            if let Some(v) = take(need_c)? {
                entry.compressed_size = v;
            }
            if let Some(v) = take(need_o)? {
                entry.header_offset = v;
            }
            return Ok(());
        }
        p = body_end;
    }
    if need_u || need_c || need_o {
        return Err(malformed("Zip64 sizes without a Zip64 extra field"));
    }
    Ok(())
}

/// Reads the entry's local header and sets `data_offset`; checks that the
/// header and the data lie before the central directory.
fn resolve_local(data: &[u8], mut entry: Entry, cd_off: u64) -> Result<Entry> {
    let h = entry.header_offset;
    let fail = |msg: String| malformed(msg).entry_name(entry.name.clone()).at(h);
    let header_end = h.checked_add(LOCAL_LEN).filter(|&e| e <= cd_off);
    let hs = match (header_end, to_usize(h)) {
        (Some(_), Some(hs)) => hs,
        _ => {
            return Err(fail(format!(
                "local header at {h} is out of bounds (central directory at {cd_off})"
            )));
        }
    };
    if u32_at(data, hs) != Some(LOCAL_SIG) {
        return Err(fail("bad local file header signature".to_string()));
    }
    let (Some(nlen), Some(xlen)) = (
        hs.checked_add(26).and_then(|o| u16_at(data, o)),
        hs.checked_add(28).and_then(|o| u16_at(data, o)),
    ) else {
        return Err(fail("truncated local file header".to_string()));
    };
    let data_offset = h
        .checked_add(LOCAL_LEN + u64::from(nlen) + u64::from(xlen))
        .filter(|&d| d <= cd_off)
        .ok_or_else(|| fail("local file header runs into the central directory".to_string()))?;
    match data_offset.checked_add(entry.compressed_size) {
        Some(end) if end <= cd_off => {}
        _ => {
            return Err(fail(format!(
                "entry data [{data_offset}, +{}) runs past the central directory at {cd_off}",
                entry.compressed_size
            )));
        }
    }
    entry.data_offset = data_offset;
    Ok(entry)
}

/// Rejects entries whose byte ranges (local header through the end of the
/// compressed data) overlap: overlapping entries are how "overlapping file"
/// zip bombs reuse one compressed stream many times.
pub(crate) fn check_overlaps(entries: &[Entry]) -> Result<()> {
    let mut spans: Vec<(u64, u64, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let end = e.data_offset.saturating_add(e.compressed_size);
            (e.header_offset, end, i)
        })
        .collect();
    spans.sort_unstable();
    for pair in spans.windows(2) {
        if let [(_, a_end, a), (b_start, _, b)] = *pair
            && b_start < a_end
        {
            let (Some(ea), Some(eb)) = (entries.get(a), entries.get(b)) else {
                continue;
            };
            return Err(
                malformed(format!("entries {} and {} overlap", ea.name, eb.name))
                    .entry_name(eb.name.clone())
                    .at(b_start),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_readers_stay_in_bounds() {
        let d = [1u8, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(u16_at(&d, 0), Some(0x0201));
        assert_eq!(u32_at(&d, 4), Some(0x0807_0605));
        assert_eq!(u64_at(&d, 0), Some(0x0807_0605_0403_0201));
        assert_eq!(u16_at(&d, 7), None);
        assert_eq!(u64_at(&d, 1), None);
        assert_eq!(u32_at(&d, usize::MAX), None);
    }

    fn eocd(comment: &[u8]) -> Vec<u8> {
        let mut v = EOCD_SIG.to_vec();
        v.extend_from_slice(&[0; 16]);
        v.extend_from_slice(&(comment.len() as u16).to_le_bytes());
        v.extend_from_slice(comment);
        v
    }

    #[test]
    fn eocd_search_prefers_exact_comment_fit() {
        // A comment that itself contains an EOCD signature.
        let mut inner = eocd(b"");
        inner.extend_from_slice(b"tail");
        let data = eocd(&inner);
        assert_eq!(find_eocd(&data), Some(0));
        assert_eq!(find_eocd(b""), None);
        // Cut short, the outer record no longer fits; the inner one does,
        // with trailing bytes after it (tolerated, as other readers do).
        assert_eq!(find_eocd(&data[..data.len() - 1]), Some(22));
        assert_eq!(find_eocd(&data[..21]), None);
    }

    #[test]
    fn empty_archive_locates() {
        let d = locate(&eocd(b"hi")).unwrap();
        assert_eq!(
            d,
            Directory {
                entries: 0,
                offset: 0,
                size: 0,
                end: 0
            }
        );
    }
}
