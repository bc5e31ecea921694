"""The league's charts in a real browser (Playwright, Debian's chromium), on
the run's shared league: the Content-Security-Policy stays strict (no inline
style), Chromium reports no violation and no console error on any page with
a chart, and the legend tells the lines apart by colour, from the stylesheet."""

from __future__ import annotations

import re

import pytest

from arena.league._charts import COLOURS

from ..conftest import ROOT

pytestmark = pytest.mark.slow


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_the_stylesheet_colours_every_line_and_key_of_the_palette():
    css = (ROOT / "arena/league/templates/style.css").read_text()
    for i, colour in enumerate(COLOURS):
        assert f"svg.chart .s{i} {{ stroke: {colour}; }}" in css, i
        assert f"ul.legend .key.s{i} {{ background-color: {colour}; }}" in css, i


def test_chart_pages_keep_a_strict_policy_and_the_legend_is_coloured(league, browser):
    finished = [t["id"] for t in league.http.get("/api/tournaments").json()["tournaments"] if t["status"] == "finished"]
    played = ((tid, [m["id"] for m in got["matches"] if not m["faults"] and m["status"] == "done"])
              for tid in finished for got in [league.http.get(f"/api/tournaments/{tid}").json()])
    tid, match = next((tid, ids[0]) for tid, ids in played if ids)
    policy = league.http.get(f"/matches/{match}").headers["content-security-policy"]
    assert "style-src 'self'" in policy and "script-src 'self';" in policy and "unsafe" not in policy

    page = browser.new_page(viewport={"width": 1100, "height": 800})
    complaints: list[str] = []
    page.on("console", lambda msg: complaints.append(f"{msg.type}: {msg.text} ({msg.location.get('url')})") if msg.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda exc: complaints.append(f"page error: {exc}"))
    page.on("response", lambda r: complaints.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    try:
        for path in ("/", "/games/kuhn3", f"/bots/{league.pool[0]}", "/tournaments", f"/tournaments/{tid}",
                     f"/matches/{match}"):
            response = page.goto(league.url + path)
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("load")
            assert not complaints, (path, complaints)
        # The match's chart: a line per seat, each a colour of its own, the same as its key in the legend.
        seats = len(league.http.get(f"/api/matches/{match}").json()["seats"])
        strokes = page.locator("#winnings svg.chart polyline").evaluate_all(
            "ls => ls.map(l => getComputedStyle(l).stroke)")
        keys = page.locator("#winnings ul.legend .key").evaluate_all(
            "ks => ks.map(k => getComputedStyle(k).backgroundColor)")
        assert len(strokes) == len(keys) == seats == 3
        assert len(set(keys)) == seats, keys
        assert keys == strokes == [_rgb(c) for c in COLOURS[:seats]], (keys, strokes)
        # Each key is a visible swatch beside its bot's name.
        boxes = page.locator("#winnings ul.legend .key").evaluate_all(
            "ks => ks.map(k => { const r = k.getBoundingClientRect(); return [r.width, r.height]; })")
        assert all(w >= 8 and h >= 8 for w, h in boxes), boxes
        legend = page.inner_text("#winnings ul.legend")
        for seat in league.http.get(f"/api/matches/{match}").json()["seats"]:
            assert seat["name"] in legend, (seat, legend)
        assert re.search(r"[+-]\d", legend)  # each bot's total at the end
        assert not page.locator("[style]").count()  # nothing inline for the policy to refuse
    finally:
        page.close()


def _kind(path: str) -> str:
    return re.sub(r"/\d+", "/N", path)


def test_every_league_page_draws_with_no_console_error_or_policy_violation(league, browser):
    """Crawl the league as a visitor and as its admin (every link of every page kind, two pages
    a kind): each answers 200 and the browser reports nothing against it: no console error or
    warning (a Content-Security-Policy violation is one), no script error, no failed request."""
    from .test_server_browser import _complaints

    seen_kinds: set[str] = set()
    for who in (None, "ada"):
        # (the admin by their token on every request: the server allows few log-ins per address)
        page = browser.new_page(viewport={"width": 1100, "height": 800},
                                extra_http_headers={"Authorization": f"Bearer {league.tokens[who]}"} if who else None)
        complaints = _complaints(page)
        todo, visited, kinds = ["/", "/login", "/play", "/mine", "/submit"], set(), {}
        while todo:
            path = todo.pop(0)
            kind = _kind(path)
            if path in visited or kinds.get(kind, 0) >= 2 or len(visited) >= 60:
                continue
            visited.add(path)
            kinds[kind] = kinds.get(kind, 0) + 1
            response = page.goto(league.url + path)
            assert response is not None and response.status == 200, (who, path, response and response.status)
            page.wait_for_load_state("load")
            assert not complaints, (who, path, complaints)
            if "html" not in response.headers.get("content-type", ""):
                continue
            for href in page.locator("a[href^='/']").evaluate_all("as => as.map(a => a.getAttribute('href'))"):
                href = href.split("#")[0]
                if href and not href.startswith(("/api/", "/static/")) and href not in visited:
                    todo.append(href)
        seen_kinds |= set(kinds)
        page.close()
    # the crawl reached every kind of page the league has (a visitor's and a user's)
    for kind in ("/", "/games/kuhn3", "/bots/N", "/versions/N/h2h", "/tournaments", "/tournaments/N",
                 "/matches/N", "/login", "/play", "/mine", "/submit", "/matches/N/stderr/N"):
        assert kind in seen_kinds, (kind, sorted(seen_kinds))
