"""A fault never pays, in scores as in ratings: a bot cannot cut its losses
(or keep its lead) by faulting, and one broken entrant cannot wipe out the
others' results.

Every game's fault rule is checked by ``arena check-game`` (``fault never
pays``: at every reply of random matches, faulting there scores no more than
playing the same way to the end; tests/project/test_example_game.py runs it for every
installed game). Here: that the check can fail, and the tournaments an
organiser would run, in ``arena tournament`` and in the league's ratings.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest

from arena import load_game
from arena.quarantine._conformance import _check_fault_never_pays
from arena.league._db import League
from arena.league._ratings import Ratings
from arena.results._store import open_store
from games.kuhn3 import Phase
from protocols.kuhn3 import Kuhn3Dealer, Kuhn3Plugin, seeded_chance

from ..conftest import PY, ROOT, SAMPLE_BOTS, TEST_BOTS, replay_key, run_arena

RULE = str(SAMPLE_BOTS / "build" / "rule_bot")
RULE_RS = str(SAMPLE_BOTS / "build" / "rule_bot_rs")
MISBEHAVE = f"{PY} {TEST_BOTS / 'misbehave.py'}"
HOLDEM = ROOT / "sample_bots" / "holdem"


class _LenientDealer(Kuhn3Dealer):
    """kuhn3 with the fault rule it had: min(bankroll, 0) minus the chips in front."""

    def forfeit(self, seat: int) -> list[float]:
        r = self.round
        scores = self.tournament_scores()
        scores[seat] = float(min(r.money[seat], 0) - (r.in_front[seat] if r.phase is Phase.BETTING else 0))
        return scores


class _LenientKuhn3(Kuhn3Plugin):
    def open_dialogue(self, params, rng, names=None, match_index=0):
        return _LenientDealer(params, seeded_chance(rng))


def test_check_game_catches_a_fault_rule_that_lets_a_losing_bot_cut_its_losses():
    assert _check_fault_never_pays(load_game("kuhn3")).ok
    check = _check_fault_never_pays(_LenientKuhn3())
    assert not check.ok
    assert re.search(r"seat \d faulting at reply \d+ scores -?\d+ by the game's fault rule \(forfeit\), playing on to the end -\d+", check.summary)


def _tournament(db, game, *args, timeout=300):
    proc = run_arena("tournament", game, *args, "--db", str(db), "--json", timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _rows(result):
    return {row["bot"]: row for row in result["standings"]}


@pytest.mark.slow
def test_the_same_strategy_faulting_scores_below_playing_on_in_the_tournament_and_the_league(tmp_path):
    """One strategy (call every bet) entered three times: playing every hand,
    breaking off when 4 chips behind, breaking off as soon as it leads; beside
    the C rule bot. The two that fault rank below the one that plays on, by
    score and by rating, in the tournament's standings and in the league's."""
    db = tmp_path / "t.db"
    result = _tournament(db, "kuhn3", f"player={MISBEHAVE} none", f"quitter={MISBEHAVE} garbage_behind:4",
                         f"greedy={MISBEHAVE} garbage_ahead", f"rule={RULE}", "-p", "hands=100", "--seed", replay_key("5"),
                         "--broken-start", "0", "--jobs", "2")
    rows = _rows(result)
    assert rows["quitter"]["faults"] and rows["greedy"]["faults"] and not rows["player"]["faults"], rows
    for faulting in ("quitter", "greedy"):
        assert rows[faulting]["score"] < rows["player"]["score"], rows
        assert rows[faulting]["rating"] < rows["player"]["rating"], rows
    # The league rates every stored match of the game across tournaments:
    # the same matches, seen through its own tables.
    store = open_store(db, create=False)
    try:
        league = League(store)
        league.add_user("alice")
        (uid,) = [u["id"] for u in league.users()]
        for entrant in store.tournament(1)["entrants"]:
            bot = league.bot_for(uid, "kuhn3", entrant["name"])
            vid = league.add_version(bot, "0" * 64, "file", {"run": "./bot"})
            league.set_state(vid, "active", store_bot=entrant["bot"])
        league.add_tournament(1, "scheduled")
        table = {row["name"]: row for row in Ratings(league).table("kuhn3")}
        means = {name: _league_mean(Ratings(league), league, table[name]["version"]) for name in table}
    finally:
        store.close()
    for faulting in ("quitter", "greedy"):
        assert table[faulting]["rating"] < table["player"]["rating"], table
        assert means[faulting] < means["player"], means


def _league_mean(ratings: Ratings, league: League, vid: int) -> float:
    rows = ratings.head_to_head("kuhn3", vid)
    return sum(r["mean"] * r["matches"] for r in rows) / sum(r["matches"] for r in rows)


@pytest.mark.slow
def test_an_always_illegal_kuhn3_bot_ranks_last_by_score_and_is_out_after_three(tmp_path):
    result = _tournament(tmp_path / "t.db", "kuhn3", f"a={RULE}", f"b={RULE_RS}", f"c={MISBEHAVE} none",
                         f"bet3={MISBEHAVE} illegal_amount", "-p", "hands=20", "--seed", replay_key("2"), "--jobs", "2")
    rows = _rows(result)
    assert min(rows.values(), key=lambda r: r["score"])["bot"] == "bet3", rows
    assert rows["bet3"]["disqualified"] and rows["bet3"]["faults"] == {"illegal_action": 3}, rows["bet3"]
    assert result["standings"][-1]["bot"] == "bet3" and rows["bet3"]["forfeits"] == 15


@pytest.mark.slow
def test_one_broken_holdem_entrant_does_not_wipe_out_the_other_three(tmp_path):
    """Four entrants at four seats, one answering every action with an illegal
    raise: it is folded out of its first hand and the others play every match
    to its end, with real results; it is disqualified after three faults."""
    bad = f"{PY} {TEST_BOTS / 'misbehave_holdem.py'} illegal_raise"
    db = tmp_path / "h.db"
    result = _tournament(db, "holdem", f"rule={HOLDEM / 'build' / 'rule_bot'}", f"call={HOLDEM / 'build' / 'call_bot'}",
                         f"py={PY} {HOLDEM / 'call_bot.py'}", f"bad={bad}", "--seats", "4", "-p", "hands=15",
                         "--seed", replay_key("4"))
    rows = _rows(result)
    assert rows["bad"]["disqualified"] and rows["bad"]["faults"] == {"illegal_action": 3}, rows["bad"]
    for good in ("rule", "call", "py"):
        assert rows[good]["faults"] == {} and rows[good]["matches"] == 3, rows[good]
    played = [m for m in result["match_list"] if m["status"] == "done"]
    assert len(played) == 3
    for m in played:
        legal = [s for name, s in zip(m["entrants"], m["scores"]) if name != "bad"]
        assert any(s != 0 for s in legal), m  # real hands were played: chips moved
    # Nothing more was sent to the bad seat once it had faulted.
    store = open_store(db, create=False)
    try:
        match = next(m for m in store.matches(1) if m["status"] == "done")
    finally:
        store.close()
    seat = match["faults"][0]["seat"]
    with gzip.open(match["transcript"], "rt") as log:
        lines = log.read().splitlines()
    refused = max(i for i, line in enumerate(lines) if f"seat {seat} <-" in line)
    assert not any(f"seat {seat} ->" in line for line in lines[refused + 1:])
    later = [line for line in lines[refused + 1:] if '"type": "hand_start"' in line or '"type":"hand_start"' in line]
    assert later, "the others were dealt more hands"


@pytest.mark.slow
def test_a_gauntlet_ranks_by_mean_score_per_match(tmp_path):
    """The candidate plays every seating it is in, the others fewer: totals
    would favour whoever played most, so the table ranks by mean and says so."""
    db = tmp_path / "g.db"
    result = _tournament(db, "kuhn3", f"a={RULE}", f"b={RULE_RS}", f"c={MISBEHAVE} none", f"d={RULE}",
                         "-p", "hands=10", "--seed", replay_key("1"), "--gauntlet", "d", "--jobs", "2")
    rows = result["standings"]
    assert len({r["matches"] for r in rows}) > 1
    assert result["ranked_by"] == "mean"
    assert [r["mean"] for r in rows] == sorted((r["mean"] for r in rows), reverse=True)
    assert "ranked by mean chips per match" in " ".join(run_arena("standings", "1", "--db", str(db)).stdout.split())
