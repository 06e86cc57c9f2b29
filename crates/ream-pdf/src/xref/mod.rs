//! Cross-reference data: classic tables, xref streams, the `/Prev` chain,
//! and repair by scanning.

pub(crate) mod chain;
pub(crate) mod repair;
mod stream;
mod table;

use crate::object::Dict;

/// Where an object lives, as the cross-reference data says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XrefEntry {
    /// Free (deleted): the object resolves to null.
    Free,
    /// At an absolute byte offset, with a generation number.
    InFile {
        /// Offset of `N G obj`.
        offset: u64,
        /// Generation number.
        generation: u16,
    },
    /// Inside an object stream.
    InStream {
        /// Object number of the object stream.
        stream: u32,
        /// Index within the stream.
        index: u32,
    },
}

/// The syntax of one cross-reference section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XrefKind {
    /// A classic `xref` table.
    Table,
    /// An xref stream (PDF 1.5).
    Stream,
    /// A table whose trailer also points at an xref stream (`/XRefStm`).
    Hybrid,
}

impl XrefKind {
    /// `table`, `stream` or `hybrid`.
    pub fn as_str(self) -> &'static str {
        match self {
            XrefKind::Table => "table",
            XrefKind::Stream => "stream",
            XrefKind::Hybrid => "hybrid",
        }
    }
}

/// One parsed section with its trailer.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub offset: u64,
    pub kind: XrefKind,
    pub entries: Vec<(u32, XrefEntry)>,
    pub trailer: Dict,
    /// Absolute offset just past the section (trailer dict or stream).
    pub end: u64,
}
