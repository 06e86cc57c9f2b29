//! The receiving end of a producer thread, shared by the Python iterators
//! that hand out what the thread makes (`BatchReader`, `ream.batch`).

use crate::errors;
use pyo3::prelude::*;
use std::sync::Mutex;
use std::sync::mpsc::Receiver;

/// A receiver that closes itself after the last message.
pub struct Inbox<T> {
    rx: Mutex<Option<Receiver<T>>>,
}

impl<T: Send> Inbox<T> {
    /// Wraps `rx`.
    pub fn new(rx: Receiver<T>) -> Inbox<T> {
        Inbox {
            rx: Mutex::new(Some(rx)),
        }
    }

    /// The next message, waiting with the GIL released; `None` once the
    /// producer is gone or the inbox closed. The inbox closes after a
    /// message for which `is_last` is true, or when the producer ends.
    pub fn recv(&self, py: Python<'_>, is_last: impl Fn(&T) -> bool) -> PyResult<Option<T>> {
        let mut guard = self
            .rx
            .lock()
            .map_err(|_| errors::usage(py, "the iterator was poisoned"))?;
        let Some(rx) = guard.as_mut() else {
            return Ok(None);
        };
        let msg = py.detach(move || rx.recv().ok());
        if msg.as_ref().is_none_or(&is_last) {
            *guard = None;
        }
        Ok(msg)
    }
}
