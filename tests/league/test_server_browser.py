"""The league in a real browser: Playwright driving Debian's chromium (its
headless shell when installed: tests/league/conftest.py) through the pages
(log in, submit by the form, watch quarantine, find the bot on the leaderboard
after a scheduled tournament, step through one of its matches, a broken bot's
failing step). The screenshots in docs/img are made here."""

from __future__ import annotations

import os
import re

import pytest

from ..conftest import ROOT, processes_with
from .league_server import League, add_user, new_user

pytestmark = pytest.mark.slow

#: `make screenshots` sets it: the pictures in docs/img are taken here.
UPDATE = os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1"


def _settled(server: League, page, state: str) -> None:
    """Wait for the bot whose page ``page`` shows to leave the pipeline, then
    load its page once: it must say ``state``. The wait asks the server's API
    (about 2 ms of CPU a request, client and server) rather than reloading the
    page (50 to 150 ms of the browser's and Playwright's driver's a load)."""
    from playwright.sync_api import Error

    bot = int(page.url.rsplit("/", 1)[1])
    server.settled(bot, timeout=150)
    # The page may be refreshing itself (a bot without a match yet) as it is
    # reloaded here: a reload that loses that race is tried again.
    for attempt in range(5):
        try:
            page.reload()
            shown = page.locator(".version [data-state]").first.inner_text()
            break
        except Error:
            if attempt == 4:
                raise
    assert shown == state, f"{page.url} says {shown!r}, not {state!r}:\n{page.content()[:3000]}"


