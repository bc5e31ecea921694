"""A league that heals itself (issue 47): a tournament stopped by a full disk
plays on in the same server process once there is room; no lock or descriptor
outlives its tournament; an upload too big for the room left is refused alone;
the demo is seeded once there is room; the organiser's log says one sentence
per event, never a traceback. Real servers on a real small filesystem (a
tmpfs that really fills: ENOSPC), real bots in the sandbox."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from arena.league._server import demo_submissions

from ..conftest import ROOT
from .league_server import League, new_user, tar_gz
from .test_pressure import free_bytes, tiny_filesystem

pytestmark = pytest.mark.slow

BEARER = "Authorization"


def fill(disk: Path, leave: int = 0) -> Path:
    """Write a file on ``disk`` until about ``leave`` bytes are free (0: until the disk is full)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:  # unbuffered: nothing is left to write at close
        try:
            if leave:
                out.write(b"\0" * max(0, free_bytes(disk) - leave))
            else:
                while True:
                    out.write(b"\0" * 65536)
        except OSError:  # full: what was asked for
            pass
    return filler


def open_files(pid: int) -> list[str]:
    """What the process's descriptors point at, but its network connections (each
    request opens and closes one: how many are open at a moment says nothing)."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:  # closed meanwhile
            continue
        if not target.startswith("socket:"):
            out.append(target)
    return sorted(out)


#: The game of the leagues here that play tournaments: two seats, and sample bots that are
#: compiled programs, the quarantine's opponents too. What is tested here is the league's,
#: the same for every game, and this game costs least: two bots make a tournament, and a
#: quarantine starts no interpreter (kuhn3's opponents are Python and Node scripts: a
#: kuhn3 quarantine took 0.65-0.85 CPU-s, this one 0.18).
GAME = "vonneumann"
GAME_ARGS = ("--game", GAME, "-p", f"{GAME}.sessions=2", "-p", f"{GAME}.games_per_session=5",
             "--quarantine-matches", "2")
BUILT = ROOT / "sample_bots" / GAME / "build"
#: How long the slow bot of ``add_compiled_bots`` idles before its first reply.
SLOW_START = 1.0


def slow_starting_bot(program: Path, seconds: float = SLOW_START) -> bytes:
    """The compiled ``program`` behind a start that idles ``seconds`` (its first reply
    comes that late, well within the 10 s the first reply is allowed; the replies after
    it are timed as any other's): a match that seats it lasts that long however fast
    the machine, at no CPU."""
    start = f'sleep {seconds:g}\nexec "${{0%/*}}/{program.name}"\n'.encode()
    return tar_gz({"arena.toml": b'run = "sh start.sh"\n', "start.sh": start, program.name: program.read_bytes()},
                  modes={program.name: 0o755})


def add_compiled_bots(server: League, token: str) -> list[int]:
    """Two compiled bots of ``GAME``, active: one as it is, and one that starts slowly
    (``slow_starting_bot``), so that every match of a tournament of the two takes
    ``SLOW_START`` seconds of wall time at the CPU cost of a short one."""
    bots = []
    for name, filename, data in (("naive", "naive", (BUILT / "naive").read_bytes()),
                                 ("slow", "slow.tar.gz", slow_starting_bot(BUILT / "likeme"))):
        r = server.submit(token, filename, data, game=GAME, name=name)
        assert r.status_code == 201, r.text
        bots.append(r.json()["bot"])
        assert server.settled(bots[-1])["state"] == "active", server.version(bots[-1])
    return bots


def no_traceback(log: str) -> None:
    """One sentence a line: no traceback, no refusal of the server's own lock."""
    for noise in ("Traceback", "Exception Group", "another arena process", "cannot resume"):
        assert noise not in log, log
    assert not [line for line in log.splitlines() if line.startswith((" ", "\t", "|"))], log


def stop_and_play_on(server: League, token: str, disk: Path, leave: int) -> int:
    """A manual tournament under way when the disk fills (to ``leave`` bytes free)
    stops, keeps what it stored, and plays on to its end once the filler goes; its id."""
    r = server.http.post("/api/tournaments/start", headers={BEARER: f"Bearer {token}"}, data={"game": GAME})
    assert r.status_code == 202, r.text
    live = server.wait("the tournament to be under way", lambda: [
        t for t in server.http.get("/api/games").json()["live"] if t["kind"] == "manual" and t["done"] >= 1])
    tid, total = live[0]["tid"], live[0]["total"]
    filler = fill(disk, leave)
    games = server.wait("the league to pause and the tournament to stop", lambda: (
        g := server.http.get("/api/games").json())["paused"] and not g["live"] and g)
    assert "disk is full" in games["paused"], games
    assert server.http.get(f"/api/tournaments/{tid}").json()["tournament"]["status"] == "running"
    db = server.db
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        before = dict(conn.execute("SELECT id, finished FROM matches WHERE tournament=? AND status='done'", (tid,)))
    assert len(before) < total, "the disk must fill while the tournament plays"
    # Room again: the same server process plays the tournament on, to its end.
    filler.unlink()
    server.wait(f"tournament {tid} to finish", lambda: server.http.get(
        f"/api/tournaments/{tid}").json()["tournament"]["status"] == "finished", timeout=300)
    assert server.http.get("/api/games").json()["paused"] is None
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT id, round, idx, status, finished FROM matches WHERE tournament=?",
                            (tid,)).fetchall()
    assert len(rows) == total and all(r[3] == "done" for r in rows), rows
    assert len({(r[1], r[2]) for r in rows}) == total
    for mid, _, _, _, finished in rows:  # the matches stored before the disk filled were kept, not replayed
        if mid in before:
            assert finished == before[mid]
    return tid


