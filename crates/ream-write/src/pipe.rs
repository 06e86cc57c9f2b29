//! Where a sheet's XML goes: deflated on the writing thread, or handed to
//! a helper thread that deflates while the caller formats the next rows.

use crate::deflate::{BodyDeflater, Compressed};
use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Buffers in flight between the formatting and the deflating thread.
const IN_FLIGHT: usize = 4;

/// A helper thread deflating buffers sent to it.
pub(crate) struct Piped {
    tx: SyncSender<Vec<u8>>,
    free: Receiver<Vec<u8>>,
    handle: JoinHandle<io::Result<Box<BodyDeflater>>>,
}

/// The deflater of a sheet's body.
pub(crate) enum Body {
    /// Deflates on the calling thread.
    Inline(Box<BodyDeflater>),
    /// Deflates on a helper thread.
    Piped(Piped),
    /// Between states (only while switching).
    Gone,
}

fn gone() -> io::Error {
    io::Error::other("the sheet's deflate thread stopped")
}

impl Body {
    /// Moves deflating to a helper thread (no-op when already there).
    pub(crate) fn pipe(&mut self) {
        let Body::Inline(_) = self else { return };
        let Body::Inline(mut d) = std::mem::replace(self, Body::Gone) else {
            return;
        };
        let (tx, rx) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (back, free) = sync_channel::<Vec<u8>>(IN_FLIGHT + 1);
        let handle = std::thread::spawn(move || {
            for mut buf in rx {
                d.write(&buf)?;
                buf.clear();
                let _ = back.try_send(buf);
            }
            Ok(d)
        });
        *self = Body::Piped(Piped { tx, free, handle });
    }

    /// Deflates the bytes of `buf` and leaves it empty (possibly another
    /// buffer of the same use).
    pub(crate) fn write(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Body::Inline(d) => {
                let r = d.write(buf);
                buf.clear();
                r
            }
            Body::Piped(p) => {
                let cap = buf.capacity();
                let next = p
                    .free
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(cap));
                let full = std::mem::replace(buf, next);
                if p.tx.send(full).is_err() {
                    // The helper stopped on an error: `finish` reports it.
                    return Err(gone());
                }
                Ok(())
            }
            Body::Gone => Err(gone()),
        }
    }

    /// Ends the stream with `head` in front (see [`BodyDeflater::finish`]).
    pub(crate) fn finish(self, head: &[u8], level: u32) -> io::Result<Compressed> {
        let d = match self {
            Body::Inline(d) => d,
            Body::Piped(Piped { tx, free, handle }) => {
                drop(tx);
                drop(free);
                handle.join().map_err(|_| gone())??
            }
            Body::Gone => return Err(gone()),
        };
        d.finish(head, level)
    }
}