def test_log_in_submit_watch_quarantine_leaderboard_and_a_match(browser, tmp_path):
    from playwright.sync_api import expect

    # Always taken (the pages must render); copied into docs/img by `make screenshots`.
    SHOTS = ROOT / "docs" / "img" if UPDATE else tmp_path
    db = tmp_path / "web.db"
    # The house's two bots (an admin's: the organiser's, which may share a table) and alice's.
    host, alice = new_user(db, "host", admin=True), add_user(db, "alice")
    # The first scheduled tournament is due 20 s after the server starts, when the three bots are
    # in (with fewer there is none, and the next is due 20 s later), and the test is over before
    # the one after: not a tournament every 5 s for the whole test (the server's CPU grew with the
    # time the test took, 15 s of it under `make test`'s load).
    server = League(db, "--game", "kuhn3", "-p", "kuhn3.hands=10", "--quarantine-matches", "3", "--every", "20s")
    try:
        # Two compiled opponents (cheap matches).
        for binary, name in (("rule_bot", "rule-c"), ("rule_bot_rs", "rule-rust")):
            data = (ROOT / "sample_bots/kuhn3/build" / binary).read_bytes()
            assert server.submit(host, binary, data, name=name).status_code == 201
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        _log_in(page, server, alice)
        assert "alice" in page.inner_text("header")

        # Submit by the form.
        page.click("text=Submit")
        page.select_option("#game", "kuhn3")
        page.fill("#name", "equilibrium")
        page.set_input_files("#file", str(ROOT / "sample_bots/kuhn3/equilibrium_bot.py"))
        page.click("form.card button")
        page.wait_for_url("**/bots/*")
        bot_url = page.url
        # The page follows its bot through the pipeline in place (live.js asks every 3 s), not by reloading.
        first = page.locator(".version [data-state]").first.inner_text()
        assert first in ("received", "built", "quarantined"), first
        page.evaluate("window.stillThisPage = true")
        expect(page.locator(".version [data-state]").first).to_have_text("active", timeout=150_000)
        assert page.evaluate("window.stillThisPage === true")
        _settled(server, page, "active")
        assert page.locator(".steps li").filter(has_text="quarantine").first.inner_text().startswith("PASS")

        # A scheduled tournament puts it on the leaderboard.
        bot = int(bot_url.rsplit("/", 1)[1])
        server.wait("a scheduled tournament and the bot rated", lambda: any(
            t["kind"] == "scheduled" and t["status"] == "finished"
            for t in server.http.get("/api/tournaments").json()["tournaments"]) and any(
            r["bot"] == bot for r in server.http.get("/api/games/kuhn3").json()["rows"]), timeout=150)
        page.goto(server.url + "/games/kuhn3")
        assert page.locator("#leaderboard tr", has_text="equilibrium").count() == 1
        row = page.locator("#leaderboard tr", has_text="equilibrium").inner_text()
        assert "alice" in row and "±" in row
        assert page.locator("#leaderboard svg.spark").count() == 3  # each bot's rating over its matches
        page.screenshot(path=str(SHOTS / "league-leaderboard.png"), full_page=True)

        page.goto(bot_url)
        page.screenshot(path=str(SHOTS / "league-bot.png"), full_page=True)
        # Its rating over its matches, drawn on the server (an SVG, no script), at a desk's width and a phone's.
        assert page.locator(".rating-chart svg.chart polygon.band").count() == 1
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), width
            if UPDATE:  # (pictures cost CPU: taken for docs/img only)
                page.screenshot(path=str(SHOTS / f"league-bot-{width}.png"), full_page=True)
        page.set_viewport_size({"width": 1100, "height": 800})
        page.locator("#matches a").first.click()
        page.wait_for_url("**/matches/*")
        assert "Seed" in page.inner_text("main") and "arena play kuhn3" in page.inner_text("#replay")
        # kuhn3's hands drawn; the protocol transcript is one click away.
        assert page.locator("section.hand").count() == 10 and page.locator("#winnings svg.chart").count() == 1
        assert not page.locator("#next").is_visible()
        page.click("#raw summary")
        page.click("#next")
        page.wait_for_url("**step=1*")
        assert page.inner_text("#now").startswith("2/")
        page.screenshot(path=str(SHOTS / "league-match.png"), full_page=True)

        # On a phone the pages fit the screen (wide tables scroll in their own box).
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        for path in ("/games/kuhn3", bot_url.removeprefix(server.url), "/tournaments"):
            phone.goto(server.url + path)
            assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), path
        # Logged in, too (alice's cookies in the phone's context: a new context costs the browser a
        # renderer and a profile of their own): the header keeps to two rows at most and the
        # leaderboard scrolls in its box.
        phone.context.add_cookies(page.context.cookies())
        phone.goto(server.url + "/games/kuhn3")
        assert "alice" in phone.inner_text("header")
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        # Rows: the items' vertical centres, a new row wherever two are more than 12 px apart.
        centres = sorted(phone.evaluate("[...document.querySelectorAll('header a, header span, header button')]"
                                        ".map(e => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; })"))
        rows = 1 + sum(1 for a, b in zip(centres, centres[1:]) if b - a > 12)
        assert rows <= 2, f"the logged-in header takes {rows} rows at 390 px"
        phone.close()

        # A broken bot shows the step it failed, in words.
        page.goto(server.url + "/submit")
        broken = tmp_path / "crash.py"
        broken.write_text("#!/usr/bin/env python3\nimport sys\nsys.exit(3)\n")
        page.fill("#name", "crasher")
        page.set_input_files("#file", str(broken))
        page.click("form.card button")
        page.wait_for_url("**/bots/*")
        _settled(server, page, "rejected")
        message = page.inner_text(".version .error")
        assert "quarantine step" in message and "exited" in message
        page.screenshot(path=str(SHOTS / "league-rejected.png"), full_page=True)
        # Alice's own page lists it with the step it failed; the server's log names the step too.
        page.click("#mine-link")
        row = page.locator("#mine tr", has_text="crasher").inner_text()
        assert "rejected" in row and "failed its quarantine step" in row, row
        assert "Rejected: crasher v1 (kuhn3, alice) at its quarantine step: quarantine" in server.stderr()
        # The tournament page: its parameters and standings, not only its matches.
        page.goto(server.url + "/tournaments/1")
        assert "hands" in page.inner_text("#rules")
        assert page.locator("#standings tr").count() == 1 + 3
    finally:
        assert server.stop() == 130, server.stderr()  # stopped by SIGINT, as Ctrl-C does


