//! Measuring a region: wall and CPU time, allocations, peak heap and RSS.

use ream::sheet::{OpenStats, Workbook};
use ream_alloc::{PeakSampler, Snapshot};
use serde::Serialize;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// A running measurement; counting stays on until [`Meter::stop`].
pub struct Meter {
    sampler: PeakSampler,
    before: Snapshot,
    cpu0: Option<Duration>,
    t0: Instant,
}

/// What a [`Meter`] measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measured {
    /// Wall seconds.
    pub wall_s: f64,
    /// Process CPU seconds (all threads).
    pub cpu_s: Option<f64>,
    /// Allocation counter deltas.
    pub allocs: Snapshot,
    /// Peak growth of live heap bytes over the start (sampled).
    pub peak_heap_bytes: u64,
    /// Peak resident set size of the process.
    pub peak_rss_bytes: Option<u64>,
}

impl Meter {
    /// Switches allocation counting on and starts the clocks.
    pub fn start() -> Meter {
        ream_alloc::enable();
        ream_alloc::reset_peak_rss();
        let sampler = PeakSampler::start_default();
        let before = ream_alloc::snapshot();
        Meter {
            sampler,
            before,
            cpu0: ream_alloc::cpu_time(),
            t0: Instant::now(),
        }
    }

    /// Stops the clocks and the sampler and switches counting off.
    pub fn stop(self) -> Measured {
        let wall_s = self.t0.elapsed().as_secs_f64();
        let cpu_s = ream_alloc::cpu_time()
            .zip(self.cpu0)
            .map(|(b, a)| b.saturating_sub(a).as_secs_f64());
        let allocs = ream_alloc::snapshot().since(&self.before);
        let peak = self.sampler.stop_report();
        ream_alloc::disable();
        let growth = i128::from(peak.peak_live_bytes) - i128::from(peak.start_live_bytes);
        Measured {
            wall_s,
            cpu_s,
            allocs,
            peak_heap_bytes: u64::try_from(growth.max(0)).unwrap_or(0),
            peak_rss_bytes: ream_alloc::peak_rss_bytes(),
        }
    }
}

/// A full report: the measurement plus the workbook's own open statistics
/// and the cells counted per sheet.
#[derive(Debug, Clone)]
pub struct Report {
    /// Region measurement.
    pub m: Measured,
    /// The library's phase timings.
    pub open: OpenStats,
    /// (sheet name, cells touched).
    pub sheets: Vec<(String, u64)>,
}

impl Report {
    /// Builds a report, touching every cell of `wb` to count it.
    pub fn new(m: Measured, wb: &Workbook, sheets: Vec<(String, u64)>) -> Report {
        Report {
            m,
            open: *wb.stats(),
            sheets,
        }
    }

    /// Cells over all sheets.
    pub fn cells(&self) -> u64 {
        self.sheets.iter().map(|(_, n)| n).sum()
    }

    /// Allocations per cell (0 when there are no cells).
    pub fn allocs_per_cell(&self) -> f64 {
        self.m.allocs.allocs_per(self.cells()).unwrap_or(0.0)
    }

    /// CPU time over wall time, when CPU time is known.
    pub fn parallelism(&self) -> Option<f64> {
        self.m
            .cpu_s
            .filter(|_| self.m.wall_s > 0.0)
            .map(|c| c / self.m.wall_s)
    }

