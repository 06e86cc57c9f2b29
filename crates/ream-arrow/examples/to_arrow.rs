//! Reads every sheet of a workbook into Arrow and prints rows, columns,
//! warnings and the time taken: `to_arrow PATH [stream [BATCH_ROWS]]`.
//! With `stream`, the workbook is opened without cells and each sheet is
//! streamed through `iter_batches`.

use ream::sheet::{OpenOptions, Workbook};
use ream_arrow::{ReadOptions, iter_batches, read_sheet};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: to_arrow PATH [stream [BATCH_ROWS]]")?;
    let stream = args.get(2).is_some_and(|a| a == "stream");
    let batch_rows: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(65_536);
    let t0 = Instant::now();
    let wb = Workbook::open(path, &OpenOptions::new().load_cells(!stream))?;
    let opened = t0.elapsed();
    let opts = ReadOptions::default();
    let (mut rows, mut cols, mut warnings) = (0usize, 0usize, 0usize);
    for i in 0..wb.sheets().len() {
        if stream {
            let mut it = iter_batches(&wb, i, &opts, batch_rows)?;
            cols += it.schema().fields().len();
            for b in it.by_ref() {
                rows += b?.num_rows();
            }
            warnings += it.warnings().len();
        } else {
            let t = read_sheet(&wb, i, &opts)?;
            cols += t.schema.fields().len();
            rows += t.num_rows();
            warnings += t.warnings.len();
        }
    }
    println!(
        "{} sheets, {rows} rows, {cols} columns, {warnings} warnings; open {:.3} s, total {:.3} s",
        wb.sheets().len(),
        opened.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
