//! Formula text of XLS/XLSB files against the same workbooks converted to
//! XLSX by LibreOffice (`soffice --headless --convert-to xlsx`), whose
//! formulas the XLSX reader gives. A dev check, not a conformance gate:
//! set `REAM_FORMULA_PAIRS` to a folder of converted `.xlsx` files laid
//! out like the corpus (`xls/foo.xls` -> `<folder>/xls/foo.xlsx`) and run
//! `cargo test -p ream-sheet --test it formula_agreement -- --ignored --nocapture`.

use ream_sheet::{OpenOptions, Workbook};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Spacing, case and the `_xlfn.` prefix removed; LibreOffice and Excel
/// differ there without a different formula.
fn normalise(f: &str) -> String {
    f.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_uppercase()
        .replace("_XLFN.", "")
        .replace("TRUE()", "TRUE")
        .replace("FALSE()", "FALSE")
        .replace("E+0", "E+")
        .replace("E-0", "E-")
}

fn formulas(wb: &Workbook) -> BTreeMap<(usize, u32, u32), String> {
    let mut out = BTreeMap::new();
    for (i, s) in wb.sheets().iter().enumerate() {
        for c in s.cells() {
            if let Some(f) = c.formula {
                out.insert((i, c.row, c.col), f.to_string());
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "xlsx") {
            out.push(p);
        }
    }
}

#[test]
#[ignore = "needs LibreOffice conversions in REAM_FORMULA_PAIRS"]
fn formula_agreement() {
    let Some(pairs) = std::env::var_os("REAM_FORMULA_PAIRS").map(PathBuf::from) else {
        println!("formula_agreement: REAM_FORMULA_PAIRS not set; skipped");
        return;
    };
    let corpus = std::env::var_os("REAM_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    let mut files = Vec::new();
    walk(&pairs, &mut files);
    files.sort();
    let (mut same, mut differ, mut only_ours, mut only_theirs, mut compared) = (0, 0, 0, 0, 0);
    let (mut notes, mut notes_same, mut links, mut links_same) = (0, 0, 0, 0);
    let mut shown = 0;
    for conv in &files {
        let rel = conv.strip_prefix(&pairs).unwrap();
        let orig = ["xls", "xlsb"]
            .iter()
            .map(|e| corpus.join(rel).with_extension(e))
            .find(|p| p.is_file());
        let Some(orig) = orig else { continue };
        let (Ok(ours), Ok(theirs)) = (
            Workbook::open(&orig, &OpenOptions::default()),
            Workbook::open(conv, &OpenOptions::default()),
        ) else {
            continue;
        };
        compared += 1;
        for w in ours.warnings().iter().take(2) {
            println!("{} warning: {w}", rel.display());
        }
        for (so, st) in ours.sheets().iter().zip(theirs.sheets()) {
            let key = |t: &str| t.split_whitespace().collect::<String>();
            for c in st.comments() {
                notes += 1;
                let hit = so
                    .comments()
                    .iter()
                    .any(|o| (o.row, o.col) == (c.row, c.col) && key(&o.text) == key(&c.text));
                notes_same += usize::from(hit);
            }
            for l in st.hyperlinks() {
                links += 1;
                let hit = so.hyperlinks().iter().any(|o| {
                    // LibreOffice splits a link over several cells into one per cell.
                    let r = (&o.range, &l.range);
                    r.0.first_row <= r.1.first_row
                        && r.0.last_row >= r.1.last_row
                        && r.0.first_col <= r.1.first_col
                        && r.0.last_col >= r.1.last_col
                        && (o.target == l.target
                            || o.location.as_deref().map(|x| x.trim_start_matches('#'))
                                == l.location.as_deref().map(|x| x.trim_start_matches('#')))
                });
                if !hit && links - links_same <= 5 {
                    let mine: Vec<_> = so
                        .hyperlinks()
                        .iter()
                        .filter(|o| o.range.first_row == l.range.first_row)
                        .collect();
                    println!("{} link {l:?} ours {mine:?}", rel.display());
                }
                links_same += usize::from(hit);
            }
        }
        let (a, b) = (formulas(&ours), formulas(&theirs));
        let mut shown_here = 0;
        for (k, fa) in &a {
            match b.get(k) {
                Some(fb) if normalise(fa) == normalise(fb) => same += 1,
                Some(fb) => {
                    differ += 1;
                    if shown < 60 && shown_here < 3 {
                        shown += 1;
                        shown_here += 1;
                        println!("{} {k:?}: ours {fa:?} theirs {fb:?}", rel.display());
                    }
                }
                None => only_ours += 1,
            }
        }
        if shown_here > 0 {
            println!("  {}: {} formulas", rel.display(), a.len());
        }
        for (k, fb) in b.iter().filter(|(k, _)| !a.contains_key(k)).take(2) {
            println!("{} {k:?}: only theirs {fb:?}", rel.display());
        }
        only_theirs += b.keys().filter(|k| !a.contains_key(k)).count();
    }
    let both = same + differ;
    println!(
        "formula_agreement: {compared} workbooks; {same} of {both} formulas agree ({:.1} %); \
         {only_ours} only in ours, {only_theirs} only in the conversion",
        100.0 * same as f64 / both.max(1) as f64
    );
    println!(
        "formula_agreement: comments {notes_same} of {notes} found (cell and text); hyperlinks {links_same} of {links} (range and target/location)"
    );
}
