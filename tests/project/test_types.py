"""The type check is a gate (this test, in `make test`; `make types` on its own):
mypy, with the configuration in pyproject.toml, checks every Python file of
arena, games and protocols, passes on the tree, and fails on a copy with a type
error planted. Any error of the tree fails this test and is listed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..conftest import ROOT

MYPY = Path(sys.executable).parent / "mypy"
PACKAGES = ("arena", "games", "protocols")


def mypy(tree: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(MYPY), "--cache-dir", str(cache)], cwd=tree, capture_output=True, text=True,
                          timeout=600)


def test_mypy_checks_every_file_and_finds_a_planted_error(tmp_path):
    tree = tmp_path / "tree"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    files = sum(1 for package in PACKAGES for _ in (tree / package).rglob("*.py"))
    cache = tmp_path / "cache"
    if (ROOT / ".mypy_cache").is_dir():  # `make types` ran first: only the planted module is checked again
        shutil.copytree(ROOT / ".mypy_cache", cache)

    with open(tree / "arena" / "_text.py", "a") as f:
        f.write("\n\ndef _planted() -> int:\n    return 'not an int'\n")
    planted = mypy(tree, cache)
    assert planted.returncode == 1, planted.stdout + planted.stderr
    errors = re.findall(r"^(\S+?):\d+: error: (.*)$", planted.stdout, re.M)
    assert len(errors) == 1 and errors[0][0] == "arena/_text.py", planted.stdout  # the tree itself is clean
    assert errors[0][1].startswith("Incompatible return value type"), planted.stdout
    checked = re.search(r"Found 1 error in 1 file \(checked (\d+) source files\)", planted.stdout)
    assert checked and int(checked[1]) == files, planted.stdout  # nothing left out of the check
