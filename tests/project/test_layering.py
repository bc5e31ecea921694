"""The layers point one way: arena (I/O) above protocols (wire, plugins) above
games (rules). ``lint-imports`` checks it with the contracts in pyproject.toml,
imports inside functions included; here it is run on the real tree and on a
copy with an upward import planted, which it must catch."""

from __future__ import annotations

import shutil
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

LINT = Path(sys.executable).parent / "lint-imports"


def lint(tree: Path) -> subprocess.CompletedProcess:
    # PYTHONPATH puts the tree's packages ahead of the installed ones.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree), "LANG": "C.UTF-8"}
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("where", "planted", "contract"), [
    # a rules module reaching up into a protocol, lazily, inside a function
    ("games/kuhn3/_rules.py", "def _sneaky():\n    from protocols.kuhn3 import Kuhn3Dealer\n",
     "arena above protocols above games"),
    ("protocols/vonneumann.py", "def _sneaky():\n    import arena.play._bot\n", "arena above protocols above games"),
    ("games/rpsdraft/_rules.py", "def _sneaky():\n    import games.kuhn3\n", "each game's rules stand alone"),
    # inside arena: a library room reaching for a command, lazily
    ("arena/league/_web.py", "def _sneaky():\n    from arena.cli import _results\n", "no library module imports a command"),
    # a lower room importing a higher one (the store asking the tournament runner)
    ("arena/results/_store.py", "def _sneaky():\n    from arena.tournament import _run\n", "arena's rooms are layered"),
    # a cycle between two modules of one room
    ("arena/play/_lines.py", "def _sneaky():\n    from arena.play import _match\n", "no import cycle inside arena"),
])
def test_a_planted_upward_import_is_caught(tmp_path, where, planted, contract):
    for package in ("arena", "protocols", "games"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / where, "a") as f:
        f.write("\n\n" + planted)
    result = lint(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{contract} BROKEN" in result.stdout, result.stdout


def test_games_and_protocols_import_without_io_libraries():
    code = (
        "import sys, importlib\n"
        "import games, protocols\n"
        "for g in ('kuhn3', 'vonneumann', 'twocarddraw', 'rpsdraft'):\n"
        "    importlib.import_module('games.' + g); importlib.import_module('protocols.' + g)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('trio', 'arena', 'subprocess', 'typer', 'asyncio'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_public_api_is_exactly_what_all_lists():
    import arena
    import games
    import protocols

    for module in (arena, games, protocols):
        exported = set(module.__all__)
        missing = {name for name in exported if getattr(module, name, None) is None}
        assert not missing, f"{module.__name__}.__all__ names missing objects: {missing}"
        public = {name for name in vars(module) if not name.startswith("_")}
        stray = {n for n in public - exported if not isinstance(getattr(module, n), type(sys))}
        assert stray <= {"annotations"}, f"{module.__name__} exposes {stray}"


def test_every_benchmark_module_imports():
    # `make bench` is not part of `make test`; this keeps a renamed API from
    # breaking it unseen (each module's work is under `if __name__ == "__main__"`).
    import importlib

    names = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem != "__init__")
    assert names, "no benchmark modules found"
    for name in names:
        importlib.import_module(f"benchmarks.{name}")


def test_arena_loads_its_names_on_first_use():
    """`import arena` loads none of its rooms (a command imports only what it
    runs); the names the package lists for readers are the ones it loads."""
    code = ("import sys, arena\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith(('arena.', 'trio', 'pydantic')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""
    tree = ast.parse((ROOT / "arena" / "__init__.py").read_text())
    declared = {alias.name: "." * node.level + (node.module or "")
                for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level
                for alias in node.names}
    import arena

    assert declared == arena._WHERE


def _c_includes(root) -> list[tuple[str, str, str]]:
    """(file, header, where it resolves) for every quoted #include of C under ``root``'s protocols/ and games/."""
    import re as _re

    found = []
    for folder in ("protocols", "games"):
        for source in sorted((root / folder).rglob("*.[ch]")):
            for header in _re.findall(r'^\s*#\s*include\s+"([^"]+)"', source.read_text(), _re.M):
                where = next((str(p.resolve().relative_to(root)) for p in (source.parent / header,
                              root / "protocols" / header) if p.is_file()), "generated")
                found.append((str(source.relative_to(root)), header, where))
    return found


def test_no_c_file_of_a_game_includes_a_header_of_the_arena():
    # A compiled dialogue includes the exchange core from the contract's layer, never from arena/.
    from ..conftest import ROOT

    includes = _c_includes(ROOT)
    assert ("protocols/kuhn3_compiled.c", "arena_exchange.h", "protocols/arena_exchange.h") in includes
    upward = [i for i in includes if i[2].startswith("arena/")]
    assert upward == []


def test_a_planted_upward_include_is_caught(tmp_path):
    (tmp_path / "protocols").mkdir()
    (tmp_path / "games").mkdir()
    (tmp_path / "arena" / "native").mkdir(parents=True)
    (tmp_path / "arena" / "native" / "core.h").write_text("")
    (tmp_path / "protocols" / "x_compiled.c").write_text('#include "../arena/native/core.h"\n')
    assert [i[2] for i in _c_includes(tmp_path)] == ["arena/native/core.h"]


#: the ids of the games that ship with the arena, and its example game
GAME_IDS = ("kuhn3", "holdem", "vonneumann", "twocarddraw", "rpsdraft", "openspiel", "pennies")


def _game_ids_in(folder) -> list[str]:
    import re as _re

    pattern = _re.compile(r"\b(" + "|".join(GAME_IDS) + r")\b")
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(folder.parent)}:{n}: {line.strip()}")
    return found


def test_arena_names_no_game():
    # What a game adds (its C, hand histories, ACPC support, commands, demo bots) its plugin declares.
    from ..conftest import ROOT

    assert _game_ids_in(ROOT / "arena") == []


def test_a_game_named_in_arena_is_caught(tmp_path):
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "_x.py").write_text('if plugin.spec.id == "holdem":\n    pass\n')
    assert _game_ids_in(tmp_path / "arena") == ['arena/_x.py:1: if plugin.spec.id == "holdem":']
