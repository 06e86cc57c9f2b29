//! Whole-sheet reads. A loaded sheet is cut into runs of whole rows; every
//! run is inferred, then built, on its own thread, and becomes one record
//! batch. A sheet not loaded at open is streamed twice on one thread.

use crate::batches::{Sink, count_warnings};
use crate::columns::ColumnBuild;
use crate::plan::{Inference, Inferred, Plan, Prelude, finish, plan, prelude};
use crate::{Error, ReadOptions, Table};
use arrow_array::{RecordBatch, RecordBatchOptions};
use ream::sheet::{Cells, Workbook};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stored cells per run of rows: a loaded sheet of more cells is cut into
/// runs of about this many, each one record batch built on its own thread
/// (`giant`, 10 M cells: 20 runs). The cut depends on the sheet only,
/// never on the thread count, so every thread count gives the same batches.
const RUN_CELLS: usize = 1 << 19;

/// Reads sheet `sheet` (0-based) of `wb` into a [`Table`] on the calling
/// thread (see the crate docs for the type rules and [`ReadOptions`] for
/// the window); [`read_sheets`] reads on several. A loaded sheet of more
/// than about 500,000 cells gives one record batch per run of rows.
pub fn read_sheet(wb: &Workbook, sheet: usize, opts: &ReadOptions) -> Result<Table, Error> {
    read_in_runs(wb, &[sheet], opts, 1, RUN_CELLS)
        .pop()
        .unwrap_or_else(|| Err(Error::usage("no sheet was read")))
}

/// Reads each sheet of `sheets` (0-based indices) of `wb`, on up to
/// `threads` threads (0: one per core), into one [`Table`] per sheet, in
/// the order asked. The work is shared in runs of rows, so a single big
/// loaded sheet uses every thread as well as many small ones do. The
/// tables are the same for every thread count. A sheet not loaded at open
/// is streamed (twice: types, then values) by one thread.
pub fn read_sheets(
    wb: &Workbook,
    sheets: &[usize],
    opts: &ReadOptions,
    threads: usize,
) -> Vec<Result<Table, Error>> {
    read_in_runs(wb, sheets, opts, threads, RUN_CELLS)
}

/// How one sheet is read.
enum Job<'w> {
    /// Loaded: its runs of rows, and its plan once the types are known.
    Loaded {
        pre: Prelude,
        runs: Vec<Cells<'w>>,
        plan: Option<Plan>,
    },
    /// Not loaded: streamed whole by one thread.
    Streamed(usize),
    /// Failed before any row was read.
    Failed(Error),
}

/// One unit of work: (job, run) for a loaded sheet, (job, 0) for a
/// streamed one.
type Unit = (usize, usize);

