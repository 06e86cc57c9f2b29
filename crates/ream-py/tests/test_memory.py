"""Memory: a generated big sheet (500,000 rows x 10 columns) streamed with
``ream.open(p).iter_batches(0)`` in a subprocess stays within a peak RSS
bound (150 MiB) and under half of what ``read_excel`` of the same file
peaks at in another subprocess. No time is asserted."""

import subprocess
import sys
import textwrap
import zipfile

import pytest

ROWS = 500_000
COLS = 10
# Peak RSS bound for the streaming child, in MiB (the 150 MB).
BOUND_MIB = 150

CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
</Types>"""
ROOT_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>"""
WORKBOOK = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets>
</workbook>"""
WORKBOOK_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
</Relationships>"""


def write_big_xlsx(path):
    """A one-sheet workbook: a header row, then ROWS rows of 5 integer,
    3 float and 2 inline-string columns; the sheet part is streamed into
    the zip in chunks of rows."""
    letters = "ABCDEFGHIJ"[:COLS]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", ROOT_RELS)
        z.writestr("xl/workbook.xml", WORKBOOK)
        z.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(
                b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
            )
            head = "".join(f'<c r="{c}1" t="inlineStr"><is><t>c{i}</t></is></c>' for i, c in enumerate(letters))
            f.write(f'<row r="1">{head}</row>'.encode())
            chunk = []
            for r in range(2, ROWS + 2):
                ints = "".join(f'<c r="{c}{r}"><v>{r * 7 + i}</v></c>' for i, c in enumerate(letters[:5]))
                floats = "".join(f'<c r="{c}{r}"><v>{r}.{i}5</v></c>' for i, c in enumerate(letters[5:8]))
                texts = "".join(
                    f'<c r="{c}{r}" t="inlineStr"><is><t>row {r} text {i}</t></is></c>'
                    for i, c in enumerate(letters[8:])
                )
                chunk.append(f'<row r="{r}">{ints}{floats}{texts}</row>')
                if len(chunk) == 10_000:
                    f.write("".join(chunk).encode())
                    chunk = []
            f.write("".join(chunk).encode())
            f.write(b"</sheetData></worksheet>")
    return path


# Peak RSS of this process in KiB: VmHWM, which starts afresh at exec
# (ru_maxrss would count the forking pytest process's size).
HWM = """
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""
STREAM = HWM + textwrap.dedent(
    """
    import sys
    import ream
    rows = 0
    for b in ream.open(sys.argv[1]).iter_batches(0):
        rows += b.num_rows
    print(rows, hwm())
    """
)
LOAD = HWM + textwrap.dedent(
    """
    import sys
    import ream
    rows = ream.read_excel(sys.argv[1]).num_rows
    print(rows, hwm())
    """
)


def peak(code, path):
    """(rows, peak RSS in KiB) of `code` run on `path` in a fresh Python."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")
def test_streaming_a_big_sheet_stays_under_the_memory_bound(tmp_path):
    path = write_big_xlsx(tmp_path / "big.xlsx")
    rows, streamed = peak(STREAM, path)
    assert rows == ROWS
    assert streamed < BOUND_MIB * 1024, f"streaming peak RSS {streamed / 1024:.0f} MiB"
    rows, loaded = peak(LOAD, path)
    assert rows == ROWS
    assert streamed < loaded / 2, f"streaming {streamed / 1024:.0f} MiB, loading {loaded / 1024:.0f} MiB"
