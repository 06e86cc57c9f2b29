//! Phase C: attaches the small parts of one sheet.
//!
//! A broken small part (a comment file, a table, a drawing) never costs the
//! caller the cells already read: its error is recorded as a warning on
//! the workbook and the rest of the sheet stays usable.

use crate::error::{Error, Result};
use crate::model::{Drawing, DrawingKind, Hyperlink};
use crate::open::{read_part, read_rels};
use crate::options::Limits;
use crate::parts::comments::{parse_comments, parse_persons, parse_threaded_comments};
use crate::parts::drawings::{parse_chart_title, parse_drawing};
use crate::parts::rels::{Relationship, type_is};
use crate::parts::sheet_extras::parse_sheet_extras;
use crate::parts::tables::parse_table;
use crate::workbook::Sheet;
use ream_zip::Archive;
use std::collections::HashMap;

/// Shared state for phase C: persons of threaded comments (read once).
#[derive(Default)]
pub(crate) struct PhaseC {
    persons: Option<HashMap<String, String>>,
    /// Problems with small parts, in the order found.
    pub warnings: Vec<Error>,
}

fn find_rel<'r>(rels: &'r [Relationship], id: &str) -> Option<&'r Relationship> {
    rels.iter().find(|r| r.id == id)
}

impl PhaseC {
    /// Keeps `Ok` values and turns errors into warnings.
    fn keep<T>(&mut self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.warnings.push(e);
                None
            }
        }
    }

    fn persons(&mut self, archive: &Archive, limits: &Limits) -> HashMap<String, String> {
        if let Some(p) = &self.persons {
            return p.clone();
        }
        let part = archive
            .entries()
            .iter()
            .find(|e| e.name.starts_with("xl/persons/") && e.name.ends_with(".xml"))
            .map(|e| e.name.clone());
        let map = match part {
            Some(name) => {
                let xml = self.keep(read_part(archive, &name)).flatten();
                xml.and_then(|x| self.keep(parse_persons(&x, &name, limits.max_xml_depth)))
                    .unwrap_or_default()
            }
            None => HashMap::new(),
        };
        self.persons = Some(map.clone());
        map
    }

    /// Reads merged ranges, hyperlinks and hidden columns from the sheet XML
    /// outside `<sheetData>`, then comments, tables and drawings from the
    /// sheet's related parts.
    pub(crate) fn attach(
        &mut self,
        archive: &Archive,
        sheet: &mut Sheet,
        head: &[u8],
        tail: &[u8],
        limits: &Limits,
    ) {
        let depth = limits.max_xml_depth;
        let part = sheet.part.clone();
        let Some(extras) = self.keep(parse_sheet_extras(head, tail, &part, depth)) else {
            return;
        };
        sheet.merged = extras.merged;
        sheet.hidden_cols = extras.hidden_cols;
        let rels = self.keep(read_rels(archive, &part)).unwrap_or_default();
        for h in extras.hyperlinks {
            let target = h
                .rid
                .as_deref()
                .and_then(|id| find_rel(&rels, id))
                .map(|r| r.target.clone());
            sheet.hyperlinks.push(Hyperlink {
                range: h.range,
                target,
                location: h.location,
                display: h.display,
            });
        }
        // Comments: threaded comments when present (they carry the real
        // text), else legacy notes.
        let threaded: Vec<&Relationship> = rels
            .iter()
            .filter(|r| type_is(r, "threadedComment"))
            .collect();
        if !threaded.is_empty() {
            let persons = self.persons(archive, limits);
            for r in threaded {
                if let Some(xml) = self.keep(read_part(archive, &r.target)).flatten()
                    && let Some(c) =
                        self.keep(parse_threaded_comments(&xml, &r.target, &persons, depth))
                {
                    sheet.comments.extend(c);
                }
            }
        } else {
            for r in rels
                .iter()
                .filter(|r| type_is(r, "comments") && !r.external)
            {
                if let Some(xml) = self.keep(read_part(archive, &r.target)).flatten()
                    && let Some(c) = self.keep(parse_comments(&xml, &r.target, depth))
                {
                    sheet.comments.extend(c);
                }
            }
        }
        sheet.comments.sort_by_key(|c| (c.row, c.col));
        for id in &extras.table_rids {
            let Some(r) = find_rel(&rels, id) else {
                continue;
            };
            if let Some(xml) = self.keep(read_part(archive, &r.target)).flatten()
                && let Some(t) = self.keep(parse_table(&xml, &r.target, depth))
            {
                sheet.tables.push(t);
            }
        }
        if let Some(r) = extras
            .drawing_rid
            .as_deref()
            .and_then(|id| find_rel(&rels, id))
        {
            let target = r.target.clone();
            self.drawing(archive, sheet, &target, limits);
        }
    }

    fn drawing(&mut self, archive: &Archive, sheet: &mut Sheet, part: &str, limits: &Limits) {
        let depth = limits.max_xml_depth;
        let Some(xml) = self.keep(read_part(archive, part)).flatten() else {
            return;
        };
        let Some(refs) = self.keep(parse_drawing(&xml, part, depth)) else {
            return;
        };
        let rels = self.keep(read_rels(archive, part)).unwrap_or_default();
        for d in refs {
            let Some(r) = find_rel(&rels, &d.rid) else {
                continue;
            };
            let title = if d.kind == DrawingKind::Chart {
                self.keep(read_part(archive, &r.target))
                    .flatten()
                    .and_then(|x| self.keep(parse_chart_title(&x, &r.target, depth)))
                    .flatten()
            } else {
                None
            };
            sheet.drawings.push(Drawing {
                kind: d.kind,
                anchor: d.anchor,
                part: r.target.clone(),
                title,
            });
        }
    }
}
