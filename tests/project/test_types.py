"""The type check is a gate (`make types`, run by `make test`): mypy, with the
configuration in pyproject.toml, checks every Python file of arena, games and
protocols, passes on the tree, and fails on a copy with a type error planted."""

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

    clean = mypy(tree, tmp_path / "cache")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    checked = re.search(r"no issues found in (\d+) source files", clean.stdout)
    assert checked and int(checked[1]) == files, clean.stdout  # nothing left out of the check

    with open(tree / "arena" / "_text.py", "a") as f:
        f.write("\n\ndef _planted() -> int:\n    return 'not an int'\n")
    planted = mypy(tree, tmp_path / "cache")
    assert planted.returncode == 1, planted.stdout + planted.stderr
    assert re.search(r"arena/_text\.py:\d+: error: Incompatible return value type", planted.stdout), planted.stdout
