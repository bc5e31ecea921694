"""The quarantine of an OpenSpiel bot, for liars_dice, leduc_poker,
kuhn_poker(players=3), goofspiel and hearts: the bot plays every seat
against the manifest's opponents (here C random bots, cheap to start, in a
manifest of the test's own; the game's own manifest is played by
tests/quarantine/test_quarantine.py), and passes."""

from __future__ import annotations

import json

import pytest
import trio

from arena.quarantine._run import make_plan, run_quarantine

from ..conftest import ROOT

pytestmark = pytest.mark.slow

BOT = ROOT / "sample_bots" / "openspiel" / "build" / "random_bot"
GAMES = {"liars_dice": 2, "leduc_poker": 2, "kuhn_poker(players=3)": 3, "goofspiel": 2, "hearts": 4}


def test_a_random_bot_passes_the_quarantine_of_five_openspiel_games(tmp_path):
    manifest = tmp_path / "opponents.json"
    manifest.write_text(json.dumps({"opponents": [
        {"name": f"c{n}", "command": f"{BOT} {n}", "random": n == 1} for n in (1, 2, 3)]}))
    for game, seats in GAMES.items():
        plan = make_plan("openspiel", f"{BOT} 9", matches=seats, seed=3, opponents=manifest,
                         params=[f"game={game}"])
        assert plan.seats == seats
        report = trio.run(run_quarantine, plan, tmp_path / game)
        lines = [s.line() for s in report.steps]
        assert report.passed, (game, lines)
        assert [s.status for s in report.steps[:-1]].count("PASS") >= 6, (game, lines)
        assert f"{seats} matches" in lines[2] and f"seats {','.join(map(str, range(seats)))}" in lines[2], lines
