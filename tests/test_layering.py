"""The layers point one way: games and protocols are pure and never import trio."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


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
        public = {name for name in vars(module) if not name.startswith("_")}
        exported = set(module.__all__)
        assert exported <= public, f"{module.__name__}.__all__ names missing objects"
        stray = {n for n in public - exported if not isinstance(getattr(module, n), type(sys))}
        assert stray <= {"annotations", "GROUP"}, f"{module.__name__} exposes {stray}"
