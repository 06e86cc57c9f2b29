"""The extension module: everything ``ream`` re-exports (typed in
``ream/__init__.pyi``), plus the private aggregation functions
``ream.ray.aggregate`` runs in its tasks."""

import os
from typing import List, Union

from ream import *  # noqa: F401,F403
from ream import Table, __version__ as __version__, _batch_worker as _batch_worker

def _agg_partial(
    path: Union[str, "os.PathLike[str]"],
    start: int,
    end: int,
    *,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    header: bool = False,
    threads: int = 1,
) -> bytes:
    """The exact partial state of the lines of ``path`` that start in bytes
    ``start..end`` (only the range holding byte 0 skips a BOM and header).
    Options and errors as ``ream.aggregate``; a quote byte in a range that is
    not the whole file (delimiter other than ";") raises ReamError ("usage")."""

def _agg_merge(states: List[bytes]) -> bytes:
    """One state from many (exact, any order); a value that is not a state
    raises ReamError ("usage") naming its index and byte offset."""

def _agg_finish(state: bytes) -> Table:
    """The ``ream.aggregate`` table of a state."""
