"""`make bench`: the league server's pages under load, and what that load costs its tournaments.

One real `arena serve` (kuhn3, --demo: the five sample bots through build and
quarantine; --jobs 1; scheduled tournaments an hour away, so that only the
ones started here run). Once the demo's pipeline is quiet, in one run:

  alone   an admin starts a tournament (60 matches) and nothing else asks
          the server anything but its progress;
  loaded  a second tournament, while CLIENTS concurrent clients on 127.0.0.1
          fetch, back to back, the leaderboard and a finished match's page
          (with its transcript), alternately, until the tournament ends.

Prints, per page, requests per second and p50/p99 latency, the requests that
did not get a 200, both tournaments' matches per second and their ratio.
The pages are served by the same trio loop that runs the tournament, and the
clients share the machine's cores with the server, so the ratio is what a
busy site costs a tournament here at most.
"""

from __future__ import annotations

import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import trio

ROOT = Path(__file__).resolve().parent.parent
GAME = "kuhn3"
HANDS = int(os.environ.get("BENCH_SERVER_HANDS", "50"))
CLIENTS = int(os.environ.get("BENCH_SERVER_CLIENTS", "8"))
MIN_BOTS = 4
STARTUP_SECONDS = 150.0  # build + quarantine + placement of five bots, on a slow machine
TOURNAMENT_SECONDS = 180.0
# Progress is polled the same way with and without load, so that polling
# costs both measurements alike.
POLL = 0.05


class BenchError(Exception):
    pass


@dataclass
class Server:
    url: str
    token: str
    process: subprocess.Popen


def start_server(folder: Path) -> Server:
    db = folder / "league.db"
    log = folder / "server.log"
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--db", str(db), "--port", "0", "--every", "1h",
             "--game", GAME, "-p", f"{GAME}.hands={HANDS}", "--demo"],
            stdout=subprocess.PIPE, stderr=err, cwd=ROOT, env=env,
        )
    try:
        line = _first_line(process, deadline=time.monotonic() + 60)
        if not line.startswith("League serving at "):
            raise BenchError(f"unexpected first line from arena serve: {line!r}")
        url = line.split()[3]
        token = (folder / "league-data" / "demo-token").read_text().strip()
    except BaseException:
        stop_server(process)
        raise
    return Server(url, token, process)


def _first_line(process: subprocess.Popen, deadline: float) -> str:
    # select() and os.read, not readline(): a server that hangs before its
    # first line must not hang the benchmark with it.
    fd = process.stdout.fileno()
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError("arena serve printed no URL in time")
            if sel.select(left):
                chunk = os.read(fd, 4096)
                if not chunk:
                    raise BenchError(f"arena serve exited ({process.wait()}) before printing its URL")
                data += chunk
    return data.split(b"\n", 1)[0].decode()


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()


# -- the league's state, through its JSON pages ------------------------------------------


async def get_json(client: httpx.AsyncClient, path: str) -> dict:
    r = await client.get(path)
    if r.status_code != 200:
        raise BenchError(f"GET {path}: {r.status_code} {r.text[:300]}")
    return r.json()


async def quiet_pool(client: httpx.AsyncClient) -> int:
    """Wait until at least MIN_BOTS bots are active and no submission or tournament is under way."""
    deadline = trio.current_time() + STARTUP_SECONDS
    calm = 0
    while True:
        home = await get_json(client, "/api/games")
        board = await get_json(client, f"/api/games/{GAME}")
        listing = await get_json(client, "/api/tournaments")
        active = next(g["active"] for g in home["games"] if g["game"] == GAME)
        busy = home["live"] or board["waiting"] or any(t["status"] != "finished" for t in listing["tournaments"])
        # Twice in a row: a version just made active is quiet for an instant
        # before its placement tournament is created.
        calm = calm + 1 if active >= MIN_BOTS and not busy else 0
        if calm >= 2:
            return active
        if trio.current_time() > deadline:
            raise BenchError(f"the demo bots were not ready within {STARTUP_SECONDS:g} s "
                             f"({active} active, waiting: {[w['label'] for w in board['waiting']]})")
        await trio.sleep(0.2)


async def tournament_ids(client: httpx.AsyncClient) -> set[int]:
    return {t["id"] for t in (await get_json(client, "/api/tournaments"))["tournaments"]}


@dataclass
class Run:
    tid: int
    matches: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.matches / self.seconds


async def start_tournament(client: httpx.AsyncClient, token: str) -> tuple[float, set[int]]:
    before = await tournament_ids(client)
    # Wall-clock time, as the server stamps each match's end: a duration
    # from these does not include how late a loaded server answers a poll.
    started = time.time()
    r = await client.post("/api/tournaments/start", data={"game": GAME}, headers={"Authorization": f"Bearer {token}"})
    if r.status_code != 202:
        raise BenchError(f"starting a tournament: {r.status_code} {r.text[:300]}")
    return started, before


