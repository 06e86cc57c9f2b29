"""ream.pdf_info, ream.pdf_pages and ream.pdf_set_info against the CLI."""

import json
from pathlib import Path
import subprocess
import warnings

import pyarrow as pa
import pytest

import ream
from conftest import CORPUS
from enginehelp import cli, pdf_bytes


@pytest.fixture
def pdf(tmp_path):
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf_bytes("Hello", pages=3))
    return path


def cli_info(path, *extra):
    r = subprocess.run([cli(), "pdf", "info", "--json", *extra, str(path)], capture_output=True)
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout)


def test_pdf_info_has_the_cli_keys_and_values(pdf):
    info = ream.pdf_info(pdf)
    assert info["pages"] == 3 and info["pages_verified"] is False
    assert info["info"] == {"Title": "Hello", "Producer": "ream tests"}
    assert info["file"] == str(pdf) and info["encrypted"] is False
    assert info == cli_info(pdf)
    assert ream.pdf_info(str(pdf), verify_pages=True) == cli_info(pdf, "--verify-pages")


def test_pdf_info_matches_the_cli_on_the_corpus():
    files = sorted((CORPUS / "pdf").glob("*.pdf"))[:80] + sorted((CORPUS / "written").glob("*.pdf"))
    if not files:
        pytest.skip("corpus absent")
    compared = 0
    for f in files:
        r = subprocess.run([cli(), "pdf", "info", "--json", str(f)], capture_output=True)
        if r.returncode not in (0, 3):
            # The CLI failed (exit 1) or the file is encrypted (exit 4):
            # Python raises the matching ReamError.
            with pytest.raises(ream.ReamError) as e:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ream.pdf_info(f)
            if r.returncode == 4:
                assert isinstance(e.value, ream.EncryptedError), f
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert ream.pdf_info(f) == json.loads(r.stdout), f
        compared += 1
    assert compared > 10


def test_repairs_are_warnings_and_in_the_dict(tmp_path):
    path = tmp_path / "bad.pdf"
    path.write_bytes(pdf_bytes(bad_startxref=True))
    with pytest.warns(ream.ReamWarning):
        info = ream.pdf_info(path)
    assert info["repaired"] is True and info["warnings"]
    assert info == cli_info(path)


def test_pdf_pages_table(pdf):
    t = ream.pdf_pages(pdf)
    assert t.column_names == ["number", "object", "media_box", "crop_box", "rotate"]
    assert t.num_rows == 3
    rows = pa.table(t).to_pylist()
    assert rows[0] == {"number": 1, "object": "3 0", "media_box": [0, 0, 612, 792], "crop_box": None, "rotate": 0}
    assert rows[1] == {"number": 2, "object": "6 0", "media_box": [0, 0, 100, 200], "crop_box": [1, 2, 3, 4.5], "rotate": 90}
    r = subprocess.run([cli(), "pdf", "pages", "--json", str(pdf)], capture_output=True, check=True)
    want = json.loads(r.stdout)
    for row in rows:
        row["object"] = row["object"] or ""
    assert rows == want


def test_pdf_set_info_out(pdf, tmp_path):
    out = tmp_path / "out.pdf"
    original = pdf.read_bytes()
    rep = ream.pdf_set_info(pdf, {"Title": "New", "/Subject": "é", "Producer": None}, out=out)
    assert set(rep) == {"file", "original_bytes", "appended_bytes", "objects", "xref", "in_place", "copy", "seconds"}
    assert rep["file"] == str(out) and rep["in_place"] is False
    assert rep["original_bytes"] == len(original)
    assert pdf.read_bytes() == original
    assert out.read_bytes().startswith(original)
    info = ream.pdf_info(out)["info"]
    assert info == {"Title": "New", "Subject": "é"}
    assert len(ream.pdf_info(out)["revisions"]) == 2


def test_pdf_set_info_in_place(pdf):
    before = pdf.stat().st_size
    rep = ream.pdf_set_info(str(pdf), {"Author": "Me"}, in_place=True)
    assert rep["in_place"] is True and rep["copy"] is None
    assert pdf.stat().st_size == before + rep["appended_bytes"]
    assert ream.pdf_info(pdf)["info"]["Author"] == "Me"


