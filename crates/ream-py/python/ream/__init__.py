"""ream: read big spreadsheets fast into Arrow tables.

Everything is implemented by the extension module ``ream._ream`` and
re-exported here (``ream.read_excel``, ``ream.open``, ``ream.Table``, the
exceptions, ...). ``ream.ray`` (imported on demand, needs the ``[ray]``
extra) runs the readers as Ray Data sources. ``import ream`` imports none
of pyarrow, polars, pandas, numpy or ray.
"""

from . import _ream
from ._ream import *  # noqa: F401,F403  (every public name of the extension)
from ._ream import __version__, _batch_worker  # noqa: F401

# The names `from ._ream import *` skips (underscore names, which the
# extension keeps for ream's own use, e.g. `ream._batch_worker` that
# isolated batch workers run) are reachable as ream._ream.<name> too.
__all__ = [n for n in dir(_ream) if not n.startswith("_")]
