//! Deterministic generators for the benchmark datasets (XLSX and ODS).
//!
//! XLSX datasets are written with rust_xlsxwriter's *low-memory* worksheet
//! mode (`add_worksheet_with_low_memory`, feature `constant_memory`): rows are
//! flushed to a temp file as soon as the next row starts, while strings still
//! go to the shared-string table as Excel itself writes them. Temp files live
//! in the output folder. ODS datasets are written by [`crate::odsgen`]
//! (streaming ZIP writes, no writer crate). Either way the file is saved to
//! `NAME.EXT.partial` and renamed, so an interrupted run never leaves a
//! truncated file that a later run would skip.
//!
//! Cell values come from [`row_values`], shared by both formats, so
//! `seed_ods` / `giant_ods` hold exactly the values of `seed` / `giant`.
//!
//! `seed_lo_ods` / `giant_lo_ods` are ODS files written by LibreOffice
//! itself (`soffice --headless --convert-to ods` of `seed` / `giant`; see
//! [`crate::lo`]), so ODS readers are measured on the cell shapes a real
//! office suite writes, not only on this generator's; `seed_xls` /
//! `many_xls` are `seed` / `many` saved by LibreOffice as Excel 97-2003
//! (BIFF8). They need LibreOffice (`apt-get install
//! libreoffice-calc-nogui`) and are made only when named.

use crate::prng::SplitMix64;
use anyhow::{Context, Result, bail};
use rust_xlsxwriter::{Format, Formula, Workbook, Worksheet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// All dataset names, in the order benchmarks run them.
pub const DATASETS: &[&str] = &[
    "seed",
    "tiny",
    "many",
    "giant",
    "sst_heavy",
    "mixed",
    "seed_ods",
    "giant_ods",
];

/// Datasets written by LibreOffice (made only when named: they need
/// `soffice`).
pub const LO_DATASETS: &[&str] = &["seed_lo_ods", "giant_lo_ods", "seed_xls", "many_xls"];

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

/// File format of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Office Open XML spreadsheet (rust_xlsxwriter).
    Xlsx,
    /// OpenDocument spreadsheet (our own streaming writer).
    Ods,
    /// Legacy Excel 97-2003 workbook (BIFF8), written by LibreOffice.
    Xls,
}

impl FileKind {
    /// File extension without the dot.
    pub fn ext(self) -> &'static str {
        match self {
            FileKind::Xlsx => "xlsx",
            FileKind::Ods => "ods",
            FileKind::Xls => "xls",
        }
    }
}

/// Shape of one dataset at scale 1.0.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Groups of worksheets in workbook order: (sheets, rows per sheet at
    /// scale 1.0).
    pub groups: &'static [(u32, u32)],
    /// Column layout.
    pub layout: Layout,
    /// PRNG seed.
    pub seed: u64,
    /// File format.
    pub kind: FileKind,
    /// File name stem (`seed_ods` is written as `seed.ods`).
    pub stem: &'static str,
    /// The XLSX dataset LibreOffice converts into this one, or `None`
    /// for files this crate writes.
    pub converted_from: Option<&'static str>,
}

impl Spec {
    /// Rows of every sheet, in order, at `scale`.
    pub fn sheet_rows(&self, scale: f64) -> Vec<u32> {
        self.groups
            .iter()
            .flat_map(|&(n, rows)| std::iter::repeat_n(scaled_rows(rows, scale), n as usize))
            .collect()
    }
    /// Non-empty cells at `scale`.
    pub fn cells(&self, scale: f64) -> u64 {
        self.sheet_rows(scale)
            .iter()
            .map(|&r| u64::from(r))
            .sum::<u64>()
            * u64::from(self.layout.cols())
    }
    /// PRNG seed of sheet `s`.
    pub fn sheet_seed(&self, s: u32) -> u64 {
        self.seed.wrapping_mul(0x1000_0001) ^ u64::from(s)
    }
}