    /// The report as one JSON document (keys in a fixed, readable order).
    pub fn to_json(&self) -> JsonReport<'_> {
        JsonReport {
            cells: self.cells(),
            wall_s: self.m.wall_s,
            cpu_s: self.m.cpu_s,
            parallelism: self.parallelism(),
            threads: self.open.threads,
            phase_a_s: self.open.phase_a_s,
            phase_b_s: self.open.phase_b_s,
            phase_c_s: self.open.phase_c_s,
            inflate_s: self.open.inflate_s,
            parse_s: self.open.parse_s,
            inflated_bytes: self.open.inflated_bytes,
            allocs: self.m.allocs.allocs,
            allocs_le32: self.m.allocs.allocs_le32,
            allocs_per_cell: self.allocs_per_cell(),
            bytes_allocated: self.m.allocs.bytes_allocated,
            peak_heap_bytes: self.m.peak_heap_bytes,
            peak_rss_bytes: self.m.peak_rss_bytes,
            sheets: self
                .sheets
                .iter()
                .map(|(name, cells)| SheetCells {
                    name,
                    cells: *cells,
                })
                .collect(),
        }
    }

    /// The report as aligned text lines.
    pub fn write_human(&self, w: &mut dyn Write) -> io::Result<()> {
        for (name, cells) in &self.sheets {
            writeln!(w, "  sheet {name:<24} {cells:>12} cells")?;
        }
        let o = &self.open;
        let cpu = self.m.cpu_s.map_or("?".into(), |c| format!("{c:.3}"));
        let par = self.parallelism().map_or("?".into(), |p| format!("{p:.2}"));
        let rss = self.m.peak_rss_bytes.map_or("?".into(), mib);
        writeln!(w, "cells            {}", self.cells())?;
        writeln!(
            w,
            "phases (wall)    A {:.4} s   B {:.4} s   C {:.4} s",
            o.phase_a_s, o.phase_b_s, o.phase_c_s
        )?;
        writeln!(
            w,
            "phase B sums     inflate {:.4} s   parse {:.4} s   ({} inflated, {} threads)",
            o.inflate_s,
            o.parse_s,
            mib(o.inflated_bytes),
            o.threads
        )?;
        writeln!(
            w,
            "time             wall {:.4} s   cpu {cpu} s   cpu/wall {par}",
            self.m.wall_s
        )?;
        writeln!(
            w,
            "allocations      {} total   {} <= 32 B   {:.3} per cell",
            self.m.allocs.allocs,
            self.m.allocs.allocs_le32,
            self.allocs_per_cell()
        )?;
        writeln!(
            w,
            "memory           peak heap {}   peak RSS {rss}",
            mib(self.m.peak_heap_bytes)
        )
    }
}

/// Bytes as MiB with two decimals.
pub fn mib(b: u64) -> String {
    format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
}

/// Counts every cell of every sheet by iterating them.
pub fn touch_cells(wb: &Workbook) -> Vec<(String, u64)> {
    wb.sheets()
        .iter()
        .map(|s| {
            let mut n = 0u64;
            for c in s.cells() {
                std::hint::black_box(&c);
                n += 1;
            }
            (s.name().to_string(), n)
        })
        .collect()
}

/// The JSON form of a [`Report`] (`ream profile --json`).
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Cells over all sheets.
    pub cells: u64,
    /// Wall seconds of the measured region.
    pub wall_s: f64,
    /// CPU seconds of the process over the region (`null` if unknown).
    pub cpu_s: Option<f64>,
    /// `cpu_s / wall_s`: the effective parallelism.
    pub parallelism: Option<f64>,
    /// Phase B worker threads.
    pub threads: usize,
    /// Phase A wall seconds.
    pub phase_a_s: f64,
    /// Phase B wall seconds.
    pub phase_b_s: f64,
    /// Phase C wall seconds.
    pub phase_c_s: f64,
    /// Seconds spent inflating, summed over workers.
    pub inflate_s: f64,
    /// Seconds spent parsing, summed over workers.
    pub parse_s: f64,
    /// Worksheet XML bytes inflated.
    pub inflated_bytes: u64,
    /// Heap allocations (including reallocations).
    pub allocs: u64,
    /// Of those, requests of at most 32 bytes.
    pub allocs_le32: u64,
    /// `allocs / cells`.
    pub allocs_per_cell: f64,
    /// Bytes requested over all allocations.
    pub bytes_allocated: u64,
    /// Sampled peak growth of live heap bytes.
    pub peak_heap_bytes: u64,
    /// Peak resident set size of the process (`null` if unknown).
    pub peak_rss_bytes: Option<u64>,
    /// Cells per sheet.
    pub sheets: Vec<SheetCells<'a>>,
}

/// One sheet's entry in [`JsonReport::sheets`].
#[derive(Debug, Serialize)]
pub struct SheetCells<'a> {
    /// Sheet name.
    pub name: &'a str,
    /// Cells counted.
    pub cells: u64,
}
