"""A tournament of sample bots runs for every installed game, two jobs at once.

The built-in games use four chosen bots; any other installed game (a
third-party package) uses the reference opponents it ships.
"""

from __future__ import annotations

import json

import pytest

from arena import available_games, load_game
from arena.quarantine._manifest import manifest_of

from ..conftest import ROOT, replay_key, run_arena

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

S = ROOT / "sample_bots"
TD = f"python3 {ROOT / 'shims/python/twocarddraw_runner.py'}"
ENTRANTS = {
    "kuhn3": (["-p", "hands=30"], [
        str(S / "kuhn3/build/rule_bot"), f"node {S / 'kuhn3/rule_bot.js'}",
        f"{S / 'kuhn3/equilibrium_bot.py'} --seed 1", f"{S / 'kuhn3/random_bot.py'} --seed 2",
    ]),
    "vonneumann": (["-p", "sessions=10"], [
        str(S / "vonneumann/build/naive"), str(S / "vonneumann/build/kuhn3"),
        str(S / "vonneumann/build/likeme"), f"python3 {S / 'vonneumann/reference_bot.py'}",
    ]),
    "twocarddraw": (["-p", "hands=60"], [
        f"{TD} {S / 'twocarddraw/pair_of_fours.py'}", f"node {S / 'twocarddraw/pair_of_fours.js'}",
        f"{S / 'twocarddraw/random_bot.py'} --seed 1", f"{S / 'twocarddraw/random_bot.py'} --seed 2",
    ]),
    # four entrants at one table of four: its four rotations
    "holdem": (["-p", "hands=30"], [
        str(S / "holdem/build/rule_bot"), str(S / "holdem/build/call_bot"),
        f"node {S / 'holdem/rule_bot.js'}", f"python3 {S / 'holdem/random_bot.py'} --seed 1",
    ]),
    "rpsdraft": (["--rounds", "2"], [
        f"node {ROOT / 'shims/js/rpsdraft_runner.js'} {S / 'rpsdraft/odds.js'}",
        f"node {ROOT / 'shims/js/rpsdraft_runner.js'} {S / 'rpsdraft/simple.js'}",
        str(S / "rpsdraft/minimal_bot.py"), str(S / "rpsdraft/odds_bot.py"),
    ]),
}


def entrants(game: str) -> tuple[list[str], list[str]]:
    if game in ENTRANTS:
        return ENTRANTS[game]
    manifest = manifest_of(load_game(game))
    extra = [w for k, v in manifest.params.items() for w in ("-p", f"{k}={json.dumps(v)}")]
    return extra, [f"{o.name}={manifest.command(o)}" for o in manifest.opponents]


@pytest.mark.parametrize("game", sorted(available_games()))
def test_sample_bots_tournament_with_two_jobs(game, tmp_path):
    extra, bots = entrants(game)
    proc = run_arena("tournament", game, *bots, "--jobs", "2", "--seed", replay_key("6"), "--db", str(tmp_path / "t.db"),
                     "--json", *extra, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["completed"]
    rows = result["standings"]
    assert len(rows) == len(bots)
    for row in rows:
        assert set(row) >= {"bot", "score", "ci_low", "ci_high", "matches", "faults"}
        assert row["faults"] == {}
        assert row["matches"] > 0
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    # poker's rates where the standings rank by chips (every match here played to its end)
    for row in rows:
        if game == "holdem":  # 30 hands a match, big blind 2
            assert row["mbb_per_game"] == pytest.approx(1000 * row["score"] / (30 * row["matches"]) / 2)
        else:
            assert (row["mbb_per_game"] is not None) == (game == "kuhn3"), row
