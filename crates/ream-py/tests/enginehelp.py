"""Helpers shared by the engine tests: the ream CLI to compare against,
and small PDFs written byte by byte."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def cli():
    """The ream binary: REAM_BIN, else the newest target/{release,debug}/ream,
    else `ream` on PATH, else built with `cargo build -p ream-cli`; skips the
    test when none can be had."""
    env = os.environ.get("REAM_BIN")
    if env:
        return env
    built = [p for p in (ROOT / "target" / "release" / "ream", ROOT / "target" / "debug" / "ream") if p.is_file()]
    if built:
        return str(max(built, key=lambda p: p.stat().st_mtime))
    found = shutil.which("ream")
    if found:
        return found
    try:
        subprocess.run(["cargo", "build", "-q", "-p", "ream-cli"], cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"no ream binary and cargo build failed: {e}")
    return str(ROOT / "target" / "debug" / "ream")


def pdf_bytes(title="T", encrypted=False, bad_startxref=False, pages=1):
    """A PDF with `pages` pages (the first with a MediaBox, the others
    inheriting one from the page tree and rotated 90), an Info dictionary
    with Title `title`, optionally /Encrypt in the trailer or a wrong
    startxref (the reader repairs it, with a warning)."""
    kids = " ".join(f"{6 + i} 0 R" for i in range(pages - 1))
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [3 0 R {kids}] /Count {pages} /MediaBox [0 0 100 200] >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        f"<< /Title ({title}) /Producer (ream tests) >>",
        "<< /Filter /Standard /V 1 /R 2 /P -4 /O <00> /U <00> >>",
    ]
    objs += ["<< /Type /Page /Parent 2 0 R /Rotate 90 /CropBox [1 2 3 4.5] >>"] * (pages - 1)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n{o}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010} 00000 n \n".encode()
    enc = " /Encrypt 5 0 R" if encrypted else ""
    start = 99999 if bad_startxref else xref
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 4 0 R{enc} >>\nstartxref\n{start}\n%%EOF\n".encode()
    return bytes(out)
