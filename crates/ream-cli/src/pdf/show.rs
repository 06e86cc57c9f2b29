//! `ream pdf show`.

use super::ShowArgs;
use crate::UsageError;
use anyhow::Result;
use ream_pdf::{ObjRef, Object, Pdf};
use std::io::Write;

/// Parses `12` or `12.0` (also `12 0`).
fn parse_ref(s: &str) -> Option<ObjRef> {
    let mut it = s.split(['.', ' ']).filter(|p| !p.is_empty());
    let num = it.next()?.parse().ok()?;
    let generation = match it.next() {
        Some(g) => g.parse().ok()?,
        None => 0,
    };
    it.next().is_none().then_some(ObjRef::new(num, generation))
}

/// Prints the object, or a stream's data with `--raw`/`--decoded`.
pub fn run(pdf: &Pdf, a: &ShowArgs, out: &mut dyn Write) -> Result<()> {
    let r = parse_ref(&a.object)
        .ok_or_else(|| UsageError(format!("bad object {:?}: use N or N.G", a.object)))?;
    let obj = pdf.object(r)?;
    match (&obj, a.raw || a.decoded) {
        (Object::Stream(s), true) => {
            let data = pdf.stream_data(s, a.decoded)?;
            out.write_all(&data)?;
        }
        (_, true) => {
            return Err(
                UsageError(format!("object {r} is a {}, not a stream", obj.type_name())).into(),
            );
        }
        (Object::Stream(s), false) => {
            writeln!(out, "{} {} obj", r.num, r.generation)?;
            let n = pdf
                .stream_data(s, false)
                .map(|d| d.len().to_string())
                .unwrap_or_else(|e| e.to_string());
            writeln!(out, "{}", Object::Dict(s.dict.clone()))?;
            writeln!(out, "stream ({n} bytes; --raw or --decoded to print)")?;
        }
        (o, false) => {
            writeln!(out, "{} {} obj", r.num, r.generation)?;
            writeln!(out, "{o}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs() {
        assert_eq!(parse_ref("12"), Some(ObjRef::new(12, 0)));
        assert_eq!(parse_ref("12.3"), Some(ObjRef::new(12, 3)));
        assert_eq!(parse_ref("x"), None);
        assert_eq!(parse_ref("1.2.3"), None);
    }
}