/// The spec of a dataset name.
pub fn spec(name: &str) -> Option<Spec> {
    use FileKind::{Ods, Xls, Xlsx};
    let converted_from = match name {
        "seed_lo_ods" | "seed_xls" => Some("seed"),
        "giant_lo_ods" => Some("giant"),
        "many_xls" => Some("many"),
        _ => None,
    };
    let (groups, layout, seed, kind, stem): (&'static [(u32, u32)], _, _, _, _) = match name {
        "seed" => (&[(8, 5_000)], Layout::Basic4, 0x5EED, Xlsx, "seed"),
        "tiny" => (&[(8, 1)], Layout::Basic4, 0x7111, Xlsx, "tiny"),
        "many" => (&[(64, 20_000)], Layout::Mixed8, 0x3A11, Xlsx, "many"),
        "giant" => (&[(1, 1_000_000)], Layout::Mixed10, 0x61A1, Xlsx, "giant"),
        "sst_heavy" => (&[(1, 300_000)], Layout::Unique5, 0x5575, Xlsx, "sst_heavy"),
        "mixed" => (
            &[(1, 1_000_000), (20, 20_000)],
            Layout::Mixed10,
            0x313D,
            Xlsx,
            "mixed",
        ),
        "seed_ods" => (&[(8, 5_000)], Layout::Basic4, 0x5EED, Ods, "seed"),
        "giant_ods" => (&[(1, 1_000_000)], Layout::Mixed10, 0x61A1, Ods, "giant"),
        "seed_lo_ods" => (&[(8, 5_000)], Layout::Basic4, 0x5EED, Ods, "seed-lo"),
        "giant_lo_ods" => (&[(1, 1_000_000)], Layout::Mixed10, 0x61A1, Ods, "giant-lo"),
        "seed_xls" => (&[(8, 5_000)], Layout::Basic4, 0x5EED, Xls, "seed"),
        "many_xls" => (&[(64, 20_000)], Layout::Mixed8, 0x3A11, Xls, "many"),
        _ => return None,
    };
    Some(Spec {
        groups,
        layout,
        seed,
        kind,
        stem,
        converted_from,
    })
}

/// Rows per sheet after scaling (at least 1).
pub fn scaled_rows(rows: u32, scale: f64) -> u32 {
    ((f64::from(rows) * scale).round() as u32).clamp(1, rows.max(1))
}

