//! An aggregation result ([`ream_agg::Aggregate`]) as one Arrow record batch.

use crate::Error;
use arrow_array::builder::{BinaryBuilder, Decimal128Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use ream_agg::Aggregate;
use std::sync::Arc;

/// Largest precision of Arrow's 128-bit decimals.
const MAX_PRECISION: u8 = 38;

/// The result of `ream agg` as a record batch, keys in the output order:
/// `key` (utf8, or binary when a key is not UTF-8, so no byte is lost),
/// `count` (uint64), and `min`, `mean`, `max` as 128-bit decimals holding
/// exactly the texts `ream agg -f csv` prints (each column's scale is the
/// most decimals any of its values has; the mean's rounding is
/// [`ream_agg::KeyStats::mean_text`]'s).
///
/// Fails (a usage error) only when a value needs more than 38 digits at
/// its column's scale, which ream-agg's value limits keep from happening.
pub fn aggregate_batch(a: &Aggregate) -> Result<RecordBatch, Error> {
    let texts: Vec<[String; 3]> = a
        .iter()
        .map(|k| [k.min_text(), k.mean_text(), k.max_text()])
        .collect();
    let binary = a.iter().any(|k| std::str::from_utf8(k.key()).is_err());
    let key: ArrayRef = if binary {
        let mut b = BinaryBuilder::new();
        a.iter().for_each(|k| b.append_value(k.key()));
        Arc::new(b.finish())
    } else {
        let mut b = StringBuilder::new();
        a.iter().for_each(|k| b.append_value(k.name()));
        Arc::new(b.finish())
    };
    let mut count = UInt64Builder::with_capacity(a.keys());
    a.iter().for_each(|k| count.append_value(k.count()));
    let mut fields = vec![
        Field::new(
            "key",
            if binary {
                DataType::Binary
            } else {
                DataType::Utf8
            },
            false,
        ),
        Field::new("count", DataType::UInt64, false),
    ];
    let mut columns: Vec<ArrayRef> = vec![key, Arc::new(count.finish())];
    for (i, name) in ["min", "mean", "max"].into_iter().enumerate() {
        let col: Vec<&str> = texts
            .iter()
            .filter_map(|t| t.get(i).map(String::as_str))
            .collect();
        let (array, ty) = decimal_column(name, &col)?;
        fields.push(Field::new(name, ty, false));
        columns.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::usage(format!("building the aggregate table: {e}")))
}

/// Decimal texts (`-12.5`, `0.25`) as one decimal column at the largest
/// scale among them.
fn decimal_column(name: &str, texts: &[&str]) -> Result<(ArrayRef, DataType), Error> {
    let scale = texts.iter().map(|t| decimals(t)).max().unwrap_or(1);
    let scale = u8::try_from(scale)
        .ok()
        .filter(|s| *s <= MAX_PRECISION)
        .ok_or_else(|| Error::usage(format!("{name}: more than 38 decimals")))?;
    let mut b = Decimal128Builder::with_capacity(texts.len());
    for t in texts {
        let v = scaled(t, scale)
            .ok_or_else(|| Error::usage(format!("{name}: {t} does not fit a 38-digit decimal")))?;
        b.append_value(v);
    }
    let ty = DataType::Decimal128(MAX_PRECISION, scale as i8);
    let array = b
        .finish()
        .with_precision_and_scale(MAX_PRECISION, scale as i8)
        .map_err(|e| Error::usage(format!("{name}: {e}")))?;
    Ok((Arc::new(array), ty))
}

/// Digits after the point of a decimal text.
fn decimals(t: &str) -> usize {
    t.split_once('.').map_or(0, |(_, f)| f.len())
}

/// The decimal text `t` as an integer of `scale` decimals; `None` when it
/// is not a plain decimal or overflows.
fn scaled(t: &str, scale: u8) -> Option<i128> {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if frac.len() > usize::from(scale) || int.is_empty() {
        return None;
    }
    let mut v: i128 = 0;
    let pad = usize::from(scale) - frac.len();
    for b in int
        .bytes()
        .chain(frac.bytes())
        .chain(std::iter::repeat_n(b'0', pad))
    {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Decimal128Array, StringArray, UInt64Array};
    use ream_agg::{AggOptions, aggregate_bytes};

    #[test]
    fn texts_scale() {
        assert_eq!(scaled("12.5", 2), Some(1250));
        assert_eq!(scaled("-0.25", 2), Some(-25));
        assert_eq!(scaled("7", 1), Some(70));
        assert_eq!(scaled("1.234", 2), None);
        assert_eq!(scaled("x.1", 1), None);
        assert_eq!(decimals("1.6666667"), 7);
    }

    #[test]
    fn columns_hold_the_printed_texts() {
        let a =
            aggregate_bytes(b"b;1\nb;2\nb;2\na;0.10\na;0.25\n", &AggOptions::default()).unwrap();
        let t = aggregate_batch(&a).unwrap();
        let key = t.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!((key.value(0), key.value(1)), ("a", "b"));
        let count = t.column(1).as_any().downcast_ref::<UInt64Array>().unwrap();
        assert_eq!((count.value(0), count.value(1)), (2, 3));
        let mean = t
            .column(3)
            .as_any()
            .downcast_ref::<Decimal128Array>()
            .unwrap();
        // a: 0.175 exactly; b: 1.6666667 (seven decimals: the column's scale).
        assert_eq!(mean.scale(), 7);
        assert_eq!(mean.value_as_string(0), "0.1750000");
        assert_eq!(mean.value_as_string(1), "1.6666667");
        let min = t
            .column(2)
            .as_any()
            .downcast_ref::<Decimal128Array>()
            .unwrap();
        assert_eq!(min.value_as_string(0), "0.1");
        assert!(!min.is_null(1));
    }

    #[test]
    fn keys_that_are_not_utf8_stay_bytes() {
        let o = AggOptions::default().allow_invalid_utf8(true);
        let a = aggregate_bytes(b"\xff;1\n", &o).unwrap();
        let t = aggregate_batch(&a).unwrap();
        assert_eq!(t.schema().field(0).data_type(), &DataType::Binary);
    }
}
