//! Warnings: what a read changed without failing.

use crate::options::DType;
use std::fmt;

/// Something a read did to values without failing; every value kept is
/// still in the table, these say where the type or a null came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// The column mixes types, so it became a string column. `cell` is the
    /// first cell (A1 style) whose type differs from the column's first
    /// typed value, `found` that cell's type name (`string`, `number`,
    /// `bool`, `date`, `time`, `duration`, `error`), `kind` the type the
    /// column had before it.
    MixedTypes {
        /// Sheet name.
        sheet: String,
        /// Column name.
        column: String,
        /// First cell of the other type, e.g. `A100002`.
        cell: String,
        /// That cell's type name.
        found: &'static str,
        /// The type the column's other values have.
        kind: DType,
    },
    /// Error cells (`#N/A`, ...) became nulls ([`ErrorsAs::Null`](crate::ErrorsAs::Null)).
    NullsFromErrors {
        /// Sheet name.
        sheet: String,
        /// Column name.
        column: String,
        /// How many.
        count: u64,
    },
    /// Values that could not become the asked type became nulls
    /// ([`OnError::Null`](crate::OnError::Null)).
    NullsFromBadValues {
        /// Sheet name.
        sheet: String,
        /// Column name.
        column: String,
        /// How many.
        count: u64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::MixedTypes {
                sheet,
                column,
                cell,
                found,
                kind,
            } => write!(
                f,
                "sheet '{sheet}', column '{column}': {kind} values mixed with the {found} cell {cell}; the column is read as string"
            ),
            Warning::NullsFromErrors {
                sheet,
                column,
                count,
            } => write!(
                f,
                "sheet '{sheet}', column '{column}': {count} error cell(s) read as null"
            ),
            Warning::NullsFromBadValues {
                sheet,
                column,
                count,
            } => write!(
                f,
                "sheet '{sheet}', column '{column}': {count} value(s) that do not fit the asked type read as null"
            ),
        }
    }
}
