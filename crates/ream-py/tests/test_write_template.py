"""ream.write_excel with a template: the template sheet's rows, formats
and widths come first in every sheet; openpyxl reads the data and the
template's number formats back."""

import datetime

import openpyxl
import pyarrow as pa
import pytest

import ream


def make_template(path):
    """Sheet "Cover", then "Report": a title merged over A1:C1, and a
    prototype row 3 whose B shows ``0.00%`` and C ``dd/mm/yyyy``."""
    wb = openpyxl.Workbook()
    wb.active.title = "Cover"
    wb.active["A1"] = "cover"
    ws = wb.create_sheet("Report")
    ws["A1"] = "Sales report"
    ws["A1"].font = openpyxl.styles.Font(bold=True)
    ws.merge_cells("A1:C1")
    ws["A3"] = "sample"
    ws["B3"] = 0.25
    ws["B3"].number_format = "0.00%"
    ws["C3"] = datetime.date(2024, 1, 1)
    ws["C3"].number_format = "dd/mm/yyyy"
    ws.column_dimensions["A"].width = 30
    wb.save(path)


def table():
    return pa.table(
        {
            "name": ["a", "b"],
            "share": [0.5, 0.125],
            "day": [datetime.date(2024, 3, 15), datetime.date(2025, 1, 2)],
        }
    )


def test_template_sheet_is_copied_under_every_sheet(tmp_path):
    tpl = tmp_path / "t.xlsx"
    make_template(tpl)
    out = tmp_path / "out.xlsx"
    ream.write_excel(
        {"North": table(), "South": table()},
        out,
        template=tpl,
        template_sheet="Report",
        start_row=2,
    )
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["North", "South"]
    for ws in wb.worksheets:
        assert ws["A1"].value == "Sales report"
        assert ws["A1"].font.bold
        assert [str(r) for r in ws.merged_cells.ranges] == ["A1:C1"]
        assert ws.column_dimensions["A"].width == pytest.approx(30, abs=1)
        # The header at start_row, then the data in the template's formats.
        assert [c.value for c in ws[3]] == ["name", "share", "day"]
        assert [c.value for c in ws[4]][:2] == ["a", 0.5]
        assert ws["B4"].number_format == "0.00%"
        assert ws["B5"].value == 0.125
        assert ws["C4"].number_format == "dd/mm/yyyy"
        assert ws["C4"].value == datetime.datetime(2024, 3, 15)
        assert ws["C5"].value == datetime.datetime(2025, 1, 2)
    # ream reads the data back too.
    back = ream.read_excel(out, sheet="South", header_row=2)
    assert pa.table(back).column("name").to_pylist() == ["a", "b"]


def test_template_defaults_and_index(tmp_path):
    tpl = tmp_path / "t.xlsx"
    make_template(tpl)
    out = tmp_path / "out.xlsx"
    ream.write_excel(table(), out, template=str(tpl))
    ws = openpyxl.load_workbook(out).worksheets[0]
    assert ws["A1"].value == "cover"
    assert [c.value for c in ws[2]] == ["name", "share", "day"]
    out2 = tmp_path / "out2.xlsx"
    ream.write_excel(table(), out2, template=tpl, template_sheet=1)
    ws = openpyxl.load_workbook(out2).worksheets[0]
    # After the template's last row (the sample row stays).
    assert ws["A3"].value == "sample"
    assert [c.value for c in ws[4]] == ["name", "share", "day"]


def test_template_errors(tmp_path):
    tpl = tmp_path / "t.xlsx"
    make_template(tpl)
    with pytest.raises(ream.ReamError, match="Nope"):
        ream.write_excel(table(), tmp_path / "o.xlsx", template=tpl, template_sheet="Nope")
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ream.ReamError, match="bad.xlsx"):
        ream.write_excel(table(), tmp_path / "o.xlsx", template=bad)
    with pytest.raises(TypeError):
        ream.write_excel(table(), tmp_path / "o.xlsx", start_row=3)
