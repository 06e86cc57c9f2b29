"""The extension module: everything ``ream`` re-exports (typed in
``ream/__init__.pyi``), plus the private aggregation functions
``ream.ray.aggregate`` runs in its tasks."""

import os
from typing import List, Optional, Union

from ream import *  # noqa: F401,F403
from ream import Table, __version__ as __version__, _batch_worker as _batch_worker

def _agg_partial(
    path: Union[str, "os.PathLike[str]", bytes],
    start: int,
    end: int,
    *,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    header: bool = False,
    threads: int = 1,
    max_key_memory: Optional[int] = None,
) -> bytes:
    """The exact partial state of the lines of ``path`` (or of the whole
    input given as bytes) that start in bytes ``start..end`` (only the range
    holding byte 0 skips a BOM and header). Options and errors as
    ``ream.aggregate``; ``max_key_memory`` bytes of distinct keys (default
    512 MiB); a quote byte in a range that is not the whole file (delimiter
    other than ";") raises ReamError ("usage")."""

def _agg_lines(
    data: bytes,
    *,
    base_line: int = 0,
    base_offset: int = 0,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    max_key_memory: Optional[int] = None,
) -> bytes:
    """The exact partial state of ``data``, whole lines cut out of a larger
    input (no BOM or header skipped); errors name line and byte offset
    shifted by ``base_line`` and ``base_offset`` (the lines and bytes before
    ``data``)."""

def _agg_merge(states: List[bytes], *, max_key_memory: int = 512 << 20) -> bytes:
    """One state from many (exact, any order); a value that is not a state
    raises ReamError ("usage") naming its index and byte offset; distinct
    keys over ``max_key_memory`` bytes raise LimitExceededError."""

def _agg_finish(state: bytes) -> Table:
    """The ``ream.aggregate`` table of a state."""
