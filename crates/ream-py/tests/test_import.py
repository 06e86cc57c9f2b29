"""`import ream` pulls in none of the dataframe libraries."""

import subprocess
import sys


def test_import_ream_imports_no_dataframe_library():
    code = (
        "import sys, ream; "
        "print(sorted(m for m in ('pyarrow', 'polars', 'pandas', 'numpy') if m in sys.modules))"
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
