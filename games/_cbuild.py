"""Building C into the arena's private cache: the one owner of it.

The arena's native code (``arena.native``: the bot supervisor, the native
exchange, compiled dialogues) and a game's own C (hold'em's engine) are built
the same way: with the system C compiler, the first time they are needed,
into a folder only the arena's user can write (``ARENA_CACHE_DIR``, else the
user's cache folder), as a file named after the hash of everything that goes
into it, so a change is rebuilt; under a lock, so parallel workers build it
once. It lives here, at the bottom, because ``games`` may not import the arena.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from types import ModuleType


class BuildError(RuntimeError):
    """C could not be built (no compiler, an unsafe cache, or the compiler failed)."""


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
        raise BuildError(
            f"the helper cache {base} must belong to uid {os.geteuid()} and not be writable by "
            "others (set ARENA_CACHE_DIR to a private folder)"
        )
    return base


def compiler(what: str, source: Path) -> str:
    found = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if found is None:
        raise BuildError(
            f"the arena needs a C compiler (cc or gcc) once, to build its {what} "
            f"from {source}; install gcc (apt-get install gcc libc6-dev) or run `make install`"
        )
    return found


def build(target: Path, what: str, attempts: list[list[str]]) -> None:
    """Run the first compiler command line that works (``{out}`` is the output)."""
    import subprocess  # only to build: importing a game's rules starts no process

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
            # The compiler's errors, not its warnings (which can fill any tail).
            found = [line for line in proc.stderr.splitlines() if "error" in line]
            errors = "\n".join(found[:12]) if found else proc.stderr.strip()[-800:]
        else:
            raise BuildError(f"building the {what} with {attempts[0][0]} failed:\n{errors}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)


def load(path: Path) -> ModuleType | None:
    """Import a built extension (its module name is the file's stem up to the ABI tag)."""
    spec = importlib.util.spec_from_file_location(path.name.split(".")[0], path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



class GameEngine:
    """A game's rules engine: its C source (a CPython extension whose module
    name comes in as ``ENGINE_MODULE``), built into the cache the first time
    it is needed, under a name made of the game, the source's hash and the
    Python ABI (a change is rebuilt)."""

    def __init__(self, source: Path, game: str) -> None:
        self.source, self.game = source, game
        self._module: ModuleType | None = None

    def path(self) -> Path:
        """The built engine; built now if missing."""
        import hashlib
        import sysconfig

        abi = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        key = hashlib.sha256(self.source.read_bytes() + b"\0" + abi.encode()).hexdigest()[:16]
        module = f"{self.game}_engine_{key}"
        target = cache_dir() / f"{module}{abi}"
        if not target.is_file():
            what = f"{self.game} engine"
            build(target, what, [[compiler(what, self.source), "-O2", "-Wall", "-shared", "-fPIC",
                                  f"-I{sysconfig.get_paths()['include']}", f"-DENGINE_MODULE={module}",
                                  "-o", "{out}", str(self.source)]])
        return target

    def module(self) -> ModuleType:
        """The engine imported (once)."""
        if self._module is None:
            module = load(self.path())
            if module is None:
                raise BuildError(f"the {self.game} engine was built but cannot be imported")
            self._module = module
        return self._module
