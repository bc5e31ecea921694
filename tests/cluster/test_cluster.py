"""Tournaments and the league on a real Dask cluster on 127.0.0.1 (issue 13).

A scheduler and workers (`arena worker`) run as their own processes; the
coordinator is `arena tournament --cluster` or `arena serve --cluster`. The
worker-loss test freezes a worker while it holds a match in flight (its
progress line says so), kills it, and checks that the match was played again
by the other worker, that nothing was recorded twice, and that the standings
equal a local `--jobs 1` run with the same seed.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena._spec import BotSpec
from arena.cluster import pack_bot, unpack
from arena.cluster._artifacts import ArtifactError

from ..conftest import PY, ROOT, clean_env, run_arena, run_json
from ..league.league_server import League, new_user, sample

pytestmark = pytest.mark.slow

K = ROOT / "sample_bots" / "kuhn3"
# Deterministic bots (seeded or without randomness): equal standings are a fair test.
# Mostly compiled (cheap to start); the seeded Python one brings a second artifact.
BOTS = [f"c={K}/build/rule_bot", f"rs={K}/build/rule_bot_rs", f"c2={K}/build/rule_bot",
        f"random=python3 {K}/random_bot.py --seed 1"]
ARGS = ["kuhn3", *BOTS, "--seed", "11", "-p", "hands=30", "--sandbox", "basic"]
CPUS = sorted(os.sched_getaffinity(0))


def wait_for(what: str, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling interval: the check decides
    return got


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen
    log: Path
    cache: Path

    def lines(self, start: int = 0) -> list[str]:
        return self.log.read_bytes()[start:].decode(errors="replace").splitlines()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def start_worker(address: str, name: str, cpu: int, folder: Path) -> Worker:
    log = folder / f"worker-{name}.log"
    cache = folder / f"cache-{name}"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [PY, "-m", "arena", "worker", address, "--cpus", str(cpu), "--name", name, "--no-nanny",
             "--cache", str(cache)],
            stdout=out, stderr=out, env=clean_env(), cwd=ROOT, start_new_session=True)
    worker = Worker(name, proc, log, cache)
    wait_for(f"worker {name} to join", lambda: proc.poll() is not None or "Registered to" in log.read_text())
    assert proc.poll() is None, log.read_text()
    return worker


def start_scheduler(folder: Path) -> tuple[subprocess.Popen, str]:
    info = folder / "scheduler.json"
    with open(folder / "scheduler.log", "wb") as out:
        scheduler = subprocess.Popen(
            [PY, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(info)],
            stdout=out, stderr=out, env=clean_env(), start_new_session=True)
    address = wait_for("the scheduler's address", lambda: scheduler.poll() is None and info.exists()
                       and info.stat().st_size and json.loads(info.read_text()).get("address"))
    return scheduler, address


@dataclass
class Cluster:
    address: str
    folder: Path
    workers: list[Worker]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and one worker (B, on the last CPU); tests may add their own."""
    folder = tmp_path_factory.mktemp("cluster")
    scheduler, address = start_scheduler(folder)
    try:
        made = Cluster(address, folder, [])
        made.workers.append(start_worker(address, "B", CPUS[-1], folder))
        yield made
    finally:
        for w in made.workers:
            w.stop()
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()


def stored(db: Path) -> list[tuple[int, int, str | None]]:
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT round, idx, json_extract(timings, '$.worker') FROM matches "
                           "WHERE status != 'pending'").fetchall()
    except sqlite3.OperationalError:
        return []  # not created yet
    finally:
        con.close()


def by_seat(transcript: Path) -> dict[str, list[str]]:
    seats: dict[str, list[str]] = {}
    for line in gzip.decompress(transcript.read_bytes()).decode().splitlines():
        m = re.match(r"\[ *[0-9.]+\] (seat \d+) (.*)", line)
        if m:
            seats.setdefault(m[1], []).append(m[2])
    return seats


def coordinator(*args: str, log: Path) -> subprocess.Popen:
    with open(log, "ab") as err:
        return subprocess.Popen([PY, "-m", "arena", "tournament", *args, "--json"], stdout=subprocess.PIPE,
                                stderr=err, env=clean_env(), cwd=ROOT, start_new_session=True)


