"""What the league does on its own: the submission pipeline and the tournaments.

A version goes ``received`` -> ``built`` -> ``quarantined`` -> ``active`` (or
``rejected`` at the step that failed, with that step's message). Everything a
submission runs, its build included, goes through the league's one
``BotHost`` (``arena.play._host``): the same sandbox and limits as every match.

The build runs inside the sandbox on a private copy of the bot's folder; what
it leaves there comes back as a tar.gz on its stdout and is unpacked by the
same checks as an upload, so a build can no more write outside its folder
than an archive can.

Tournaments (scheduled every ``every`` seconds, a placement gauntlet for a
newly active version, or one an admin starts) are ``arena.tournament._run``'s:
every match is stored as it ends, and a tournament the server did not finish
is resumed when it starts again (only the matches not stored are played). A
tournament stopped while the server runs (the league paused for a full disk,
a lost cluster, an error) is resumed by the same process: once there is room,
or at the next scheduled time. Its lock is held only while it plays.
"""

from __future__ import annotations

import base64
import contextlib
import math
import shlex
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from .._spec import BotSpec
from .._checks import UsageError, parse_param
from .._faults import BotFault
from ..play._host import BotHost, open_bots
from ..quarantine._manifest import ManifestError, manifest_of
from .._plan import load_plugin
from ..quarantine._run import Plan, make_plan, run_quarantine
from ..quarantine._report import QuarantineReport, StepResult
from ..results._store import Store
from ..cluster import ClusterError, ClusterLost, ClusterSession, open_cluster
from ..tournament._run import Progress, run_tournament
from ..tournament._plan import create_tournament, load_tournament, plan_tournament
from ._db import League, StepRecord, VersionRecord
from ._disk import DiskWatch, blocked_write, in_words
from ._uploads import BotManifest, UploadError, UploadLimits, run_argv, unpack

BUILD_SCRIPT = (
    'set -e; mkdir /tmp/build; cp -R "$1"/. /tmp/build/; cd /tmp/build; '
    '{ %s ; } >&2; tar -czf - . | base64 -w0; echo'
)


@dataclass(slots=True)
class LeagueSettings:
    """How a league runs (``arena serve``'s options, checked)."""

    every: float = 3600.0  # seconds between scheduled tournaments
    jobs: int = 1
    cluster: str | None = None  # a Dask scheduler: tournaments play there (quarantine and builds stay here)
    cluster_certs: Path | None = None  # its certificates (arena cluster init-certs), for a tls:// address
    sandbox: str | None = None  # the level; decided once at start
    games: list[str] = field(default_factory=list)
    params: dict[str, list[str]] = field(default_factory=dict)  # per game: KEY=VALUE overrides
    rounds: int = 1
    timeout: float = 1.0
    quarantine_matches: int = 6
    placement_matches: int = 60  # at most, in whole sets of bots (see arena.tournament._run.sample_sets)
    build_seconds: float = 120.0
    limits: UploadLimits = field(default_factory=UploadLimits)
    pipeline_jobs: int = 2  # builds at once, and as many quarantines at once
    quarantine_seconds: float = 600.0  # a quarantine's whole time, every step together
    min_free: int = 100 * 2**20  # bytes of free disk below which the league stops writing
    pool_limit: int = 8  # versions of one user in one game's pool
    play_idle: float = 600.0  # seconds a friendly (arena.league._friendly) waits for its person


#: A version is watched over its first PROBATION_MATCHES league matches; when
#: PROBATION_FAULTS of them end with a fault of its own, it leaves the pool
#: and is quarantined again; the second time, it is rejected.
PROBATION_MATCHES, PROBATION_FAULTS = 5, 3
#: How often the free disk space is looked at.
DISK_CHECK_SECONDS = 1.0
#: The longest wait before a tournament stopped by a lost cluster plays on (doubling from 1 s).
LOST_DELAY_MAX = 60.0
#: Why a tournament stopped when the league paused (the "Disk:" line before it says what the disk lacks).
_WAITS = "the league waits until its disk takes writes again, and the tournament plays on from there then"