async def follow(client: httpx.AsyncClient, started: float, before: set[int]) -> Run:
    """Poll the tournament just started until it is finished; its duration ends with its last match."""
    deadline = trio.current_time() + TOURNAMENT_SECONDS
    tid = None
    while True:
        if trio.current_time() > deadline:
            raise BenchError(f"tournament {tid} did not finish within {TOURNAMENT_SECONDS:g} s")
        if tid is None:
            new = (await tournament_ids(client)) - before
            if len(new) > 1:
                raise BenchError(f"tournaments {sorted(new)} started together; the measurement would mix them")
            tid = next(iter(new), None)
        if tid is not None:
            page = await get_json(client, f"/api/tournaments/{tid}")
            t = page["tournament"]
            if t["status"] == "finished":
                if t["kind"] != "manual" or t["done"] != t["matches"] or len(page["matches"]) != t["matches"]:
                    raise BenchError(f"tournament {tid}: {t['kind']}, {t['done']} of {t['matches']} matches, "
                                     f"{len(page['matches'])} listed")
                if (await tournament_ids(client)) - before != {tid}:
                    raise BenchError(f"another tournament ran beside {tid}; the measurement would mix them")
                seconds = max(m["finished"] for m in page["matches"]) - started
                return Run(tid, t["matches"], seconds)
        await trio.sleep(POLL)


# -- the load -----------------------------------------------------------------------------


@dataclass
class Page:
    path: str
    latencies: list[float] = field(default_factory=list)  # seconds, every request that got an answer
    not_ok: int = 0  # answers other than 200
    failed: int = 0  # requests that got no answer

    @property
    def errors(self) -> int:
        return self.not_ok + self.failed


async def client_loop(url: str, pages: list[Page], first: int) -> None:
    # One connection per client, kept alive, as a browser would.
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        i = first
        while True:
            page = pages[i % len(pages)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = await client.get(page.path)
            except httpx.HTTPError:
                page.failed += 1
                continue
            page.latencies.append(time.perf_counter() - t0)
            if r.status_code != 200:
                page.not_ok += 1


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest rank: the smallest value with at least q of the values at or below it."""
    if not sorted_values:
        return math.nan
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


async def measure(server: Server) -> tuple[int, Run, Run, list[Page], float]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as control:
        t0 = time.perf_counter()
        active = await quiet_pool(control)
        print(f"  {active} demo bots active, pipeline quiet, after {time.perf_counter() - t0:.1f} s", flush=True)

        started, before = await start_tournament(control, server.token)
        alone = await follow(control, started, before)
        print(f"  tournament {alone.tid}, alone : {alone.matches} matches in {alone.seconds:.1f} s", flush=True)

        finished = (await get_json(control, f"/api/tournaments/{alone.tid}"))["matches"]
        if not finished:
            raise BenchError(f"tournament {alone.tid} lists no finished match")
        pages = [Page(f"/games/{GAME}"), Page(f"/matches/{finished[0]['id']}")]
        for page in pages:  # a page that fails when idle would only measure its error path
            r = await control.get(page.path)
            if r.status_code != 200:
                raise BenchError(f"GET {page.path}: {r.status_code} before any load")

        started, before = await start_tournament(control, server.token)
        failure = None
        async with trio.open_nursery() as nursery:
            load_started = time.perf_counter()
            for c in range(CLIENTS):
                nursery.start_soon(client_loop, server.url, pages, c)
            # Caught here: out of a nursery it would come wrapped in an ExceptionGroup.
            try:
                loaded = await follow(control, started, before)
            except BenchError as exc:
                failure = exc
            load_seconds = time.perf_counter() - load_started
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise failure
        print(f"  tournament {loaded.tid}, loaded: {loaded.matches} matches in {loaded.seconds:.1f} s", flush=True)
    return active, alone, loaded, pages, load_seconds


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main() -> None:
    # A machine busy with something else shows here rather than in the ratio alone.
    print(f"league server under load: {GAME}, the demo's bots, --jobs 1, {HANDS} hands per match; "
          f"{CLIENTS} clients, back to back, on 127.0.0.1; load average {os.getloadavg()[0]:.2f}", flush=True)
    # `kill` of the benchmark must not leave a league serving: SIGTERM unwinds
    # through the same `finally` as an error or Ctrl-C.
    signal.signal(signal.SIGTERM, _terminated)
    with tempfile.TemporaryDirectory(prefix="arena-server-load-") as tmp:
        folder = Path(tmp)
        try:
            server = start_server(folder)
            try:
                active, alone, loaded, pages, load_seconds = trio.run(measure, server)
            finally:
                stop_server(server.process)
        except BenchError as exc:
            log = folder / "server.log"
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            sys.exit(f"server_load: {exc}\n--- server log (end) ---\n{tail}")

    answered = errors = 0
    for page in pages:
        lat = sorted(page.latencies)
        answered += len(lat)
        errors += page.errors
        print(f"page {page.path:<14}: {len(lat) / load_seconds:8.1f} requests/s   "
              f"p50 {percentile(lat, 0.50) * 1e3:7.1f} ms   p99 {percentile(lat, 0.99) * 1e3:7.1f} ms   "
              f"errors {page.errors} ({page.not_ok} not 200, {page.failed} unanswered) of {len(lat) + page.failed}")
    print(f"pages total        : {answered / load_seconds:8.1f} requests/s   errors {errors}   "
          f"over {load_seconds:.1f} s; load average {os.getloadavg()[0]:.2f}")
    print(f"tournament without load: {alone.rate:6.2f} matches/s ({active} bots)")
    print(f"tournament with load   : {loaded.rate:6.2f} matches/s")
    print(f"ratio  with load / without load throughput: {loaded.rate / alone.rate:.2f}x")


if __name__ == "__main__":
    main()
