//! The sliding-window memory map.

use super::counters::{Counters, add};
use super::sys::map_granularity;
use super::{ByteSource, IoCounters, SourceKind, past_end, shrank};
use std::fs::File;
use std::path::Path;
use std::sync::Mutex;

/// One live read-only view of a file that slides over it.
///
/// * A request inside the live view is served from it without a syscall.
/// * Otherwise the view is unmapped first (never two views at once), the
///   file length is re-checked with `fstat`, and a new view is mapped at
///   the offset aligned down to the page size (the slice handed out starts
///   at the difference), `window` bytes long or longer when the request
///   straddles that end, clamped at the end of the file.
/// * Default window 64 MiB; at least one page.
///
/// Views are read-only shared mappings (`MAP_SHARED`): bytes another
/// process writes to the file show through them. Truncation of the file is
/// detected at the next remap (an error, see the module's SIGBUS policy);
/// reads inside the live view are not re-checked.
#[derive(Debug)]
pub struct WindowSource {
    file: File,
    len: u64,
    window: u64,
    page: u64,
    view: Mutex<Option<View>>,
    counters: Counters,
}

#[derive(Debug)]
struct View {
    offset: u64,
    map: memmap2::Mmap,
}

impl WindowSource {
    /// The default view size, 64 MiB.
    pub const DEFAULT_WINDOW: usize = 64 << 20;

    /// Opens `path` with views of `window` bytes (rounded up to a page).
    pub fn open(path: impl AsRef<Path>, window: usize) -> std::io::Result<WindowSource> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let page = map_granularity();
        let window = (window as u64).max(1).div_ceil(page) * page;
        Ok(WindowSource {
            file,
            len,
            window,
            page,
            view: Mutex::new(None),
            counters: Counters::default(),
        })
    }

    /// The view size in bytes (a multiple of the page size).
    pub fn window(&self) -> u64 {
        self.window
    }

    /// Maps the view for `offset..end` (end > offset, end <= self.len).
    fn map(&self, offset: u64, end: u64) -> std::io::Result<View> {
        add(&self.counters.syscalls, 1);
        let now = self.file.metadata()?.len();
        if now < end {
            return Err(shrank(end, now));
        }
        let aligned = offset - offset % self.page;
        let size = self
            .window
            .max(end - aligned)
            .min(now.min(self.len) - aligned);
        let size = usize::try_from(size).map_err(std::io::Error::other)?;
        // SAFETY: memmap2 maps the range read-only and shared (PROT_READ,
        // MAP_SHARED) from a file opened for reading; the range lies
        // inside the file's length as just re-checked, and nothing in this
        // process writes to it. Another process may still write to the
        // file (the bytes show through the view: results may be wrong,
        // accesses stay inside the view) or truncate it after this check
        // (accesses past the new end raise SIGBUS): the module's SIGBUS
        // policy.
        #[allow(unsafe_code)]
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(aligned)
                .len(size)
                .map(&self.file)?
        };
        add(&self.counters.syscalls, 1);
        add(&self.counters.maps, 1);
        add(&self.counters.bytes_mapped, size as u64);
        Ok(View {
            offset: aligned,
            map,
        })
    }
}

impl ByteSource for WindowSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_with(&self, offset: u64, len: usize, f: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
        add(&self.counters.requests, 1);
        if offset > self.len {
            return Err(past_end(offset, self.len));
        }
        let end = offset + (self.len - offset).min(len as u64);
        if end == offset {
            f(&[]);
            return Ok(());
        }
        let mut slot = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let hit = slot
            .as_ref()
            .is_some_and(|v| offset >= v.offset && end <= v.offset + v.map.len() as u64);
        if !hit {
            if slot.take().is_some() {
                add(&self.counters.unmaps, 1);
                add(&self.counters.syscalls, 1);
                add(&self.counters.remaps, 1);
            }
            *slot = Some(self.map(offset, end)?);
        }
        let v = slot
            .as_ref()
            .ok_or_else(|| std::io::Error::other("no view"))?;
        let from = (offset - v.offset) as usize;
        let to = (end - v.offset) as usize;
        f(v.map.get(from..to).unwrap_or_default());
        Ok(())
    }

    fn counters(&self) -> IoCounters {
        self.counters.snapshot()
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Window
    }
}