def freeze_in_flight(worker: Worker, offset: int, deadline: float) -> str:
    """Stop ``worker`` at a moment it holds a match (started, result not sent); that match's label.

    The Dask worker prints ``start`` before it hands a match to its arena
    worker process and ``done`` before it returns the result, so while it is
    stopped, a start without a done is a match the scheduler never got back.
    """
    while time.monotonic() < deadline:
        wait_for("a match on the worker", lambda: any(": start " in ln for ln in worker.lines(offset)))
        os.kill(worker.proc.pid, signal.SIGSTOP)
        lines = worker.lines(offset)
        started = [ln.split()[-1] for ln in lines if ": start " in ln]
        done = {ln.split()[-1] for ln in lines if ": done " in ln}
        open_ = [m for m in started if m not in done]
        if open_:
            return open_[-1]
        os.kill(worker.proc.pid, signal.SIGCONT)
        size = len(lines)
        wait_for("the worker's next line", lambda: len(worker.lines(offset)) > size)
    raise AssertionError("never caught the worker with a match in flight")


def test_a_tournament_survives_a_killed_coordinator_and_a_killed_worker(cluster, tmp_path):
    proc, local = run_json("tournament", *ARGS, "--db", str(tmp_path / "local.db"), timeout=180)
    assert proc.returncode == 0, proc.stderr
    a = start_worker(cluster.address, "A", CPUS[0], cluster.folder)
    cluster.workers.append(a)
    db, log = tmp_path / "cluster.db", tmp_path / "coordinator.log"
    total = len(local["match_list"])

    # The coordinator dies (SIGKILL) part-way; --resume goes on with what is stored.
    first = coordinator(*ARGS, "--db", str(db), "--cluster", cluster.address, log=log)
    wait_for("some matches stored", lambda: len(stored(db)) >= 4 or first.poll() is not None, timeout=120)
    assert first.poll() is None, log.read_text()
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    first.stdout.close()
    before = stored(db)
    assert 4 <= len(before) < total

    # On the resumed run, worker A is frozen while it holds a match, then killed.
    offset = a.log.stat().st_size
    second = coordinator("--resume", "1", "--db", str(db), "--cluster", cluster.address, log=log)
    in_flight = freeze_in_flight(a, offset, time.monotonic() + 120)
    os.killpg(a.proc.pid, signal.SIGKILL)
    a.proc.wait()
    out, _ = second.communicate(timeout=180)
    assert second.returncode == 0, log.read_text()[-3000:]
    resumed = json.loads(out)

    rows = stored(db)
    positions = [(r, i) for r, i, _ in rows]
    assert len(positions) == len(set(positions)) == total  # each match once
    assert set(before) <= set(rows)  # the first run's results untouched
    by_label = {f"r{r}-m{i}": w for r, i, w in rows}
    assert by_label[in_flight] == "B", (in_flight, by_label)
    # (Whether A also finished some match before it was frozen is up to the
    # scheduler and the machine's load: a CI run once had B finish them all.)
    assert set(by_label.values()) <= {"A", "B"}
    assert resumed["standings"] == local["standings"]
    # A match's transcript says the same to and from each seat as the local run's
    # (times, and the order of lines of different seats, depend on the machine).
    one = f"r0-m{total - 1}.log.gz"
    local_t, cluster_t = (by_seat(tmp_path / f"{run}-data" / "t1" / "transcripts" / one) for run in ("local", "cluster"))
    assert len(cluster_t) == 3 and cluster_t == local_t

    shown = run_arena("show", str(total), "--db", str(db))
    assert "played on cluster worker" in shown.stdout.splitlines()[0], shown.stdout[:300]

    # Each bot's artifact reached both workers, checked and unpacked once.
    shas = {pack_bot(BotSpec.parse(b.partition("=")[2]))[0].sha256 for b in BOTS}
    for w in (a, cluster.workers[0]):
        assert sorted(p.name for p in w.cache.iterdir()) == sorted(shas), w.name


