"""Code written in C: the arena's C sources (the supervisor, the native
exchange and its core) and what builds them (``games._cbuild`` does the
building for the arena and for a game's own C alike).

Each piece is compiled with the system C compiler the first time it is
needed (``make install`` does it ahead of time, ``python -m arena.native``),
into a cache folder only the arena's user can write, named after the hash of
everything that goes into it (and, for an extension, the Python ABI) so that
a change is rebuilt:

* the bot supervisor (``supervisor.c``), a program that sits between every
  sandbox and the bot at every level; the arena cannot run without it;
* the page-cache holder (``pagecache.c``), a program the sandbox runs before
  bots start where a policy keeps the system's files in memory;
* the native exchange (``fastloop.c``), a Python extension that writes and
  reads the plain exchanges of every game (docs/speed.md);
* a game's compiled dialogue (``protocols.CompiledDialogue``: C source beside
  its protocol), built with the arena's
  exchange core (``arena_exchange.h``) and the state struct generated from
  the layout the dialogue declares;
* the ACPC codec (protocols/acpc/codec.c), through which the arena speaks
  to an ACPC agent's connection itself; like the ACPC relay it is needed
  whenever an agent plays, native dialogues or not.

The extensions are optional: without a compiler, or with ``ARENA_NATIVE=0``,
the pure-Python path plays the same match (``fastloop()`` and
``compiled_dialogue()`` return None).
"""

from __future__ import annotations

import hashlib
import os
import sysconfig
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import protocols
from games._cbuild import BuildError, build, cache_dir, compiler, load

SOURCE = Path(__file__).with_name("supervisor.c")
PAGECACHE_SOURCE = Path(__file__).with_name("pagecache.c")
FASTLOOP_SOURCE = Path(__file__).with_name("fastloop.c")
#: the exchange core, beside the game contract: a game's compiled dialogue includes it
#: from the layer it is written in (protocols), never from the arena's
EXCHANGE_HEADER = Path(protocols.__file__).with_name("arena_exchange.h")


#: What a failed build raises (no compiler, an unsafe cache, the compiler's errors).
NativeBuildError = BuildError


@cache
def supervisor_path() -> str:
    """The built supervisor program; built now if missing."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    target = cache_dir() / f"arena-supervisor-{digest}"
    if target.is_file() and os.access(target, os.X_OK):
        return str(target)
    cc = compiler("bot supervisor", SOURCE)
    # Static when the C library allows it: nothing to find inside a sandbox.
    build(target, "bot supervisor", [[cc, "-O2", "-Wall", *extra, "-o", "{out}", str(SOURCE)]
                                      for extra in (["-static"], [])])
    return str(target)


@cache
def pagecache_path() -> str:
    """The built page-cache holder (``arena-pagecache``, run by the sandbox
    before bots start; arena/sandbox/_memory.py); built now if missing."""
    digest = hashlib.sha256(PAGECACHE_SOURCE.read_bytes()).hexdigest()[:16]
    target = cache_dir() / f"arena-pagecache-{digest}"
    if not (target.is_file() and os.access(target, os.X_OK)):
        cc = compiler("page-cache holder", PAGECACHE_SOURCE)
        build(target, "page-cache holder", [[cc, "-O2", "-Wall", "-o", "{out}", str(PAGECACHE_SOURCE)]])
    return str(target)


def _extension(name: str, what: str, source: Path, extra_header: str | None = None,
               includes: tuple[Path, ...] = ()) -> Path:
    """Build (once) the extension ``name`` from ``source`` and the exchange core."""
    abi = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    parts = [source.read_bytes(), EXCHANGE_HEADER.read_bytes(), (extra_header or "").encode(), abi.encode(),
             *(Path(i).read_bytes() for i in includes)]
    key = hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]
    module = f"{name}_{key}"
    target = cache_dir() / f"{module}{abi}"
    if target.is_file():
        return target
    cc = compiler(what, source)
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory(dir=cache_dir()) as gen:
        if extra_header is not None:
            Path(gen, "dialogue_state.h").write_text(extra_header)
        build(target, what, [[cc, "-O2", "-Wall", "-shared", "-fPIC", f"-I{include}",
                               f"-I{EXCHANGE_HEADER.parent}", f"-I{gen}", f"-DARENA_MODULE={module}",
                               "-o", "{out}", str(source)]])
    return target


def _load(path: Path) -> ModuleType | None:
    return load(path)


def _native_wanted() -> bool:
    return os.environ.get("ARENA_NATIVE", "1") != "0"


def fastloop_path() -> Path:
    """The built native-exchange extension; built now if missing."""
    return _extension("arena_fastloop", "native exchange", FASTLOOP_SOURCE)


@cache
def fastloop() -> ModuleType | None:
    """The native-exchange extension, or None: ``ARENA_NATIVE=0``, or it cannot
    be built here (the pure-Python path then plays the same matches, a little slower)."""
    if not _native_wanted():
        return None
    try:
        return _load(fastloop_path())
    except (NativeBuildError, OSError):
        return None


def compiled_dialogue_path(spec: Any) -> Path:
    """The built extension of a game's compiled dialogue; built now if missing."""
    return _extension(f"arena_{spec.function}", f"compiled dialogue {spec.function}", Path(spec.source),
                      spec.header(), tuple(spec.includes))


@cache
def compiled_dialogue(spec: Any) -> Callable[..., Any] | None:
    """A game's compiled dialogue (``protocols.CompiledDialogue``) as the
    function to call, or None where native code is off or cannot be built."""
    if not _native_wanted() or fastloop() is None:
        return None
    try:
        module = _load(compiled_dialogue_path(spec))
    except (NativeBuildError, OSError):
        return None
    return getattr(module, spec.function, None) if module is not None else None


def acpc_codec_path() -> Path:
    """The built ACPC codec extension; built now if missing."""
    from protocols.acpc import CODEC_SOURCE, TEXT_HEADER

    return _extension("arena_acpc_codec", "ACPC codec", CODEC_SOURCE, includes=(TEXT_HEADER,))


@cache
def acpc_codec() -> type:
    """``HoldemCodec``, the class of the seat of an ACPC agent whose connection the arena takes (raises NativeBuildError)."""
    module = _load(acpc_codec_path())
    if module is None:
        raise NativeBuildError(f"the ACPC codec {acpc_codec_path()} could not be loaded")
    return module.HoldemCodec


def main() -> None:
    """``python -m arena.native``: build the helpers, and what every installed
    game declares it builds in C (``GamePlugin.native_parts``), now; print where."""
    from protocols import CompiledDialogue

    from .._games import available_games, load_game

    print(supervisor_path())
    print(pagecache_path())
    print(fastloop_path())
    for game in sorted(available_games()):
        for part in load_game(game).native_parts():
            print(compiled_dialogue_path(part) if isinstance(part, CompiledDialogue) else part())
    from protocols.acpc import relay_path  # the ACPC relay, a program run in the sandbox

    print(relay_path())
    print(acpc_codec_path())


if __name__ == "__main__":
    main()
