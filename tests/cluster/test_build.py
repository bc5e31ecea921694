"""A build names the arena a process runs: its version and a hash of the code that
decides a match. A copy of the same code has the same build; one changed line in
a game's dialogue makes another (issue 26: such a worker played different matches)."""

from __future__ import annotations

import shutil
import subprocess
from importlib import metadata

from arena.cluster._build import build, code_hash, describe

from ..conftest import PY, ROOT, clean_env

ASK = "from arena.cluster._build import build; print(build())"


def _build_in(folder) -> str:
    proc = subprocess.run([PY, "-c", ASK], capture_output=True, text=True, env=clean_env(), cwd=folder, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_changed_line_in_a_game_is_another_build(tmp_path):
    ours = build()
    assert ours == f"{metadata.version('arena-cardgames')}+{code_hash()}"
    assert describe(ours) == f"arena {metadata.version('arena-cardgames')} (code {code_hash()})"
    for package in ("arena", "games", "protocols"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert _build_in(tmp_path) == ours  # where the code lies does not matter
    dialogue = tmp_path / "protocols" / "kuhn3.py"
    dialogue.write_text(dialogue.read_text() + "\n# one more line\n")
    changed = _build_in(tmp_path)
    assert changed != ours and changed.split("+")[0] == ours.split("+")[0]
