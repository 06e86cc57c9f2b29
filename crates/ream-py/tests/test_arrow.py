"""Round trips through the Arrow PyCapsule interface."""

import datetime
import warnings

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa

import ream


def test_table_without_any_dataframe_library(simple):
    t = ream.read_excel(simple)
    assert t.num_rows == 10 and len(t) == 10
    assert t.column_names == ["id", "name", "when", "score"]
    assert t.schema == [("id", "int64"), ("name", "string"), ("when", "date"), ("score", "float64")]


def test_pyarrow(simple):
    t = ream.read_excel(simple)
    at = pa.table(t)
    assert at.schema.types == [pa.int64(), pa.string(), pa.date32(), pa.float64()]
    assert at.column("id").to_pylist() == list(range(10))
    assert at.column("when").to_pylist()[0] == datetime.date(2024, 1, 1)
    assert t.to_arrow().equals(at)
    assert pa.schema(t) == at.schema  # __arrow_c_schema__


def test_polars(simple):
    df = pl.DataFrame(ream.read_excel(simple))
    assert df.shape == (10, 4)
    assert df["name"].to_list() == [f"n{i}" for i in range(10)]
    assert df.schema["when"] == pl.Date
    assert ream.read_excel(simple).to_polars().equals(df)


def test_pandas(simple):
    df = ream.read_excel(simple).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["id", "name", "when", "score"]
    assert df["score"].tolist() == [i + 0.5 for i in range(10)]


def test_duckdb(simple):
    t = ream.read_excel(simple)
    rows = duckdb.sql("select id, name from t where id >= 8 order by id").fetchall()
    assert rows == [(8, "n8"), (9, "n9")]


def test_stream_capsule_unconsumed_is_released(simple):
    t = ream.read_excel(simple)
    for _ in range(100):
        cap = t.__arrow_c_stream__()
        del cap  # the destructor releases the stream
    assert pa.table(t).num_rows == 10


def test_batches_are_arrow_arrays(simple):
    wb = ream.open(simple)
    batch = next(iter(wb.iter_batches("Data", batch_rows=4)))
    assert batch.num_rows == 4
    rb = pa.record_batch(batch)
    assert rb.column(0).to_pylist() == [0, 1, 2, 3]
    assert batch.to_arrow().equals(rb)


def test_every_sheet_as_dict(simple):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = ream.read_excel(simple, sheet=None)
    assert list(d) == ["Data", "Other"]
    other = pa.table(d["Other"])
    assert other.column("x").to_pylist() == [True, False]