/// [`read_sheets`] with runs of `run_cells` cells.
fn read_in_runs(
    wb: &Workbook,
    sheets: &[usize],
    opts: &ReadOptions,
    threads: usize,
    run_cells: usize,
) -> Vec<Result<Table, Error>> {
    let mut jobs: Vec<Job<'_>> = sheets
        .iter()
        .map(|&s| prepare(wb, s, opts, run_cells).unwrap_or_else(Job::Failed))
        .collect();

    // Types: every run of every sheet still without a plan.
    let units: Vec<Unit> = jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| match job {
            Job::Loaded {
                runs, plan: None, ..
            } => (0..runs.len()).map(|r| (j, r)).collect(),
            _ => Vec::new(),
        })
        .collect();
    let found = run_all(units.len(), threads, |u| {
        let (j, r) = units.get(u).copied().unwrap_or_default();
        match jobs.get(j) {
            Some(Job::Loaded { pre, runs, .. }) => runs
                .get(r)
                .map(|run| infer_run(run.clone(), pre.data_first, opts, wb.is_1904()))
                .unwrap_or_default(),
            _ => Inferred::default(),
        }
    });
    // Per job: what its runs found, in run order (`None`: a run's thread
    // stopped without a result).
    let mut merged: Vec<Option<Inferred>> =
        (0..jobs.len()).map(|_| Some(Inferred::default())).collect();
    for (&(j, _), f) in units.iter().zip(found) {
        if let Some(slot) = merged.get_mut(j) {
            *slot = match (slot.take(), f) {
                (Some(mut m), Some(f)) => {
                    m.merge(f);
                    Some(m)
                }
                _ => None,
            };
        }
    }
    for (job, found) in jobs.iter_mut().zip(merged) {
        if let Job::Loaded {
            pre,
            plan: p @ None,
            ..
        } = job
        {
            let Some(found) = found else {
                *job = Job::Failed(thread_failed());
                continue;
            };
            match finish(pre.clone(), found, opts) {
                Ok(done) => *p = Some(done),
                Err(e) => *job = Job::Failed(e),
            }
        }
    }

    // Values: every run, and every streamed sheet whole.
    let units: Vec<Unit> = jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| match job {
            Job::Loaded { runs, .. } => (0..runs.len()).map(|r| (j, r)).collect(),
            Job::Streamed(_) => vec![(j, 0)],
            Job::Failed(_) => Vec::new(),
        })
        .collect();
    let built = run_all(units.len(), threads, |u| {
        let (j, r) = units.get(u).copied().unwrap_or_default();
        match jobs.get(j) {
            Some(Job::Loaded {
                runs,
                plan: Some(plan),
                ..
            }) => build_run(plan, runs, r, opts, wb.is_1904()).map(Built::Run),
            Some(Job::Streamed(sheet)) => read_streamed(wb, *sheet, opts).map(Built::Table),
            _ => Err(Error::usage("a sheet was read without its plan")),
        }
    });
    let mut parts: Vec<Vec<Option<Result<Built, Error>>>> =
        (0..jobs.len()).map(|_| Vec::new()).collect();
    for (&(j, _), b) in units.iter().zip(built) {
        if let Some(p) = parts.get_mut(j) {
            p.push(b);
        }
    }
    jobs.into_iter()
        .zip(parts)
        .map(|(job, built)| assemble(job, built))
        .collect()
}

/// What a build unit gives.
enum Built {
    /// A loaded sheet's run: its batch and null counts.
    Run((RecordBatch, Vec<(u64, u64)>)),
    /// A streamed sheet's table.
    Table(Table),
}

/// The table of one job from what its units built (in run order).
fn assemble(job: Job<'_>, built: Vec<Option<Result<Built, Error>>>) -> Result<Table, Error> {
    let plan = match job {
        Job::Failed(e) => return Err(e),
        Job::Streamed(_) => {
            return match built.into_iter().next().flatten() {
                Some(Ok(Built::Table(t))) => Ok(t),
                Some(Err(e)) => Err(e),
                _ => Err(thread_failed()),
            };
        }
        Job::Loaded { plan, .. } => plan.ok_or_else(thread_failed)?,
    };
    let mut counts = vec![(0u64, 0u64); plan.cols.len()];
    let mut batches = Vec::with_capacity(built.len().max(1));
    for b in built {
        match b {
            Some(Ok(Built::Run((batch, c)))) => {
                for (sum, (e, bad)) in counts.iter_mut().zip(c) {
                    sum.0 += e;
                    sum.1 += bad;
                }
                batches.push(batch);
            }
            Some(Err(e)) => return Err(e),
            _ => return Err(thread_failed()),
        }
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(plan.schema.clone()));
    }
    let mut warnings = plan.warnings.clone();
    warnings.extend(count_warnings(&plan, &counts));
    Ok(Table {
        schema: plan.schema.clone(),
        batches,
        warnings,
    })
}

/// The error for a unit whose thread stopped without a result.
fn thread_failed() -> Error {
    Error::usage("a reading thread stopped without a result")
}

