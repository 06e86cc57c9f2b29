//! The token walk: each ptg read with its dialect's field sizes, operands
//! pushed as text, operators and functions combining the top of a stack.

use super::functions::{function, is_builtin};
use super::{
    Dialect, FormulaBook, MAX_TEXT, PtgError, SupBook, SupKind, error_text, push_col, push_number,
    push_sheet_name, push_string,
};
use std::fmt::Write as _;

fn u16_le(b: &[u8], i: usize) -> u16 {
    match b.get(i..i + 2) {
        Some(&[x, y]) => u16::from_le_bytes([x, y]),
        _ => 0,
    }
}

fn u32_le(b: &[u8], i: usize) -> u32 {
    match b.get(i..i + 4) {
        Some(&[a, c, d, e]) => u32::from_le_bytes([a, c, d, e]),
        _ => 0,
    }
}

fn f64_le(b: &[u8], i: usize) -> f64 {
    b.get(i..i + 8)
        .and_then(|s| <[u8; 8]>::try_from(s).ok())
        .map_or(0.0, f64::from_le_bytes)
}

/// The cell a formula made of one PtgExp points at (the first cell of its
/// shared or array formula), `None` for any other formula. BIFF12 keeps
/// the column in the trailing data.
pub(crate) fn exp_target(dialect: Dialect, rgce: &[u8], extra: &[u8]) -> Option<(u32, u32)> {
    if rgce.first() != Some(&0x01) || rgce.len() < 5 {
        return None;
    }
    match dialect {
        Dialect::Biff12 => (extra.len() >= 4).then(|| (u32_le(rgce, 1), u32_le(extra, 0))),
        _ => Some((u32::from(u16_le(rgce, 1)), u32::from(u16_le(rgce, 3)))),
    }
}

/// One cell position as a token holds it.
#[derive(Clone, Copy)]
struct Loc {
    row: u32,
    col: u32,
    row_rel: bool,
    col_rel: bool,
}

pub(super) struct Decoder<'a> {
    dialect: Dialect,
    rgce: &'a [u8],
    extra: &'a [u8],
    extra_at: usize,
    book: &'a FormulaBook,
    base: (u32, u32),
    pos: usize,
    stack: Vec<String>,
    /// Spaces before the next token, and before the next closing paren.
    lead: String,
    close: String,
}

