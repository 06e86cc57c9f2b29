//! Deterministic XLSX generators for the benchmark datasets.
//!
//! Every dataset is written with rust_xlsxwriter's *low-memory* worksheet mode
//! (`add_worksheet_with_low_memory`, feature `constant_memory`): rows are
//! flushed to a temp file as soon as the next row starts, while strings still
//! go to the shared-string table as Excel itself writes them. Temp files live
//! in the output folder; the workbook is saved to `NAME.xlsx.partial` and
//! renamed, so an interrupted run never leaves a truncated file that a later
//! run would skip.

use crate::prng::SplitMix64;
use anyhow::{Context, Result, bail};
use rust_xlsxwriter::{Format, Formula, Workbook, Worksheet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// All dataset names, in the order benchmarks run them.
pub const DATASETS: &[&str] = &["seed", "tiny", "many", "giant", "sst_heavy"];

/// Column layout of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// int, float, pooled string, date (the article's 4-column sheet).
    Basic4,
    /// int, float, string, date, bool, float, string, formula with result.
    Mixed8,
    /// Mixed8 plus a date-time and a second formula.
    Mixed10,
    /// Five columns of mostly unique strings.
    Unique5,
}

impl Layout {
    /// Number of columns (every cell is non-empty).
    pub fn cols(self) -> u16 {
        match self {
            Layout::Basic4 => 4,
            Layout::Mixed8 => 8,
            Layout::Mixed10 => 10,
            Layout::Unique5 => 5,
        }
    }
}

/// Shape of one dataset at scale 1.0.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Worksheets.
    pub sheets: u32,
    /// Rows per worksheet at scale 1.0.
    pub rows: u32,
    /// Column layout.
    pub layout: Layout,
    /// PRNG seed.
    pub seed: u64,
}

/// The spec of a dataset name.
pub fn spec(name: &str) -> Option<Spec> {
    let (sheets, rows, layout, seed) = match name {
        "seed" => (8, 5_000, Layout::Basic4, 0x5EED),
        "tiny" => (8, 1, Layout::Basic4, 0x7111),
        "many" => (64, 20_000, Layout::Mixed8, 0x3A11),
        "giant" => (1, 1_000_000, Layout::Mixed10, 0x61A1),
        "sst_heavy" => (1, 300_000, Layout::Unique5, 0x5575),
        _ => return None,
    };
    Some(Spec {
        sheets,
        rows,
        layout,
        seed,
    })
}

/// Rows per sheet after scaling (at least 1).
pub fn scaled_rows(rows: u32, scale: f64) -> u32 {
    ((f64::from(rows) * scale).round() as u32).clamp(1, rows.max(1))
}

/// The file of `name` at `scale` in `dir`: `NAME.xlsx` at scale 1.0,
/// `NAME-s0.01.xlsx` otherwise, so scaled and full files never collide.
pub fn path_for(dir: &Path, name: &str, scale: f64) -> PathBuf {
    if (scale - 1.0).abs() < 1e-12 {
        dir.join(format!("{name}.xlsx"))
    } else {
        dir.join(format!("{name}-s{scale}.xlsx"))
    }
}

/// What [`generate`] did.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The file.
    pub path: PathBuf,
    /// False when the file existed and was kept.
    pub written: bool,
    /// Seconds spent writing (0 when skipped).
    pub secs: f64,
    /// File size in bytes.
    pub bytes: u64,
    /// Non-empty cells written (expected count for readers).
    pub cells: u64,
}

/// Writes dataset `name` at `scale` into `dir` unless it exists (or `force`).
pub fn generate(dir: &Path, name: &str, scale: f64, force: bool) -> Result<Generated> {
    let Some(sp) = spec(name) else {
        bail!("unknown dataset {name:?}; known: {}", DATASETS.join(", "));
    };
    if !(scale > 0.0 && scale <= 1.0) {
        bail!("--scale must be in (0, 1], got {scale}");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = path_for(dir, name, scale);
    let rows = scaled_rows(sp.rows, scale);
    let cells = u64::from(sp.sheets) * u64::from(rows) * u64::from(sp.layout.cols());
    if path.exists() && !force {
        let bytes = std::fs::metadata(&path)?.len();
        return Ok(Generated {
            path,
            written: false,
            secs: 0.0,
            bytes,
            cells,
        });
    }
    let t0 = Instant::now();
    let mut wb = Workbook::new();
    wb.set_tempdir(dir)
        .with_context(|| format!("temp dir {}", dir.display()))?;
    let fmts = Formats::new();
    let pools = Pools::new();
    for s in 0..sp.sheets {
        let ws = wb.add_worksheet_with_low_memory()?;
        let mut rng = SplitMix64::new(sp.seed.wrapping_mul(0x1000_0001) ^ u64::from(s));
        for r in 0..rows {
            write_row(ws, sp.layout, r, &mut rng, &fmts, &pools)?;
        }
    }
    let partial = path.with_extension("xlsx.partial");
    wb.save(&partial)
        .with_context(|| format!("saving {}", partial.display()))?;
    std::fs::rename(&partial, &path)?;
    let bytes = std::fs::metadata(&path)?.len();
    Ok(Generated {
        path,
        written: true,
        secs: t0.elapsed().as_secs_f64(),
        bytes,
        cells,
    })
}

/// Number formats shared by all sheets.
struct Formats {
    date: Format,
    datetime: Format,
    money: Format,
}

impl Formats {
    fn new() -> Formats {
        Formats {
            date: Format::new().set_num_format("yyyy-mm-dd"),
            datetime: Format::new().set_num_format("yyyy-mm-dd hh:mm:ss"),
            money: Format::new().set_num_format("#,##0.00"),
        }
    }
}

/// Repeated-string pools.
struct Pools {
    short: Vec<String>,
    wide: Vec<String>,
}

const WORDS: [&str; 20] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

impl Pools {
    fn new() -> Pools {
        let short = WORDS.iter().map(|w| (*w).to_owned()).collect();
        let mut rng = SplitMix64::new(0x9001);
        let wide = (0..200)
            .map(|i| format!("{}-{}-{i:03}", pick(&mut rng), pick(&mut rng)))
            .collect();
        Pools { short, wide }
    }
}

fn pick(rng: &mut SplitMix64) -> &'static str {
    WORDS
        .get(rng.below(WORDS.len() as u64) as usize)
        .copied()
        .unwrap_or("alpha")
}

