//! How the worksheet scanner asks the styles which cells are dates.

use crate::model::DateKind;
use crate::parts::styles::Styles;

/// Maps a cell's style index (`s` attribute) to a date kind, if its number
/// format is a date, time or duration format.
pub(crate) trait StyleView: Sync {
    fn date_kind(&self, style: u32) -> Option<DateKind>;
}

impl StyleView for Styles {
    #[inline]
    fn date_kind(&self, style: u32) -> Option<DateKind> {
        self.xf_date_kind.get(style as usize).copied().flatten()
    }
}
