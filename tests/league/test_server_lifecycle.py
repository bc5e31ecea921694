"""The league server's life: the demo `make serve` starts, rate limits and
the schedule, and a crash in the middle of a tournament. Each test has a
server of its own."""

from __future__ import annotations

import os
import signal
import sqlite3

import pytest

from .league_server import League, new_user, sample, tar_gz
from .test_self_healing import GAME, GAME_ARGS, add_compiled_bots

pytestmark = pytest.mark.slow


@pytest.mark.timeout(300)  # some 20 s of it are the slow bot idling, on top of what a busy machine stretches
def test_a_server_killed_mid_tournament_resumes_it_without_losing_or_repeating(tmp_path):
    db = tmp_path / "resume.db"
    token = new_user(db, "ada", admin=True)
    args = (*GAME_ARGS, "--rounds", "3", "--every", "1h")
    server = League(db, *args)
    try:
        # Two compiled bots, one of them slow to start: 6 matches of a second each at least,
        # so that some 3 s of the tournament are left when the kill comes, at little CPU.
        add_compiled_bots(server, token)
        server.wait("placements", lambda: not server.http.get("/api/games").json()["live"])
        r = server.http.post("/api/tournaments/start", headers={"Authorization": f"Bearer {token}"},
                             data={"game": GAME})
        assert r.status_code == 202
        live = server.wait("the tournament to be under way", lambda: [
            t for t in server.http.get("/api/games").json()["live"] if t["kind"] == "manual" and t["done"] >= 2])
        tid = live[0]["tid"]
        # A crash: the whole process group dies at once, with matches in flight.
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
    finally:
        server.stop()
    with sqlite3.connect(db) as conn:
        before = dict(conn.execute("SELECT id, finished FROM matches WHERE tournament=? AND status='done'", (tid,)))
        total = conn.execute("SELECT COUNT(*) FROM matches WHERE tournament=?", (tid,)).fetchone()[0]
    assert 2 <= len(before) < total, "kill the server while the tournament runs"
    again = League(db, *args)
    try:
        again.wait("the resumed tournament to finish", lambda: again.http.get(
            f"/api/tournaments/{tid}").json()["tournament"]["status"] == "finished", timeout=240)
        assert f"Resuming tournament {tid}" in again.stderr()
    finally:
        assert again.stop() == 130
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT id, round, idx, status, finished FROM matches WHERE tournament=?", (tid,)).fetchall()
    assert len(rows) == total and all(r[3] == "done" for r in rows)
    assert len({(r[1], r[2]) for r in rows}) == total
    for mid, _, _, _, finished in rows:  # the matches stored before the kill were not played again
        if mid in before:
            assert finished == before[mid]


def test_the_demo_league_admits_every_sample_bot_and_the_limits_hold(tmp_path):
    """What `make serve` starts (the sample bots submitted, built, admitted),
    with a small submission limit, the login limit and a build time limit.
    (The schedule is seen at work in tests/league/test_server_browser.py.)"""
    db = tmp_path / "demo.db"
    sam = new_user(db, "sam")
    slow = new_user(db, "slow")
    server = League(db, "--demo", "--game", "kuhn3", "-p", "kuhn3.hands=10", "--quarantine-matches", "3",
                    "--every", "1h", "--submit-limit", "3", "--build-seconds", "2", "--placement-matches", "6")
    try:
        token_file = tmp_path / "demo-data" / "demo-token"
        assert token_file.stat().st_mode & 0o077 == 0
        token = token_file.read_text().strip()
        assert server.http.get("/api/bots/1", headers={"Authorization": f"Bearer {token}"}).json()["mine"]
        # A build that does not finish in time is stopped and named (sent first: its 2 s pass
        # while the sample bots go through the pipeline beside it).
        r = server.submit(slow, "b.tar.gz", tar_gz({"arena.toml": b'run = "./bot"\nbuild = "sleep 60"\n'}),
                          name="slow-build")
        assert r.status_code == 201, r.text
        slow_bot = r.json()["bot"]
        # Every attempt counts, refused ones included.
        for _ in range(3):
            assert server.submit(sam, "e.py", b"").status_code == 400
        r = server.submit(sam, "random_bot.py", sample("random_bot.py"))
        assert r.status_code == 429 and "3 submissions an hour" in r.json()["error"]
        for _ in range(10):
            server.http.post("/login", data={"token": "x"})
        assert server.http.post("/login", data={"token": "x"}).status_code == 429
        for bot in range(1, 6):  # the server's own seeding is not rate-limited
            v = server.settled(bot)
            assert v["state"] == "active", v
        v = server.settled(slow_bot)
        assert v["state"] == "rejected" and "did not finish within 2 s" in v["message"], v
        # A tournament under way when the server is stopped: its worker processes share the group.
        # The one asked for here (60 matches), or a placement still in play before it (one
        # tournament at a time, 6 matches): with a match played, so that its worker is there,
        # and several still to play, so that none ends as the stop comes (it would say so after).
        r = server.http.post("/api/tournaments/start", headers={"Authorization": f"Bearer {token}"},
                             data={"game": "kuhn3"})
        assert r.status_code == 202, r.text
        server.wait("a tournament to be under way", lambda: [
            t for t in server.http.get("/api/games").json()["live"] if t["done"] >= 1 and t["total"] - t["done"] >= 4])
    finally:
        # Ctrl-C as a terminal sends it, to the whole process group: one line, nothing after it.
        assert server.stop() == 130, server.stderr()
    said = server.said_on_stop
    assert not any(noise in said for noise in ("Traceback", "KeyboardInterrupt", "Exception Group")), said
    assert said.rstrip("\n").rsplit("\n", 1)[-1].startswith("Stopped the league (SIGINT): "), said
    assert said.count("Stopped the league") == 1, said


def test_nothing_is_logged_after_the_stop_line(capsys):
    """A tournament woken with its last result as the server stops used to log
    "Finished tournament …" after the one stop line; the stop line now ends the log."""
    from arena.league import _server

    try:
        _server.log("Finished tournament 1 (kuhn3, manual): 6 matches, 0 faults")
        _server._last_line("Stopped the league (SIGINT): matches in flight are abandoned")
        _server.log("Finished tournament 2 (kuhn3, placement): 6 matches, 0 faults")
        assert capsys.readouterr().err.splitlines() == [
            "Finished tournament 1 (kuhn3, manual): 6 matches, 0 faults",
            "Stopped the league (SIGINT): matches in flight are abandoned"]
    finally:
        _server._stopped = False  # this process serves again in later tests