@dataclass(slots=True)
class _QuarantineProgress:
    """A quarantine's steps as they end, and where it is now, shown through
    ``show(where, the steps so far)``: a slow bot's quarantine is seen moving."""

    show: Callable[[str, list[str]], None]
    steps: list[StepResult] = field(default_factory=list)
    where: str = "starting"

    def lines(self) -> list[str]:
        return [f"step {s.number} {s.status} {s.title}: {s.summary}" for s in self.steps]

    def on_step(self, step: StepResult) -> None:
        self.steps.append(step)
        self.where = f"step {step.number} {step.status}: {step.title}"
        self.show(self.where, self.lines())

    def on_match(self, step: int, done: int, total: int) -> None:
        self.where = f"step {step}: {done} of {total} matches played"
        self.show(self.where, self.lines())

    def details(self) -> list[str]:
        """Every step with its own details below it, for the version's page."""
        out = []
        for s in self.steps:
            out.append(f"step {s.number} {s.status} {s.title}" + (f": {s.summary}" if s.summary else ""))
            out += ["    " + d for d in s.details]
        return out


@dataclass(slots=True)
class Live:
    """A tournament being played: what the pages show while it runs."""

    tid: int
    game: str
    kind: str
    total: int
    done: int = 0
    faults: int = 0
    started: float = field(default_factory=time.time)


