"""The match page of a game that draws no hands (every game but kuhn3 and
hold'em, a third-party one included): a chart of each seat's running payoff
over the game's own unit, and its steps in words, read back through the game
contract alone (arena/league/_steps.py).

The pages are rendered in this process from a real SQLite file holding small
matches: each is played in-process through the game's own dialogue with
random legal replies, its transcript written by the arena's transcript writer,
its result stored as a league stores one. No server, no bot process.
"""

from __future__ import annotations

import html as html_text
import random
import re

import pytest
import trio
from starlette.requests import Request

from arena._games import load_game
from arena._seeds import chance_stream, pseudonyms
from arena.league._db import League
from arena.league._runner import LeagueRunner, LeagueSettings
from arena.league._steps import _steps, words
from arena.league._web import Site, match_page
from arena.play._transcript import Transcript
from arena.quarantine._conformance import drive
from arena.results._store import open_store

#: (game, parameters, seed, match index): small matches, each a few dozen lines;
#: the index as a tournament that keeps a process per entrant opens a match
#: (each seat's own count), and as a series does (roles alternate on it)
MATCHES = [
    ("vonneumann", {"games_per_session": 4, "sessions": 2}, "vn-1", 0),
    ("rpsdraft", {}, "rps-2", [3, 1]),
    ("pennies", {"rounds": 7}, "pen-3", 0),
    ("vonneumann", {"games_per_session": 3, "sessions": 1}, "vn-4", 1),
]


def _store_match(store, league, folder, game: str, raw: dict, seed: str, index=0, *, cut: int | None = None) -> dict:
    """Play one match in-process and store it as a league tournament's match:
    the bots were told pseudonyms, as in the league's tournaments."""
    plugin = load_game(game)
    params = plugin.Params.model_validate(raw)
    seats = plugin.spec.min_seats
    names = pseudonyms(seed, seats)
    run = plugin.open_dialogue(params, chance_stream(seed), names, index)
    rng = random.Random(seed)
    wire: list[tuple[int, str, str]] = []

    def sink(line: str) -> None:
        seat, direction, text = line.split(" ", 2)
        wire.append((int(seat), direction, text))

    outcome = drive(run, lambda r, seat, payload: plugin.random_reply(r, seat, payload, rng), sink)
    path = folder / f"{game}-{seed}.gz"
    transcript = Transcript(path)
    for seat, direction, text in wire[:cut]:
        transcript(seat, direction, text)
    transcript.close()
    entrants = [(f"{game}-bot{i}", store.bot_id(f"{game}-bot{i}", f"./bot{i}", [])) for i in range(seats)]
    tid = store.new_tournament(game, plugin.spec.version, params.model_dump(mode="json"), seed, 1, "match",
                               entrants, {"timeout": 1.0})
    league.add_tournament(tid, "scheduled")
    mid = store.add_match(tid, {
        "round": 0, "idx": 0, "seats": list(range(seats)), "seed": seed, "completed": True, "hands": outcome.hands,
        "scores": run.scores(), "payoffs": list(outcome.payoffs), "faults": [], "timings": {},
        "transcript": str(path), "log_dir": None})
    store.finish_tournament(tid)
    return {"id": mid, "game": game, "payoffs": [float(p) for p in outcome.payoffs], "hands": outcome.hands,
            "replies": [text for _, d, text in wire if d == "<-"], "names": [e[0] for e in entrants],
            "wire": wire[:cut], "params": params}


async def _page(site: Site, match_id: int, api: bool = False) -> tuple[int, str]:
    path = f"{'/api' if api else ''}/matches/{match_id}"
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [], "path_params": {"match": match_id}, "app": type("App", (), {"state": type(
                 "State", (), {"site": site})})(), "scheme": "http", "server": ("test", 80), "root_path": ""}
    response = await match_page(Request(scope))
    return response.status_code, response.body.decode()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each match's page (HTML and JSON twin), rendered once for every test here."""
    folder = tmp_path_factory.mktemp("steps")
    store = open_store(folder / "league.db")
    league = League(store)
    stored = [_store_match(store, league, folder, *m) for m in MATCHES]
    # A transcript cut short (a disk that filled, say): read back as far as it goes.
    cut = _store_match(store, league, folder, "pennies", {"rounds": 7}, "pen-cut", 0, cut=25)
    site = Site(league, LeagueRunner(league, store, None, LeagueSettings(games=["pennies"]), log=lambda _: None))

    async def render() -> list[tuple[dict, str, str]]:
        return [(m, (await _page(site, m["id"]))[1], (await _page(site, m["id"], api=True))[1])
                for m in [*stored, cut]]

    try:
        yield trio.run(render)
    finally:
        store.close()


def _chart_ends(html: str) -> dict[str, float]:
    chart = re.search(r'<div class="chartbox" id="winnings">(.*?)</svg>', html, re.S)
    assert chart, "no chart on the page"
    lines = re.findall(r'<polyline [^>]*points="[^"]+"><title>([^<]*): ([-0-9.e+]+)</title>', chart[1])
    assert len(lines) == chart[1].count("<polyline"), "a line without its end value"
    return {label: float(value) for label, value in lines}


@pytest.mark.parametrize("n", range(len(MATCHES)), ids=[f"{m[0]}-{m[2]}" for m in MATCHES])
def test_every_game_gets_a_chart_ending_at_its_stored_result_and_its_steps_in_words(pages, n):
    match, html, _ = pages[n]
    # One line per seat, ending where the stored result says.
    assert _chart_ends(html) == dict(zip(match["names"], match["payoffs"]))
    assert html.count("<polyline") == len(match["names"])
    assert "Read back up to" not in html and "stored result only" not in html
    # The steps table: every reply of the match, in order, in words.
    table = re.search(r'<table id="steps".*?</table>', html, re.S)
    assert table, "no steps table"
    did = [html_text.unescape(d) for d in re.findall(r'<td class="did">([^<]*)</td>', table[0]) if d]
    assert did == [words(reply) for reply in match["replies"]]
    assert all(reply.startswith("{") for reply in match["replies"])
    assert "{&#34;type" not in table[0]  # JSON lines read as words, not as JSON


def test_the_steps_read_in_the_games_own_words(pages):
    by_game = {m["game"]: html for m, html, _ in pages[:3]}
    # pennies' seat view tells the throw in words; its reply, a JSON line, reads as words.
    assert re.search(r'<td class="told">Throw 1</td><td class="did">coin: side (heads|tails)</td>',
                     by_game["pennies"]), by_game["pennies"][-3000:]
    # von Neumann poker has a seat view: what a seat is told is the person's screen.
    assert re.search(r'<td class="told">Game 1: your card 0\.\d{4}; your money', by_game["vonneumann"])
    # The x axis counts the game's unit.
    assert "throws played" in by_game["pennies"] and "turns played" in by_game["rpsdraft"]
    assert "games played" in by_game["vonneumann"]


def test_a_transcript_cut_short_is_read_back_as_far_as_it_goes(pages):
    match, html, api = pages[-1]
    assert "Read back up to where the match stopped" in html
    ends = _chart_ends(html)
    assert len(ends) == 2 and ends != dict(zip(match["names"], match["payoffs"]))
    assert '"complete":false' in api.replace(" ", "") and '"steps_total":' in api


def test_a_long_match_keeps_only_the_rows_a_page_shows_and_counts_the_rest(pages):
    match = pages[2][0]
    plugin = load_game(match["game"])
    everything, total = _steps(plugin, match["params"], match["wire"], 10_000)
    first, counted = _steps(plugin, match["params"], match["wire"], 5)
    assert total == counted == len(everything) > 5 and first == everything[:5]
