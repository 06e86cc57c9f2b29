//! `ream pdf show`.

use super::ShowArgs;
use crate::UsageError;
use anyhow::Result;
use ream_pdf::{ObjRef, Object, Pdf, XrefEntry};
use std::io::Write;

/// How an object may be written, for usage errors.
const SPELLINGS: &str = "write N, N G or N G R (e.g. 12, 12 0, 12 0 R)";

/// Parses the object argument(s): `12`, `12 0` or `12 0 R`, as one
/// argument or several. Anything else (`3.5`, `-1`, `x`) is a usage error
/// naming the argument and, for numbers, their range.
pub fn parse_ref(args: &[String]) -> Result<ObjRef, UsageError> {
    let text = args.join(" ");
    let bad = || UsageError(format!("bad object {text:?}: {SPELLINGS}"));
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let (num, generation) = match words.as_slice() {
        [n] => (*n, None),
        [n, g] | [n, g, "R"] => (*n, Some(*g)),
        _ => return Err(bad()),
    };
    let int = |w: &str| w.parse::<i64>().map_err(|_| bad());
    let num = int(num)?;
    let num = u32::try_from(num).ok().filter(|&n| n >= 1).ok_or_else(|| {
        UsageError(format!(
            "object number {num} out of range: 1 to {}",
            u32::MAX
        ))
    })?;
    let generation = match generation {
        Some(g) => {
            let g = int(g)?;
            u16::try_from(g).map_err(|_| {
                UsageError(format!("generation {g} out of range: 0 to {}", u16::MAX))
            })?
        }
        None => 0,
    };
    Ok(ObjRef::new(num, generation))
}

/// Fails unless the file has object `r` in use with its generation.
fn require_present(pdf: &Pdf, r: ObjRef) -> Result<()> {
    match pdf.xref_entry(r.num) {
        None => anyhow::bail!("object {r} is not in the file"),
        Some(XrefEntry::Free) => anyhow::bail!("object {r} is not in the file (free)"),
        Some(XrefEntry::InFile { generation, .. }) if generation != r.generation => {
            anyhow::bail!(
                "object {r} is not in the file (object {} has generation {generation})",
                r.num
            )
        }
        Some(XrefEntry::InStream { .. }) if r.generation != 0 => {
            anyhow::bail!(
                "object {r} is not in the file (object {} has generation 0)",
                r.num
            )
        }
        Some(_) => Ok(()),
    }
}

/// Prints the object, or a stream's data with `--raw`/`--decoded`.
pub fn run(pdf: &Pdf, a: &ShowArgs, out: &mut dyn Write) -> Result<()> {
    let r = parse_ref(&a.object)?;
    require_present(pdf, r)?;
    let obj = pdf.object(r)?;
    if !(a.raw || a.decoded)
        && let Some(e) = pdf.encryption()
    {
        match &e.opened_with {
            Some(w) => writeln!(
                out,
                "% encrypted: {}; strings and stream data shown decrypted ({w} password)",
                e.describe()
            )?,
            None => writeln!(
                out,
                "% encrypted, not decrypted: strings shown as stored: {}",
                e.error.as_deref().unwrap_or("")
            )?,
        }
    }
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

    fn parse(s: &str) -> Result<ObjRef, String> {
        let args: Vec<String> = s.split('|').map(str::to_string).collect();
        parse_ref(&args).map_err(|e| e.0)
    }

    #[test]
    fn refs() {
        assert_eq!(parse("12"), Ok(ObjRef::new(12, 0)));
        assert_eq!(parse("12 3"), Ok(ObjRef::new(12, 3)));
        assert_eq!(parse("12 0 R"), Ok(ObjRef::new(12, 0)));
        assert_eq!(parse("12|0|R"), Ok(ObjRef::new(12, 0)));
        assert_eq!(parse("12|0"), Ok(ObjRef::new(12, 0)));
        for bad in ["x", "3.5", "1.2.3", "12 0 X", "12 R", "1 2 3 R", ""] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with("bad object"), "{bad}: {e}");
            assert!(e.contains("12 0 R"), "{bad}: {e}");
        }
        assert!(
            parse("-1")
                .unwrap_err()
                .contains("object number -1 out of range: 1 to")
        );
        assert!(parse("0").unwrap_err().contains("out of range"));
        assert!(parse("4294967296").unwrap_err().contains("out of range"));
        assert!(
            parse("1 65536")
                .unwrap_err()
                .contains("generation 65536 out of range: 0 to 65535")
        );
    }
}