class LeagueRunner:
    """The pipeline and the tournaments of one league."""

    def __init__(self, league: League, store: Store, host: BotHost, settings: LeagueSettings,
                 log: Callable[[str], None] = print) -> None:
        self.league, self.store, self.host, self.settings, self.log = league, store, host, settings, log
        self.files = store.data_dir / "league"
        self.files.mkdir(mode=0o700, exist_ok=True)
        for sub in ("blobs", "bots", "work"):
            (self.files / sub).mkdir(mode=0o700, exist_ok=True)
        self.live: dict[int, Live] = {}
        self._cluster: ClusterSession | None = None
        self.next_run: float = time.time() + settings.every
        self.disk = DiskWatch([store.path.parent, store.data_dir], settings.min_free, log)
        self._room = trio.Event()  # set while the disk has room
        # The pipeline: versions waiting, in the order they arrived; the users
        # with a version in the pipeline (one at a time each); a slot per
        # build and per quarantine under way (trio's semaphores are first come,
        # first served, so each stage keeps the order of arrival).
        self._waiting: list[int] = []
        self._busy_users: set[int] = set()
        self._queue_changed = trio.Event()
        self._build_slots = trio.Semaphore(settings.pipeline_jobs)
        self._quarantine_slots = trio.Semaphore(settings.pipeline_jobs)
        self._probation: dict[int, list[int]] = {}  # version -> [league matches, of them faulted], since active
        # Placements wait for the tournament lock on their own queue, so that a
        # long tournament does not hold up the builds and quarantines behind it.
        self._placement_send, self._placement_receive = trio.open_memory_channel[int](math.inf)
        self._run_now = trio.Event()
        self._resume_pending = False  # room came back: tournaments stopped for lack of it play on
        self._playing: dict[int, trio.CancelScope] = {}  # the tournament in play: stopped when the league pauses
        # Seconds before a tournament stopped by a lost cluster plays on: doubles, reset by a stored match.
        self._lost_delay = 0.0
        self._now_games: set[str] = set()
        self.tournament_lock = trio.Lock()  # one tournament at a time: they share the workers
        self.nursery: trio.Nursery | None = None  # while ``run`` runs

    def bot_folder(self, vid: int) -> Path:
        return self.files / "bots" / f"v{vid}"

    # -- entry points (called by the web layer) ------------------------------------

    def submitted(self, vid: int) -> None:
        if vid not in self._waiting:
            self._waiting.append(vid)
        self._queue_changed.set()

    def resumed(self, bot: int) -> None:
        """A paused bot plays again: a version of it that became active meanwhile gets its placement now."""
        for v in self.league.versions("v.bot=? AND v.state='active' AND v.store_bot IS NULL", (bot,)):
            self._placement_send.send_nowait(v["id"])

    def start_now(self, game: str) -> None:
        self._now_games.add(game)
        self._run_now.set()

    # -- tasks ---------------------------------------------------------------------

    async def run(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """The pipeline and the scheduler, until cancelled."""
        if self.settings.cluster is not None:
            # One connection for the server's life: each bot version is shipped once.
            self._cluster = await open_cluster(self.settings.cluster, self.settings.cluster_certs)
            self._cluster.note = self.log
            # The server outlives its scheduler and workers: it connects again after losing
            # the scheduler, and a tournament waits for a worker as long as it takes, saying so.
            self._cluster.reconnect = True
            self._cluster.worker_wait = None
            slots = await trio.to_thread.run_sync(self._cluster.slots)
            self.log(f"Cluster: {self.settings.cluster}, {slots} slot(s) for matches"
                     + ("" if slots else " for now: tournaments wait for a worker"))
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery  # friendlies are played here too (arena.league._friendly)
                self._watch_disk_once()
                nursery.start_soon(self._disk_watcher)
                nursery.start_soon(self._pipeline)
                nursery.start_soon(self._placements)
                nursery.start_soon(self._scheduler)
                task_status.started()
        finally:
            if self._cluster is not None:
                await self._cluster.aclose()

    # -- the disk ------------------------------------------------------------------

    def _watch_disk_once(self) -> None:
        if self.disk.check() is None:
            self._room.set()
        else:
            self._pause()

    def _pause(self) -> None:
        """No room: the work that writes waits, and the tournament in play stops where it
        was (its stored matches are kept; it plays on once there is room)."""
        if self._room.is_set():
            self._room = trio.Event()
        for scope in self._playing.values():
            scope.cancel()

    async def _disk_watcher(self) -> None:
        while True:
            had_room = self._room.is_set()
            self._watch_disk_once()
            if self._room.is_set() and not had_room:
                # Tournaments stopped for lack of room play on from where they were.
                self._resume_pending = True
                self._run_now.set()
            await trio.sleep(DISK_CHECK_SECONDS)  # a poll of statvfs: nothing signals free space

    def out_of_room(self, exc: BaseException, what: str) -> None:
        """A write failed for lack of space (or on a read-only disk): the league waits for
        room (the watcher resumes it). An upload too big for the room left is refused
        alone, by its request's answer (``_web.submit_bot``), and never comes here."""
        self.disk.failed(exc, what)
        self._pause()

    async def wait_for_room(self) -> None:
        while not self._room.is_set():
            await self._room.wait()

    # -- the pipeline ----------------------------------------------------------------

    async def _pipeline(self) -> None:
        """Start each waiting version, in the order they arrived, as soon as its
        owner has no other version in the pipeline; the stages bound how many
        builds and quarantines run at once."""
        # Versions left half-way by a server that stopped go through again.
        for left in self.league.versions("v.state IN ('received', 'built', 'quarantined')"):
            self.submitted(left["id"])
        async with trio.open_nursery() as nursery:
            while True:
                started = False
                for vid in list(self._waiting):
                    v = self.league.version(vid)
                    if v is None:
                        self._waiting.remove(vid)
                        continue
                    if v["owner"] in self._busy_users:
                        continue
                    self._waiting.remove(vid)
                    self._busy_users.add(v["owner"])
                    nursery.start_soon(self._process_one, vid, v["owner"])
                    started = True
                if not started:
                    await self._queue_changed.wait()
                    self._queue_changed = trio.Event()

    async def _process_one(self, vid: int, owner: int) -> None:
        try:
            await self.process(vid)
        except Exception as exc:  # an arena bug (or a full disk) must not stop the league
            if blocked_write(exc):
                self.out_of_room(exc, f"the pipeline of version {vid}")
                self._waiting.insert(0, vid)  # it goes on from its state once there is room
            else:
                self._try(lambda: self.league.set_state(
                    vid, "rejected", f"internal error in the arena (not the bot's fault): {in_words(exc)}"))
                self.log(f"arena: internal error while processing version {vid}: {in_words(exc)}")
        finally:
            self._busy_users.discard(owner)
            self._queue_changed.set()

    def _try(self, write: Callable[[], Any]) -> None:
        """A write that may itself fail for lack of room; then the disk state says so."""
        try:
            write()
        except Exception as exc:
            if not blocked_write(exc):
                raise
            self.out_of_room(exc, "a write to the database")

    async def _placements(self) -> None:
        # An active version that never entered a tournament (the server
        # stopped before its placement, or the pool was too small) gets one now.
        for v in self.league.versions("v.state='active' AND v.store_bot IS NULL"):
            self._placement_send.send_nowait(v["id"])
        async for vid in self._placement_receive:
            await self.wait_for_room()
            try:
                await self.placement(vid)
            except Exception as exc:  # an arena bug must not stop the league
                if blocked_write(exc):
                    self.out_of_room(exc, f"the placement of version {vid}")
                    self._placement_send.send_nowait(vid)  # once there is room
                else:
                    self.log(f"arena: internal error in the placement of version {vid}: {in_words(exc)}")

    async def _scheduler(self) -> None:
        await self.wait_for_room()
        await self._resume_unfinished()
        while True:
            with trio.move_on_at(trio.current_time() + max(0.0, self.next_run - time.time())):
                await self._run_now.wait()
            woken = self._run_now.is_set()
            self._run_now = trio.Event()
            only_resume = self._resume_pending and not self._now_games and time.time() < self.next_run
            self._resume_pending = False
            # A tournament stopped on its way (a full disk, a lost cluster, an error) plays on first.
            await self._resume_unfinished()
            if only_resume:
                continue
            manual = woken and bool(self._now_games)
            games = sorted(self._now_games) if manual else self.settings.games
            self._now_games = set()
            if not manual:
                self.next_run = time.time() + self.settings.every
            if not self._room.is_set():
                # Paused: a tournament would only fill the disk further.
                self.log(f"No {'manual' if manual else 'scheduled'} tournament: {self.disk.problem}")
                continue
            for game in games:
                try:
                    await self.tournament(game, "manual" if manual else "scheduled")
                except Exception as exc:  # the scheduler goes on whatever one tournament met
                    if blocked_write(exc):
                        self.out_of_room(exc, f"a tournament of {game}")
                    else:
                        self.log(f"arena: internal error in a tournament of {game}: {in_words(exc)}")

    async def _resume_after(self, delay: float) -> None:
        """Tournaments stopped by a lost cluster play on after ``delay`` seconds."""
        await trio.sleep(delay)
        self._resume_pending = True
        self._run_now.set()

    def next_tournament(self) -> tuple[float | None, str]:
        """When the next scheduled tournament starts, as a time and in words (for the pages)."""
        if self.disk.problem is not None:
            return None, f"paused while {self.disk.problem}"
        if self.next_run <= time.time():
            # The schedule fell behind a long tournament: the next one starts when it ends.
            return None, "as soon as the tournament in play ends" if self.live else "now"
        return self.next_run, ""

    async def _resume_unfinished(self) -> None:
        """Play on every league tournament left unfinished (by a stop, a full disk, an
        error) that is not in play, while there is room."""
        kinds = self.league.tournament_kinds()
        for tid in [t["id"] for t in self.store.tournaments() if t["status"] == "running"]:
            t = self.store.tournament(tid)  # as it is now: the one before may have taken long
            known = kinds.get(tid)
            if t is None or t["status"] != "running" or known is None or known.kind == "friendly" or tid in self.live:
                continue
            if not self._room.is_set():
                return  # paused again: the watcher calls for this once there is room
            try:
                config, plugin = load_tournament(self.store, tid, self.settings.jobs)
            except UsageError as exc:
                self.log(f"arena: cannot resume tournament {tid}: {exc}")
                continue
            with self._held(tid):
                await self._play(config, plugin, tid, known.kind, resumed=True)

    @contextlib.contextmanager
    def _held(self, tid: int) -> Iterator[None]:
        """Tournament ``tid``'s lock (taken by ``create_tournament`` or ``load_tournament``)
        let go when its play ends, however it ends: the server plays many tournaments
        and resumes one it stopped, and no lock or descriptor outlives its tournament."""
        try:
            yield
        finally:
            self.store.unlock_tournament(tid)

    # -- the pipeline ----------------------------------------------------------------

    async def process(self, vid: int) -> None:
        await self.wait_for_room()  # every step writes (a version put back after a failed write waits here)
        v = self.league.version(vid)
        if v is None:
            return
        if v["state"] == "received":
            await self.wait_for_room()
            async with self._build_slots:
                if not await self._build(v):
                    return
            v = self._version(vid)
        if v["state"] == "built":
            await self.wait_for_room()
            async with self._quarantine_slots:
                if not await self._quarantine(v):
                    return
            v = self._version(vid)
        if v["state"] == "quarantined":
            # The owner's cap on the pool, counted without the version this one replaces.
            replaced = len(self.league.versions("v.bot=? AND v.state='active'", (v["bot"],)))
            cap = self.settings.pool_limit
            if self.league.pool_count(v["owner"], v["game"]) - replaced >= cap:
                self._reject(vid, f"passed its quarantine, but its owner already has {cap} "
                                                       f"versions in the {v['game']} pool, the most one user may "
                                                       "have; retire one and submit again")
                return
            self._activate(v)
            self._placement_send.send_nowait(vid)

    def _reject(self, vid: int, message: str) -> None:
        """A version rejected: its state and message, and a log line naming the step it failed."""
        self.league.set_state(vid, "rejected", message)
        v = self.league.version(vid)
        if v is None:
            return
        failed = next((s["name"] for s in v["steps"] if s["status"] == "FAIL"), None)
        at = f" at its {failed} step" if failed else ""
        self.log(f"Rejected: {v['label']} ({v['game']}, {v['owner_name']}){at}: {message}")

    def _version(self, vid: int) -> VersionRecord:
        """A version known to be there (the league never deletes one)."""
        v = self.league.version(vid)
        assert v is not None, vid
        return v

    def _step(self, v: VersionRecord, name: str, status: str, summary: str, details: list[str] | None = None,
              log: str | None = None) -> None:
        steps = [s for s in self._version(v["id"])["steps"] if s["name"] != name]
        steps.append(StepRecord(name=name, status=status, summary=summary, details=details or [], log=log))
        self.league.set_steps(v["id"], steps)

    async def _build(self, v: VersionRecord) -> bool:
        folder = self.bot_folder(v["id"])
        build = v["manifest"].get("build")
        if build:
            self.log(f"Building {v['label']} ({v['game']})")
            ok, summary, log = await self._run_build(folder, build, v["id"])
            self._step(v, "build", "PASS" if ok else "FAIL", summary, log=log)
            if not ok:
                self._reject(v["id"], f"build failed: {summary}")
                return False
        else:
            self._step(v, "build", "PASS", "nothing to build")
        try:
            manifest = BotManifest(name=None, game=None, run=v["manifest"]["run"], build=None)
            argv = run_argv(manifest, folder)
            command = shlex.join(argv)
            self._spec(v["id"], command, v["label"])
        except (UploadError, ValueError) as exc:
            self._step(v, "build", "FAIL", f"the run command cannot be used: {exc}")
            self._reject(v["id"], f"run command: {exc}")
            return False
        self.league.set_state(v["id"], "built", command=command)
        return True

    async def _run_build(self, folder: Path, build: str, vid: int) -> tuple[bool, str, str]:
        """Run ``build`` in the sandbox on a copy of ``folder``; on success the folder is replaced."""
        logs = self.files / "work" / f"v{vid}-build"
        shutil.rmtree(logs, ignore_errors=True)
        logs.mkdir(mode=0o700)
        spec = BotSpec(command=f"sh -c <build> sh {folder}", argv=("sh", "-c", BUILD_SCRIPT % build, "sh", str(folder)),
                       name="build")
        limit = self.settings.limits.max_upload_bytes * 2 + 1024
        started = time.monotonic()
        try:
            async with open_bots([spec], host=self.host, log_dir=logs, max_line=limit,
                                 stderr_cap=256 * 1024) as bots:
                line = await bots[0].receive_line(trio.current_time() + self.settings.build_seconds,
                                                  f"did not finish within {self.settings.build_seconds:g} s")
        except BotFault as exc:
            return False, f"{exc.kind}: {exc.detail}", _read(logs / "seat0.stderr.log")
        log = _read(logs / "seat0.stderr.log")
        try:
            data = base64.b64decode(line.strip(), validate=True)
        except ValueError:
            return False, "the build's output could not be read back", log
        built = folder.with_name(folder.name + "-built")
        shutil.rmtree(built, ignore_errors=True)
        try:
            # The pipeline waits for room as a whole: what a build left is not refused for the disk's sake.
            unpack(data, "build.tar.gz", built, replace(self.settings.limits, keep_free=0))
        except UploadError as exc:
            return False, f"what the build left is not accepted: {exc}", log
        shutil.rmtree(folder)
        built.rename(folder)
        return True, f"built in {time.monotonic() - started:.1f} s", log

    async def _quarantine(self, v: VersionRecord) -> bool:
        self.log(f"Quarantine of {v['label']} ({v['game']})")
        try:
            plan = make_plan(v["game"], self.spec_of(v), matches=self.settings.quarantine_matches,
                             timeout=self.settings.timeout, params=self.settings.params.get(v["game"]))
        except ValueError as exc:
            self._step(v, "quarantine", "FAIL", str(exc))
            self._reject(v["id"], str(exc))
            return False
        plan.pseudonyms = True  # as in the league's tournaments: the bot cannot tell the two apart by names
        progress = _QuarantineProgress(
            lambda where, done: self._step(v, "quarantine", "RUNNING", where, details=done))
        report = await self._run_quarantine(plan, v["id"], progress)
        if report is None:
            return self._quarantine_too_long(v, plan, progress)
        return self._quarantine_verdict(v, report, progress.details())

    async def _run_quarantine(self, plan: Plan, vid: int, progress: _QuarantineProgress) -> QuarantineReport | None:
        """The quarantine, in a work folder of its own (removed after); None
        when it took longer than the league's limit for a whole quarantine."""
        work = self.files / "work" / f"v{vid}-quarantine"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(mode=0o700)
        try:
            with trio.move_on_after(self.settings.quarantine_seconds):
                return await run_quarantine(plan, work, progress.on_step, self.host, progress.on_match)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return None

    def _quarantine_too_long(self, v: VersionRecord, plan: Plan, progress: _QuarantineProgress) -> bool:
        limit = self.settings.quarantine_seconds
        summary = (f"it took longer than {limit:g} s in all, the league's limit for a whole quarantine "
                   f"(stopped at {progress.where}); a bot that answers well within the {plan.timeout:g} s "
                   "per reply is expected")
        self._step(v, "quarantine", "FAIL", summary, details=progress.lines())
        self._reject(v["id"], f"quarantine stopped: {summary}")
        self.log(f"Quarantine of {v['label']} ({v['game']}) stopped after {limit:g} s")
        return False

    def _quarantine_verdict(self, v: VersionRecord, report: QuarantineReport, details: list[str]) -> bool:
        """The version's state after its quarantine ran to the end: True when it passed."""
        failed = report.failed_step
        if report.game_error is not None:
            # The game broke, not the bot: no verdict on the bot. It stays built, and its quarantine
            # runs again when the league restarts (or an admin re-runs it) once the game is fixed.
            assert failed is not None  # the step the game's failure stopped is a FAIL all the same
            summary = (f"not judged: the game's own code failed at step {failed.number} ({report.game_error}); "
                       "the bot stays in line for its quarantine")
            self._step(v, "quarantine", "ERROR", summary, details=details)
            self.league.set_state(v["id"], "built", summary)
            self.log(f"Quarantine of {v['label']} ({v['game']}) not judged: {report.game_error}")
            return False
        if failed is not None:
            summary = f"step {failed.number} failed: {failed.title}: {failed.summary}"
            self._step(v, "quarantine", "FAIL", summary, details=details)
            self._reject(v["id"], f"quarantine {summary} (seed {report.seed})")
            return False
        self._step(v, "quarantine", "PASS", f"every step passed (seed {report.seed}, {report.duration:.1f} s)",
                   details=details)
        self.league.set_state(v["id"], "quarantined")
        return True

    def _activate(self, v: VersionRecord) -> None:
        # The newest version of a bot plays; older ones keep their record.
        for old in self.league.versions("v.bot=? AND v.state='active'", (v["bot"],)):
            self.league.set_state(old["id"], "retired", f"replaced by v{v['number']}")
        self.league.set_state(v["id"], "active")
        self._probation[v["id"]] = [0, 0]
        self.log(f"Active: {v['label']} ({v['game']})")

    def _on_league_match(self, vid: int, faulted: bool) -> None:
        """One league match of ``vid`` ended: a new version that faults in its first
        matches leaves the pool and is quarantined again (rejected the second time)."""
        watch = self._probation.get(vid)
        if watch is None:
            return
        watch[0] += 1
        watch[1] += int(faulted)
        if watch[1] < PROBATION_FAULTS:
            if watch[0] >= PROBATION_MATCHES:
                del self._probation[vid]  # it passed its first matches
            return
        del self._probation[vid]
        v = self.league.version(vid)
        if v is None or v["state"] != "active":
            return
        summary = (f"a fault of its own in {watch[1]} of its first {watch[0]} league matches, after passing "
                   "its quarantine")
        again = any(s["name"] == "probation" for s in v["steps"])
        self._step(v, "probation", "FAIL", summary)
        if again:
            self._reject(vid, f"{summary}, for the second time")
            return
        self.league.set_state(vid, "built", f"out of the pool and quarantined again: {summary}")
        self.log(f"Out of the pool, quarantined again: {v['label']} ({v['game']}): {summary}")
        self.submitted(vid)

    # -- tournaments -----------------------------------------------------------------

    def owners_apart(self, pool: list[VersionRecord]) -> tuple[int, ...]:
        """A group per version of ``pool``: no table seats two of one group. Bots
        of one owner could pass each other cards through what the machine lets
        seats share (docs/sandbox.md); an admin's bots (the organiser's, such
        as the demo's sample bots) are trusted, each a group of its own."""
        admins = {u["id"] for u in self.league.users() if u["admin"]}
        return tuple(-p["id"] if p["owner"] in admins else p["owner"] for p in pool)

    def spec_of(self, version: VersionRecord) -> BotSpec:
        """A built version as the sandbox runs it (see ``_spec``)."""
        assert version["command"] is not None, f"{version['label']} is not built"
        return self._spec(version["id"], version["command"], version["label"])

    def _spec(self, vid: int, command: str, label: str) -> BotSpec:
        """Version ``vid``'s run command, with its folder as the one place of the host
        it is shown besides the system (its words are never looked up in the server's own files)."""
        folder = str(self.bot_folder(vid).resolve())
        return BotSpec.parse(command, name=label, files=((folder, True),))

    def _specs(self, pool: list[VersionRecord]) -> list[BotSpec]:
        return [self.spec_of(p) for p in pool]

    def _given(self, game: str, **extra: Any) -> dict[str, Any]:
        """The keyword options of ``plan_tournament`` for a tournament of ``game``."""
        params = dict(manifest_params(game))
        params.update(parse_param(p) for p in self.settings.params.get(game, []))
        return {"timeout": self.settings.timeout, "duplicate": True, "rounds": self.settings.rounds,
                "sandbox": self.settings.sandbox, "params": params, "jobs": self.settings.jobs, **extra}

    async def placement(self, vid: int) -> int | None:
        """A gauntlet of the new version against the pool, so that it gets a rating at once."""
        v = self._version(vid)
        pool = self.league.pool(v["game"])
        if vid not in {p["id"] for p in pool}:
            return None  # replaced, paused or retired since
        return await self.tournament(v["game"], "placement", version=vid, pool=pool)

    async def tournament(self, game: str, kind: str, *, version: int | None = None,
                         pool: list[VersionRecord] | None = None) -> int | None:
        """Plan, store and play one tournament over the pool of ``game``; None when too few bots."""
        pool = self.league.pool(game) if pool is None else pool
        specs = self._specs(pool)
        extra: dict[str, Any] = {}  # a fresh random seed, shown once the tournament has finished
        if version is not None:
            extra["gauntlet"] = next(p["label"] for p in pool if p["id"] == version)
            extra["sample"] = self.settings.placement_matches
        try:
            config = plan_tournament(game, specs, **self._given(game, **extra))
            plugin = load_plugin(game)
        except UsageError as exc:
            self.log(f"No {kind} tournament of {game}: {exc}")
            return None
        config.pseudonyms = True
        config.apart = self.owners_apart(pool)
        config.seat_for(plugin)
        if not config.pairings():
            self.log(f"No {kind} tournament of {game}: every table of {config.seats} would seat two bots of one "
                     f"owner ({len(pool)} bots of {len(set(config.apart))} owners)")
            return None
        async with self.tournament_lock:
            # The free space is looked at again now: the lock may have been held for long.
            if (problem := self.disk.check()) is not None:
                self._watch_disk_once()
                self.log(f"No {kind} tournament of {game}: {problem}")
                return None
            tid = create_tournament(self.store, config)
            with self._held(tid):
                self.league.add_tournament(tid, kind, version)
                stored = self.store.tournament(tid)
                assert stored is not None  # created just above
                for p, entrant in zip(pool, stored["entrants"]):
                    if p["store_bot"] is None:
                        self.league.set_state(p["id"], p["state"], p["message"], store_bot=entrant["bot"])
                await self._play(config, plugin, tid, kind, locked=True)
        return tid

    async def _play(self, config: Any, plugin: Any, tid: int, kind: str, locked: bool = False,
                    resumed: bool = False) -> None:
        """Play tournament ``tid`` (locked by the caller) until it is finished or stopped: by
        the league's pause (no room: it is cancelled where it was) or by an error. Either
        way the matches stored are kept, and a stopped one plays on later
        (``_resume_unfinished``). Each outcome is one sentence in the log."""
        config.seat_for(plugin)
        config.pseudonyms = True  # a tournament stored before the league told pseudonyms tells them now
        config.cluster = self.settings.cluster
        config.cluster_certs = self.settings.cluster_certs
        live = Live(tid=tid, game=config.game, kind=kind, total=len(config.pairings()))
        live.done = len(self.store.done_positions(tid))
        progress = self._progress(config, live)
        self.log(f"Resuming tournament {tid} ({config.game}, {kind}) at {live.done} of {live.total} matches"
                 if resumed else
                 f"Started tournament {tid} ({config.game}, {kind}, {len(config.bots)} bots, {live.total} matches)")
        self.live[tid] = live
        stop = self._playing[tid] = trio.CancelScope()
        finished = False
        try:
            with stop:
                if locked:
                    finished = await self._run(plugin, config, tid, progress)
                else:
                    async with self.tournament_lock:
                        finished = await self._run(plugin, config, tid, progress)
        except Exception as exc:
            self._stopped(tid, live, exc)
            return
        finally:
            self.live.pop(tid, None)
            self._playing.pop(tid, None)
        if not finished:
            self.log(f"Tournament {tid} stopped at {live.done} of {live.total} matches: {_WAITS}")
            return
        self.log(f"Finished tournament {tid} ({config.game}, {kind}): {live.done} matches, {live.faults} faults")

    async def _run(self, plugin: Any, config: Any, tid: int, progress: Progress) -> bool:
        """``run_tournament`` for the league: whether the tournament is finished."""
        outcome = await run_tournament(plugin, config, self.store, tid, progress, self._cluster,
                                       sync_wait=self.host.sync_wait)
        return outcome.finished

    def _progress(self, config: Any, live: Live) -> Progress:
        """What the pages show of a tournament in play, and each version's probation, as matches end."""
        progress = Progress(total=live.total)
        by_label = {v["label"]: v["id"] for v in self.league.versions("b.game=?", (config.game,))}
        entrant_version = [by_label.get(b.name) for b in config.bots]

        def on_finish(match_id: int, p: Any, names: list[str], record: Any) -> None:
            self._lost_delay = 0.0
            live.done += 1
            live.faults += len(record.faults)
            faulted = {f["seat"] for f in record.faults}
            for seat, entrant in enumerate(p.seats):
                if entrant_version[entrant] is not None:
                    self._on_league_match(entrant_version[entrant], seat in faulted)

        progress.on_finish = on_finish
        return progress

    def _stopped(self, tid: int, live: Live, exc: Exception) -> None:
        """Tournament ``tid`` stopped on an error: one sentence in the log, never a traceback.
        A write that found no room (or a read-only disk) pauses the league, and the
        tournament plays on once there is room; another error, at the next scheduled time."""
        at = f"at {live.done} of {live.total} matches"
        if blocked_write(exc) or self.disk.check() is not None:
            # A worker that died on a full disk says so only through the disk itself.
            self.out_of_room(exc, f"tournament {tid}")
            self.log(f"Tournament {tid} stopped {at}: {_WAITS}")
        elif isinstance(exc, ClusterLost) or (isinstance(exc, ExceptionGroup) and exc.subgroup(ClusterLost)):
            # Played on soon: the session connects again first, with back-off of its own. A loss
            # again before any match is stored waits longer each time, so nothing spins.
            self._lost_delay = min(2 * self._lost_delay, LOST_DELAY_MAX) if self._lost_delay else 1.0
            self.log(f"Tournament {tid} stopped {at}: {in_words(exc)}; it plays on once the scheduler answers "
                     f"(trying in {self._lost_delay:g} s)")
            if self.nursery is not None:
                self.nursery.start_soon(self._resume_after, self._lost_delay)
        elif isinstance(exc, ClusterError) or (isinstance(exc, ExceptionGroup) and exc.subgroup(ClusterError)):
            self.log(f"Tournament {tid} stopped {at}: the cluster failed ({in_words(exc)}); "
                     "it plays on at the next scheduled time")
        else:
            self.log(f"arena: tournament {tid} stopped {at} by an error the arena did not expect "
                     f"({in_words(exc)}); it plays on at the next scheduled time")


def manifest_params(game: str) -> dict[str, Any]:
    """The game's quarantine manifest's parameters: a match length fit for a league."""
    try:
        return dict(manifest_of(load_plugin(game)).params)
    except (ManifestError, UsageError, ValueError):
        return {}


def _read(path: Path, limit: int = 64 * 1024) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-limit:].decode("utf-8", "backslashreplace")
