"""Building the hold'em engine (``_engine.c``, the one copy of the rules) into
the arena's private cache the first time it is imported, and loading it.

Built as the arena's own C is (``games._cbuild``: the cache, a file named
after the hash of the source and the Python ABI so a change is rebuilt, a
lock so parallel workers build it once).
"""

from __future__ import annotations

import hashlib
import sysconfig
from functools import cache
from pathlib import Path
from types import ModuleType

from .._cbuild import build, cache_dir, compiler, load

SOURCE = Path(__file__).with_name("_engine.c")


def engine_path() -> Path:
    """The built engine; built now if missing."""
    abi = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(SOURCE.read_bytes() + b"\0" + abi.encode()).hexdigest()[:16]
    module = f"holdem_engine_{key}"
    target = cache_dir() / f"{module}{abi}"
    if target.is_file():
        return target
    build(target, "hold'em engine", [[compiler("hold'em engine", SOURCE), "-O2", "-Wall", "-shared", "-fPIC",
                                      f"-I{sysconfig.get_paths()['include']}", f"-DENGINE_MODULE={module}",
                                      "-o", "{out}", str(SOURCE)]])
    return target


@cache
def engine() -> ModuleType:
    module = load(engine_path())
    assert module is not None
    return module
