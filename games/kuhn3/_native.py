"""Building the kuhn3 engine (``_engine.c``, the one copy of the rules) into
the arena's private cache the first time it is imported, and loading it.

Built as hold'em's engine is (``games._cbuild``: the cache, a file named
after the hash of the source and the Python ABI so a change is rebuilt, a
lock so parallel workers build it once).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import ModuleType

from .._cbuild import engine_path as _engine_path
from .._cbuild import load_engine

SOURCE = Path(__file__).with_name("_engine.c")


def engine_path() -> Path:
    """The built engine; built now if missing."""
    return _engine_path(SOURCE, "kuhn3")


@cache
def engine() -> ModuleType:
    return load_engine(SOURCE, "kuhn3")
