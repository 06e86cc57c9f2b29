"""Each error reaches Python as the right exception, with its location."""

import io
import zipfile

import pytest

import ream
from conftest import CORPUS


def test_missing_file_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.xlsx"
    with pytest.raises(FileNotFoundError) as e:
        ream.read_excel(missing)
    assert e.value.filename == str(missing)
    with pytest.raises(FileNotFoundError):
        ream.open(str(missing))


def test_directory_is_is_a_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        ream.read_excel(tmp_path)


def test_not_a_zip_is_malformed(tmp_path):
    path = tmp_path / "bad.xlsx"
    path.write_bytes(b"this is not a workbook")
    with pytest.raises(ream.MalformedError) as e:
        ream.read_excel(path)
    assert e.value.path == str(path) and e.value.kind == "malformed"
    assert str(path) in str(e.value) and "ZIP" in str(e.value)
    assert e.value.offset == 0 and e.value.sheet is None


def test_pdf_is_unsupported():
    with pytest.raises(ream.UnsupportedFormatError, match="PDF"):
        ream.read_excel(b"%PDF-1.4\n%%EOF\n")


def test_deep_xml_is_limit_exceeded(simple):
    src = zipfile.ZipFile(simple)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n in src.namelist():
            data = src.read(n)
            if n == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<sheetData>", b"<sheetData>" + b"<x>" * 400 + b"</x>" * 400)
            z.writestr(n, data)
    with pytest.raises(ream.LimitExceededError, match="nesting") as e:
        ream.read_excel(out.getvalue())
    assert e.value.part == "xl/worksheets/sheet1.xml" and e.value.sheet == "Data"
    assert e.value.path is None and isinstance(e.value.offset, int)


def test_encrypted_is_encrypted():
    path = CORPUS / "xlsx" / "excelize__test_encryptAES.xlsx"
    if not path.exists():
        pytest.skip("corpus absent")
    with pytest.raises(ream.EncryptedError, match="password"):
        ream.read_excel(path)


def test_unknown_sheet_names_the_sheets(simple):
    with pytest.raises(ream.ReamError, match="no sheet named 'Nope'; the sheets are 'Data', 'Other'"):
        ream.read_excel(simple, sheet="Nope")
    with pytest.raises(ream.ReamError, match="at index 5"):
        ream.open(simple).read(5)
    with pytest.raises(TypeError, match="sheet must be"):
        ream.read_excel(simple, sheet=1.5)


def test_bad_path_type():
    with pytest.raises(TypeError, match="path must be"):
        ream.read_excel(12)
    with pytest.raises(TypeError, match="binary mode"):
        ream.read_excel(io.StringIO("x"))
