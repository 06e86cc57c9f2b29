//! `info`, `pages`, `revisions` and `check` output.

use anyhow::Result;
use ream_pdf::{ErrorKind, InfoReport, ObjRef, Object, Pdf};
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// `ream pdf info`.
pub fn info(
    pdf: &Pdf,
    file: &Path,
    as_json: bool,
    verify: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let rep = InfoReport::new(pdf, verify);
    if as_json {
        let doc = rep.to_json(pdf, &file.display().to_string());
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        writeln!(out, "file:       {}", file.display())?;
        writeln!(out, "version:    {}", pdf.version())?;
        match &rep.pages {
            Ok(n) => writeln!(
                out,
                "pages:      {n}{}",
                if verify { " (verified)" } else { "" }
            )?,
            Err(e) => writeln!(out, "pages:      ? ({e})")?,
        }
        writeln!(out, "encrypted:  {}", pdf.is_encrypted())?;
        if let Some(e) = pdf.encryption() {
            match (&e.opened_with, &e.error) {
                (Some(w), _) => writeln!(
                    out,
                    "encryption: {} (decrypted, {w} password)",
                    e.describe()
                )?,
                (None, Some(why)) => writeln!(out, "encryption: not decrypted: {why}")?,
                (None, None) => writeln!(out, "encryption: {}", e.describe())?,
            }
        }
        writeln!(out, "objects:    {}", pdf.object_numbers().len())?;
        writeln!(out, "revisions:  {}", pdf.revisions().len())?;
        if let Ok(i) = &rep.info {
            for (k, v) in i {
                writeln!(out, "info.{k}: {v}")?;
            }
        }
        if let Ok(Some(x)) = &rep.xmp {
            writeln!(out, "xmp:        {} bytes", x.len())?;
        }
        for w in pdf.warnings() {
            writeln!(out, "warning:    {w}")?;
        }
    }
    if let Err(e) = rep.pages
        && e.kind() != ErrorKind::Encrypted
    {
        return Err(e.into());
    }
    Ok(())
}

/// `ream pdf pages`.
pub fn pages(pdf: &Pdf, as_json: bool, out: &mut dyn Write) -> Result<()> {
    let pages = pdf.pages()?;
    let obj = |r: Option<ObjRef>| {
        r.map(|r| format!("{} {}", r.num, r.generation))
            .unwrap_or_default()
    };
    if as_json {
        // The same text as `to_string_pretty` of the whole array, written
        // page by page: 50,000 pages' JSON values held at once cost ~40 MB.
        if pages.is_empty() {
            writeln!(out, "[]")?;
            return Ok(());
        }
        writeln!(out, "[")?;
        for (i, p) in pages.iter().enumerate() {
            let v = json!({"number": p.number, "object": obj(p.object), "media_box": p.media_box, "crop_box": p.crop_box, "rotate": p.rotate});
            let text = serde_json::to_string_pretty(&v)?.replace('\n', "\n  ");
            let sep = if i + 1 < pages.len() { "," } else { "" };
            writeln!(out, "  {text}{sep}")?;
        }
        writeln!(out, "]")?;
    } else {
        writeln!(out, "page\tobject\tmedia_box\tcrop_box\trotate")?;
        let fmt = |r: Option<[f64; 4]>| {
            r.map(|r| format!("{} {} {} {}", r[0], r[1], r[2], r[3]))
                .unwrap_or_default()
        };
        for p in &pages {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                p.number,
                obj(p.object),
                fmt(p.media_box),
                fmt(p.crop_box),
                p.rotate
            )?;
        }
    }
    Ok(())
}

/// `ream pdf revisions`.
pub fn revisions(pdf: &Pdf, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "revision\txref_offset\tkind\tstart\tsize\tobjects")?;
    for r in pdf.revisions() {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}",
            r.number,
            r.xref_offset,
            r.kind.as_str(),
            r.start,
            r.size(),
            r.objects
        )?;
    }
    if pdf.revisions().is_empty() {
        writeln!(
            out,
            "(none: the cross-reference data was rebuilt by scanning)"
        )?;
    }
    Ok(())
}

