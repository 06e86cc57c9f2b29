//! A PDF's page listing ([`ream_pdf::Page`]s) as one Arrow record batch.

use crate::Error;
use arrow_array::builder::{
    FixedSizeListBuilder, Float64Builder, Int64Builder, StringBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use ream_pdf::{Page, Rect};
use std::sync::Arc;

/// The pages as `ream pdf pages` lists them, one row per page:
/// `number` (uint64, 1-based), `object` (utf8 `"12 0"`, null for a page
/// written inline), `media_box` and `crop_box` (fixed-size lists of four
/// float64, `[x0, y0, x1, y1]`, own or inherited, null when absent) and
/// `rotate` (int64: 0, 90, 180 or 270).
pub fn pages_batch(pages: &[Page]) -> Result<RecordBatch, Error> {
    let mut number = UInt64Builder::with_capacity(pages.len());
    let mut object = StringBuilder::new();
    let mut media = rect_builder(pages.len());
    let mut crop = rect_builder(pages.len());
    let mut rotate = Int64Builder::with_capacity(pages.len());
    for p in pages {
        number.append_value(p.number);
        object.append_option(p.object.map(|r| format!("{} {}", r.num, r.generation)));
        append_rect(&mut media, p.media_box);
        append_rect(&mut crop, p.crop_box);
        rotate.append_value(p.rotate);
    }
    let rect = DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float64, false)), 4);
    let schema = Schema::new(vec![
        Field::new("number", DataType::UInt64, false),
        Field::new("object", DataType::Utf8, true),
        Field::new("media_box", rect.clone(), true),
        Field::new("crop_box", rect, true),
        Field::new("rotate", DataType::Int64, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(number.finish()),
        Arc::new(object.finish()),
        Arc::new(media.finish()),
        Arc::new(crop.finish()),
        Arc::new(rotate.finish()),
    ];
    RecordBatch::try_new(Arc::new(schema), columns)
        .map_err(|e| Error::usage(format!("building the page table: {e}")))
}

fn rect_builder(capacity: usize) -> FixedSizeListBuilder<Float64Builder> {
    FixedSizeListBuilder::with_capacity(Float64Builder::with_capacity(capacity * 4), 4, capacity)
        .with_field(Arc::new(Field::new("item", DataType::Float64, false)))
}

fn append_rect(b: &mut FixedSizeListBuilder<Float64Builder>, r: Option<Rect>) {
    match r {
        Some(r) => {
            b.values().append_slice(&r);
            b.append(true);
        }
        None => {
            // A null entry still takes its four child slots.
            b.values().append_slice(&[0.0; 4]);
            b.append(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, FixedSizeListArray, Float64Array, StringArray};
    use ream_pdf::ObjRef;

    #[test]
    fn pages_become_rows() {
        let pages = [
            Page {
                number: 1,
                object: Some(ObjRef::new(3, 0)),
                media_box: Some([0.0, 0.0, 612.0, 792.0]),
                crop_box: None,
                rotate: 90,
            },
            Page {
                number: 2,
                object: None,
                media_box: None,
                crop_box: Some([1.0, 2.0, 3.0, 4.5]),
                rotate: 0,
            },
        ];
        let b = pages_batch(&pages).unwrap();
        assert_eq!(b.num_rows(), 2);
        let object = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(object.value(0), "3 0");
        assert!(object.is_null(1));
        let media = b
            .column(2)
            .as_any()
            .downcast_ref::<FixedSizeListArray>()
            .unwrap();
        assert!(media.is_null(1));
        let first = media.value(0);
        let first = first.as_any().downcast_ref::<Float64Array>().unwrap();
        assert_eq!(first.values().to_vec(), vec![0.0, 0.0, 612.0, 792.0]);
        let crop = b
            .column(3)
            .as_any()
            .downcast_ref::<FixedSizeListArray>()
            .unwrap();
        assert!(crop.is_null(0) && !crop.is_null(1));
    }
}