fn pick_from<'a>(rng: &mut SplitMix64, pool: &'a [String]) -> &'a str {
    pool.get(rng.below(pool.len() as u64) as usize)
        .map(String::as_str)
        .unwrap_or("")
}

/// A date serial between 2000-01-01 and ~2024.
fn date_serial(rng: &mut SplitMix64) -> f64 {
    36_526.0 + rng.below(9_000) as f64
}

fn write_row(
    ws: &mut Worksheet,
    layout: Layout,
    r: u32,
    rng: &mut SplitMix64,
    f: &Formats,
    p: &Pools,
) -> Result<()> {
    let int = rng.below(1_000_000) as f64;
    let float = (rng.unit() * 1e6).round() / 100.0;
    let excel_row = u64::from(r) + 1;
    match layout {
        Layout::Basic4 => {
            ws.write_number(r, 0, int)?;
            ws.write_number(r, 1, float)?;
            ws.write_string(r, 2, pick_from(rng, &p.short))?;
            ws.write_number_with_format(r, 3, date_serial(rng), &f.date)?;
        }
        Layout::Mixed8 | Layout::Mixed10 => {
            let small = rng.below(1_000) as f64;
            ws.write_number(r, 0, int)?;
            ws.write_number(r, 1, float)?;
            let c_text = pick_from(rng, &p.short);
            ws.write_string(r, 2, c_text)?;
            ws.write_number_with_format(r, 3, date_serial(rng), &f.date)?;
            ws.write_boolean(r, 4, rng.chance(0.5))?;
            ws.write_number_with_format(r, 5, small, &f.money)?;
            ws.write_string(r, 6, pick_from(rng, &p.wide))?;
            let sum = Formula::new(format!("=A{excel_row}+F{excel_row}"))
                .set_result((int + small).to_string());
            ws.write_formula(r, 7, sum)?;
            if layout == Layout::Mixed10 {
                let dt = date_serial(rng) + (rng.below(86_400) as f64) / 86_400.0;
                ws.write_number_with_format(r, 8, dt, &f.datetime)?;
                let label =
                    Formula::new(format!("=UPPER(C{excel_row})")).set_result(c_text.to_uppercase());
                ws.write_formula(r, 9, label)?;
            }
        }
        Layout::Unique5 => {
            for c in 0..5u16 {
                if rng.chance(0.1) {
                    ws.write_string(r, c, pick_from(rng, &p.wide))?;
                } else {
                    let id = rng.next_u64() & 0xFFFF_FFFF_FFFF;
                    let s = if rng.chance(0.3) {
                        format!("{} {id:012x} {} {}", pick(rng), pick(rng), pick(rng))
                    } else {
                        format!("{} {id:012x}", pick(rng))
                    };
                    ws.write_string(r, c, &s)?;
                }
            }
        }
    }
    Ok(())
}

/// `ream-bench gen`: writes the selected datasets and prints one line each.
pub fn run(dir: &Path, only: Option<&str>, scale: f64, force: bool) -> Result<()> {
    let names: Vec<&str> = match only {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect(),
        None => DATASETS.to_vec(),
    };
    for name in names {
        let g = generate(dir, name, scale, force)?;
        let what = if g.written {
            format!("wrote in {:.2} s", g.secs)
        } else {
            "exists, kept (use --force to rewrite)".to_owned()
        };
        println!(
            "{:<10} {:>12} cells {:>10.2} MiB  {}  {}",
            name,
            g.cells,
            g.bytes as f64 / (1u64 << 20) as f64,
            g.path.display(),
            what
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_and_paths() {
        assert_eq!(scaled_rows(5_000, 1.0), 5_000);
        assert_eq!(scaled_rows(5_000, 0.01), 50);
        assert_eq!(scaled_rows(1, 0.01), 1);
        let d = Path::new("bench-data");
        assert_eq!(path_for(d, "seed", 1.0), d.join("seed.xlsx"));
        assert_eq!(path_for(d, "seed", 0.01), d.join("seed-s0.01.xlsx"));
        assert!(spec("nope").is_none());
        for n in DATASETS {
            assert!(spec(n).is_some());
        }
    }
}