/// The file of `name` at `scale` in `dir`: `STEM.EXT` at scale 1.0,
/// `STEM-s0.01.EXT` otherwise, so scaled and full files never collide.
pub fn path_for(dir: &Path, name: &str, scale: f64) -> PathBuf {
    let (stem, ext) = spec(name).map_or((name, "xlsx"), |s| (s.stem, s.kind.ext()));
    if (scale - 1.0).abs() < 1e-12 {
        dir.join(format!("{stem}.{ext}"))
    } else {
        dir.join(format!("{stem}-s{scale}.{ext}"))
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
    /// The file's format.
    pub kind: FileKind,
}

/// Writes dataset `name` at `scale` into `dir` unless it exists (or `force`).
pub fn generate(dir: &Path, name: &str, scale: f64, force: bool) -> Result<Generated> {
    let Some(sp) = spec(name) else {
        bail!(
            "unknown dataset {name:?}; known: {}, {}",
            DATASETS.join(", "),
            LO_DATASETS.join(", ")
        );
    };
    if !(scale > 0.0 && scale <= 1.0) {
        bail!("--scale must be in (0, 1], got {scale}");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = path_for(dir, name, scale);
    let cells = sp.cells(scale);
    if path.exists() && !force {
        let bytes = std::fs::metadata(&path)?.len();
        return Ok(Generated {
            path,
            written: false,
            secs: 0.0,
            bytes,
            cells,
            kind: sp.kind,
        });
    }
    let t0 = Instant::now();
    let partial = path.with_extension(format!("{}.partial", sp.kind.ext()));
    match (sp.kind, sp.converted_from) {
        (kind, Some(from)) => {
            let src = generate(dir, from, scale, false)?;
            crate::lo::convert(&src.path, &partial, kind)?;
        }
        (FileKind::Xlsx, None) => write_xlsx(&partial, dir, &sp, scale)?,
        (FileKind::Ods, None) => crate::odsgen::write_ods(&partial, &sp, scale)?,
        (FileKind::Xls, None) => bail!("{name}: XLS datasets are converted by LibreOffice"),
    }
    std::fs::rename(&partial, &path)?;
    let bytes = std::fs::metadata(&path)?.len();
    Ok(Generated {
        path,
        written: true,
        secs: t0.elapsed().as_secs_f64(),
        bytes,
        cells,
        kind: sp.kind,
    })
}

fn write_xlsx(out: &Path, tmp: &Path, sp: &Spec, scale: f64) -> Result<()> {
    let mut wb = Workbook::new();
    wb.set_tempdir(tmp)
        .with_context(|| format!("temp dir {}", tmp.display()))?;
    let fmts = Formats::new();
    let pools = Pools::new();
    let mut vals = Vec::new();
    for (s, rows) in (0u32..).zip(sp.sheet_rows(scale)) {
        let ws = wb.add_worksheet_with_low_memory()?;
        let mut rng = SplitMix64::new(sp.sheet_seed(s));
        for r in 0..rows {
            row_values(sp.layout, &mut rng, &pools, &mut vals);
            write_xlsx_row(ws, r, &vals, &fmts)?;
        }
    }
    wb.save(out)
        .with_context(|| format!("saving {}", out.display()))?;
    Ok(())
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
pub struct Pools {
    short: Vec<String>,
    wide: Vec<String>,
}

const WORDS: [&str; 20] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

impl Pools {
    /// The fixed pools (deterministic).
    pub fn new() -> Pools {
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

/// One generated cell value, format-neutral.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'p> {
    /// A plain number.
    Num(f64),
    /// A number shown with the `#,##0.00` format.
    Money(f64),
    /// A date (1900-system serial, whole days).
    Date(f64),
    /// A date-time: serial day plus seconds into the day.
    DateTime(f64, u32),
    /// Pooled text.
    Str(&'p str),
    /// Unique text.
    Text(String),
    /// A boolean.
    Bool(bool),
    /// `=A{r}+F{r}` with its cached result.
    Sum(f64),
    /// `=UPPER(C{r})` with its cached result.
    Upper(String),
}

impl Val<'_> {
    /// The date-time's serial value as written to XLSX.
    pub fn serial(days: f64, secs: u32) -> f64 {
        days + f64::from(secs) / 86_400.0
    }
}

/// The values of the next row of `layout`, drawn from `rng` (always the
/// same draws in the same order, so XLSX and ODS files agree).
pub fn row_values<'p>(layout: Layout, rng: &mut SplitMix64, p: &'p Pools, out: &mut Vec<Val<'p>>) {
    out.clear();
    let int = rng.below(1_000_000) as f64;
    let float = (rng.unit() * 1e6).round() / 100.0;
    match layout {
        Layout::Basic4 => {
            out.push(Val::Num(int));
            out.push(Val::Num(float));
            out.push(Val::Str(pick_from(rng, &p.short)));
            out.push(Val::Date(date_serial(rng)));
        }
        Layout::Mixed8 | Layout::Mixed10 => {
            let small = rng.below(1_000) as f64;
            out.push(Val::Num(int));
            out.push(Val::Num(float));
            let c_text = pick_from(rng, &p.short);
            out.push(Val::Str(c_text));
            out.push(Val::Date(date_serial(rng)));
            out.push(Val::Bool(rng.chance(0.5)));
            out.push(Val::Money(small));
            out.push(Val::Str(pick_from(rng, &p.wide)));
            out.push(Val::Sum(int + small));
            if layout == Layout::Mixed10 {
                let day = date_serial(rng);
                let secs = rng.below(86_400) as u32;
                out.push(Val::DateTime(day, secs));
                out.push(Val::Upper(c_text.to_uppercase()));
            }
        }
        Layout::Unique5 => {
            for _ in 0..5u16 {
                if rng.chance(0.1) {
                    out.push(Val::Str(pick_from(rng, &p.wide)));
                } else {
                    let id = rng.next_u64() & 0xFFFF_FFFF_FFFF;
                    let s = if rng.chance(0.3) {
                        format!("{} {id:012x} {} {}", pick(rng), pick(rng), pick(rng))
                    } else {
                        format!("{} {id:012x}", pick(rng))
                    };
                    out.push(Val::Text(s));
                }
            }
        }
    }
}

fn write_xlsx_row(ws: &mut Worksheet, r: u32, vals: &[Val<'_>], f: &Formats) -> Result<()> {
    let excel_row = u64::from(r) + 1;
    for (c, v) in (0u16..).zip(vals) {
        match v {
            Val::Num(x) => ws.write_number(r, c, *x)?,
            Val::Money(x) => ws.write_number_with_format(r, c, *x, &f.money)?,
            Val::Date(x) => ws.write_number_with_format(r, c, *x, &f.date)?,
            Val::DateTime(d, s) => {
                ws.write_number_with_format(r, c, Val::serial(*d, *s), &f.datetime)?
            }
            Val::Str(s) => ws.write_string(r, c, *s)?,
            Val::Text(s) => ws.write_string(r, c, s)?,
            Val::Bool(b) => ws.write_boolean(r, c, *b)?,
            Val::Sum(x) => ws.write_formula(
                r,
                c,
                Formula::new(format!("=A{excel_row}+F{excel_row}")).set_result(x.to_string()),
            )?,
            Val::Upper(s) => ws.write_formula(
                r,
                c,
                Formula::new(format!("=UPPER(C{excel_row})")).set_result(s),
            )?,
        };
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
    use calamine::{Data, Reader, Xlsx, open_workbook};

    #[test]
    fn scaling_and_paths() {
        assert_eq!(scaled_rows(5_000, 1.0), 5_000);
        assert_eq!(scaled_rows(5_000, 0.01), 50);
        assert_eq!(scaled_rows(1, 0.01), 1);
        let d = Path::new("bench-data");
        assert_eq!(path_for(d, "seed", 1.0), d.join("seed.xlsx"));
        assert_eq!(path_for(d, "seed", 0.01), d.join("seed-s0.01.xlsx"));
        assert_eq!(path_for(d, "seed_ods", 1.0), d.join("seed.ods"));
        assert_eq!(path_for(d, "giant_ods", 0.1), d.join("giant-s0.1.ods"));
        assert!(spec("nope").is_none());
        for n in DATASETS {
            assert!(spec(n).is_some());
        }
        let mixed = spec("mixed").unwrap();
        assert_eq!(mixed.sheet_rows(1.0).len(), 21);
        assert_eq!(mixed.cells(1.0), 14_000_000);
        assert_eq!(mixed.cells(0.001), (1_000 + 20 * 20) * 10);
    }

    #[test]
    fn mixed_xlsx_small_reads_back() {
        let dir = std::env::temp_dir().join(format!("ream-bench-mixed-{}", std::process::id()));
        let g = generate(&dir, "mixed", 0.001, true).unwrap();
        let mut xl: Xlsx<_> = open_workbook(&g.path).unwrap();
        let names = xl.sheet_names();
        assert_eq!(names.len(), 21);
        let mut cells = 0;
        for n in &names {
            cells += xl.worksheet_range(n).unwrap().used_cells().count() as u64;
        }
        assert_eq!(cells, g.cells);
        // First cell of the big sheet is the first draw of its seed.
        let sp = spec("mixed").unwrap();
        let pools = Pools::new();
        let mut rng = SplitMix64::new(sp.sheet_seed(0));
        let mut vals = Vec::new();
        row_values(sp.layout, &mut rng, &pools, &mut vals);
        let r = xl.worksheet_range(names.first().unwrap()).unwrap();
        match (r.get_value((0, 0)), vals.first()) {
            (Some(Data::Float(a)), Some(Val::Num(b))) => assert_eq!(a, b),
            other => panic!("unexpected {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
