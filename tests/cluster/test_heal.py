"""The cluster heals out loud (issue 49, item 2), on real processes on 127.0.0.1.

A worker that stops answering is given up and its match played elsewhere,
never charged to a bot; a killed `arena worker` takes its Dask worker with
it; every lost worker and every match played again is an event (stored, and
a line for the user); cache entries deleted mid-run change no result; the
league finishes a tournament across a scheduler restart.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from ..conftest import PY, ROOT, clean_env, replay_key, run_json
from ..league.league_server import League, new_user, sample
from .test_cluster import (CPUS, K, coordinator, freeze_in_flight, rows, secured_scheduler, start_scheduler,
                           start_worker, stored, wait_for)

pytestmark = pytest.mark.slow

SLOW = f"slow=python3 {ROOT}/tests/cluster/slow/slow.py {K}/random_bot.py --seed 2"
FAST = [f"c={K}/build/rule_bot", f"rs={K}/build/rule_bot_rs"]


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def events(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [text for (text,) in con.execute("SELECT text FROM events ORDER BY id")]
    finally:
        con.close()


def command(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:  # ended meanwhile
        return ""


def age(p: psutil.Process) -> float:
    try:
        return time.time() - p.create_time()
    except psutil.Error:
        return 0.0


def dask_worker(supervisor: int) -> psutil.Process:
    (child,) = psutil.Process(supervisor).children()
    return child


def played_by(db: Path, label: str, names: set[str]) -> bool:
    position = tuple(int(x) for x in re.fullmatch(r"r(\d+)-m(\d+)", label).groups())
    return any((r, i) == position and w in names for r, i, w in stored(db))


def test_a_killed_or_frozen_worker_is_given_up_said_and_its_match_played_elsewhere(tmp_path):
    certs, scheduler, address = secured_scheduler(tmp_path, "--worker-silence", "5")
    workers = []
    db, log = tmp_path / "t.db", tmp_path / "coordinator.log"
    try:
        f = start_worker(address, "F", CPUS[0], tmp_path, certs)
        workers.append(f)
        run = coordinator("kuhn3", SLOW, *FAST, "--seed", replay_key(5), "-p", "hands=5", "--sandbox", "basic",
                          "--db", str(db), "--cluster", address, "--certs", str(certs), log=log)
        # kill -9 of `arena worker` F alone (not its group) while F holds a match: its Dask worker dies with it.
        killed = freeze_in_flight(f, 0, deadline=time.monotonic() + 120)
        child = dask_worker(f.proc.pid)
        f.proc.kill()
        f.proc.wait()
        wait_for("F's Dask worker to end with it", lambda: not child.is_running() or child.status() == "zombie",
                 timeout=20)
        with contextlib.suppress(ProcessLookupError):
            f.signal(signal.SIGCONT)  # its match's processes, left stopped: they read end-of-file and end
        # No worker is left: the run says how long it waits.
        wait_for("the run to say it waits", lambda: "the run stops at" in log.read_text() or run.poll() is not None)
        g = start_worker(address, "G", CPUS[-1], tmp_path, certs)
        workers.append(g)
        wait_for(f"match {killed} played by G", lambda: played_by(db, killed, {"G"}) or run.poll() is not None,
                 timeout=90)
        # G, with every process under it (its match's bots too), stops while it holds a match; H joins.
        frozen = freeze_in_flight(g, 0, deadline=time.monotonic() + 120)
        h = start_worker(address, "H", CPUS[0], tmp_path, certs)
        workers.append(h)
        wait_for(f"match {frozen} played by H", lambda: played_by(db, frozen, {"H"}) or run.poll() is not None,
                 timeout=90)
        g.signal(signal.SIGCONT)
        out, _ = run.communicate(timeout=180)
        assert run.returncode == 0, log.read_text()[-3000:]
    finally:
        for w in workers:
            w.stop()
        kill_group(scheduler)
    check_said_and_kept(log.read_text(), db, out, killed, frozen)


KILLED = r"its connection closed \(the process was killed or its machine went away\)"
FROZEN = r"it stopped answering for more than 5 s \(frozen, or its machine unreachable\)"


def check_said_and_kept(text: str, db: Path, out: str, killed: str, frozen: str) -> None:
    """Each loss said and kept with the tournament and with the match it cost; the wait for a
    worker said with its deadline; every match once, none faulted."""
    assert "Traceback" not in text
    for name, why, label in (("F", KILLED, killed), ("G", FROZEN, frozen)):
        assert re.search(rf"worker {name} at tls://\S+ was lost: {why}; the match\(es\) it held \(in play or "
                         rf"queued there\) go to another worker: [^;]*\b{label}\b", text), text
    assert re.search(r"waiting up to 60 s for a worker of arena \S+ \(code \w+\) to join the cluster at \S+ \(\d "
                     r"match\(es\) waiting\): the run stops at \d\d:\d\d:\d\d unless one joins", text), text
    assert re.search(r"a worker of arena \S+ \(code \w+\) joined after \d+ s: playing on", text), text
    played = rows(db, "round, idx, worker, faults, json_extract(timings, '$.retried')")
    assert len(played) == 6 and {f_ for *_, f_, _ in played} == {"[]"}, played
    assert len({(r, i) for r, i, *_ in played}) == 6
    kept = events(db)
    assert json.loads(out)["events"] == kept
    assert [e for e in kept if e.startswith("worker ")] == [
        next(ln for ln in text.splitlines() if f"worker {w} at " in ln).removeprefix("arena: cluster: ")
        for w in ("F", "G")], kept
    again = {f"r{r}-m{i}": json.loads(t) for r, i, _, _, t in played if t}
    assert again[killed][0]["worker"] == "F" and re.fullmatch(f"lost: {KILLED}", again[killed][0]["reason"]), again
    assert again[frozen][-1]["worker"] == "G" and re.fullmatch(f"lost: {FROZEN}", again[frozen][-1]["reason"]), again


def test_a_worker_stopped_mid_match_throws_a_faulted_result_away(tmp_path):
    """A stop of the whole machine (here: the match's worker process and its bots) runs
    the bots' clocks while nothing reads their replies: the faulted result is not kept,
    the match is played again, and that is said and kept."""
    db = tmp_path / "t.db"
    run = subprocess.Popen(
        [PY, "-m", "arena", "tournament", "kuhn3", SLOW, *FAST, "--seed", replay_key(6), "-p", "hands=3",
         "--sandbox", "basic", "--jobs", "1", "--db", str(db), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(), cwd=ROOT, start_new_session=True)
    try:
        def slow_bot() -> list[psutil.Process]:
            """The worker process and everything under it, once the slow bot among them is past its
            first reply (whose limit, start-up included, is 10 s; pyenv starts python3 by a script)."""
            found = [p for p in psutil.Process(run.pid).children(recursive=True)
                     if "arena.play._worker" in command(p)]
            tree = [found[0], *found[0].children(recursive=True)] if found else []
            return tree if any("slow.py" in command(p) and age(p) > 2.0 for p in tree[1:]) else []

        tree = wait_for("the slow bot in a match", lambda: run.poll() is not None or slow_bot())
        assert tree is not True, run.communicate()
        for p in tree:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.suspend()
        time.sleep(2.5)  # the stimulus, not a wait for anything: a stop longer than a reply's limit (1 s)
        for p in tree:  # the worker process first: it finds its bot's reply late
            with contextlib.suppress(psutil.NoSuchProcess):
                p.resume()
        out, err = run.communicate(timeout=120)
    finally:
        kill_group(run)
    assert run.returncode == 0, err[-3000:]
    assert {f for (f,) in rows(db, "faults")} == {"[]"}, rows(db, "faults")
    kept = events(db)
    assert len(kept) == 1 and re.fullmatch(
        r"match r\d+-m\d+: this arena worker process was stopped for \d+\.\d s during match r\d+-m\d+, and a bot "
        r"was faulted meanwhile: its clock ran while nothing read its replies; played again", kept[0]), kept
    assert kept[0] in err


def test_deleting_a_workers_cache_entries_mid_run_changes_no_result_and_faults_point_at_the_stored_log(tmp_path):
    crash = f"crash=python3 {ROOT}/tests/cluster/slow/crash.py"
    args = ["kuhn3", f"random=python3 {K}/random_bot.py --seed 1", crash, FAST[0], "--seed", replay_key(7),
            "-p", "hands=10", "--sandbox", "basic",
            "--max-faults", "0", "--broken-start", "0"]  # who would be disqualified depends on the order of results
    proc, local = run_json("tournament", *args, "--db", str(tmp_path / "local.db"), timeout=180)
    assert proc.returncode == 0, proc.stderr
    certs, scheduler, address = secured_scheduler(tmp_path)
    w = None
    try:
        w = start_worker(address, "W", CPUS[-1], tmp_path, certs)
        db, log = tmp_path / "cluster.db", tmp_path / "coordinator.log"
        run = coordinator(*args, "--db", str(db), "--cluster", address, "--certs", str(certs), log=log)
        # As each match starts on W (its first try), every cache entry is deleted under it.
        hit: set[str] = set()
        while run.poll() is None:
            started = wait_for("a match to start", lambda: run.poll() is not None or {
                ln.split()[-1] for ln in w.lines() if ": start " in ln} - hit)
            if started is True:
                break
            for entry in w.cache.iterdir() if w.cache.exists() else ():
                shutil.rmtree(entry, ignore_errors=True)
            hit |= started
        out, _ = run.communicate(timeout=120)
        worker_log = "\n".join(w.lines())
    finally:
        if w is not None:
            w.stop()
        kill_group(scheduler)
    assert run.returncode == 0, log.read_text()[-3000:]
    assert len(hit) == len(local["match_list"]), hit
    here = rows(db, "round, idx, scores, payoffs, faults")
    assert here == [(*r[:4], r[4].replace(str(tmp_path / "local-data"), str(tmp_path / "cluster-data")))
                    for r in rows(tmp_path / "local.db", "round, idx, scores, payoffs, faults")]
    assert json.loads(out)["standings"] == local["standings"]
    # Each fault of the crashing bot points at its stderr log as stored here, not at the worker's folder.
    faults = [f for *_, text in here for f in json.loads(text)]
    assert len(faults) == 6 and {f["bot"] for f in faults} == {"crash"}, faults
    for fault in faults:
        log_file = Path(fault["stderr_log"])
        assert log_file.is_relative_to(tmp_path / "cluster-data"), fault
        assert "giving up before the first reply" in log_file.read_text(), fault
    # Some match met its files gone (the bot could not start, or lost them), was thrown away and played
    # again: said by the worker, kept with the match and with the tournament.
    assert "changed during the match" in worker_log, worker_log[-3000:]
    assert any("changed during the match; played again on the same worker" in e for e in events(db))


def test_the_league_finishes_a_tournament_across_a_scheduler_restart(tmp_path):
    certs, scheduler, address = secured_scheduler(tmp_path)
    port = int(address.rsplit(":", 1)[1])
    db = tmp_path / "league.db"
    tokens = [new_user(db, name) for name in ("ann", "ben", "cat")]
    # The server starts before any worker: it says so and serves (it used to wait 60 s, then exit 3).
    server = League(db, "--game", "kuhn3", "-p", "kuhn3.hands=20", "--quarantine-matches", "3", "--every", "1h",
                    "--placement-matches", "6", "--cluster", address, "--certs", str(certs))
    w = None
    try:
        wait_for("the server to say it has no worker yet", lambda: f"Cluster: {address}, 0 slot(s) for matches for "
                 "now: tournaments wait for a worker" in server.stderr() or server.proc.poll() is not None)
        w = start_worker(address, "W", CPUS[-1], tmp_path, certs)
        for token, (path, name) in zip(tokens[:2], (("build/rule_bot", "c"), ("build/rule_bot_rs", "rust"))):
            r = server.submit(token, Path(path).name, sample(path), name=name)
            assert r.status_code == 201, r.text
            assert server.settled(r.json()["bot"])["state"] == "active"
        # The third bot's placement plays on W, which stops while it holds one of its matches.
        offset = w.log.stat().st_size
        r = server.submit(tokens[2], "rule_bot", sample("build/rule_bot"), name="c2")
        assert r.status_code == 201, r.text
        freeze_in_flight(w, offset, deadline=time.monotonic() + 120)
        tid = re.search(r"Started tournament (\d+) \(kuhn3, placement", server.stderr())[1]
        # The scheduler dies with the tournament in play, and a new one takes its address.
        kill_group(scheduler)
        scheduler, again = start_scheduler(tmp_path, certs, port=port)
        assert again == address
        w.signal(signal.SIGCONT)  # its Dask worker finds its scheduler gone; `arena worker` joins the new one
        server.wait("the placement to finish", lambda: any(
            t["kind"] == "placement" and t["status"] == "finished"
            for t in server.http.get("/api/tournaments").json()["tournaments"]), timeout=90)
    finally:
        stopped = server.stop()
        if w is not None:
            w.stop()
        kill_group(scheduler)
    text = server.stderr()
    assert stopped == 130, text[-3000:]
    assert re.search(rf"Tournament {tid} stopped at \d of 6 matches: .*; it plays on once the scheduler answers",
                     text), text[-3000:]
    assert f"Resuming tournament {tid}" in text and f"Finished tournament {tid}" in text
    assert "internal error" not in text and "Traceback" not in text, text[-3000:]
    con = sqlite3.connect(db)
    played = con.execute("SELECT worker FROM matches WHERE tournament = ? AND status != 'pending'",
                         (int(tid),)).fetchall()
    con.close()
    assert len(played) == 6 and {x for (x,) in played} == {"W"}, played