/// The job of sheet `sheet`: its prelude and runs when loaded (with the
/// plan already made when only the first rows are sampled), else streamed.
fn prepare<'w>(
    wb: &'w Workbook,
    sheet: usize,
    opts: &ReadOptions,
    run_cells: usize,
) -> Result<Job<'w>, Error> {
    let sh = wb.sheet(sheet).ok_or_else(|| {
        Error::usage(format!(
            "no sheet {sheet} (the workbook has {})",
            wb.sheets().len()
        ))
    })?;
    if !sh.is_loaded() {
        return Ok(Job::Streamed(sheet));
    }
    let pre = prelude(wb, sheet, opts, Inference::Rows)?;
    let end = opts
        .n_rows
        .map_or(u64::MAX, |n| u64::from(pre.data_first).saturating_add(n));
    let parts = sh.cell_count().div_ceil(run_cells.max(1)).max(1);
    let runs = sh.cells_in_rows(pre.data_first, end, parts);
    let plan = match opts.infer_rows {
        Some(_) => Some(plan(wb, sheet, opts, Inference::Rows)?),
        None => None,
    };
    Ok(Job::Loaded { pre, runs, plan })
}

/// The types of one run's cells.
fn infer_run(run: Cells<'_>, data_first: u32, opts: &ReadOptions, d1904: bool) -> Inferred {
    let mut found = Inferred::default();
    let mut last = None;
    let _ = run.try_each(|c| {
        last = Some(c.row);
        found.add(&c, opts, d1904);
        Ok::<(), ()>(())
    });
    found.rows_seen = last.map_or(0, |r| r.saturating_sub(data_first) as usize + 1);
    found
}