@pytest.mark.timeout(420)
def test_a_tournament_stopped_by_a_full_disk_finishes_in_the_same_process_and_no_descriptor_outlives_one(tmp_path):
    with tiny_filesystem(tmp_path / "disk", "16m") as disk:
        db = disk / "league.db"
        token = new_user(db, "ada", admin=True)
        # The organiser's log on another disk, so that every line of it is kept and read here.
        # Three rounds of two bots: 6 matches, each SLOW_START seconds at least (its slow bot), so
        # some 4 s are left once the first is played, however fast the machine: the disk fills,
        # and the watcher (once a second) sees it, while the tournament still has matches to play.
        server = League(db, *GAME_ARGS, "--rounds", "3", "--every", "1h", "--min-free-mb", "4",
                        log=tmp_path / "league.stderr.log")
        pid = server.proc.pid
        try:
            add_compiled_bots(server, token)
            server.wait("the placement", lambda: not server.http.get("/api/games").json()["live"])
            after_one = open_files(pid)
            assert not [f for f in after_one if f.endswith(".lock")], after_one
            # The disk fills at once, under the tournament's feet: its writes meet ENOSPC.
            full = stop_and_play_on(server, token, disk, leave=0)
            # The free space falls below --min-free-mb, no write failing: the league pauses all the same.
            low = stop_and_play_on(server, token, disk, leave=2 * 2**20)
            assert server.proc.poll() is None and server.proc.pid == pid
            # What the server holds open is what it held after its first tournament: no lock, no log.
            assert open_files(pid) == after_one, (after_one, open_files(pid))
            log = server.stderr()
            for tid in (full, low):
                for line in (f"Tournament {tid} stopped at ", f"Resuming tournament {tid} ", f"Finished tournament {tid} "):
                    assert line in log, (line, log)
            no_traceback(log)
        finally:
            assert server.stop() == 130, server.stderr()


