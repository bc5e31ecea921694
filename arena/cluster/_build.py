"""Which arena a process runs: its version and a hash of the code that decides a match.

Two machines whose arena or games differ by one line can play the same seed
differently, and both results would look sound. So the coordinator and every
worker name their build, and a worker whose build is not the coordinator's
gets no match (docs/cluster.md). The hash covers the source of the arena,
``games`` and ``protocols``, and of every package an ``arena.games`` entry
point loads from: the code a match runs, whatever the version number says.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from functools import cache
from importlib import metadata

from .._games import DISTRIBUTION, GROUP

#: Overrides the version this process reports (not its code hash): lets the
#: tests start a worker that says it is another release.
VERSION_ENV = "ARENA_REPORTED_VERSION"
_SOURCES = (".py", ".c", ".h")


def _packages() -> list[str]:
    names = {"arena", "games", "protocols"}
    for ep in metadata.entry_points(group=GROUP):
        names.add(ep.value.split(":")[0].split(".")[0])
    return sorted(names)


@cache
def code_hash() -> str:
    """SHA-256 (first 16 hex digits) over the source files of the packages that play a match."""
    digest = hashlib.sha256()
    for name in _packages():
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        roots = list(spec.submodule_search_locations or []) or [os.path.dirname(spec.origin or "")]
        for root in roots:
            found = []
            for top, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                found += [os.path.join(top, f) for f in files if f.endswith(_SOURCES)]
            if spec.submodule_search_locations is None:  # a single-module game
                found = [p for p in found if p == spec.origin]
            for path in sorted(found):
                digest.update(f"{name}/{os.path.relpath(path, root)}\0".encode())
                with open(path, "rb") as f:
                    digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()[:16]


def build() -> str:
    """This process's build, as workers and the coordinator compare it: ``VERSION+CODEHASH``."""
    version = os.environ.get(VERSION_ENV) or metadata.version(DISTRIBUTION)
    return f"{version}+{code_hash()}"


def describe(text: str) -> str:
    """A build for people: ``arena 0.1.0 (code 1a2b...)``."""
    version, _, code = text.partition("+")
    return f"arena {version} (code {code})" if code else f"arena {version}"
