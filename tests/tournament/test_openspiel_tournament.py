"""OpenSpiel games run through a tournament: liars_dice, leduc_poker,
kuhn_poker(players=3), goofspiel and hearts, each a round of C random bots
(sample_bots/openspiel/random_bot.c, cheap to start), one entrant per seat of
the game: the table size comes from the game string (``fixed_seats``), every
entrant plays every seat (rotations), and the stored scores are the game's
returns. Each is played as its own game id, ``openspiel:NAME`` (the
variant, as a league with several OpenSpiel games names them), so the
tournament's worker finds the game by that id too."""

from __future__ import annotations

import pytest
import trio

import arena

from ..conftest import ROOT

pytestmark = pytest.mark.slow

BOT = ROOT / "sample_bots" / "openspiel" / "build" / "random_bot"
GAMES = {"liars_dice": 2, "leduc_poker": 2, "kuhn_poker(players=3)": 3, "goofspiel": 2, "hearts": 4}


def test_five_openspiel_games_each_play_a_tournament(tmp_path):
    store = arena.open_store(tmp_path / "t.db")
    try:
        for game, seats in GAMES.items():
            plugin = arena.load_game(f"openspiel:{game}")
            assert plugin.Params().game == game
            bots = [arena.BotSpec.parse(f"{BOT} {n}", name=f"r{n}") for n in range(seats)]
            config = arena.plan_tournament(f"openspiel:{game}", bots, seed=5, rounds=1, sandbox="none", timeout=5)
            assert config.seats == seats  # no --seats: the game string says how many
            tid = arena.create_tournament(store, config)
            outcome = trio.run(arena.run_tournament, plugin, config, store, tid)
            assert outcome.finished
            assert store.tournament(tid)["game"] == f"openspiel:{game}"
            matches = store.matches(tid)
            assert len(matches) == seats, game  # each rotation once
            for m in matches:
                assert m["status"] == "done" and not m["faults"], (game, m)
                assert len(m["scores"]) == seats
                if game != "hearts":  # hearts' returns are points, not zero-sum
                    assert sum(m["scores"]) == pytest.approx(0), (game, m["scores"])
            assert sorted(sorted(m["seats"]) for m in matches) == [list(range(seats))] * seats
            assert {tuple(m["seats"])[0] for m in matches} == set(range(seats))  # everyone sits first once
    finally:
        store.close()