def test_pdf_set_info_usage_errors(pdf, tmp_path):
    for kwargs in ({}, {"out": tmp_path / "o.pdf", "in_place": True}):
        with pytest.raises(ream.ReamError) as e:
            ream.pdf_set_info(pdf, {"Title": "x"}, **kwargs)
        assert e.value.kind == "usage" and type(e.value) is ream.ReamError
    with pytest.raises(ream.ReamError, match="bad key"):
        ream.pdf_set_info(pdf, {"My Key": "x"}, in_place=True)
    with pytest.raises(ream.ReamError, match="nothing to update"):
        ream.pdf_set_info(pdf, {}, in_place=True)
    with pytest.raises(TypeError):
        ream.pdf_set_info(pdf, {"Title": 3}, in_place=True)


def test_not_a_pdf_is_malformed(tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nnothing here\n")
    for call in (ream.pdf_info, ream.pdf_pages):
        with pytest.raises(ream.MalformedError, match="no objects found") as e:
            call(path)
        assert e.value.kind == "malformed" and e.value.path == str(path)


def test_malformed_object_has_its_offset_and_object():
    path = CORPUS / "pdf" / "pdfjs__test_pdfs_poppler-395-0-fuzzed.pdf"
    if not path.exists():
        pytest.skip("corpus absent")
    with pytest.raises(ream.MalformedError) as e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ream.pdf_info(path)
    assert e.value.offset == 174 and e.value.part == "object 2 0"
    assert "byte 174" in str(e.value)


def test_encrypted_pdf_is_encrypted(tmp_path):
    path = tmp_path / "locked.pdf"
    path.write_bytes(pdf_bytes(encrypted=True))
    for call in (ream.pdf_info, ream.pdf_pages):
        with pytest.raises(ream.EncryptedError, match="cannot be decrypted.*V 1 R 2.*/O is 1 bytes"):
            call(path)
        with pytest.raises(ream.EncryptedError, match="cannot be decrypted"):
            call(path, password="secret")
    with pytest.raises(ream.EncryptedError):
        ream.pdf_set_info(path, {"Title": "x"}, in_place=True)
    assert path.read_bytes() == pdf_bytes(encrypted=True)


def test_missing_pdf_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.pdf"
    for call in (ream.pdf_info, ream.pdf_pages):
        with pytest.raises(FileNotFoundError) as e:
            call(missing)
        assert e.value.filename == str(missing)
    with pytest.raises(FileNotFoundError):
        ream.pdf_set_info(missing, {"Title": "x"}, out=tmp_path / "o.pdf")


def test_pdf_from_bytes():
    info = ream.pdf_info(pdf_bytes("B"))
    assert info["file"] == "<bytes>" and info["info"]["Title"] == "B"


FIXTURES = Path(__file__).resolve().parents[2] / "ream-pdf" / "tests" / "data"


def test_encrypted_pdf_decrypted_with_password(tmp_path):
    src = FIXTURES / "enc-r3-rc4-128.pdf"
    with pytest.raises(ream.EncryptedError, match="needs a password"):
        ream.pdf_info(src)
    with pytest.raises(ream.EncryptedError, match="wrong password"):
        ream.pdf_info(src, password="nope")
    for pw, opened in (("user", "user"), ("owner", "owner")):
        info = ream.pdf_info(src, password=pw)
        assert info["pages"] == 2 and info["info"]["Title"] == "Encrypted fixture"
        assert info["encryption"]["r"] == 3 and info["encryption"]["opened_with"] == opened
    assert ream.pdf_pages(src, password="user").num_rows == 2
    out = tmp_path / "out.pdf"
    ream.pdf_set_info(src, {"Title": "Secret"}, out=out, password="user")
    assert b"Secret" not in out.read_bytes()
    assert ream.pdf_info(out, password="user")["info"]["Title"] == "Secret"
