//! The hidden `measure` subcommand: one engine, one file, one fresh process.
//!
//! The parent re-executes this binary for every measurement so that the peak
//! RSS (`VmHWM`) and the allocation counters belong to exactly one open+read.
//! The child prints a single JSON line on stdout:
//! `{"ok":true,"wall_s":..,"cpu_s":..,"cells":..,"allocs":..,"allocs_le32":..,
//! "allocs_per_cell":..,"peak_heap_bytes":..,"peak_rss_bytes":..,"threads_used":..}`
//! or `{"ok":false,"error":".."}` (and exits 1) when the engine fails.

use anyhow::{Context, Result, anyhow, bail};
use calamine::{DataRef, Reader, Xlsx, open_workbook, open_workbook_auto};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Instant;

/// The readers under comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// `ream::Workbook::open` (whole-workbook open, then iterate every cell).
    Ream,
    /// `Workbook::open` with `load_cells(false)`, then `Workbook::rows` of
    /// every sheet (streaming, constant memory), touching every cell. With
    /// more than one thread a big part is inflated on a helper thread.
    ReamStream,
    /// calamine's `worksheet_range` of every sheet (XLSX or ODS), counting
    /// non-empty cells; with N > 1 threads, one reader per thread.
    Calamine,
    /// calamine's `Xlsx::worksheet_cells_reader` (`next_cell()` until the
    /// end) of every sheet, counting non-empty cells; XLSX only.
    CalamineCells,
}

impl Engine {
    /// Name on the command line (`--engine`).
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Ream => "ream",
            Engine::ReamStream => "ream-stream",
            Engine::Calamine => "calamine",
            Engine::CalamineCells => "calamine-cells",
        }
    }
    /// How the engine reads: `whole` (every sheet materialised) or `stream`
    /// (row by row / cell by cell, bounded memory).
    pub fn mode(self) -> &'static str {
        match self {
            Engine::Ream | Engine::Calamine => "whole",
            Engine::ReamStream | Engine::CalamineCells => "stream",
        }
    }
}

/// Threads to use for a request of `n` (0 = all cores).
pub fn resolve_threads(n: usize) -> usize {
    if n == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        n
    }
}

/// What one engine run produced, before the process-level numbers are added.
struct Outcome {
    cells: u64,
    /// Allocations attributed to the per-cell work (ream: the open only);
    /// `None` means all allocations of the open+read.
    allocs_for_cells: Option<u64>,
    threads_used: usize,
    extra: Value,
}

/// Runs one measurement and prints its JSON line. Returns the exit status.
pub fn run(engine: Engine, threads: usize, file: &Path) -> i32 {
    crate::child::print_result(measure(engine, threads, file))
}

fn measure(engine: Engine, threads: usize, file: &Path) -> Result<Value> {
    if !file.is_file() {
        bail!("no such file: {}", file.display());
    }
    ream_alloc::enable();
    let sampler = ream_alloc::PeakSampler::start_default();
    let cpu0 = ream_alloc::cpu_time();
    let steal0 = ream_alloc::steal_time();
    let before = ream_alloc::snapshot();
    let t0 = Instant::now();
    let out = match engine {
        Engine::Ream => run_ream(threads, file, &before),
        Engine::ReamStream => run_ream_stream(threads, file),
        Engine::Calamine => run_calamine(threads, file),
        Engine::CalamineCells => run_calamine_cells(file),
    };
    let wall_s = t0.elapsed().as_secs_f64();
    let delta = ream_alloc::snapshot().since(&before);
    let cpu1 = ream_alloc::cpu_time();
    let steal1 = ream_alloc::steal_time();
    let peak = sampler.stop_report();
    ream_alloc::disable();
    let out = out?;
    let cpu_s = match (cpu0, cpu1) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a).as_secs_f64()),
        _ => None,
    };
    let peak_heap = peak
        .peak_live_bytes
        .saturating_sub(u64::try_from(peak.start_live_bytes).unwrap_or(0));
    let per_cell = if out.cells > 0 {
        Some(out.allocs_for_cells.unwrap_or(delta.allocs) as f64 / out.cells as f64)
    } else {
        None
    };
    Ok(json!({
        "ok": true,
        "engine": engine.as_str(),
        "threads_requested": threads,
        "threads_used": out.threads_used,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        // CPU time the hypervisor gave other guests during the run, all
        // CPUs together (system-wide; 10 ms ticks).
        "steal_s": steal0.zip(steal1).map(|(a, b)| b.saturating_sub(a).as_secs_f64()),
        "cells": out.cells,
        "allocs": delta.allocs,
        "allocs_le32": delta.allocs_le32,
        "bytes_allocated": delta.bytes_allocated,
        "allocs_per_cell": per_cell,
        "peak_heap_bytes": peak_heap,
        "peak_rss_bytes": ream_alloc::peak_rss_bytes(),
        "extra": out.extra,
    }))
}