/// `ream pdf check`: reads every object, decodes every stream, walks the
/// pages, reads Info and XMP; prints problems. Errors make the command
/// fail (exit 1). An encrypted file is decrypted first; one that cannot
/// be gets its structure checked and no `ok` line (the caller then exits
/// 4).
pub fn check(pdf: &Pdf, out: &mut dyn Write) -> Result<()> {
    let encrypted = pdf.is_locked();
    let mut errors = Vec::new();
    let nums = pdf.object_numbers();
    let mut streams = 0usize;
    for &n in &nums {
        match pdf.object(ObjRef::new(n, 0)) {
            Ok(Object::Stream(s)) if !encrypted => {
                streams += 1;
                if let Err(e) = pdf.stream_data(&s, true) {
                    errors.push(format!("object {n}: stream: {e}"));
                }
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("object {n}: {e}")),
        }
    }
    let pages = pdf.pages();
    match &pages {
        Ok(p) => writeln!(out, "pages: {}", p.len())?,
        Err(e) => errors.push(format!("pages: {e}")),
    }
    if !encrypted {
        if let Err(e) = pdf.info() {
            errors.push(format!("info: {e}"));
        }
        if let Err(e) = pdf.xmp() {
            errors.push(format!("xmp: {e}"));
        }
    }
    if encrypted {
        writeln!(
            out,
            "objects: {} (streams not decoded: encrypted, not decrypted)",
            nums.len()
        )?;
    } else {
        writeln!(out, "objects: {} ({streams} streams decoded)", nums.len())?;
    }
    let warnings = pdf.warnings();
    for w in &warnings {
        writeln!(out, "warning: {w}")?;
    }
    for e in &errors {
        writeln!(out, "error: {e}")?;
    }
    if encrypted {
        writeln!(
            out,
            "encrypted: checked the cross-reference data, the syntax of every object and the page tree; \
             not checked: stream data, strings, Info, XMP (the document could not be decrypted)"
        )?;
    }
    if !errors.is_empty() {
        anyhow::bail!(
            "check found errors: {} (listed on standard output)",
            errors.len()
        );
    }
    if !encrypted {
        let verdict = if warnings.is_empty() {
            "ok"
        } else {
            "ok with warnings"
        };
        writeln!(out, "{verdict}")?;
    }
    Ok(())
}

/// `ream pdf index`: summarizes every object on `threads` workers; prints
/// counts per /Type and totals. Unreadable objects are listed in the
/// output and counted in one warning on stderr (exit 3), not fatal.
pub fn index(pdf: &Pdf, threads: usize, as_json: bool, out: &mut dyn Write) -> Result<()> {
    let t0 = std::time::Instant::now();
    let ix = pdf.index_objects(threads)?;
    let wall_s = t0.elapsed().as_secs_f64();
    if !ix.errors.is_empty() {
        super::report_warnings(&[format!(
            "unreadable objects: {} (listed as errors in the output)",
            ix.errors.len()
        )]);
    }
    if as_json {
        let v = json!({
            "objects": ix.objects.len(),
            "streams": ix.streams(),
            "object_streams": ix.object_streams,
            "threads": ix.threads,
            "by_type": ix.by_type,
            "errors": ix.errors.iter().map(|e| json!({"object": e.num, "error": e.message})).collect::<Vec<_>>(),
            "wall_s": wall_s,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(out, "type\tobjects")?;
    for (t, n) in &ix.by_type {
        writeln!(out, "/{t}\t{n}")?;
    }
    writeln!(
        out,
        "objects {}, streams {}, object streams {}, errors {}, threads {}, {:.3} s",
        ix.objects.len(),
        ix.streams(),
        ix.object_streams,
        ix.errors.len(),
        ix.threads,
        wall_s
    )?;
    for e in ix.errors.iter().take(20) {
        writeln!(out, "error: object {}: {}", e.num, e.message)?;
    }
    if ix.errors.len() > 20 {
        writeln!(out, "... {} more errors", ix.errors.len() - 20)?;
    }
    Ok(())
}
