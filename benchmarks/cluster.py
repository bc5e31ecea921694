"""`make bench`: tournaments on a Dask cluster on this machine (issue 13).

Two clusters on 127.0.0.1, started here: ONE has one worker (`arena worker
--cpus 0`), TWO has two (CPUs 0 and 1). In one run, interleaved:

  scaling   the same kuhn3 tournament (4 C bots, 24 matches of HANDS hands)
            on ONE and on TWO; matches per second and the ratio (goal >= 1.85),
            from the first match sent to the last result heard (the
            coordinator's start-up, about a second, is left out: on a real
            cluster it is paid once per tournament, not per match), and
            also for the whole runs;
  overhead  short matches (1 hand) on ONE against local `--jobs 1`; each
            path's cost per match is the slope between a 2-round and a
            10-round tournament (48 and 240 matches), so start-up (importing
            Dask, connecting) cancels out; the overhead is the difference of
            the slopes (goal <= 10 ms); and, by the same slopes, the CPU per
            match of the coordinator (the `arena tournament --cluster`
            process) and of the scheduler's process, with the matches per
            second they could serve at most: in batches (the arena's way)
            and with one match per task (ARENA_BATCH_MAX=1, as before
            batches), side by side; the goal is batches 10x cheaper for both.
            Each process's CPU is read from /proc when the first match is
            sent and when the last result is heard (its progress lines, as
            they come), so that neither start-up (importing Dask, about a
            second of CPU and never quite the same) nor shutdown is in it.
            Each process also uses some CPU per second whatever it plays
            (heartbeats, polls); a third run, the short one's 48 matches
            with bots that wait SLOW_START s before they start (the same
            tiny transcripts, over several seconds more), measures that
            rate, and the per-match figures are net of it (the slope's
            extra seconds at that rate): at 60 matches/s on one worker it
            would otherwise be counted as part of each match;
  league    what a league-length transcript (kuhn3's manifest: LEAGUE_HANDS
            hands; its gzip size is printed) adds to the coordinator's CPU
            per match: 240 such matches against 240 one-hand matches whose
            bots wait, before they start, as long as the longer matches last
            more. Both runs then last as long, and their batches hold as
            many (a batch is sized by duration), so neither the per-second
            rate nor the per-task cost is in the difference; what is left
            of the windows' difference is netted at the rate above.

Both paths run the bots with `--sandbox none` (the workers are started with
--allow-no-sandbox), so that the figures are the cluster's, not the sandbox's.
The clusters are set up as docs/cluster.md says: `arena cluster scheduler`
and `arena worker` with certificates (mutual TLS), and every match checks
its bots' cache entry against the artifact before it runs.
"""

from __future__ import annotations

import json
import operator
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from arena.cluster._security import init_certs

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "sample_bots" / "kuhn3" / "build"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
HANDS = int(os.environ.get("BENCH_TOURNAMENT_HANDS", "3000"))
#: Which parts to run (BENCH_CLUSTER_PARTS=overhead measures the per-match overhead alone;
#: league needs overhead's runs and adds its own to them).
PARTS = os.environ.get("BENCH_CLUSTER_PARTS", "scaling,overhead,league").split(",")
SCALING_GOAL, OVERHEAD_GOAL_MS, BATCH_GOAL = 1.85, 10.0, 10.0
#: CPU per match below this is within the noise of the net-of-rate figures (single runs
#: of the scheduler's, in batches, came out between -0.06 and +0.15 ms).
RESOLUTION_MS = 0.05
#: The longer overhead run's rounds (24 matches each); the slope runs from 2 rounds to it.
LONG = 10
#: Seconds the bots of the run that measures what a process uses per second wait before
#: they start: the same 48 one-hand matches as the short run (the same transcripts, so
#: nothing more to store), over several seconds more.
SLOW_START = 0.1
#: A league match of kuhn3 (its manifest's `hands`): the transcript a league stores.
LEAGUE_HANDS = 300
BOTS = [str(BUILD / "rule_bot"), str(BUILD / "rule_bot_rs")] * 2


def slow_bots(folder: Path, wait: float) -> list[str]:
    """BOTS, each behind a script that waits ``wait`` seconds and then runs it (the
    workers run bots unsandboxed here, so the absolute path is reachable)."""
    out = []
    folder.mkdir(exist_ok=True)  # a folder of their own: a bot's files are its folder's
    for bot in BOTS:
        script = folder / f"slow_{Path(bot).name}"
        script.write_text(f'#!/bin/sh\nsleep {wait:.4f}\nexec {bot} "$@"\n')
        script.chmod(0o755)
        out.append(str(script))
    return out


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.pop("PYTHONUNBUFFERED", None)
    return e


