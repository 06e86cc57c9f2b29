//! Test-only "engines" that misbehave on purpose, compiled in only with
//! the `test-engines` cargo feature and recognised only with
//! [`BatchOptions::test_engines`](crate::BatchOptions::test_engines).
//!
//! A file whose first bytes are:
//! * `REAM-TEST-ABORT` aborts the process (SIGABRT), like a crashing parser;
//! * `REAM-TEST-HANG` sleeps for an hour, like a parser in an endless loop;
//! * `REAM-TEST-OOM` allocates (and touches) 64 MiB blocks until memory runs
//!   out; it refuses to start unless the process has a data-size limit, so
//!   it can never eat a machine's memory;
//! * `REAM-TEST-PANIC` panics;
//! * `REAM-TEST-SLEEP <ms>` sleeps that long, then succeeds.

use crate::raw::{Analysis, DocFormat, Outcome};
use std::time::Duration;

/// The prefix every test file starts with.
pub(crate) const MAGIC: &[u8] = b"REAM-TEST-";
/// Allocation step of the memory blow-up.
const OOM_BLOCK: usize = 64 << 20;
/// Most blocks the blow-up allocates (64 GiB) before giving up.
const OOM_BLOCKS: usize = 1024;

/// Runs the test engine named by `data`'s first bytes.
pub(crate) fn run(data: &[u8]) -> Analysis {
    let rest = data.get(MAGIC.len()..).unwrap_or_default();
    let ok = || Analysis {
        outcome: Outcome::Ok,
        ..Analysis::failed(DocFormat::Test, Outcome::Ok)
    };
    if rest.starts_with(b"ABORT") {
        std::process::abort();
    } else if rest.starts_with(b"HANG") {
        std::thread::sleep(Duration::from_secs(3600));
        ok()
    } else if rest.starts_with(b"OOM") {
        blow_up()
    } else if rest.starts_with(b"PANIC") {
        panic_now()
    } else if let Some(ms) = rest.strip_prefix(b"SLEEP ") {
        let ms: u64 = std::str::from_utf8(ms)
            .ok()
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        std::thread::sleep(Duration::from_millis(ms));
        ok()
    } else {
        Analysis::failed(
            DocFormat::Test,
            Outcome::error("usage", "unknown REAM-TEST- file"),
        )
    }
}

#[allow(clippy::panic)] // the whole point of this test engine
fn panic_now() -> Analysis {
    panic!("REAM-TEST-PANIC: a test engine panicked on purpose")
}

/// True when `/proc/self/limits` shows a finite "Max data size".
fn has_data_limit() -> bool {
    std::fs::read_to_string("/proc/self/limits").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Max data size"))
            .and_then(|l| l.split_whitespace().nth(3))
            .is_some_and(|soft| soft != "unlimited")
    })
}

fn blow_up() -> Analysis {
    if !has_data_limit() {
        return Analysis::failed(
            DocFormat::Test,
            Outcome::error(
                "usage",
                "REAM-TEST-OOM runs only under a memory limit (isolate with max_mem)",
            ),
        );
    }
    let mut held: Vec<Vec<u8>> = Vec::new();
    for _ in 0..OOM_BLOCKS {
        // `vec![1; n]` writes every byte, so the memory is really used.
        held.push(vec![1u8; OOM_BLOCK]);
    }
    let total: usize = held.iter().map(Vec::len).sum();
    Analysis::failed(
        DocFormat::Test,
        Outcome::error(
            "usage",
            format!("allocated {total} bytes without running out of memory"),
        ),
    )
}