def _log_in(page, server: League, token: str) -> None:
    page.goto(server.url + "/login")
    page.fill("#token", token)
    page.click("form.card button")
    page.wait_for_url(server.url + "/")


def _streams_are_events_and_a_user_holds_a_few(server: League, token: str, friendly: str) -> None:
    """The friendly's event stream says its revision; one user holds at most 8 streams (the
    page in the browser may hold one of them), the next is refused in words."""
    import contextlib

    import httpx

    with contextlib.ExitStack() as stack:
        web = stack.enter_context(httpx.Client(base_url=server.url, timeout=30,
                                               headers={"Authorization": f"Bearer {token}"}))
        opened = []
        for _ in range(9):
            r = stack.enter_context(web.stream("GET", f"/play/{friendly}/events"))
            if r.status_code != 200:
                break
            opened.append(r)
        assert r.status_code == 429 and "already follows 8 pages live" in r.read().decode(), r.status_code
        assert 7 <= len(opened) <= 8, len(opened)
        assert opened[0].headers["content-type"].startswith("text/event-stream")
        lines = opened[0].iter_lines()
        assert next(lines) == "retry: 1000"
        assert next(lines) == ""
        assert next(lines) == "event: change" and re.fullmatch(r"data: \d+", next(lines))


def _complaints(page) -> list[str]:
    """What the browser reports against ``page`` as it goes: console errors and warnings (a
    Content-Security-Policy violation is one), uncaught script errors, failed requests."""
    found: list[str] = []
    page.on("console", lambda m: found.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: found.append(f"page error: {exc}"))
    page.on("response", lambda r: found.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return found


def test_play_a_holdem_friendly_in_the_browser_then_see_it_drawn(browser, tmp_path):
    SHOTS = ROOT / "docs" / "img" if UPDATE else tmp_path
    db = tmp_path / "play.db"
    # (bob and cy are made in this process: `arena users add` and its token in the browser are test 1's)
    host, bob = new_user(db, "host"), new_user(db, "bob")
    server = League(db, "--game", "holdem", "-p", "holdem.hands=4", "--quarantine-matches", "3", "--every", "1h",
                    "--play-idle", "5")
    try:
        data = (ROOT / "sample_bots/holdem/build/call_bot").read_bytes()
        caller = server.submit(host, "call_bot", data, game="holdem", name="caller").json()["bot"]
        assert server.settled(caller)["state"] == "active"
        # Played without scripts: the page reloads itself while the bots play (its <noscript> refresh).
        page = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
        _log_in(page, server, bob)

        page.click("header >> text=Play")
        page.check("#play-holdem input[name=opponents]")
        page.fill("#hands-holdem", "3")
        page.click("#play-holdem button")
        page.wait_for_url("**/play/*")
        decisions = 0
        page.set_viewport_size({"width": 375, "height": 667})  # a phone: every decision played there
        while True:
            page.wait_for_selector("#decision, #over", timeout=30_000)  # the page reloads itself meanwhile
            if page.locator("#over").count():
                break
            screen = page.text_content("#screen")
            assert "your cards" in screen and "Your turn" in screen
            # the decision in view without scrolling, the table under it: your cards face up, the
            # other seat's hidden, both named with their stacks
            box = page.locator("#decision").bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 667, box
            seats = page.locator("#seats tr")
            assert seats.count() == 2 and "bob" in page.inner_text("#seats") and "caller v1" in page.inner_text("#seats")
            assert page.locator("#seats tr.you .pc:not(.back)").count() == 2
            assert page.locator("#seats tr:not(.you) .pc.back").count() == 2
            if decisions == 0:
                for width in (1280, 375):
                    page.set_viewport_size({"width": width, "height": 900 if width > 375 else 667})
                    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), width
                    if UPDATE:
                        page.screenshot(path=str(SHOTS / f"league-play-{width}.png"), full_page=True)
                # A raise, with its amount: the smallest one offered.
                page.click("#decision button[value=raise]")
            else:
                word = "check" if page.locator("#decision button[value=check]").count() else "call"
                page.click(f"#decision button[value={word}]")
            page.wait_for_load_state()
            decisions += 1
        page.set_viewport_size({"width": 1280, "height": 900})
        assert decisions >= 3
        assert "Match over" in page.text_content("#screen")
        page.click("#over a")
        page.wait_for_url("**/matches/*")
        hands = page.locator("section.hand")
        assert hands.count() == 3
        assert "bob" in hands.first.inner_text() and "caller v1" in hands.first.inner_text()
        # its replay seats a person where bob sat (not a program named ./bob)
        replay = page.inner_text("#replay")
        assert "bob=human " in replay and "./bob" not in replay, replay
        assert "raises to" in page.inner_text(".hands")
        assert page.locator(".hands .pc").count() >= 3 * (4 + 5)  # two hole cards a seat, five on the board
        assert page.locator("#winnings svg.chart polyline").count() == 2
        assert not page.locator("#next").is_visible()
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), width
            if UPDATE:
                page.screenshot(path=str(SHOTS / f"league-match-{width}.png"), full_page=True)
        # Never rated: the leaderboard has only what league tournaments rated (none here).
        assert server.http.get("/api/games/holdem").json()["rows"] == []

        # A friendly nobody answers is abandoned after --play-idle: the person's seat faults, the bots are
        # stopped. With scripts, the page follows it in place (server-sent events): no reload, the
        # reader's place and open fold kept, no console error or policy violation.
        live = browser.new_page(viewport={"width": 375, "height": 667})
        complaints = _complaints(live)
        _log_in(live, server, bob)
        live.goto(server.url + "/play")
        live.check("#play-holdem input[name=opponents]")
        live.fill("#hands-holdem", "3")
        live.click("#play-holdem button")
        live.wait_for_url("**/play/*")
        live.wait_for_selector("#decision")
        _streams_are_events_and_a_user_holds_a_few(server, bob, live.url.rsplit("/", 1)[1])
        live.evaluate("window.stillThisPage = true")
        if not live.evaluate("document.getElementById('log').open"):  # (open when no table is drawn yet)
            live.click("#log summary")  # the fold opened, then scrolled down to it
        assert live.evaluate("document.getElementById('log').open")
        live.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        live.wait_for_selector("#over", timeout=60_000)
        assert live.evaluate("window.stillThisPage === true")  # updated in place, not reloaded
        assert live.evaluate("document.getElementById('log').open")
        assert "the match is abandoned" in live.text_content("#screen")
        assert not complaints, complaints
        as_bob = {"Authorization": f"Bearer {bob}"}
        left = server.http.get(f"/api/play/{live.url.rsplit('/', 1)[1]}", headers=as_bob).json()["friendly"]
        assert left["over"] and "the match is abandoned" in left["screen"]
        stored = server.http.get(f"/api/matches/{left['match']}").json()
        assert [(f["seat"], f["kind"]) for f in stored["faults"]] == [(0, "disconnected")], stored["faults"]
        assert not [p for p in processes_with(str(tmp_path)) if p[0] != server.proc.pid]

        # My bots: every version of mine with its state.
        _log_in(page, server, host)
        page.click("#mine-link")
        assert "caller" in page.inner_text("#mine") and "active" in page.inner_text("#mine")
    finally:
        assert server.stop() == 130, server.stderr()


