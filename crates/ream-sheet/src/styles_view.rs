//! How the worksheet scanner asks the styles which cells are dates.

use crate::model::DateKind;

/// Maps a cell's style index (`s` attribute) to a date kind, if its number
/// format is a date, time or duration format.
pub(crate) trait StyleView: Sync {
    fn date_kind(&self, style: u32) -> Option<DateKind>;
}

/// A workbook without styles: nothing is a date.
pub(crate) struct NoStyles;

impl StyleView for NoStyles {
    fn date_kind(&self, _style: u32) -> Option<DateKind> {
        None
    }
}

/// Date kinds per cellXfs index, as resolved from styles.xml.
#[derive(Debug, Default, Clone)]
pub(crate) struct XfDates(pub Vec<Option<DateKind>>);

impl StyleView for XfDates {
    #[inline]
    fn date_kind(&self, style: u32) -> Option<DateKind> {
        self.0.get(style as usize).copied().flatten()
    }
}
