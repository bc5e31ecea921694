"""Helper programs written in C: compiled once into a private cache.

The bot supervisor (``supervisor.c``) sits between every sandbox and the bot
at every level. It is compiled with the system C compiler the first time it
is needed (``make install`` does it ahead of time), into a cache folder only
the arena's user can write, named after the source's hash so that a changed
source is rebuilt.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

SOURCE = Path(__file__).with_name("supervisor.c")


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


@cache
def supervisor_path() -> str:
    """The built supervisor program; built now if missing."""
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    target = cache_dir() / f"arena-supervisor-{digest}"
    if target.is_file() and os.access(target, os.X_OK):
        return str(target)
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise NativeBuildError(
            "the arena needs a C compiler (cc or gcc) once, to build its bot supervisor "
            f"from {SOURCE}; install gcc (apt-get install gcc libc6-dev) or run `make install`"
        )
    with open(cache_dir() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build it once
        if target.is_file():
            return str(target)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        errors = ""
        # Static when the C library allows it: nothing to find inside a sandbox.
        for extra in (["-static"], []):
            proc = subprocess.run(
                [compiler, "-O2", "-Wall", *extra, "-o", str(tmp), str(SOURCE)],
                capture_output=True, text=True,
            )
            if proc.returncode == 0:
                break
            errors = proc.stderr.strip()[-800:]
        else:
            raise NativeBuildError(f"building the bot supervisor with {compiler} failed:\n{errors}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    return str(target)


def main() -> None:
    """``python -m arena._native``: build the helpers now and print where."""
    print(supervisor_path())


if __name__ == "__main__":
    main()