/// The sheet rows run `r` covers: from its first cell's row (the first
/// data row for run 0) to the next run's first row, or past its last
/// cell's row for the last run.
fn run_rows(runs: &[Cells<'_>], r: usize, data_first: u32) -> (u32, u32) {
    let span = |i: usize| runs.get(i).and_then(Cells::row_span);
    let start = match r {
        0 => data_first,
        _ => span(r).map_or(data_first, |(first, _)| first),
    };
    let end = match span(r + 1) {
        Some((next, _)) => next,
        None => span(r).map_or(start, |(_, last)| last.saturating_add(1)),
    };
    (start, end.max(start))
}

/// Builds run `r` of a loaded sheet into one record batch.
fn build_run(
    plan: &Plan,
    runs: &[Cells<'_>],
    r: usize,
    opts: &ReadOptions,
    d1904: bool,
) -> Result<(RecordBatch, Vec<(u64, u64)>), Error> {
    let (start, end) = run_rows(runs, r, plan.data_first);
    let rows = (end - start) as usize;
    let mut cols: Vec<ColumnBuild> = plan
        .cols
        .iter()
        .map(|c| ColumnBuild::new(c.dtype, rows, opts.errors_as, d1904))
        .collect();
    let mut counts = vec![(0, 0); plan.cols.len()];
    let mut sink = Sink {
        plan,
        cols: &mut cols,
        counts: &mut counts,
        on_error: opts.on_error,
        batch_start: u64::from(start),
    };
    if let Some(run) = runs.get(r) {
        run.clone()
            .try_each(|c| sink.take(c.row, c.col, &c.value))?;
    }
    let arrays = cols.iter_mut().map(|c| c.finish(rows)).collect();
    let row_count = RecordBatchOptions::new().with_row_count(Some(rows));
    let batch = RecordBatch::try_new_with_options(plan.schema.clone(), arrays, &row_count)?;
    Ok((batch, counts))
}

/// A sheet not loaded at open: a streaming pass for the types, one for
/// the values, in one batch.
fn read_streamed(wb: &Workbook, sheet: usize, opts: &ReadOptions) -> Result<Table, Error> {
    let plan = plan(wb, sheet, opts, Inference::Rows)?;
    let capacity = plan.rows_seen;
    let mut it = crate::batches::start(wb, sheet, opts, plan, usize::MAX, capacity)?;
    let schema = it.schema();
    let mut batches = Vec::with_capacity(1);
    for b in it.by_ref() {
        batches.push(b?);
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok(Table {
        schema,
        batches,
        warnings: it.warnings().to_vec(),
    })
}

/// `f(0) .. f(n - 1)` on up to `threads` threads (0: one per core), each
/// thread taking the next index as it finishes one; results in index
/// order. An index whose thread panicked gives `None`.
fn run_all<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<Option<T>> {
    let want = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    };
    let workers = want.min(n).max(1);
    if workers == 1 {
        return (0..n).map(|i| Some(f(i))).collect();
    }
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        for h in handles {
            for (i, t) in h.join().unwrap_or_default() {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(t);
                }
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ream::sheet::OpenOptions;

    /// A sheet with a header, numbers, text, gaps, a mixed column and
    /// rows without cells, so that runs of a few cells split it anywhere.
    fn workbook() -> Vec<u8> {
        let mut wb = rust_xlsxwriter::Workbook::new();
        let ws = wb.add_worksheet();
        for (c, h) in ["n", "x", "mixed", "b"].iter().enumerate() {
            ws.write_string(0, c as u16, *h).unwrap();
        }
        for r in 1..200u32 {
            if r % 17 == 0 {
                continue;
            }
            ws.write_number(r, 0, f64::from(r)).unwrap();
            if r % 3 != 0 {
                ws.write_number(r, 1, f64::from(r) / 4.0).unwrap();
            }
            if r == 150 {
                ws.write_string(r, 2, "text").unwrap();
            } else if r % 5 == 0 {
                ws.write_number(r, 2, f64::from(r)).unwrap();
            }
            if r > 190 {
                ws.write_boolean(r, 3, r % 2 == 0).unwrap();
            }
        }
        ws.write_number(230, 5, 1.0).unwrap();
        wb.save_to_buffer().unwrap()
    }

    /// The table's rows as text, one line per row.
    fn rows(t: &Table) -> Vec<String> {
        let mut out = Vec::new();
        for b in &t.batches {
            for i in 0..b.num_rows() {
                let cells: Vec<String> = b.columns().iter().map(|a| value_text(a, i)).collect();
                out.push(cells.join("|"));
            }
        }
        out
    }

    /// One value's debug text.
    fn value_text(a: &arrow_array::ArrayRef, i: usize) -> String {
        use arrow_array::Array;
        format!("{:?}", a.slice(i, 1))
    }

    #[test]
    fn runs_of_any_size_and_threads_give_the_streamed_table() {
        let bytes = workbook();
        let loaded = Workbook::from_bytes(bytes.clone(), &OpenOptions::new()).unwrap();
        let streamed = Workbook::from_bytes(bytes, &OpenOptions::new().load_cells(false)).unwrap();
        for opts in [
            ReadOptions::default(),
            ReadOptions {
                skip_rows: 3,
                n_rows: Some(100),
                ..ReadOptions::default()
            },
            ReadOptions {
                header_row: None,
                infer_rows: Some(1000),
                ..ReadOptions::default()
            },
        ] {
            let want = read_streamed(&streamed, 0, &opts).unwrap();
            for run_cells in [1, 2, 7, 50, 10_000] {
                for threads in [1, 2, 3] {
                    let got = read_in_runs(&loaded, &[0], &opts, threads, run_cells)
                        .pop()
                        .unwrap()
                        .unwrap();
                    assert_eq!(
                        got.schema, want.schema,
                        "{run_cells} cells, {threads} threads"
                    );
                    assert_eq!(
                        rows(&got),
                        rows(&want),
                        "{run_cells} cells, {threads} threads"
                    );
                    assert_eq!(got.warnings, want.warnings);
                }
            }
        }
    }
}
