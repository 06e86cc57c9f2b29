//! `ream pdf update` and `ream pdf rewrite`.

use super::{RewriteArgs, UpdateArgs};
use crate::UsageError;
use anyhow::Result;
use ream_pdf::{Object, Pdf, RewriteOptions};
use serde_json::json;
use std::io::Write;
use std::time::Instant;

/// Splits `Key=Value`; an empty value removes the key.
fn parse_set(s: &str) -> Result<(String, Option<String>)> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| UsageError(format!("--set-info {s:?}: use Key=Value")))?;
    let k = ream_pdf::report::info_key(k)
        .ok_or_else(|| UsageError(format!("--set-info {s:?}: bad key")))?;
    Ok((k.to_string(), (!v.is_empty()).then(|| v.to_string())))
}

/// Usage checks of `ream pdf update` made before the file is opened:
/// something to set, every `--set-info` well formed, and `-o OUT` when
/// the input is standard input.
pub fn check_update_args(a: &UpdateArgs) -> Result<()> {
    if a.set_info.is_empty() {
        return Err(UsageError("nothing to update: give --set-info Key=Value".into()).into());
    }
    for s in &a.set_info {
        parse_set(s)?;
    }
    if super::is_stdin(&a.common.file) && a.output.is_none() {
        return Err(
            UsageError("standard input cannot be updated in place: give -o OUT".into()).into(),
        );
    }
    Ok(())
}

/// `ream pdf update`: Info entries in one appended revision.
pub fn update(pdf: &Pdf, a: &UpdateArgs, out: &mut dyn Write) -> Result<()> {
    let mut u = pdf.update();
    for s in &a.set_info {
        match parse_set(s)? {
            (k, Some(v)) => u.set_info(&k, &v),
            (k, None) => u.set_info_object(&k, Object::Null),
        };
    }
    let t0 = Instant::now();
    let rep = if a.in_place {
        u.write_in_place()?
    } else {
        let dest = a.output.as_deref().unwrap_or(&a.common.file);
        u.write_to(dest)?
    };
    let secs = t0.elapsed().as_secs_f64();
    let how = match rep.copy {
        Some(m) => format!("copy ({}) renamed into place", m.as_str()),
        None => "appended in place".to_string(),
    };
    if a.json {
        let v = ream_pdf::report::update_json(&rep, secs);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(
            out,
            "{}: appended {} bytes ({} objects, xref {}) after the original {} bytes; {how}; {:.3} s",
            rep.path.display(),
            rep.appended,
            rep.objects,
            rep.xref_kind.as_str(),
            rep.original_len,
            secs
        )?;
    }
    Ok(())
}

/// `ream pdf rewrite`: a compact copy written sequentially.
pub fn rewrite(pdf: &Pdf, a: &RewriteArgs, out: &mut dyn Write) -> Result<()> {
    let opts = RewriteOptions {
        object_streams: a.object_streams,
        objects_per_stream: a.objects_per_stream.max(1),
        direct_io: a.direct_io,
        decrypt: a.decrypt,
        buffer_size: a.buffer_mb.clamp(1, 1024) << 20,
        ..RewriteOptions::default()
    };
    let t0 = Instant::now();
    let rep = pdf.rewrite(&a.output, &opts)?;
    let secs = t0.elapsed().as_secs_f64();
    // The reader's warnings (repairs) are printed by the caller; the
    // report lists them with the rewrite's own (objects written as null,
    // I/O fallbacks).
    super::report_warnings(&rep.warnings);
    let warnings: Vec<String> = pdf
        .warnings()
        .iter()
        .map(ToString::to_string)
        .chain(rep.warnings.iter().cloned())
        .collect();
    if a.json {
        let v = json!({
            "file": rep.path.display().to_string(),
            "bytes": rep.bytes,
            "objects": rep.objects,
            "object_streams": rep.object_streams,
            "streams": rep.streams,
            "writes": rep.writes,
            "direct_io": rep.direct_io,
            "warnings": warnings,
            "seconds": secs,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(
            out,
            "{}: {} bytes, {} objects ({} streams, {} object streams) from {} bytes; {} writes{}; {:.3} s",
            rep.path.display(),
            rep.bytes,
            rep.objects,
            rep.streams,
            rep.object_streams,
            pdf.len(),
            rep.writes,
            if rep.direct_io { ", O_DIRECT" } else { "" },
            secs
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parse_set() {
        assert_eq!(
            super::parse_set("Title=a=b").ok(),
            Some(("Title".to_string(), Some("a=b".to_string())))
        );
        assert_eq!(
            super::parse_set("/Author=").ok(),
            Some(("Author".to_string(), None))
        );
        assert!(super::parse_set("Title").is_err());
        assert!(super::parse_set("=x").is_err());
    }
}