def test_the_league_plays_its_tournaments_on_the_cluster(cluster, tmp_path):
    db = tmp_path / "league.db"
    token = new_user(db, "ann")
    server = League(db, "--game", "kuhn3", "-p", "kuhn3.hands=20", "--quarantine-matches", "3", "--every", "1h",
                    "--placement-matches", "6", "--cluster", cluster.address)
    try:
        # Compiled bots: quick through quarantine (the test is about where tournaments run).
        for path, name in (("build/rule_bot", "c"), ("build/rule_bot_rs", "rust"), ("build/rule_bot", "c2")):
            r = server.submit(token, Path(path).name, sample(path), name=name)
            assert r.status_code == 201, r.text
            v = server.settled(r.json()["bot"])
            assert v["state"] == "active", (v["message"], v.get("steps"))
        server.wait("a placement", lambda: any(
            t["kind"] == "placement" and t["status"] == "finished"
            for t in server.http.get("/api/tournaments").json()["tournaments"]))
        assert f"Cluster: {cluster.address}" in server.stderr()
    finally:
        assert server.stop() == 0, server.stderr()
    con = sqlite3.connect(db)
    rows = con.execute("SELECT json_extract(timings, '$.worker') FROM matches m JOIN league_tournaments l "
                       "ON l.tournament = m.tournament WHERE l.kind = 'placement'").fetchall()
    con.close()
    names = {w.name for w in cluster.workers if w.proc.poll() is None}
    assert rows and {w for (w,) in rows} <= names, rows


def test_a_lost_scheduler_stops_the_run_in_words_and_keeps_what_is_stored(tmp_path):
    scheduler, address = start_scheduler(tmp_path)
    worker = start_worker(address, "W", CPUS[0], tmp_path)
    db, log = tmp_path / "t.db", tmp_path / "coordinator.log"
    try:
        run = coordinator(*ARGS, "--db", str(db), "--cluster", address, log=log)
        wait_for("a match stored", lambda: stored(db) or run.poll() is not None, timeout=120)
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()
        run.communicate(timeout=120)
    finally:
        worker.stop()
        if scheduler.poll() is None:
            os.killpg(scheduler.pid, signal.SIGKILL)
            scheduler.wait()
    text = log.read_text()
    assert run.returncode == 3, text[-2000:]
    assert f"lost the connection to the Dask scheduler at {address}" in text
    assert "resume with: arena tournament --resume 1" in text and "Traceback" not in text
    assert 1 <= len(stored(db)) < 24


def test_an_artifact_is_the_bots_own_files_and_arrives_checked(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text("print('x')\n")
    (folder / "weights.bin").write_bytes(bytes(range(256)))
    spec = BotSpec.parse(f"python3 {folder}/main.py {folder}/weights.bin --fast")
    shipped, data = pack_bot(spec)
    # The same files elsewhere are the same artifact.
    other = tmp_path / "elsewhere" / "bot"
    other.parent.mkdir()
    os.rename(folder, other)
    again, data2 = pack_bot(BotSpec.parse(f"python3 {other}/main.py {other}/weights.bin --fast"))
    assert (again.sha256, data2) == (shipped.sha256, data)
    assert [w for w in shipped.words if w[0] == "word"] == [("word", "python3"), ("word", "--fast")]
    # Bytes that are not the artifact asked for are refused; nothing is unpacked.
    cache = tmp_path / "cache"
    with pytest.raises(ArtifactError, match="refused"):
        unpack(cache, shipped.sha256, data[:-1] + bytes([data[-1] ^ 1]))
    assert not (cache / shipped.sha256).exists()
    root = unpack(cache, shipped.sha256, data)
    command = shipped.command(shipped.to_json(), root)
    assert command == f"python3 {root}/tree/bot/main.py {root}/tree/bot/weights.bin --fast"
    assert (root / "tree" / "bot" / "weights.bin").read_bytes() == bytes(range(256))


def test_cluster_options_are_checked_before_anything_starts(tmp_path):
    db = tmp_path / "t.db"
    for args, expected in (
        (["--cluster", "not an address"], "--cluster takes a Dask scheduler's address"),
        (["--cluster", "tcp://127.0.0.1:1", "--lifetime", "tournament"], "--lifetime tournament"),
    ):
        proc = subprocess.run([PY, "-m", "arena", "tournament", *ARGS, "--db", str(db), *args],
                              capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=60)
        assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
    proc = subprocess.run([PY, "-m", "arena", "worker", "tcp://127.0.0.1:9", "--cpus", "0-4096"],
                          capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "--cpus 0-4096: this process may use CPUs" in proc.stderr, proc.stderr
    # Nobody listening: said in words before anything is stored.
    proc = subprocess.run([PY, "-m", "arena", "tournament", *ARGS, "--db", str(db), "--cluster", "tcp://127.0.0.1:9"],
                          capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and "no Dask scheduler answers there" in proc.stderr, proc.stderr
    assert not db.exists()
