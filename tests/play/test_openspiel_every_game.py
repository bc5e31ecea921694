"""Every OpenSpiel game the adapter accepts plays a real match, twice.

One test, all games: the C random bot (sample_bots/openspiel/random_bot.c)
in every seat, the matches run concurrently through the library API with one
host, each game twice with the same seed: the same returns, in the same
number of exchanges. (That another seed deals other chance is checked
in-process, without processes: tests/protocols/test_openspiel.py.)
"""

from __future__ import annotations

import pytest
import trio

from arena import BotSpec, MatchSettings, load_game, open_host, run_match
from games.openspiel import catalogue

from ..conftest import ROOT

pytestmark = pytest.mark.slow

BOT = ROOT / "sample_bots/openspiel/build/random_bot"
#: games that play long with random moves at their default size, made smaller
#: (the adapter is the same; only fewer moves go over the pipes)
SMALLER = {"go": "go(board_size=7)", "chinese_checkers": "chinese_checkers(max_moves=200)", "laser_tag": "laser_tag(horizon=100)",
           "phantom_go": "phantom_go(board_size=7)"}


#: left out for cost alone: loading it builds its boards (0.8 CPU-s), and a
#: match computes over them (0.7 CPU-s); it plays like any other game
COSTLY = {"colored_trails"}


def _games() -> list[str]:
    # (a wrapper plays around a game: tests/protocols/test_openspiel.py plays those)
    return [SMALLER.get(g.name, g.name) for g in catalogue()
            if g.refusal is None and g.note is None and g.name not in COSTLY]


def test_every_accepted_game_plays_a_real_match_and_the_seed_repeats_it():
    plugin = load_game("openspiel")
    names = [g.name for g in catalogue()]
    accepted = [g for g in catalogue() if g.refusal is None]
    assert len(names) >= 120 and len(accepted) >= 60, (len(names), len(accepted))
    playable: list[str] = []
    refused: dict[str, str] = {}
    for game in _games():
        try:
            plugin.check_params(plugin.Params(game=game))
        except ValueError as exc:  # a game that fails only when loaded (crossword) is refused with its reason
            refused[game] = str(exc)
            continue
        playable.append(game)
    assert len(playable) >= 60 and all("cannot referee" in why for why in refused.values()), refused
    results: dict[tuple[str, int, int], object] = {}
    settings = MatchSettings(timeout=10, startup_timeout=10)

    async def main() -> None:
        limit = trio.CapacityLimiter(4)
        with open_host("none", sync_wait=0) as host:
            s = MatchSettings(timeout=settings.timeout, startup_timeout=settings.startup_timeout, host=host)

            async def one(game: str, seed: int, run: int) -> None:
                params = plugin.Params(game=game)
                seats = plugin.fixed_seats(params)
                specs = [BotSpec.parse(f"{BOT} {seat + 1}") for seat in range(seats)]
                async with limit:
                    results[game, seed, run] = await run_match(plugin, specs, params, seed, s)

            async with trio.open_nursery() as nursery:
                for game in playable:
                    for run in (0, 1):
                        nursery.start_soon(one, game, 1, run)

    trio.run(main)
    def seen(r):  # the returns and how many exchanges it took to reach them
        return [s.payoff for s in r.seats], r.exchanges

    for game in playable:
        first, again = results[game, 1, 0], results[game, 1, 1]
        for r in (first, again):
            assert r.completed and not r.faults, (game, r.faults)
            assert r.hands == 1 and len(r.seats) == plugin.fixed_seats(plugin.Params(game=game))
        assert seen(first) == seen(again), game
