"""Tournaments and the league on a real Dask cluster on 127.0.0.1 (issues 13 and 26).

A scheduler (`arena cluster scheduler`, mutual TLS with certificates made
by `init_certs`) and workers (`arena worker`) run as their own processes;
the coordinator is `arena tournament --cluster` or `arena serve --cluster`.
One cluster serves the module; a test that adds a worker stops it again,
except the one that replaces the worker holding the bots' files.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import socket
import sqlite3
import ssl
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena._spec import BotSpec
from arena._checks import UsageError
from arena.cluster import check_shippable, pack_bot, unpack
from arena.cluster._artifacts import ArtifactError
from arena.cluster._build import build
from arena.cluster._security import init_certs

from ..conftest import PY, ROOT, clean_env, replay_key, run_arena, run_json, sigint_default
from ..league.league_server import League, new_user, sample

pytestmark = pytest.mark.slow

K = ROOT / "sample_bots" / "kuhn3"
# Deterministic bots (seeded or without randomness): equal standings are a fair test.
# Mostly compiled (cheap to start); the seeded Python one brings a second artifact.
BOTS = [f"c={K}/build/rule_bot", f"rs={K}/build/rule_bot_rs", f"c2={K}/build/rule_bot",
        f"random=python3 {K}/random_bot.py --seed 1"]
ARGS = ["kuhn3", *BOTS, "--seed", replay_key(11), "-p", "hands=30", "--sandbox", "basic"]
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
    proc: subprocess.Popen  # `arena worker`, which runs the Dask worker as its child, in a group of its own
    log: Path
    cache: Path

    def lines(self, start: int = 0) -> list[str]:
        return self.log.read_bytes()[start:].decode(errors="replace").splitlines()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal(self, sig: int) -> None:
        os.killpg(self.proc.pid, sig)  # the Dask worker, its arena worker processes and their bots

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.signal(signal.SIGKILL)
        self.proc.wait()


def start_worker(address: str, name: str, cpu: int, folder: Path, certs: Path | None = None,
                 env: dict[str, str] | None = None) -> Worker:
    log = folder / f"worker-{name}.log"
    cache = folder / f"cache-{name}"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [PY, "-m", "arena", "worker", address, "--cpus", str(cpu), "--name", name, "--no-nanny",
             "--cache", str(cache), *(["--certs", str(certs)] if certs else [])],
            stdout=out, stderr=out, env={**clean_env(), **(env or {})}, cwd=ROOT, start_new_session=True)
    worker = Worker(name, proc, log, cache)
    wait_for(f"worker {name} to join", lambda: proc.poll() is not None or "Registered to" in log.read_text())
    assert proc.poll() is None, log.read_text()
    return worker


def start_scheduler(folder: Path, certs: Path, *args: str, port: int = 0) -> tuple[subprocess.Popen, str]:
    info = folder / "scheduler.json"
    info.unlink(missing_ok=True)
    with open(folder / "scheduler.log", "ab") as out:
        scheduler = subprocess.Popen(
            [PY, "-m", "arena", "cluster", "scheduler", "--listen", f"127.0.0.1:{port}", "--scheduler-file",
             str(info), "--certs", str(certs), *args],
            stdout=out, stderr=out, env=clean_env(), cwd=ROOT, start_new_session=True)
    address = wait_for("the scheduler's address", lambda: scheduler.poll() is None and info.exists()
                       and info.stat().st_size and json.loads(info.read_text()).get("address"))
    return scheduler, address


def secured_scheduler(folder: Path, *args: str) -> tuple[Path, subprocess.Popen, str]:
    """New certificates in ``folder/certs`` and a scheduler admitting their holders: (certs, process, address)."""
    certs = folder / "certs"
    init_certs(certs)
    return (certs, *start_scheduler(folder, certs, *args))


@dataclass
class Cluster:
    address: str
    folder: Path
    certs: Path
    workers: list[Worker] = field(default_factory=list)

    def args(self) -> list[str]:
        return ["--cluster", self.address, "--certs", str(self.certs)]

    def add(self, name: str, cpu: int, env: dict[str, str] | None = None) -> Worker:
        worker = start_worker(self.address, name, cpu, self.folder, self.certs, env)
        self.workers.append(worker)
        return worker

    def healthy(self) -> Worker:
        """A live worker of this arena with a working sandbox (started if none is left)."""
        live = [w for w in self.workers if w.alive() and w.name in ("A", "B", "H")]
        return live[0] if live else self.add("H", CPUS[-1])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler that admits holders of this module's certificates only, and one worker (B, on the last CPU)."""
    folder = tmp_path_factory.mktemp("cluster")
    certs, scheduler, address = secured_scheduler(folder)
    made = Cluster(address, folder, certs)
    try:
        made.add("B", CPUS[-1])
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
        return con.execute("SELECT round, idx, worker FROM matches WHERE status != 'pending'").fetchall()
    except sqlite3.OperationalError:
        return []  # not created yet
    finally:
        con.close()


