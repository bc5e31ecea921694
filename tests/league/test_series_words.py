"""A league tournament's page says what its rank counts and what the rating
counts, and says so outright where a two-bot series would otherwise
contradict itself (first by points, behind on matches won). Rendered in this
process from a real SQLite file, as tests/league/test_match_steps.py does."""

from __future__ import annotations

import html as html_text
import json
import re

import pytest
import trio
from starlette.requests import Request

from arena.league._db import League
from arena.league._runner import LeagueRunner, LeagueSettings
from arena.league._web import Site, tournament_page
from arena.results._store import open_store


def _series(store, league, names: list[str], mine: list[float], game: str = "pennies") -> int:
    """A finished league tournament of two entrants: ``mine[i]`` is the first one's score in match i."""
    entrants = [(n, store.bot_id(n, f"./{n}", [])) for n in names]
    tid = store.new_tournament(game, 1, {}, "7", len(mine) // 2, "match", entrants, {"timeout": 1.0})
    league.add_tournament(tid, "scheduled")
    for i, a in enumerate(mine):
        seats, scores = ([0, 1], [a, -a]) if i % 2 == 0 else ([1, 0], [-a, a])
        store.add_match(tid, {"round": i // 2, "idx": i % 2, "seats": seats, "seed": f"s{i}", "completed": True,
                              "hands": 10, "scores": scores, "payoffs": scores, "faults": [], "timings": {}})
    store.finish_tournament(tid)
    return tid


async def _page(site: Site, tid: int, api: bool = False) -> str:
    path = f"{'/api' if api else ''}/tournaments/{tid}"
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [], "path_params": {"tournament": tid}, "app": type("App", (), {"state": type(
                 "State", (), {"site": site})})(), "scheme": "http", "server": ("test", 80), "root_path": ""}
    response = await tournament_page(Request(scope))
    assert response.status_code == 200
    return bytes(response.body).decode()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("series")
    store = open_store(folder / "league.db")
    league = League(store)
    # odds wins 4 of 20 matches by 10 points and loses 16 by 1: first by points, behind on matches won
    split = _series(store, league, ["odds", "simple"], [10.0 if i % 5 == 0 else -1.0 for i in range(20)])
    agree = _series(store, league, ["steady", "wild"], [1.0] * 20)
    site = Site(league, LeagueRunner(league, store, None, LeagueSettings(games=["pennies"]), log=lambda _: None))

    async def render() -> dict[str, tuple[str, dict]]:
        return {name: (await _page(site, tid), json.loads(await _page(site, tid, api=True)))
                for name, tid in (("split", split), ("agree", agree))}

    try:
        yield trio.run(render)
    finally:
        store.close()


def _text(html: str, element: str) -> str:
    found = re.search(rf'<p [^>]*id="{element}"[^>]*>(.*?)</p>', html, re.S)
    assert found, f"no #{element} on the page"
    return " ".join(html_text.unescape(re.sub(r"<[^>]+>", "", found[1])).split())


def test_the_page_says_what_the_rank_and_the_rating_count(pages):
    html, api = pages["agree"]
    assert _text(html, "ranking") == ("Ranked by points in total. The rating counts matches won, drawn and lost, "
                                      "not how many points: a match is won by the bot with more points in it.")
    assert "Score (points)" in html
    assert 'id="disagree"' not in html
    assert api["ranking"] == {"by": "score", "unit": "points", "rating_counts": "matches won, drawn and lost",
                              "disagree": None}


def test_a_series_first_by_points_and_behind_on_matches_says_so(pages):
    html, api = pages["split"]
    assert [r["bot"] for r in api["standings"]] == ["odds", "simple"]
    assert api["standings"][0]["rating_mu"] < api["standings"][1]["rating_mu"]  # the rating counts matches won
    said = ("odds ranks first by points but won 4 and lost 16 of its 20 matches against simple: "
            "odds won by more, simple more often.")
    assert _text(html, "disagree") == said and api["ranking"]["disagree"] == said
