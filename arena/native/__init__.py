"""Code written in C: compiled once into a private cache.

Two pieces, each compiled with the system C compiler the first time it is
needed (``make install`` does it ahead of time, ``python -m arena.native``),
into a cache folder only the arena's user can write, named after the source's
hash (and, for the extension, the Python ABI) so that a change is rebuilt:

* the bot supervisor (``supervisor.c``), a program that sits between every
  sandbox and the bot at every level; the arena cannot run without it;
* the hot loop (``fastloop.c``), a Python extension that plays the kuhn3
  dialogue over the pipes while nothing needs words, and writes and reads
  the plain exchanges of every other game (docs/speed.md). It is optional: without
  a compiler, or with ``ARENA_NATIVE=0``, the pure-Python path plays the same
  match (``fastloop()`` returns None).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import importlib.util
import subprocess
import sysconfig
import tempfile
from functools import cache
from pathlib import Path
from types import ModuleType

SOURCE = Path(__file__).with_name("supervisor.c")
FASTLOOP_SOURCE = Path(__file__).with_name("fastloop.c")


class NativeBuildError(RuntimeError):
    """The supervisor could not be built (no C compiler, or it failed)."""


def cache_dir() -> Path:
    """A folder of the arena's user for built helpers (created 0700)."""
    configured = os.environ.get("ARENA_CACHE_DIR")
    if configured:
        base = Path(configured)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        home = os.environ.get("HOME")
        if xdg:
            base = Path(xdg) / "arena"
        elif home and os.access(home, os.W_OK):
            base = Path(home) / ".cache" / "arena"
        else:
            base = Path(tempfile.gettempdir()) / f"arena-cache-{os.geteuid()}"
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = base.stat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise NativeBuildError(
            f"the helper cache {base} must belong to uid {os.geteuid()} and not be writable by "
            "others (set ARENA_CACHE_DIR to a private folder)"
        )
    return base


def _compiler(what: str, source: Path) -> str:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise NativeBuildError(
            f"the arena needs a C compiler (cc or gcc) once, to build its {what} "
            f"from {source}; install gcc (apt-get install gcc libc6-dev) or run `make install`"
        )
    return compiler


def _build(target: Path, what: str, attempts: list[list[str]]) -> None:
    """Run the first compiler command line that works (``{out}`` is the output)."""
    with open(cache_dir() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build it once
        if target.is_file():
            return
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        errors = ""
        for argv in attempts:
            proc = subprocess.run([str(tmp) if a == "{out}" else a for a in argv],
                                  capture_output=True, text=True)
            if proc.returncode == 0:
                break
            errors = proc.stderr.strip()[-800:]
        else:
            raise NativeBuildError(f"building the {what} with {attempts[0][0]} failed:\n{errors}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)


@cache
def supervisor_path() -> str:
    """The built supervisor program; built now if missing."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    target = cache_dir() / f"arena-supervisor-{digest}"
    if target.is_file() and os.access(target, os.X_OK):
        return str(target)
    cc = _compiler("bot supervisor", SOURCE)
    # Static when the C library allows it: nothing to find inside a sandbox.
    _build(target, "bot supervisor", [[cc, "-O2", "-Wall", *extra, "-o", "{out}", str(SOURCE)]
                                      for extra in (["-static"], [])])
    return str(target)


def fastloop_path() -> Path:
    """The built hot-loop extension; built now if missing."""
    abi = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(FASTLOOP_SOURCE.read_bytes() + abi.encode()).hexdigest()[:16]
    target = cache_dir() / f"arena-fastloop-{key}{abi}"
    if not target.is_file():
        cc = _compiler("hot loop", FASTLOOP_SOURCE)
        include = sysconfig.get_paths()["include"]
        _build(target, "hot loop", [[cc, "-O2", "-Wall", "-shared", "-fPIC", f"-I{include}", "-o", "{out}",
                                     str(FASTLOOP_SOURCE)]])
    return target


@cache
def fastloop() -> ModuleType | None:
    """The hot-loop extension, or None: ``ARENA_NATIVE=0``, or it cannot be built
    here (the pure-Python path then plays the same matches, a little slower)."""
    if os.environ.get("ARENA_NATIVE", "1") == "0":
        return None
    try:
        path = fastloop_path()
    except (NativeBuildError, OSError):
        return None
    spec = importlib.util.spec_from_file_location("arena_fastloop", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """``python -m arena.native``: build the helpers now and print where."""
    print(supervisor_path())
    print(fastloop_path())


if __name__ == "__main__":
    main()