def rows(db: Path, columns: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(f"SELECT {columns} FROM matches WHERE status != 'pending' ORDER BY round, idx").fetchall()
    finally:
        con.close()


def by_seat(transcript: Path) -> dict[str, list[str]]:
    seats: dict[str, list[str]] = {}
    for line in gzip.decompress(transcript.read_bytes()).decode().splitlines():
        m = re.match(r"\[ *[0-9.]+\] (seat \d+) (.*)", line)
        if m:
            seats.setdefault(m[1], []).append(m[2])
    return seats


def coordinator(*args: str, log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    with open(log, "ab") as err:
        return subprocess.Popen([PY, "-m", "arena", "tournament", *args, "--json"], stdout=subprocess.PIPE,
                                stderr=err, env={**clean_env(), **(env or {})}, cwd=ROOT, start_new_session=True,
                                preexec_fn=sigint_default)


def freeze_in_flight(worker: Worker, offset: int, deadline: float) -> str:
    """Stop ``worker`` at a moment it holds a match (started, result not sent); that match's label.

    The Dask worker prints ``start`` before it hands a match to its arena
    worker process and ``done`` before it returns the result, so while it is
    stopped, a start without a done is a match the scheduler never got back.
    """
    while time.monotonic() < deadline:
        wait_for("a match on the worker", lambda: any(": start " in ln for ln in worker.lines(offset)))
        worker.signal(signal.SIGSTOP)
        lines = worker.lines(offset)
        started = [ln.split()[-1] for ln in lines if ": start " in ln]
        done = {ln.split()[-1] for ln in lines if ": done " in ln}
        open_ = [m for m in started if m not in done]
        if open_:
            return open_[-1]
        worker.signal(signal.SIGCONT)
        size = len(lines)
        wait_for("the worker's next line", lambda: len(worker.lines(offset)) > size)
    raise AssertionError("never caught the worker with a match in flight")


def listening(pid: int) -> list[str]:
    """The addresses the process ``pid`` and its descendants listen on."""
    import psutil

    top = psutil.Process(pid)
    found = set()
    for p in [top, *top.children(recursive=True)]:
        try:
            found |= {c.laddr.ip for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}
        except psutil.NoSuchProcess:
            continue  # a child that ended since it was listed listens nowhere
    return sorted(found)


def test_only_holders_of_the_certificates_get_in_and_a_worker_runs_only_the_arenas_tasks(cluster, tmp_path):
    import distributed
    from distributed.security import Security

    b = cluster.healthy()  # (B, unless a test of this module that ran first killed it)
    # Every port of the worker (Dask's, its HTTP server's) and of the scheduler is bound where told.
    assert listening(b.proc.pid) == ["127.0.0.1"], listening(b.proc.pid)
    host, port = cluster.address.removeprefix("tls://").rsplit(":", 1)

    def security(folder: Path) -> Security:
        own = str(folder / "client.pem")
        return Security(tls_ca_file=str(folder / "ca.pem"), tls_client_cert=own, tls_client_key=own,
                        require_encryption=True)

    # No TLS, or a certificate of another authority: no connection at all.
    with pytest.raises((OSError, TimeoutError)):
        distributed.Client(f"tcp://{host}:{port}", timeout="5s", set_as_default=False)
    other = tmp_path / "other"
    init_certs(other)
    with pytest.raises((OSError, TimeoutError)):
        distributed.Client(cluster.address, timeout="5s", security=security(other), set_as_default=False)

    with distributed.Client(cluster.address, timeout="20s", security=security(cluster.certs),
                            set_as_default=False) as client:
        (worker_address,) = [a for a, w in client.scheduler_info(n_workers=-1)["workers"].items()
                             if w["name"] == b.name]
        # Straight to the worker's own port, TLS without a client certificate: refused by the worker.
        context = ssl.create_default_context(cafile=str(cluster.certs / "ca.pem"))
        context.check_hostname = False
        w_host, w_port = worker_address.removeprefix("tls://").rsplit(":", 1)
        with socket.create_connection((w_host, int(w_port)), timeout=10) as raw:
            with pytest.raises((ssl.SSLError, ConnectionError)):
                with context.wrap_socket(raw) as tls:
                    tls.sendall(b"x")
                    assert tls.recv(1) != b"x"  # the alert comes instead of any answer
        # A holder of the certificates is kept to the arena's own functions (the scheduler passes on
        # no `run`; a worker refuses it too: tests/cluster/test_roles.py).
        with pytest.raises(Exception, match=r"the arena's scheduler refuses 'broadcast'"):
            client.run(os.getpid, workers=[worker_address])
        future = client.submit(os.getpid, resources={"arena-slot": 1}, pure=False)
        with pytest.raises(Exception, match=r"worker \w+ refused task .*function posix.getpid"):
            future.result(timeout=60)


def test_a_tournament_survives_a_killed_coordinator_and_the_loss_of_the_worker_holding_the_bots(cluster, tmp_path):
    proc, local = run_json("tournament", *ARGS, "--db", str(tmp_path / "local.db"), timeout=180)
    assert proc.returncode == 0, proc.stderr
    b = cluster.workers[0]
    assert [w.name for w in cluster.workers if w.alive()] == ["B"], "this test needs B alone at first"
    db, log = tmp_path / "cluster.db", tmp_path / "coordinator.log"
    total = len(local["match_list"])

    # The coordinator dies (SIGKILL) part-way; --resume goes on with what is stored.
    first = coordinator(*ARGS, "--db", str(db), *cluster.args(), log=log)
    wait_for("some matches stored", lambda: len(stored(db)) >= 4 or first.poll() is not None, timeout=120)
    assert first.poll() is None, log.read_text()
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    first.stdout.close()
    assert 4 <= len(stored(db)) < total

    # Ctrl-C on a resumed run, as a terminal sends it (to the coordinator's process group):
    # one line that says how to resume, exit 130, no traceback.
    said = log.stat().st_size
    interrupted = coordinator("--resume", "1", "--db", str(db), *cluster.args(), log=log)
    wait_for("a match in flight on the cluster", lambda: "Started match" in log.read_bytes()[said:].decode(
        errors="replace") or interrupted.poll() is not None, timeout=120)
    said = log.stat().st_size
    os.killpg(interrupted.pid, signal.SIGINT)
    interrupted.communicate(timeout=60)
    lines = log.read_bytes()[said:].decode(errors="replace").splitlines()
    assert interrupted.returncode == 130, lines
    # (a match's progress line may cross the signal; nothing else may be said)
    words = [ln for ln in lines if not ln.startswith(("Started match ", "Finished match "))]
    assert len(words) == 1 and re.fullmatch(
        rf"Interrupted tournament 1 \(SIGINT\) after \d+ of {total} matches; "
        rf"resume with: arena tournament --resume 1 --db {re.escape(str(db))}", words[0]), lines
    before = stored(db)
    assert len(before) < total

    # On the resumed run B, the only worker, computes and holds the bots' artifacts. Once it
    # has played one of the run's matches it is frozen while it holds another, worker A
    # joins, and B is killed: A has to get the artifacts again, and plays the rest.
    offset = b.log.stat().st_size
    second = coordinator("--resume", "1", "--db", str(db), *cluster.args(), log=log)
    wait_for("a match of the resumed run", lambda: len(stored(db)) > len(before) or second.poll() is not None,
             timeout=120)
    in_flight = freeze_in_flight(b, offset, time.monotonic() + 120)
    a = cluster.add("A", CPUS[0])
    b.stop()
    out, _ = second.communicate(timeout=180)
    assert second.returncode == 0, log.read_text()[-3000:]
    resumed = json.loads(out)

    got = stored(db)
    positions = [(r, i) for r, i, _ in got]
    assert len(positions) == len(set(positions)) == total  # each match once
    assert set(before) <= set(got)  # the first run's results untouched
    by_label = {f"r{r}-m{i}": w for r, i, w in got}
    assert by_label[in_flight] == "A", (in_flight, by_label)
    assert set(by_label.values()) <= {"A", "B"}
    # Every match as the local run played it, by this arena.
    assert rows(db, "round, idx, scores, payoffs, faults") == rows(tmp_path / "local.db",
                                                                  "round, idx, scores, payoffs, faults")
    assert {x for (x,) in rows(db, "build")} == {build()}
    assert resumed["standings"] == local["standings"]
    # A match's transcript says the same to and from each seat as the local run's
    # (times, and the order of lines of different seats, depend on the machine).
    one = f"r0-m{total - 1}.log.gz"
    local_t, cluster_t = (by_seat(tmp_path / f"{run}-data" / "t1" / "transcripts" / one) for run in ("local", "cluster"))
    assert len(cluster_t) == 3 and cluster_t == local_t

    shown = run_arena("show", str(total), "--db", str(db))
    assert "played on cluster worker" in shown.stdout.splitlines()[0], shown.stdout[:300]

    # Each bot's artifact reached both workers from the coordinator's store, checked,
    # kept and unpacked once.
    shas = {pack_bot(BotSpec.parse(x.partition("=")[2]))[0].sha256 for x in BOTS}
    for w in (a, b):
        assert sorted(p.name for p in w.cache.iterdir() if p.is_dir()) == sorted(shas), w.name
        assert sorted(p.stem for p in w.cache.glob("*.tgz")) == sorted(shas), w.name


def test_workers_of_another_build_or_without_a_sandbox_are_passed_over_and_a_changed_cache_is_replaced(
        cluster, tmp_path):
    healthy = cluster.healthy()
    # A file changed in the healthy worker's cache entry of the Python bot.
    shipped, data = pack_bot(BotSpec.parse(f"python3 {K}/random_bot.py --seed 1"))
    changed = unpack(healthy.cache, shipped.sha256, data) / "tree" / "kuhn3" / "random_bot.py"
    original = changed.read_bytes()
    changed.write_bytes(b"raise SystemExit(3)\n")
    offset = healthy.log.stat().st_size
    # V says it is another release; S cannot build the bot supervisor, so no sandbox level works there.
    no_supervisor = tmp_path / "native"
    no_supervisor.mkdir(mode=0o700)
    v = cluster.add("V", CPUS[0], {"ARENA_REPORTED_VERSION": "9.9.9"})
    s = cluster.add("S", CPUS[0], {"ARENA_CACHE_DIR": str(no_supervisor), "CC": "/bin/false"})
    try:
        db = tmp_path / "t.db"
        proc = subprocess.run(
            [PY, "-m", "arena", "tournament", "kuhn3", BOTS[0], BOTS[1], BOTS[3], "--seed", replay_key("3"), "-p", "hands=10",
             "--sandbox", "basic", "--db", str(db), *cluster.args(), "--json"],
            capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=180)
    finally:
        v.stop()
        s.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    ours = build().split("+")
    assert re.search(rf"worker V at tls://\S+ runs arena 9\.9\.9 \(code {ours[1]}\); this coordinator runs "
                     rf"arena {re.escape(ours[0])} \(code {ours[1]}\): refused", proc.stderr), proc.stderr
    played = rows(db, "worker, build, faults, json_extract(timings, '$.retried')")
    assert len(played) == 6
    assert {(w, b, f) for w, b, f, _ in played} == {(healthy.name, build(), "[]")}
    retried = [json.loads(r) for *_, r in played if r]
    assert retried, "S was given no match"
    for tries in retried:
        assert [t["worker"] for t in tries] == ["S"]
        assert tries[0]["reason"].startswith("sandbox 'basic' does not work there: the bot supervisor is "
                                             "unavailable"), tries
    events = json.loads(proc.stdout)["events"]
    assert len(events) == len(retried) and all("worker S could not play it: sandbox 'basic'" in e for e in events)
    assert proc.stderr.count("worker S could not play it") == len(retried)
    # The changed cache file was seen, and the entry unpacked again from the artifact.
    assert changed.read_bytes() == original
    assert any("differs from artifact" in ln and "random_bot.py was changed" in ln for ln in healthy.lines(offset))


def test_acpc_agents_are_shipped_without_the_relay_and_play_on_a_worker(cluster, acpc, tmp_path):
    """The artifact is the agent's own; the worker puts its own relay before it
    (the coordinator's is a path on its machine) and holds the agent's socket.
    (Shipped with the coordinator's relay, each agent was faulted at its first
    line: the relay, run as a plain bot, had no socket to hand over.)"""
    healthy = cluster.healthy()
    agent = f"acpc:{acpc['example_player']} {{gamedef}}"
    shipped, _ = pack_bot(BotSpec.parse(agent))
    assert shipped.relay == "acpc:" and [k for k, _ in shipped.words] == ["path", "word"], shipped
    assert shipped.words[0][1].endswith("/example_player") and shipped.words[1][1] == "{gamedef}", shipped
    call_bot = ROOT / "sample_bots" / "holdem" / "build" / "call_bot"
    db = tmp_path / "t.db"
    proc = subprocess.run(
        [PY, "-m", "arena", "tournament", "holdem", f"a={agent}", f"b={agent}", f"call={call_bot}", "--seed", replay_key("4"),
         "-p", "hands=30", "--sandbox", "basic", "--db", str(db), *cluster.args(), "--json"],
        capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    played = rows(db, "worker, faults, hands")
    # one table of three, in each of its three seatings; every hand played, no fault
    assert len(played) == 3 and {(w, f, h) for w, f, h in played} == {(healthy.name, "[]", 30)}, played
    standings = {s["bot"]: s for s in json.loads(proc.stdout)["standings"]}
    assert set(standings) == {"a", "b", "call"} and not any(s["faults"] for s in standings.values()), standings


def test_the_league_plays_its_tournaments_on_the_cluster(cluster, tmp_path):
    db = tmp_path / "league.db"
    # Three owners: no table seats two bots of one owner.
    tokens = [new_user(db, name) for name in ("ann", "ben", "cat")]
    server = League(db, "--game", "kuhn3", "-p", "kuhn3.hands=20", "--quarantine-matches", "3", "--every", "1h",
                    "--placement-matches", "6", *cluster.args())
    try:
        # Compiled bots: quick through quarantine (the test is about where tournaments run).
        for token, (path, name) in zip(tokens, (("build/rule_bot", "c"), ("build/rule_bot_rs", "rust"),
                                                ("build/rule_bot", "c2"))):
            r = server.submit(token, Path(path).name, sample(path), name=name)
            assert r.status_code == 201, r.text
            v = server.settled(r.json()["bot"])
            assert v["state"] == "active", (v["message"], v.get("steps"))
        server.wait("a placement", lambda: any(
            t["kind"] == "placement" and t["status"] == "finished"
            for t in server.http.get("/api/tournaments").json()["tournaments"]))
        assert f"Cluster: {cluster.address}" in server.stderr()
    finally:
        assert server.stop() == 130, server.stderr()  # stopped by SIGINT, as Ctrl-C does
    con = sqlite3.connect(db)
    played = con.execute("SELECT m.worker FROM matches m JOIN league_tournaments l "
                         "ON l.tournament = m.tournament WHERE l.kind = 'placement'").fetchall()
    con.close()
    names = {w.name for w in cluster.workers if w.alive()}
    assert played and {w for (w,) in played} <= names, played


def test_a_coordinator_waits_for_a_worker_a_lost_scheduler_stops_it_in_words_and_the_worker_rejoins(tmp_path):
    certs, scheduler, address = secured_scheduler(tmp_path)
    db, log = tmp_path / "t.db", tmp_path / "coordinator.log"
    worker = None
    try:
        run = coordinator(*ARGS, "--db", str(db), "--cluster", address, "--certs", str(certs), log=log)
        wait_for("the coordinator to wait for a worker", lambda: "waiting up to 60 s for a worker" in log.read_text()
                 or run.poll() is not None)
        worker = start_worker(address, "W", CPUS[0], tmp_path, certs)
        wait_for("a match stored", lambda: stored(db) or run.poll() is not None, timeout=120)
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()
        run.communicate(timeout=120)
        text = log.read_text()
        assert run.returncode == 3, text[-2000:]
        assert f"lost the connection to the Dask scheduler at {address}" in text
        assert "resume with: arena tournament --resume 1" in text and "Traceback" not in text
        assert 1 <= len(stored(db)) < 24
        # The worker waits for a scheduler at that address, and joins the new one.
        scheduler, again = start_scheduler(tmp_path, certs, port=int(address.rsplit(":", 1)[1]))
        assert again == address
        wait_for("the worker to rejoin", lambda: worker.log.read_text().count("Registered to") == 2
                 or not worker.alive())
        assert worker.alive() and "rejoining the scheduler at" in worker.log.read_text()
    finally:
        if worker is not None:
            worker.stop()
        if scheduler.poll() is None:
            os.killpg(scheduler.pid, signal.SIGKILL)
            scheduler.wait()


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
    # The entry is compared with the artifact before each use: a changed, deleted or
    # added file, or a lost executable bit, is said and the entry unpacked afresh.
    said: list[str] = []
    for change, words in (
        (lambda: (root / "tree" / "bot" / "main.py").write_text("print('y')\n"), "tree/bot/main.py was changed"),
        (lambda: (root / "tree" / "bot" / "weights.bin").unlink(), "tree/bot/weights.bin is missing"),
        (lambda: (root / "tree" / "bot" / "extra.py").write_text(""), "tree/bot/extra.py is not in the artifact"),
        (lambda: (root / "tree" / "bot" / "main.py").chmod(0o755), "tree/bot/main.py was changed"),
    ):
        change()
        assert unpack(cache, shipped.sha256, data, warn=said.append) == root
        assert words in said[-1] and "dropped, unpacked again" in said[-1]
        assert (root / "tree" / "bot" / "main.py").read_text() == "print('x')\n"
        assert sorted(p.name for p in (root / "tree" / "bot").iterdir()) == ["main.py", "weights.bin"]
    assert unpack(cache, shipped.sha256, data, warn=said.append) == root and len(said) == 4
    # A link out of the bot's files is refused before anything is packed.
    (folder := other).joinpath("leak").symlink_to("/etc/passwd")
    with pytest.raises(UsageError, match="is a link to /etc/passwd, outside the bot's files"):
        check_shippable(BotSpec.parse(f"python3 {folder}/main.py"))


def test_cluster_options_are_checked_before_anything_starts(tmp_path):
    from arena.cli._cluster import check_listen
    from arena.tournament._plan import check_cluster

    db = tmp_path / "t.db"
    certs = tmp_path / "certs"
    made = run_arena("cluster", "init-certs", str(certs))
    assert made.returncode == 0 and sorted(p.name for p in certs.iterdir()) == [
        "ca-key.pem", "ca.pem", "client.pem", "scheduler.pem", "worker.pem"], made.stderr
    assert {oct(p.stat().st_mode & 0o777) for p in certs.iterdir()} == {"0o600"}
    with pytest.raises(UsageError, match="refusing to replace an authority"):
        init_certs(certs)
    # TLS everywhere, with certificates.
    with pytest.raises(UsageError, match="speaks TLS: give --certs DIR"):
        check_cluster("tls://127.0.0.1:1", "match")
    with pytest.raises(UsageError, match="is plain TCP to scheduler.lan, where anyone on that network could"):
        check_cluster("tcp://scheduler.lan:8786", "match", certs=certs)
    assert check_cluster("tls://scheduler.lan:8786", "match", certs=certs) == "tls://scheduler.lan:8786"
    with pytest.raises(UsageError, match="--listen 0.0.0.0 is an address where anyone on that network could"):
        check_listen("0.0.0.0", None, "tcp")
    check_listen("10.0.0.1", certs, "tls")
    check_listen("::1", certs, "tls")
    tls = ["--certs", str(certs)]

    for args, expected in (
        (["--cluster", "not an address"], "--cluster takes a Dask scheduler's address"),
        (["--cluster", "tls://127.0.0.1:1", *tls, "--lifetime", "tournament"], "--lifetime tournament"),
        (["--cluster", "tcp://10.1.2.3:8786"], "is plain TCP to 10.1.2.3, where anyone on that network could"),
    ):
        proc = run_arena("tournament", *ARGS, "--db", str(db), *args)  # refused before Dask is reached
        assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
    for args, expected in (
        (["tls://127.0.0.1:9", *tls, "--cpus", "0-4096"], "--cpus 0-4096: this process may use CPUs"),
        (["tcp://127.0.0.1:9", "--listen", "0.0.0.0"], "is plain TCP to this machine's loopback"),
    ):
        proc = run_arena("worker", *args)
        assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
    # Nobody listening, or a bot with a link out of its folder (to a port that answers):
    # said in words before anything is stored.
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "bot.py").write_text("")
    (linked / "secret").symlink_to("/etc/hostname")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        for args, expected in (
            ([*ARGS, "--cluster", "tls://127.0.0.1:9", *tls], "no Dask scheduler answers there"),
            (["kuhn3", f"python3 {linked}/bot.py", *BOTS[:2], "--lifetime", "match", "--cluster",
              f"tls://127.0.0.1:{listener.getsockname()[1]}", *tls], "is a link to /etc/hostname, outside the bot's files"),
        ):
            proc = subprocess.run([PY, "-m", "arena", "tournament", *args, "--db", str(db)],
                                  capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=120)
            assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
            assert not db.exists()
