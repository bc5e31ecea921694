"""Building the hold'em engine (``_engine.c``, the one copy of the rules) into
a private cache the first time it is imported, and loading it.

The same cache and conventions as the arena's own native code
(``arena.native``: ``ARENA_CACHE_DIR``, else the user's cache folder; a file
named after the hash of the source and the Python ABI, so a change is
rebuilt; built under a lock so parallel workers build it once). ``games``
sits below the arena and cannot import it, so this small builder is its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sysconfig
import tempfile
from functools import cache
from pathlib import Path
from types import ModuleType

SOURCE = Path(__file__).with_name("_engine.c")


def _cache_dir() -> Path:
    configured = os.environ.get("ARENA_CACHE_DIR")
    if configured:
        base = Path(configured)
    else:
        xdg, home = os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME")
        if xdg:
            base = Path(xdg) / "arena"
        elif home and os.access(home, os.W_OK):
            base = Path(home) / ".cache" / "arena"
        else:
            base = Path(tempfile.gettempdir()) / f"arena-cache-{os.geteuid()}"
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = base.stat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise RuntimeError(f"the cache {base} must belong to uid {os.geteuid()} and not be writable by others "
                           "(set ARENA_CACHE_DIR to a private folder)")
    return base


def engine_path() -> Path:
    """The built engine; built now if missing."""
    abi = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(SOURCE.read_bytes() + b"\0" + abi.encode()).hexdigest()[:16]
    module = f"holdem_engine_{key}"
    target = _cache_dir() / f"{module}{abi}"
    if target.is_file():
        return target
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError(f"hold'em needs a C compiler (cc or gcc) once, to build its engine from {SOURCE}; "
                           "install gcc or run `make install`")
    with open(_cache_dir() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            return target
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        proc = subprocess.run([cc, "-O2", "-Wall", "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}",
                               f"-DENGINE_MODULE={module}", "-o", str(tmp), str(SOURCE)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"building the hold'em engine with {cc} failed:\n{proc.stderr.strip()[-800:]}")
        os.replace(tmp, target)
    return target


@cache
def engine() -> ModuleType:
    path = engine_path()
    spec = importlib.util.spec_from_file_location(path.name.split(".")[0], path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