impl<'a> Decoder<'a> {
    pub(super) fn new(
        dialect: Dialect,
        rgce: &'a [u8],
        extra: &'a [u8],
        book: &'a FormulaBook,
        base: (u32, u32),
    ) -> Decoder<'a> {
        Decoder {
            dialect,
            rgce,
            extra,
            extra_at: 0,
            book,
            base,
            pos: 0,
            stack: Vec::new(),
            lead: String::new(),
            close: String::new(),
        }
    }

    fn err(at: usize, message: impl Into<String>) -> PtgError {
        PtgError {
            offset: at,
            message: message.into(),
        }
    }

    /// The next `n` bytes of the current token.
    fn take(&mut self, n: usize, at: usize, what: &str) -> Result<&'a [u8], PtgError> {
        let b = self.rgce.get(self.pos..self.pos + n).ok_or_else(|| {
            Self::err(
                at,
                format!(
                    "token {what} needs {n} bytes, {} are left",
                    self.rgce.len() - self.pos.min(self.rgce.len())
                ),
            )
        })?;
        self.pos += n;
        Ok(b)
    }

    fn take_extra(&mut self, n: usize, at: usize) -> Result<&'a [u8], PtgError> {
        let b = self
            .extra
            .get(self.extra_at..self.extra_at + n)
            .ok_or_else(|| Self::err(at, "array constant data cut short"))?;
        self.extra_at += n;
        Ok(b)
    }

    fn push(&mut self, text: String, at: usize) -> Result<(), PtgError> {
        if text.len() > MAX_TEXT {
            return Err(Self::err(
                at,
                format!("formula text longer than {MAX_TEXT} bytes"),
            ));
        }
        self.stack.push(text);
        Ok(())
    }

    /// Pushes an operand, after any pending spaces.
    fn operand(&mut self, text: &str, at: usize) -> Result<(), PtgError> {
        let mut s = std::mem::take(&mut self.lead);
        s.push_str(text);
        self.push(s, at)
    }

    fn pop(&mut self, at: usize, what: &str) -> Result<String, PtgError> {
        self.stack
            .pop()
            .ok_or_else(|| Self::err(at, format!("{what} has no operand")))
    }

    /// The formula text once every token is read: exactly one value left.
    pub(super) fn finish(mut self) -> Result<String, PtgError> {
        let at = self.rgce.len();
        match (self.stack.pop(), self.stack.is_empty()) {
            (Some(s), true) => Ok(s),
            (None, _) => Err(Self::err(at, "the formula tokens leave no value")),
            (Some(_), false) => Err(Self::err(
                at,
                format!("the formula tokens leave {} values", self.stack.len() + 1),
            )),
        }
    }

    pub(super) fn run(&mut self) -> Result<(), PtgError> {
        while self.pos < self.rgce.len() {
            let at = self.pos;
            let ptg = self.rgce.get(at).copied().unwrap_or(0);
            self.pos += 1;
            match ptg {
                0x01 => return Err(Self::err(at, "a PtgExp inside a formula")),
                0x02 => return Err(Self::err(at, "a data table (PtgTbl)")),
                0x03..=0x11 => self.binary(ptg, at)?,
                0x12 | 0x13 => {
                    let a = self.pop(at, "a sign")?;
                    let sign = if ptg == 0x12 { "+" } else { "-" };
                    let s = format!("{}{sign}{a}", std::mem::take(&mut self.lead));
                    self.push(s, at)?;
                }
                0x14 => {
                    let a = self.pop(at, "a percent sign")?;
                    let s = format!("{a}{}%", std::mem::take(&mut self.lead));
                    self.push(s, at)?;
                }
                0x15 => {
                    let a = self.pop(at, "a parenthesis")?;
                    let s = format!(
                        "{}({a}{})",
                        std::mem::take(&mut self.lead),
                        std::mem::take(&mut self.close)
                    );
                    self.push(s, at)?;
                }
                0x16 => self.operand("", at)?,
                0x17 => {
                    let s = self.string(at)?;
                    let mut t = String::with_capacity(s.len() + 2);
                    push_string(&mut t, &s);
                    self.operand(&t, at)?;
                }
                0x18 => {
                    let sub = self.take(1, at, "PtgExtended")?;
                    let what = if sub == [0x19] {
                        "a structured table reference (PtgList)".to_string()
                    } else {
                        format!("an extended token 0x18 0x{:02X}", sub.first().unwrap_or(&0))
                    };
                    return Err(Self::err(at, what));
                }
                0x19 => self.attr(at)?,
                0x1C => {
                    let e = self.take(1, at, "PtgErr")?;
                    let t = error_text(e.first().copied().unwrap_or(0));
                    self.operand(t, at)?;
                }
                0x1D => {
                    let b = self.take(1, at, "PtgBool")?;
                    let t = if b.first().copied().unwrap_or(0) != 0 {
                        "TRUE"
                    } else {
                        "FALSE"
                    };
                    self.operand(t, at)?;
                }
                0x1E => {
                    let b = self.take(2, at, "PtgInt")?;
                    self.operand(&u16_le(b, 0).to_string(), at)?;
                }
                0x1F => {
                    let b = self.take(8, at, "PtgNum")?;
                    let mut t = String::new();
                    push_number(&mut t, f64_le(b, 0));
                    self.operand(&t, at)?;
                }
                0x20..=0x7F => self.classified(ptg & 0x1F, at)?,
                _ => return Err(Self::err(at, format!("unknown token 0x{ptg:02X}"))),
            }
        }
        Ok(())
    }

    fn binary(&mut self, ptg: u8, at: usize) -> Result<(), PtgError> {
        let op = match ptg {
            0x03 => "+",
            0x04 => "-",
            0x05 => "*",
            0x06 => "/",
            0x07 => "^",
            0x08 => "&",
            0x09 => "<",
            0x0A => "<=",
            0x0B => "=",
            0x0C => ">=",
            0x0D => ">",
            0x0E => "<>",
            0x0F => " ",
            0x10 => ",",
            _ => ":",
        };
        let b = self.pop(at, "an operator")?;
        let a = self.pop(at, "an operator")?;
        let s = format!("{a}{}{op}{b}", std::mem::take(&mut self.lead));
        self.push(s, at)
    }

    /// PtgStr: a string constant.
    fn string(&mut self, at: usize) -> Result<String, PtgError> {
        let mut s = String::new();
        match self.dialect {
            Dialect::Biff5 => {
                let n = usize::from(self.take(1, at, "PtgStr")?.first().copied().unwrap_or(0));
                let b = self.take(n, at, "PtgStr")?;
                let enc = self.book.encoding.unwrap_or(encoding_rs::WINDOWS_1252);
                s.push_str(&enc.decode(b).0);
            }
            Dialect::Biff8 => {
                let h = self.take(2, at, "PtgStr")?;
                let (n, high) = (
                    usize::from(h.first().copied().unwrap_or(0)),
                    h.get(1).copied().unwrap_or(0) & 1 != 0,
                );
                if high {
                    let b = self.take(n * 2, at, "PtgStr")?;
                    let units = b.chunks_exact(2).map(|c| u16_le(c, 0));
                    s.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
                } else {
                    let b = self.take(n, at, "PtgStr")?;
                    s.extend(b.iter().map(|&c| char::from(c)));
                }
            }
            Dialect::Biff12 => {
                let n = usize::from(u16_le(self.take(2, at, "PtgStr")?, 0));
                let b = self.take(n * 2, at, "PtgStr")?;
                let units = b.chunks_exact(2).map(|c| u16_le(c, 0));
                s.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
            }
        }
        Ok(s)
    }

    /// PtgAttr: spaces, SUM of one argument, and control tokens that only
    /// speed up evaluation (IF, CHOOSE, GOTO jump tables, volatility).
    fn attr(&mut self, at: usize) -> Result<(), PtgError> {
        let b = self.take(3, at, "PtgAttr")?;
        let grbit = b.first().copied().unwrap_or(0);
        let w = u16_le(b, 1);
        match grbit {
            0x04 => {
                self.take((usize::from(w) + 1) * 2, at, "PtgAttrChoose")?;
            }
            0x10 => {
                let a = self.pop(at, "SUM")?;
                let s = format!("{}SUM({a})", std::mem::take(&mut self.lead));
                self.push(s, at)?;
            }
            0x40 | 0x41 => {
                let (kind, n) = (
                    b.get(1).copied().unwrap_or(0),
                    b.get(2).copied().unwrap_or(0),
                );
                let ch = if kind % 2 == 0 { ' ' } else { '\n' };
                let n = usize::from(n);
                match kind {
                    0..=3 => self.lead.extend(std::iter::repeat_n(ch, n)),
                    4 | 5 => self.close.extend(std::iter::repeat_n(ch, n)),
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Tokens 0x20..0x7F: operand classes (reference, value, array) of
    /// the same base token `k`.
    fn classified(&mut self, k: u8, at: usize) -> Result<(), PtgError> {
        let d = self.dialect;
        let (b5, b8) = (d == Dialect::Biff5, d == Dialect::Biff8);
        let size = |x5: usize, x8: usize, x12: usize| {
            if b5 {
                x5
            } else if b8 {
                x8
            } else {
                x12
            }
        };
        match k {
            0x00 => {
                self.take(size(7, 7, 14), at, "PtgArray")?;
                let t = self.array(at)?;
                self.operand(&t, at)
            }
            0x01 => {
                let idx = u16_le(self.take(2, at, "PtgFunc")?, 0);
                let Some((name, Some(argc))) = function(idx) else {
                    return Err(Self::err(
                        at,
                        format!("function {idx} with a fixed argument count ream does not know"),
                    ));
                };
                self.call(name.to_string(), usize::from(argc), at)
            }
            0x02 => {
                let b = self.take(3, at, "PtgFuncVar")?;
                let argc = usize::from(b.first().copied().unwrap_or(0) & 0x7F);
                let idx = u16_le(b, 1);
                if idx & 0x8000 != 0 {
                    return Err(Self::err(
                        at,
                        format!("macro command {} (PtgFuncVar)", idx & 0x7FFF),
                    ));
                }
                if idx == 255 {
                    // An add-in or user function: its name is the first argument.
                    if argc == 0 || self.stack.len() < argc {
                        return Err(Self::err(at, "a user function call without its name"));
                    }
                    let first = self.stack.len() - argc;
                    let name = self.stack.remove(first);
                    return self.call(name, argc - 1, at);
                }
                let name = match function(idx) {
                    Some((n, _)) => n.to_string(),
                    None => format!("_xlfn_IDX{idx}"),
                };
                self.call(name, argc, at)
            }
            0x03 => {
                let b = self.take(size(14, 4, 4), at, "PtgName")?;
                let idx = if b5 {
                    u32::from(u16_le(b, 0))
                } else {
                    u32_le(b, 0)
                };
                let name = idx
                    .checked_sub(1)
                    .and_then(|i| self.book.names.get(i as usize))
                    .ok_or_else(|| Self::err(at, format!("defined name {idx} does not exist")))?
                    .clone();
                self.operand(&name, at)
            }
            0x04 | 0x0C => {
                let b = self.take(size(3, 4, 6), at, "PtgRef")?;
                let loc = self.loc(b, 0, k == 0x0C);
                let mut t = String::new();
                write_loc(&mut t, loc);
                self.operand(&t, at)
            }
            0x05 | 0x0D => {
                let b = self.take(size(6, 8, 12), at, "PtgArea")?;
                let t = self.area(b, k == 0x0D);
                self.operand(&t, at)
            }
            0x06 => {
                self.take(6, at, "PtgMemArea")?;
                self.skip_extra_mem(at)
            }
            0x07 | 0x08 => self.take(6, at, "PtgMem").map(|_| ()),
            0x09 | 0x0E | 0x0F => self.take(2, at, "PtgMem").map(|_| ()),
            0x0A => {
                self.take(size(3, 4, 6), at, "PtgRefErr")?;
                self.operand("#REF!", at)
            }
            0x0B => {
                self.take(size(6, 8, 12), at, "PtgAreaErr")?;
                self.operand("#REF!", at)
            }
            0x19 => {
                if b5 {
                    return Err(Self::err(at, "a BIFF5 external name (PtgNameX)"));
                }
                let b = self.take(6, at, "PtgNameX")?;
                let (ixti, idx) = (u16_le(b, 0), u32_le(b, 2));
                let name = self.extern_name(ixti, idx, at)?;
                self.operand(&name, at)
            }
            0x1A | 0x1C => {
                let (prefix, rest) = self.ref3d(size(17, 6, 8), at)?;
                let mut t = prefix;
                if t.is_empty() {
                    t.push_str("#REF!");
                } else if k == 0x1A {
                    write_loc(&mut t, self.loc(rest, 0, false));
                } else {
                    t.push_str("#REF!");
                }
                self.operand(&t, at)
            }
            0x1B | 0x1D => {
                let (prefix, rest) = self.ref3d(size(20, 10, 14), at)?;
                let mut t = prefix;
                if t.is_empty() {
                    t.push_str("#REF!");
                } else if k == 0x1B {
                    t.push_str(&self.area(rest, false));
                } else {
                    t.push_str("#REF!");
                }
                self.operand(&t, at)
            }
            _ => Err(Self::err(
                at,
                format!("unknown token 0x{:02X}", self.rgce.get(at).unwrap_or(&0)),
            )),
        }
    }

    /// Pops `argc` arguments and pushes `name(arg,...)`.
    fn call(&mut self, name: String, argc: usize, at: usize) -> Result<(), PtgError> {
        if self.stack.len() < argc {
            return Err(Self::err(
                at,
                format!(
                    "{name} takes {argc} arguments, {} are there",
                    self.stack.len()
                ),
            ));
        }
        let args = self.stack.split_off(self.stack.len() - argc);
        let mut s = std::mem::take(&mut self.lead);
        s.push_str(&name);
        s.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(a);
        }
        s.push_str(&std::mem::take(&mut self.close));
        s.push(')');
        self.push(s, at)
    }

    /// A cell position at `b[i..]`; relative parts of `rel_to_base`
    /// tokens (PtgRefN, PtgAreaN) are offsets from the formula's cell.
    fn loc(&self, b: &[u8], i: usize, rel_to_base: bool) -> Loc {
        let d = self.dialect;
        let (row, col, row_rel, col_rel) = match d {
            Dialect::Biff5 => {
                let rf = u16_le(b, i);
                (
                    u32::from(rf & 0x3FFF),
                    u32::from(b.get(i + 2).copied().unwrap_or(0)),
                    rf & 0x8000 != 0,
                    rf & 0x4000 != 0,
                )
            }
            Dialect::Biff8 => {
                let cf = u16_le(b, i + 2);
                (
                    u32::from(u16_le(b, i)),
                    u32::from(cf & 0x3FFF),
                    cf & 0x8000 != 0,
                    cf & 0x4000 != 0,
                )
            }
            Dialect::Biff12 => {
                let cf = u16_le(b, i + 4);
                (
                    u32_le(b, i),
                    u32::from(cf & 0x3FFF),
                    cf & 0x8000 != 0,
                    cf & 0x4000 != 0,
                )
            }
        };
        let mut l = Loc {
            row,
            col,
            row_rel,
            col_rel,
        };
        if rel_to_base {
            if row_rel {
                l.row = self.base.0.wrapping_add(row) & (d.rows() - 1);
            }
            if col_rel {
                l.col = self.base.1.wrapping_add(col) & (d.cols() - 1);
            }
        }
        l
    }

    /// An area: `A1:B2`, or `A:B` / `1:2` for whole columns / rows.
    fn area(&self, b: &[u8], rel_to_base: bool) -> String {
        let d = self.dialect;
        // Rearranged into two locations (first, last).
        let (mut first, mut last) = match d {
            Dialect::Biff5 => {
                let f = [
                    b.get(0..2).unwrap_or_default(),
                    b.get(4..5).unwrap_or_default(),
                ]
                .concat();
                let l = [
                    b.get(2..4).unwrap_or_default(),
                    b.get(5..6).unwrap_or_default(),
                ]
                .concat();
                (self.loc(&f, 0, false), self.loc(&l, 0, false))
            }
            Dialect::Biff8 => {
                let f = [
                    b.get(0..2).unwrap_or_default(),
                    b.get(4..6).unwrap_or_default(),
                ]
                .concat();
                let l = [
                    b.get(2..4).unwrap_or_default(),
                    b.get(6..8).unwrap_or_default(),
                ]
                .concat();
                (self.loc(&f, 0, false), self.loc(&l, 0, false))
            }
            Dialect::Biff12 => {
                let f = [
                    b.get(0..4).unwrap_or_default(),
                    b.get(8..10).unwrap_or_default(),
                ]
                .concat();
                let l = [
                    b.get(4..8).unwrap_or_default(),
                    b.get(10..12).unwrap_or_default(),
                ]
                .concat();
                (self.loc(&f, 0, false), self.loc(&l, 0, false))
            }
        };
        let whole_cols = first.row == 0 && last.row == d.rows() - 1;
        let whole_rows = first.col == 0 && last.col == d.cols() - 1;
        if rel_to_base {
            for l in [&mut first, &mut last] {
                if l.row_rel {
                    l.row = self.base.0.wrapping_add(l.row) & (d.rows() - 1);
                }
                if l.col_rel {
                    l.col = self.base.1.wrapping_add(l.col) & (d.cols() - 1);
                }
            }
        }
        let mut t = String::new();
        if whole_cols && !whole_rows {
            for (i, l) in [first, last].iter().enumerate() {
                if i > 0 {
                    t.push(':');
                }
                if !l.col_rel {
                    t.push('$');
                }
                push_col(&mut t, l.col);
            }
        } else if whole_rows && !whole_cols {
            for (i, l) in [first, last].iter().enumerate() {
                if i > 0 {
                    t.push(':');
                }
                if !l.row_rel {
                    t.push('$');
                }
                let _ = write!(t, "{}", l.row + 1);
            }
        } else {
            write_loc(&mut t, first);
            t.push(':');
            write_loc(&mut t, last);
        }
        t
    }

    /// The sheet prefix (`Sheet1!`, `'A b'!`, `Sheet1:Sheet3!`) of a 3-D
    /// token of `n` bytes, and the bytes of its cell or area part.
    fn ref3d(&mut self, n: usize, at: usize) -> Result<(String, &'a [u8]), PtgError> {
        let b = self.take(n, at, "a 3-D reference")?;
        if self.dialect == Dialect::Biff5 {
            let ixals = u16_le(b, 0) as i16;
            let (first, last) = (u16_le(b, 10) as i16, u16_le(b, 12) as i16);
            let rest = b.get(14..).unwrap_or_default();
            if ixals >= 0 {
                return Err(Self::err(at, "a BIFF5 reference to another workbook"));
            }
            let p = self.prefix(&self.book.sheets, i32::from(first), i32::from(last), None);
            return Ok((p, rest));
        }
        let ixti = u16_le(b, 0);
        let rest = b.get(2..).unwrap_or_default();
        let xti = self.book.xti.get(usize::from(ixti)).ok_or_else(|| {
            Self::err(at, format!("sheet reference {ixti} is not in EXTERNSHEET"))
        })?;
        // Without any supporting book listed, XTIs mean this workbook.
        let internal = SupBook::default();
        let sb = match self.book.supbooks.get(xti.supbook) {
            Some(sb) => sb,
            None if self.book.supbooks.is_empty() => &internal,
            None => {
                return Err(Self::err(
                    at,
                    format!("supporting book {} does not exist", xti.supbook),
                ));
            }
        };
        let p = match &sb.kind {
            SupKind::Internal => self.prefix(&self.book.sheets, xti.first, xti.last, None),
            SupKind::External(k) => self.prefix(&sb.sheets, xti.first, xti.last, Some(*k)),
            SupKind::AddIn => return Err(Self::err(at, "a cell reference into an add-in")),
        };
        Ok((p, rest))
    }

    fn prefix(&self, sheets: &[String], first: i32, last: i32, book: Option<usize>) -> String {
        let name = |i: i32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| sheets.get(i))
                .map(String::as_str)
        };
        let mut t = String::new();
        match (name(first), name(last)) {
            (Some(a), Some(b)) => {
                let mut inner = String::new();
                if let Some(k) = book {
                    let _ = write!(inner, "[{k}]");
                }
                inner.push_str(a);
                if first != last {
                    inner.push(':');
                    inner.push_str(b);
                }
                if book.is_none() && first == last {
                    push_sheet_name(&mut t, a);
                } else if inner
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_.[]:".contains(c))
                {
                    t.push_str(&inner);
                } else {
                    push_sheet_name(&mut t, &inner);
                }
            }
            (Some(a), None) if book.is_some() => {
                let _ = write!(t, "[{}]", book.unwrap_or(0));
                t.push_str(a);
            }
            // A deleted sheet: the whole reference reads #REF!.
            _ => return String::new(),
        }
        t.push('!');
        t
    }

    /// The name PtgNameX means: an add-in function (Excel 2007 functions
    /// lose BIFF8's `_xlfn.` prefix, as XLSX writes them) or an external
    /// workbook's name.
    fn extern_name(&self, ixti: u16, idx: u32, at: usize) -> Result<String, PtgError> {
        let xti = self.book.xti.get(usize::from(ixti)).ok_or_else(|| {
            Self::err(at, format!("sheet reference {ixti} is not in EXTERNSHEET"))
        })?;
        let sb = self.book.supbooks.get(xti.supbook);
        let name = match sb.map(|s| &s.kind) {
            Some(SupKind::Internal) => idx
                .checked_sub(1)
                .and_then(|i| self.book.names.get(i as usize)),
            _ => idx
                .checked_sub(1)
                .and_then(|i| sb.and_then(|s| s.names.get(i as usize))),
        }
        .ok_or_else(|| Self::err(at, format!("external name {idx} does not exist")))?;
        if let Some(f) = name.strip_prefix("_xlfn.")
            && is_builtin(f)
        {
            return Ok(f.to_string());
        }
        match sb.map(|s| &s.kind) {
            Some(SupKind::External(k)) => Ok(format!("[{k}]!{name}")),
            _ => Ok(name.clone()),
        }
    }

    /// PtgExtraMem of a PtgMemArea in the trailing data: skipped.
    fn skip_extra_mem(&mut self, at: usize) -> Result<(), PtgError> {
        let (count, each) = match self.dialect {
            Dialect::Biff12 => (u32_le(self.take_extra(4, at)?, 0) as usize, 16),
            Dialect::Biff8 => (usize::from(u16_le(self.take_extra(2, at)?, 0)), 8),
            Dialect::Biff5 => (usize::from(u16_le(self.take_extra(2, at)?, 0)), 6),
        };
        let n = count
            .checked_mul(each)
            .ok_or_else(|| Self::err(at, "a memory area list too long"))?;
        self.take_extra(n, at).map(|_| ())
    }

    /// An array constant from the trailing data: `{1,2;3,4}`.
    fn array(&mut self, at: usize) -> Result<String, PtgError> {
        let d = self.dialect;
        let (rows, cols) = match d {
            Dialect::Biff12 => {
                let h = self.take_extra(8, at)?;
                (u32_le(h, 0) as usize, u32_le(h, 4) as usize)
            }
            Dialect::Biff8 => {
                let h = self.take_extra(3, at)?;
                (
                    usize::from(u16_le(h, 1)) + 1,
                    usize::from(h.first().copied().unwrap_or(0)) + 1,
                )
            }
            Dialect::Biff5 => {
                let h = self.take_extra(3, at)?;
                let c = usize::from(h.first().copied().unwrap_or(0));
                (usize::from(u16_le(h, 1)), if c == 0 { 256 } else { c })
            }
        };
        let left = self.extra.len() - self.extra_at.min(self.extra.len());
        if rows.saturating_mul(cols) > left {
            return Err(Self::err(
                at,
                format!("an array constant of {rows}x{cols} values in {left} bytes"),
            ));
        }
        let mut t = String::from("{");
        for r in 0..rows {
            if r > 0 {
                t.push(';');
            }
            for c in 0..cols {
                if c > 0 {
                    t.push(',');
                }
                self.array_value(&mut t, at)?;
                if t.len() > MAX_TEXT {
                    return Err(Self::err(
                        at,
                        format!("formula text longer than {MAX_TEXT} bytes"),
                    ));
                }
            }
        }
        t.push('}');
        Ok(t)
    }

    fn array_value(&mut self, t: &mut String, at: usize) -> Result<(), PtgError> {
        let ty = self.take_extra(1, at)?.first().copied().unwrap_or(0);
        if self.dialect == Dialect::Biff12 {
            match ty {
                0x00 => push_number(t, f64_le(self.take_extra(8, at)?, 0)),
                0x01 => {
                    let n = usize::from(u16_le(self.take_extra(2, at)?, 0));
                    let b = self.take_extra(n * 2, at)?;
                    let units = b.chunks_exact(2).map(|c| u16_le(c, 0));
                    let s: String = char::decode_utf16(units)
                        .map(|c| c.unwrap_or('\u{FFFD}'))
                        .collect();
                    push_string(t, &s);
                }
                0x02 => {
                    let v = self.take_extra(1, at)?.first().copied().unwrap_or(0);
                    t.push_str(if v != 0 { "TRUE" } else { "FALSE" });
                }
                0x04 => {
                    let v = self.take_extra(4, at)?.first().copied().unwrap_or(0);
                    t.push_str(error_text(v));
                }
                _ => return Err(Self::err(at, format!("array value of type {ty}"))),
            }
            return Ok(());
        }
        match ty {
            0x00 => {
                self.take_extra(8, at)?;
            }
            0x01 => push_number(t, f64_le(self.take_extra(8, at)?, 0)),
            0x02 => {
                let mut s = String::new();
                if self.dialect == Dialect::Biff8 {
                    let h = self.take_extra(3, at)?;
                    let n = usize::from(u16_le(h, 0));
                    if h.get(2).copied().unwrap_or(0) & 1 != 0 {
                        let b = self.take_extra(n * 2, at)?;
                        let units = b.chunks_exact(2).map(|c| u16_le(c, 0));
                        s.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
                    } else {
                        let b = self.take_extra(n, at)?;
                        s.extend(b.iter().map(|&c| char::from(c)));
                    }
                } else {
                    let n = usize::from(self.take_extra(1, at)?.first().copied().unwrap_or(0));
                    let b = self.take_extra(n, at)?;
                    let enc = self.book.encoding.unwrap_or(encoding_rs::WINDOWS_1252);
                    s.push_str(&enc.decode(b).0);
                }
                push_string(t, &s);
            }
            0x04 => {
                let v = self.take_extra(8, at)?.first().copied().unwrap_or(0);
                t.push_str(if v != 0 { "TRUE" } else { "FALSE" });
            }
            0x10 => {
                let v = self.take_extra(8, at)?.first().copied().unwrap_or(0);
                t.push_str(error_text(v));
            }
            _ => return Err(Self::err(at, format!("array value of type {ty}"))),
        }
        Ok(())
    }
}

/// Writes `$A$1`-style text for a location.
fn write_loc(t: &mut String, l: Loc) {
    if !l.col_rel {
        t.push('$');
    }
    push_col(t, l.col);
    if !l.row_rel {
        t.push('$');
    }
    let _ = write!(t, "{}", l.row + 1);
}
