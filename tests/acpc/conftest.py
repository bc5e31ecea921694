"""The ACPC server package (../shared/acpc beside the checkout), compiled once
into pytest's cache: the example player and the dealer."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT

ACPC = Path(os.environ.get("ARENA_ACPC_DIR", ROOT.parent / "shared" / "acpc"))
PROGRAMS = {"example_player": "example_player.c", "dealer": "dealer.c"}
COMMON = ("game.c", "rng.c", "net.c")


@pytest.fixture(scope="session")
def acpc(request) -> dict[str, Path]:
    if not (ACPC / "dealer.c").exists():
        pytest.fail(f"the ACPC server package is not at {ACPC} (CI has shared/ beside the checkout)")
    if shutil.which("gcc") is None:
        pytest.fail("gcc is not installed")
    sources = sorted(ACPC.glob("*.[ch]"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    cache = Path(request.config.cache.mkdir(f"acpc-{digest}"))
    built = {}
    for name, main in PROGRAMS.items():
        out = cache / name
        if not out.exists():
            # Built beside, then renamed: xdist workers may race to build it.
            tmp = cache / f"{name}.{os.getpid()}"
            proc = subprocess.run(["gcc", "-O2", "-o", str(tmp), main, *COMMON, "-lm"], cwd=ACPC,
                                  capture_output=True, text=True, check=False)
            assert proc.returncode == 0, proc.stderr
            os.replace(tmp, out)
        built[name] = out
    built["games"] = ACPC
    return built