@pytest.mark.timeout(300)
def test_an_upload_too_big_for_the_room_left_is_refused_alone_and_the_league_goes_on(tmp_path):
    with tiny_filesystem(tmp_path / "disk", "16m") as disk:
        db = disk / "league.db"
        ada, bea = new_user(db, "ada", admin=True), new_user(db, "bea")
        server = League(db, *GAME_ARGS, "--every", "1h", "--min-free-mb", "1")
        try:
            # 2 MB free: above the 1 MB the league keeps, below what a 1.2 MB upload takes
            # (unpacked, and kept as sent).
            fill(disk, leave=2 * 2**20)
            big = b"#!/bin/sh\n#" + b"x" * (1200 * 1024) + b"\nexit 1\n"
            r = server.submit(ada, "big.sh", big, game=GAME, name="big")
            assert r.status_code == 507, r.text
            error = r.json()["error"]
            assert "this upload needs" in error and "the league goes on" in error, error
            # Refused alone: the league is not paused, and another user's bot goes through.
            games = server.http.get("/api/games").json()
            assert games["paused"] is None, games
            r = server.submit(bea, "naive", (BUILT / "naive").read_bytes(), game=GAME, name="small")
            assert r.status_code == 201, r.text
            assert server.settled(r.json()["bot"])["state"] == "active"
            # Nothing of the refused upload was kept.
            bots = db.with_name("league-data") / "league" / "bots"
            assert sorted(p.name for p in bots.iterdir()) == [f"v{r.json()['version']}"]
            log = server.stderr()
            assert "Disk: the upload of 'big.sh' was refused, the league going on" in log, log
            assert "wait" not in log.split("Disk: ", 1)[1].splitlines()[0], log  # no pause was announced
            # Now the disk is full: a request that writes is answered in words, and the log
            # says so in one sentence (the web server's traceback of it is not written).
            filler = fill(disk, leave=0)
            auth = {BEARER: f"Bearer {bea}"}
            bot = r.json()["bot"]
            for i in range(2000):
                answer = server.http.post(f"/api/bots/{bot}/{'pause' if i % 2 == 0 else 'resume'}", headers=auth)
                if answer.status_code != 200:
                    break
            assert answer.status_code == 507 and "disk is full" in answer.json()["error"], answer.text
            filler.unlink()
            server.wait("the league to resume", lambda: server.http.get("/api/games").json()["paused"] is None)
            no_traceback(server.stderr())
        finally:
            assert server.stop() == 130, server.stderr()


@pytest.mark.timeout(300)
def test_a_demo_started_on_a_full_disk_is_seeded_once_there_is_room_and_only_once(tmp_path):
    expected = len([d for d in demo_submissions() if d[0] == "kuhn3"])
    with tiny_filesystem(tmp_path / "disk", "32m") as disk:
        db = disk / "demo.db"
        new_user(db, "sam")  # the database exists; the disk fills before the first start
        filler = fill(disk, leave=512 * 2**10)  # below the 1 MB the league keeps free
        args = ("--demo", "--game", "kuhn3", "-p", "kuhn3.hands=10", "--quarantine-matches", "3", "--every", "1h",
                "--min-free-mb", "1")
        server = League(db, *args)
        token = (db.with_name("demo-data") / "demo-token").read_text().strip()

        def demo_versions(league: League) -> list[dict]:
            return league.http.get("/api/mine", headers={BEARER: f"Bearer {token}"}).json()["versions"]

        try:
            assert server.http.get("/api/games").json()["paused"], server.stderr()
            assert "sample bot(s) wait for room" in server.stderr()
            assert demo_versions(server) == []
            # A restart on a full disk does not take the demo for done either.
            assert server.stop() == 130, server.stderr()
            server = League(db, *args)
            assert demo_versions(server) == [], server.stderr()
            # Room: the same process submits the sample bots (all at once), and they go through the pipeline.
            filler.unlink()
            seeded = server.wait("the demo bots to be submitted", lambda: demo_versions(server))
            assert len(seeded) == expected, seeded
            assert server.settled(seeded[-1]["bot"])["state"] == "active"
        finally:
            assert server.stop() == 130, server.stderr()
        no_traceback(server.stderr())
        # The next start finds the demo seeded: nothing is submitted again.
        before = server.log.stat().st_size
        again = League(db, *args)
        try:
            assert len(demo_versions(again)) == expected
        finally:
            assert again.stop() == 130, again.stderr()
        with open(again.log, "rb") as log:
            log.seek(before)
            later = log.read().decode(errors="replace")
        assert "Demo: submitted" not in later and "Demo admin" not in later, later