fn run_ream(threads: usize, file: &Path, before: &ream_alloc::Snapshot) -> Result<Outcome> {
    let opts = ream::OpenOptions::new()
        .threads(threads)
        .parallel(threads != 1);
    let wb = ream::Workbook::open(file, &opts).map_err(|e| anyhow!("ream: {e}"))?;
    let open_allocs = ream_alloc::snapshot().since(before).allocs;
    // Read every cell so both engines do comparable work (calamine builds
    // a dense range of typed values). With N threads the sheets are visited
    // on N threads, dealt round-robin like calamine's per-thread readers.
    // With N threads the cells are visited on N threads: every sheet is
    // split into N runs (`Sheet::cells_split`) and the runs are dealt
    // round-robin, so one giant sheet is read on all threads too.
    let visit = |runs: Vec<ream::sheet::Cells<'_>>| {
        let (mut cells, mut checksum) = (0u64, 0u64);
        for run in runs {
            for c in run {
                cells += 1;
                checksum = checksum.wrapping_add(u64::from(c.row) ^ u64::from(c.col));
                if let ream::sheet::Value::String(s) = c.value {
                    checksum = checksum.wrapping_add(s.len() as u64);
                }
            }
        }
        (cells, checksum)
    };
    let n = resolve_threads(threads).max(1);
    let mut shares: Vec<Vec<ream::sheet::Cells<'_>>> = (0..n).map(|_| Vec::new()).collect();
    let runs = wb.sheets().iter().flat_map(|sheet| sheet.cells_split(n));
    for (i, run) in runs.enumerate() {
        if let Some(share) = shares.get_mut(i % n) {
            share.push(run);
        }
    }
    let (cells, checksum) = if n == 1 {
        visit(shares.pop().unwrap_or_default())
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .map(|share| scope.spawn(move || visit(share)))
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().ok())
                .fold((0u64, 0u64), |(a, b), (c, d)| (a + c, b.wrapping_add(d)))
        })
    };
    let st = *wb.stats();
    drop(wb);
    Ok(Outcome {
        cells,
        allocs_for_cells: Some(open_allocs),
        threads_used: st.threads,
        extra: json!({
            "phase_a_s": st.phase_a_s,
            "phase_b_s": st.phase_b_s,
            "phase_c_s": st.phase_c_s,
            "stats_cells": st.cells,
            "checksum": checksum,
            "chunks": st.chunks,
            "windowed": st.windowed,
        }),
    })
}

fn run_ream_stream(threads: usize, file: &Path) -> Result<Outcome> {
    let opts = ream::OpenOptions::new()
        .threads(threads)
        .parallel(threads != 1)
        .load_cells(false);
    let wb = ream::Workbook::open(file, &opts).map_err(|e| anyhow!("ream: {e}"))?;
    let (mut cells, mut checksum, mut rows_seen) = (0u64, 0u64, 0u64);
    for i in 0..wb.sheets().len() {
        let mut rows = wb.rows(i).map_err(|e| anyhow!("ream: sheet {i}: {e}"))?;
        while let Some(row) = rows
            .next_row()
            .map_err(|e| anyhow!("ream: sheet {i}: {e}"))?
        {
            rows_seen += 1;
            checksum = checksum.wrapping_add(u64::from(row.index()));
            for c in row.cells() {
                cells += 1;
                checksum = checksum.wrapping_add(u64::from(c.row) ^ u64::from(c.col));
                if let ream::sheet::Value::String(s) = c.value {
                    checksum = checksum.wrapping_add(s.len() as u64);
                }
            }
        }
    }
    let st = *wb.stats();
    drop(wb);
    Ok(Outcome {
        cells,
        // Streaming parses cells after the open: count every allocation.
        allocs_for_cells: None,
        // This thread parses; one helper inflates when more are allowed.
        threads_used: resolve_threads(threads).min(2),
        extra: json!({
            "open_s": st.phase_a_s + st.phase_b_s + st.phase_c_s,
            "rows": rows_seen,
            "checksum": checksum,
        }),
    })
}

type AutoBook = calamine::Sheets<std::io::BufReader<std::fs::File>>;

fn calamine_open(file: &Path) -> Result<AutoBook> {
    // The format is picked from the extension (XLSX or ODS).
    open_workbook_auto(file).with_context(|| format!("calamine: {}", file.display()))
}

/// `worksheet_range` of sheets `i` with `i % n == k`, counting non-empty
/// cells.
fn calamine_read(wb: &mut AutoBook, names: &[String], k: usize, n: usize) -> Result<u64> {
    let mut cells = 0u64;
    for (i, name) in names.iter().enumerate() {
        if i % n != k {
            continue;
        }
        let range = wb
            .worksheet_range(name)
            .with_context(|| format!("calamine: sheet {name:?}"))?;
        cells += range.used_cells().count() as u64;
    }
    Ok(cells)
}

fn run_calamine(threads: usize, file: &Path) -> Result<Outcome> {
    // Reader 0 is opened here (its sheet list caps the threads); threads
    // 1..n open their own readers; sheet i goes to reader i % n.
    let mut wb0 = calamine_open(file)?;
    let names = wb0.sheet_names();
    let n = resolve_threads(threads).min(names.len()).max(1);
    let names = &names;
    let cells = std::thread::scope(|s| -> Result<u64> {
        let handles: Vec<_> = (1..n)
            .map(|k| s.spawn(move || calamine_read(&mut calamine_open(file)?, names, k, n)))
            .collect();
        let mut total = calamine_read(&mut wb0, names, 0, n)?;
        for h in handles {
            total += h
                .join()
                .map_err(|_| anyhow!("calamine worker panicked"))??;
        }
        Ok(total)
    })?;
    Ok(Outcome {
        cells,
        allocs_for_cells: None,
        threads_used: n,
        extra: json!({}),
    })
}

fn run_calamine_cells(file: &Path) -> Result<Outcome> {
    let mut xl: Xlsx<_> =
        open_workbook(file).with_context(|| format!("calamine: {}", file.display()))?;
    let mut cells = 0u64;
    for name in xl.sheet_names() {
        let mut reader = xl
            .worksheet_cells_reader(&name)
            .with_context(|| format!("calamine: sheet {name:?}"))?;
        while let Some(c) = reader
            .next_cell()
            .with_context(|| format!("calamine: sheet {name:?}"))?
        {
            if !matches!(c.get_value(), DataRef::Empty) {
                cells += 1;
            }
        }
    }
    Ok(Outcome {
        cells,
        allocs_for_cells: None,
        threads_used: 1,
        extra: json!({}),
    })
}