def wait_for(what: str, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            sys.exit(f"benchmark: timed out waiting for {what}")
        time.sleep(0.05)
    return got


class Cluster:
    def __init__(self, folder: Path, name: str, cpus: list[int], certs: Path) -> None:
        self.procs: list[subprocess.Popen] = []
        self.certs = certs
        info = folder / f"{name}.json"
        self._start([sys.executable, "-m", "arena", "cluster", "scheduler", "--listen", "127.0.0.1:0",
                     "--certs", str(certs), "--scheduler-file", str(info)], folder / f"{name}-scheduler.log")
        self.scheduler = self.procs[-1]
        self.address = wait_for("a scheduler", lambda: info.exists() and info.stat().st_size
                                and json.loads(info.read_text()).get("address"))
        for cpu in cpus:
            log = folder / f"{name}-worker{cpu}.log"
            self._start([sys.executable, "-m", "arena", "worker", self.address, "--cpus", str(cpu),
                         "--name", f"{name}-{cpu}", "--no-nanny", "--allow-no-sandbox", "--certs", str(certs),
                         "--cache", str(folder / f"{name}-cache{cpu}")], log)
            wait_for("a worker", lambda: "Registered to" in log.read_text())

    def _start(self, argv: list[str], log: Path) -> None:
        with open(log, "wb") as out:
            self.procs.append(subprocess.Popen(argv, stdout=out, stderr=out, env=env(), cwd=ROOT,
                                               start_new_session=True))

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) a live process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Run(NamedTuple):
    """One `arena tournament` run, timed. The window runs from its first match sent to
    its last result heard (its progress lines, as they came), leaving out the
    coordinator's start-up (Python, Dask, connecting, packing) and shutdown; not from the
    stored times, since a batch's matches are stored together when it comes back."""

    took: float  # seconds, the whole run (start-up included)
    window: float  # seconds, the playing window
    #: CPU seconds in that window of the coordinator and of the process it was told to
    #: ``watch`` (a scheduler), each read from /proc as the lines came
    coordinator: float
    scheduler: float


def tournament(folder: Path, tag: str, hands: int, rounds: int, where: list[str],
               extra: dict[str, str] | None = None, watch: int | None = None,
               bots: list[str] = BOTS) -> Run:
    db = folder / f"{tag}.db"
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "kuhn3", *bots, "--seed", "5", "--rounds", str(rounds),
         "--db", str(db), "-p", f"hands={hands}", "--sandbox", "none", "--json", *where],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**env(), **(extra or {})}, cwd=ROOT)
    assert proc.stderr is not None
    first = last = None
    tail: list[str] = []
    cpu_first = cpu_last = (0.0, 0.0)
    for line in proc.stderr:
        now = time.perf_counter()
        if first is None and line.startswith("Started match "):
            first = now
            cpu_first = (cpu_seconds(proc.pid), cpu_seconds(watch) if watch else 0.0)
        elif line.startswith("Finished match "):
            last = now
            cpu_last = (cpu_seconds(proc.pid), cpu_seconds(watch) if watch else 0.0)
        tail = (tail + [line])[-40:]
    proc.wait()
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or first is None or last is None:
        sys.exit("benchmark: tournament failed:\n" + "".join(tail))
    return Run(elapsed, last - first, cpu_last[0] - cpu_first[0], cpu_last[1] - cpu_first[1])


