"""``arena tournament`` on a terminal: rich's live display (bar, matches
done/total, elapsed, time left, faults, leader) in place of the stable lines,
which stay what a pipe or CI gets."""

from __future__ import annotations

import re

from tests.conftest import PY, ROOT, clean_env
from tests.play.terminal import Terminal

BOT = str(ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot")


def test_on_a_terminal_a_live_bar_with_the_leader_replaces_the_lines(tmp_path):
    term = Terminal([PY, "-m", "arena", "tournament", "kuhn3", f"a={BOT}", f"b={BOT}", f"c={BOT}", "-p", "hands=10",
                     "--db", str(tmp_path / "t.db")], cwd=str(ROOT), env=clean_env())
    assert term.finish() == 0, term.screen
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.screen)
    # (one line where the terminal is wide enough, else faults and the leader on a second)
    assert re.search(r"6/6 matches · \d+:\d\d:\d\d elapsed · .* left(?: · |\s*\n)faults 0 · leader [abc] \([+-]\d+\)",
                     plain), plain
    assert "Started match" not in plain and "Finished match" not in plain  # the pipe's lines, not a terminal's
    assert "Finished tournament 1: 6 of 6 matches, 0 with a fault" in plain