#: games of every kind a person plays in the browser: (game, opponent's file, its upload name)
FRIENDLIES = [
    ("openspiel:liars_dice", "sample_bots/openspiel/build/random_bot", "random_bot"),
    ("openspiel:leduc_poker", "sample_bots/openspiel/build/random_bot", "random_bot"),
    ("rpsdraft", "sample_bots/rpsdraft/minimal_bot.py", "minimal_bot.py"),
    ("twocarddraw", "sample_bots/twocarddraw/pair_of_fours.js", "pair_of_fours.js"),
    # kuhn3 seats two bots: the second of another owner (one owner's bots never share a table)
    ("kuhn3", "sample_bots/kuhn3/build/rule_bot", "rule_bot"),
]


def test_a_person_plays_openspiel_rpsdraft_twocarddraw_and_kuhn3_in_the_browser_on_a_phone(browser, tmp_path):
    # The page asks with the game's own named choices (OpenSpiel's action
    # names, card codes, stand/draw N), read from the seat's events, never
    # from a prompt's text; a word the game does not offer is refused in words.
    db = tmp_path / "kinds.db"
    host, cy, dee = new_user(db, "host"), new_user(db, "cy"), new_user(db, "dee")
    games = [g for g, _, _ in FRIENDLIES]
    server = League(db, *[x for g in games for x in ("--game", g)], "-p", "twocarddraw.hands=3",
                    "-p", "rpsdraft.draft_rounds=2", "-p", "rpsdraft.turns=2", "-p", "kuhn3.hands=10", "--quarantine-matches", "3",
                    "--every", "1h")
    try:
        bots = {}
        for game, path, upload in FRIENDLIES:
            r = server.submit(host, upload, (ROOT / path).read_bytes(), game=game, name="house")
            assert r.status_code == 201, r.text
            bots[game] = r.json()["bot"]
        second = server.submit(dee, "check_fold_bot.py", (ROOT / "sample_bots/kuhn3/check_fold_bot.py").read_bytes(),
                               game="kuhn3", name="folder").json()["bot"]
        for game, bot in [*bots.items(), ("kuhn3", second)]:
            assert server.settled(bot)["state"] == "active", (game, server.version(bot))
        # a phone: every decision of every game is in view without scrolling
        page = browser.new_page(viewport={"width": 375, "height": 667})
        complaints = _complaints(page)
        _log_in(page, server, cy)
        for game in games:
            page.goto(server.url + "/play")
            form = f"[id='play-{game}']"
            # Only a game played in hands asks how many.
            assert page.locator(f"{form} input[name=hands]").count() == (game in ("twocarddraw", "kuhn3")), game
            if game in ("twocarddraw", "kuhn3"):
                page.fill(f"{form} input[name=hands]", "2")  # a hand's end and the next (the form says 5)
            for box in page.locator(f"{form} input[name=opponents]").all():
                box.check()
            page.click(f"{form} button")
            page.wait_for_url("**/play/*")
            decisions = 0
            while True:
                page.wait_for_selector("#decision, #over", timeout=30_000)
                if page.locator("#over").count():
                    break
                words = page.locator("#decision button[name=choice]").evaluate_all("bs => bs.map(b => b.value)")
                assert words and not any("{" in w for w in words), (game, words)
                box = page.locator("#decision").bounding_box()
                assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 667, (game, box)
                if game == "kuhn3":  # the other seats by name, their moves in words
                    told = page.text_content("#screen")
                    assert "house v1 (" in told and "folder v1 (" in told and "anted" in told, told
                if decisions == 0:
                    # The page offers only the game's words; one posted by hand is refused in words.
                    token = page.locator("#decision input[name=csrf]").get_attribute("value")
                    refused = page.request.post(page.url, form={"csrf": token, "choice": "nonsense"})
                    assert refused.status == 400 and "is not one of" in refused.text(), refused.text()
                page.locator("#decision button[name=choice]").last.click()
                page.wait_for_load_state()
                decisions += 1
            assert decisions >= 1, game
            screen = page.text_content("#screen")
            assert "try again" not in screen and ("Match over" in screen or "Round over" in screen), (game, screen)
            if game == "kuhn3":  # your own choices on the log, which has no echo
                assert "  you: " in screen, screen
            stored = server.http.get(f"/api/matches/{page.locator('#over a').first.get_attribute('href').split('/')[-1]}").json()
            assert stored["faults"] == [], (game, stored["faults"])
        # (the refused post above is the one error response: the page itself never errs)
        assert [c for c in complaints if not c.startswith("400: ")] == [], complaints
    finally:
        assert server.stop() == 130, server.stderr()

