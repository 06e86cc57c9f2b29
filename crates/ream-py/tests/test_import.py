"""`import ream` pulls in none of the dataframe libraries, nor ray."""

import subprocess
import sys


def test_import_ream_imports_no_dataframe_library_nor_ray():
    code = (
        "import sys, ream; "
        "print(sorted(m for m in ('pyarrow', 'polars', 'pandas', 'numpy', 'ray') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_module_surface():
    import ream

    for name in [
        "read_excel", "open", "Table", "Batch", "Workbook", "ReamError", "MalformedError",
        "LimitExceededError", "UnsupportedFormatError", "EncryptedError", "ReamWarning",
        "MixedTypesWarning",
    ]:
        assert hasattr(ream, name), name
    assert issubclass(ream.MixedTypesWarning, UserWarning)
    assert issubclass(ream.ReamWarning, UserWarning)
    for cls in [ream.MalformedError, ream.LimitExceededError, ream.UnsupportedFormatError,
                ream.EncryptedError]:
        assert issubclass(cls, ream.ReamError)


def test_to_arrow_imports_pyarrow_but_not_pandas(simple):
    code = (
        "import sys, ream; "
        f"t = ream.read_excel({str(simple)!r}).to_arrow(); "
        "b = next(iter(ream.open(sys.argv[1]).iter_batches(0))).to_arrow(); "
        "print(type(t).__name__, type(b).__name__, 'pandas' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(simple)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["Table", "RecordBatch", "False"]


def test_package_reexports_the_extension():
    import ream
    import ream._ream as ext

    for name in dir(ext):
        if not name.startswith("__"):
            assert getattr(ream, name) is getattr(ext, name), name
    assert ream.__version__ == ext.__version__
