//! Writing objects back in PDF syntax (for `show` and tests).

use crate::object::{Dict, Object};
use std::fmt::{self, Write};

/// Writes `o` in PDF syntax.
pub(crate) fn write_object(f: &mut dyn Write, o: &Object) -> fmt::Result {
    match o {
        Object::Null => f.write_str("null"),
        Object::Bool(b) => write!(f, "{b}"),
        Object::Int(i) => write!(f, "{i}"),
        Object::Real(r) => write_real(f, *r),
        Object::String(s) => write_string(f, s),
        Object::Name(n) => write_name(f, n),
        Object::Array(a) => {
            f.write_char('[')?;
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    f.write_char(' ')?;
                }
                write_object(f, x)?;
            }
            f.write_char(']')
        }
        Object::Dict(d) => write_dict(f, d),
        Object::Stream(s) => {
            write_dict(f, &s.dict)?;
            f.write_str(" stream ... endstream")
        }
        Object::Ref(r) => write!(f, "{} {} R", r.num, r.generation),
    }
}

fn write_dict(f: &mut dyn Write, d: &Dict) -> fmt::Result {
    f.write_str("<<")?;
    for (k, v) in d.iter() {
        f.write_char(' ')?;
        write_name(f, k)?;
        f.write_char(' ')?;
        write_object(f, v)?;
    }
    f.write_str(" >>")
}

fn write_real(f: &mut dyn Write, r: f64) -> fmt::Result {
    if r.is_finite() && r == r.trunc() && r.abs() < 1e15 {
        write!(f, "{r:.1}")
    } else if r.is_finite() {
        write!(f, "{r}")
    } else {
        f.write_str("0")
    }
}

fn write_name(f: &mut dyn Write, n: &[u8]) -> fmt::Result {
    f.write_char('/')?;
    for &b in n {
        if b.is_ascii_graphic() && !b"#()<>[]{}/%".contains(&b) {
            f.write_char(b as char)?;
        } else {
            write!(f, "#{b:02X}")?;
        }
    }
    Ok(())
}

fn write_string(f: &mut dyn Write, s: &[u8]) -> fmt::Result {
    let printable = s
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\r' || b == b'\t');
    if !printable {
        f.write_char('<')?;
        for b in s {
            write!(f, "{b:02X}")?;
        }
        return f.write_char('>');
    }
    f.write_char('(')?;
    for &b in s {
        match b {
            b'(' | b')' | b'\\' => {
                f.write_char('\\')?;
                f.write_char(b as char)?;
            }
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            b'\t' => f.write_str("\\t")?,
            _ => f.write_char(b as char)?,
        }
    }
    f.write_char(')')
}