def main() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        sys.exit("benchmark: the cluster scaling needs 2 CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        certs = folder / "certs"
        init_certs(certs)
        one = Cluster(folder, "one", [cpus[0]], certs)
        two = Cluster(folder, "two", [cpus[0], cpus[1]], certs)
        try:
            if "scaling" in PARTS:
                scaling(folder, one, two, certs)
            if "overhead" in PARTS or "league" in PARTS:
                overhead(folder, one, certs, league="league" in PARTS)
        finally:
            one.stop()
            two.stop()


def scaling(folder: Path, one: Cluster, two: Cluster, certs: Path) -> None:
    print(f"cluster: kuhn3, 4 C bots, 24 matches of {HANDS} hands; {RUNS} interleaved runs")
    rates: dict[str, list[float]] = {"one": [], "two": []}
    playing: dict[str, list[float]] = {"one": [], "two": []}
    for i in range(RUNS):
        for name, c in (("one", one), ("two", two)):
            tag = f"s-{name}-{i}"
            run = tournament(folder, tag, HANDS, 1, ["--cluster", c.address, "--certs", str(certs)])
            rates[name].append(24 / run.took)
            playing[name].append(24 / run.window)
        print(f"  run {i + 1}: 1 worker {rates['one'][-1]:6.2f} matches/s ({playing['one'][-1]:.2f} playing)   "
              f"2 workers {rates['two'][-1]:6.2f} matches/s ({playing['two'][-1]:.2f} playing)")
    ratio = statistics.median(playing["two"]) / statistics.median(playing["one"])
    whole = statistics.median(rates["two"]) / statistics.median(rates["one"])
    verdict = "met" if ratio >= SCALING_GOAL else "NOT met"
    print(f"ratio  2 workers / 1 worker, while playing  : {ratio:.2f}x (goal {SCALING_GOAL}x: {verdict})")
    print(f"ratio  2 workers / 1 worker, whole runs     : {whole:.2f}x (start-up included: "
          "Python, importing Dask, connecting)")


ROLES = ("coordinator", "scheduler")


def shown(ms: float) -> str:
    return f"{ms:.3f} ms" if ms >= RESOLUTION_MS else f"under {RESOLUTION_MS} ms ({ms:+.3f}, within the noise)"


class Overhead:
    """The overhead and league parts: their runs, and the figures drawn from them."""

    def __init__(self, folder: Path, one: Cluster, certs: Path, league: bool) -> None:
        self.folder, self.one, self.league = folder, one, league
        self.slow_start = slow_bots(folder / "slow", SLOW_START)
        cluster = ["--cluster", one.address, "--certs", str(certs)]
        self.paths = {"local": (["--jobs", "1"], None), "cluster": (cluster, None),
                      "per-match": (cluster, {"ARENA_BATCH_MAX": "1"})}
        self.slopes: dict[str, list[float]] = {name: [] for name in self.paths}
        # CPU ms per match of `arena tournament --cluster` and of the scheduler's process (net of
        # what each uses per second of a run anyway), and that CPU per second
        self.per_match: dict[tuple[str, str], list[float]] = {}
        self.per_second: dict[tuple[str, str], list[float]] = {}
        self.transcript_bytes: list[float] = []
        self.windows: list[tuple[float, float]] = []  # the league-length run's and its control's (s)

    def plan(self, name: str) -> dict[str, tuple[int, int, list[str] | None]]:
        """The runs of one path: label -> (rounds, hands, bots; None: the control's, written later)."""
        plan: dict[str, tuple[int, int, list[str] | None]] = {"short": (2, 1, BOTS), "more": (LONG, 1, BOTS)}
        if name != "local":
            plan["slow"] = (2, 1, self.slow_start)
        if name == "cluster" and self.league:
            plan |= {"league": (LONG, LEAGUE_HANDS, BOTS), "control": (LONG, 1, None)}
        return plan

    def play(self, i: int, name: str) -> dict[str, Run]:
        where, extra = self.paths[name]
        runs: dict[str, Run] = {}
        for label, (rounds, hands, bots) in self.plan(name).items():
            tag = f"o-{name}-{i}-{label}"
            if bots is None:
                # as long as a league-length match: the 1-hand match's time, and the rest waited
                longer = (runs["league"].window - runs["more"].window) / (24 * LONG)
                bots = slow_bots(self.folder / f"control-{i}", max(0.0, longer))
            runs[label] = tournament(self.folder, tag, hands, rounds, where, extra, watch=self.one.scheduler.pid,
                                     bots=bots)
            if label == "league":
                self.transcript_bytes.append(self.transcript_size(tag))
        return runs

    def transcript_size(self, tag: str) -> float:
        """The mean size of the transcripts a run stored (bytes, gzipped)."""
        stored = list((self.folder / f"{tag}-data").glob("t*/transcripts/*.log.gz"))
        if len(stored) != 24 * LONG:
            sys.exit(f"benchmark: {len(stored)} transcripts stored by {tag}, {24 * LONG} expected")
        return sum(f.stat().st_size for f in stored) / len(stored)

    def measure(self, name: str, runs: dict[str, Run]) -> None:
        short, more = runs["short"], runs["more"]
        self.slopes[name].append((more.took - short.took) / ((LONG - 2) * 24) * 1000)
        if "slow" not in runs:
            return
        slow = runs["slow"]
        # as many matches, as long, in as many batches: what the transcripts add
        added, control = runs.get("league"), runs.get("control")
        for role in ROLES:
            cpu = operator.attrgetter(role)
            # The same 48 matches over a longer window: what the process uses per second of play.
            rate = max(0.0, (cpu(slow) - cpu(short)) / (slow.window - short.window))
            self.per_second.setdefault((name, role), []).append(rate * 1000)
            # More matches over a longer window: per match, less that time's share.
            net = (cpu(more) - cpu(short) - rate * (more.window - short.window)) / ((LONG - 2) * 24)
            self.per_match.setdefault((name, role), []).append(net * 1000)
            if added and control:
                net = (cpu(added) - cpu(control) - rate * (added.window - control.window)) / (24 * LONG)
                self.per_match.setdefault(("transcript", role), []).append(net * 1000)
        if added and control:
            self.windows.append((added.window, control.window))

    def said(self, i: int) -> str:
        last = {key: v[-1] for key, v in self.per_match.items()}
        line = (f"  run {i + 1}: local --jobs 1 {self.slopes['local'][-1]:6.2f} ms/match   "
                f"cluster {self.slopes['cluster'][-1]:6.2f} ms/match   CPU per match, batches / one per task: "
                f"coordinator {last['cluster', 'coordinator']:.3f} / {last['per-match', 'coordinator']:.3f} ms, "
                f"scheduler {last['cluster', 'scheduler']:.3f} / {last['per-match', 'scheduler']:.3f} ms")
        if self.league:
            line += (f"; a {LEAGUE_HANDS}-hand transcript adds: coordinator {last['transcript', 'coordinator']:+.3f}"
                     f" ms, scheduler {last['transcript', 'scheduler']:+.3f} ms (windows "
                     f"{self.windows[-1][0]:.1f} and {self.windows[-1][1]:.1f} s)")
        return line

    def report(self) -> None:
        med = {key: statistics.median(v) for key, v in self.per_match.items()}
        for name, said in (("per-match", "one match per task"), ("cluster", "in batches        ")):
            c, s = med[name, "coordinator"], med[name, "scheduler"]
            idle = (f"{statistics.median(self.per_second[name, 'coordinator']):.1f} and "
                    f"{statistics.median(self.per_second[name, 'scheduler']):.1f} ms per second of a run")
            print(f"CPU per match, {said}: coordinator {shown(c)}, scheduler {shown(s)} (besides {idle}): "
                  f"one of each keeps up with at most {1000 / max(c, s, RESOLUTION_MS):,.0f} matches/s")
        for role in ("coordinator", "scheduler"):
            # A figure under the resolution counts as the resolution: the ratio is then a lower bound.
            batched = med["cluster", role]
            ratio = med["per-match", role] / max(batched, RESOLUTION_MS)
            verdict = "met" if ratio >= BATCH_GOAL else "NOT met"
            print(f"ratio  {role} CPU per match, one per task / batches: "
                  f"{'at least ' if batched < RESOLUTION_MS else ''}{ratio:.1f}x (goal {BATCH_GOAL:g}x: {verdict})")
        if self.league:
            added = med["transcript", "coordinator"]
            whole = med["cluster", "coordinator"] + added
            print(f"a league-length transcript ({LEAGUE_HANDS} hands, "
                  f"{statistics.median(self.transcript_bytes) / 1000:.0f} kB gzipped) adds to the CPU per match: "
                  f"coordinator {added:+.3f} ms, scheduler {med['transcript', 'scheduler']:+.3f} ms; so a "
                  f"coordinator's CPU per league match, in batches: {whole:.3f} ms, at most "
                  f"{1000 / max(whole, RESOLUTION_MS):,.0f} matches/s")
        extra_ms = statistics.median(self.slopes["cluster"]) - statistics.median(self.slopes["local"])
        verdict = "met" if extra_ms <= OVERHEAD_GOAL_MS else "NOT met"
        print(f"overhead  cluster - local, per match        : {extra_ms:+.2f} ms "
              f"(goal <= {OVERHEAD_GOAL_MS:g} ms: {verdict})")


def overhead(folder: Path, one: Cluster, certs: Path, league: bool) -> None:
    print(f"cluster overhead: 1-hand matches, 48 and {24 * LONG} per run, and 48 whose bots wait "
          f"{SLOW_START} s to start (time without more to store)"
          + (f"; in batches, {24 * LONG} matches of {LEAGUE_HANDS} hands against as many as long of 1 hand"
             if league else "")
          + f"; {RUNS} interleaved runs")
    part = Overhead(folder, one, certs, league)
    for i in range(RUNS):
        for name in part.paths:
            part.measure(name, part.play(i, name))
        print(part.said(i))
    part.report()


if __name__ == "__main__":
    main()
