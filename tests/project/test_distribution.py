"""The arena's distribution name is its own ("arena" on PyPI is an unrelated
client for are.na), and a third-party game package that depends on it
installs with plain ``pip install``: pip finds the dependency satisfied by
the installed arena instead of fetching a stranger's package."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tomllib
import venv
from importlib.metadata import distribution
from pathlib import Path

import pytest

from arena._games import DISTRIBUTION

from ..conftest import ROOT

BLUFF = ROOT / "tests" / "quarantine" / "bluff.py"


def test_every_place_names_the_same_distribution():
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    assert ours == DISTRIBUTION != "arena"
    assert distribution(DISTRIBUTION).entry_points.select(group="arena.games")
    pennies = tomllib.loads((ROOT / "examples" / "pennies" / "pyproject.toml").read_text())["project"]
    assert DISTRIBUTION in pennies["dependencies"]
    # no doc tells anyone to install the other project
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        assert "install arena" not in text and "'arena[" not in text and '"arena"' not in text, doc


@pytest.mark.slow
def test_a_game_package_installs_with_plain_pip_next_to_the_arena(tmp_path):
    # a game package of its own, as its author would write it
    package = tmp_path / "arena-bluff"
    (package / "arena_bluff").mkdir(parents=True)
    (package / "arena_bluff" / "__init__.py").write_text(BLUFF.read_text())
    (package / "pyproject.toml").write_text(f"""
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "arena-bluff"
version = "1.0.0"
requires-python = ">=3.11"
dependencies = ["{DISTRIBUTION}", "pydantic>=2.6"]

[project.entry-points."arena.games"]
bluff = "arena_bluff:PLUGIN"
""")
    # a fresh environment that sees the installed arena (its site-packages,
    # through a .pth) and nothing of its own; pip is the arena venv's, told
    # to install into it
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    site = sysconfig.get_paths()["purelib"]
    target = subprocess.run([env / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    (Path(target) / "arena.pth").write_text(f"import site; site.addsitedir({site!r})\n")
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
                          "--disable-pip-version-check", str(package)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    installed = [line for line in pip.stdout.splitlines() if line.startswith("Successfully installed")]
    assert installed == ["Successfully installed arena-bluff-1.0.0"], pip.stdout
    games = subprocess.run([env / "bin" / "python", "-m", "arena", "games"], capture_output=True, text=True,
                           timeout=120)
    assert games.returncode == 0, games.stderr
    listed = {line.split()[0] for line in games.stdout.splitlines()[1:] if line.strip()}
    assert {"bluff", "kuhn3", "holdem"} <= listed, games.stdout
