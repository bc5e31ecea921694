"""One league process: the web app (Hypercorn on trio), the pipeline and the scheduler, one trio loop."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import trio

from .._checks import UsageError, game_params, parse_param
from .._games import available_games, load_game
from .._plan import check_limits, load_plugin
from ..play._host import open_host
from ..quarantine._manifest import ManifestError, games_with_manifests, manifest_of
from ..quarantine._run import make_plan
from ..sandbox import SandboxPolicy, SandboxUnavailable, resolve_level
from ..results._store import open_store
from ._db import League, UserRecord
from ._disk import blocked_write, in_words
from ._runner import DISK_CHECK_SECONDS, LeagueRunner, LeagueSettings, manifest_params
from ._uploads import UploadLimits
from ._web import Site, make_app, submit_bot



@dataclass(slots=True)
class ServeOptions:
    db: Path
    host: str = "127.0.0.1"
    port: int = 8000
    every: float = 3600.0
    jobs: int = 1
    cluster: str | None = None  # a Dask scheduler's address
    cluster_certs: Path | None = None  # its certificates, for a tls:// address
    games: list[str] = field(default_factory=list)
    params: dict[str, list[str]] = field(default_factory=dict)
    rounds: int = 1
    timeout: float = 1.0
    quarantine_matches: int = 6
    placement_matches: int = 60
    build_seconds: float = 120.0
    submit_limit: int = 20
    max_upload_bytes: int = 8 * 2**20
    pipeline_jobs: int = 2
    quarantine_seconds: float = 600.0
    min_free_bytes: int = 100 * 2**20
    pool_limit: int = 8
    play_idle: float = 600.0  # seconds a friendly waits for its person (arena.league._friendly)
    sandbox: str | None = None
    secure_cookies: bool = False
    demo: bool = False
    check: bool = False  # validate the options and stop


def _check_quarantine(game: str, options: ServeOptions) -> None:
    """The league's quarantine of ``game`` can run with these options (else every
    submission would be refused for what is the organiser's choice, not the bot's)."""
    plugin = load_plugin(game)
    try:
        manifest = manifest_of(plugin)
    except ManifestError as exc:
        raise UsageError(f"--game {game}: {exc}") from None
    chosen = game_params(plugin, {**manifest.params, **dict(parse_param(p) for p in options.params.get(game) or [])},
                         keys=True)
    seats = manifest.seats or plugin.fixed_seats(chosen) or plugin.spec.max_seats
    if options.quarantine_matches < seats:
        raise UsageError(f"--quarantine-matches {options.quarantine_matches} is fewer than the {seats} seats of "
                         f"{game}: a quarantine plays the bot once in every seat, so at least {seats} is expected")
    try:
        make_plan(game, "true", matches=options.quarantine_matches, timeout=options.timeout,
                  params=options.params.get(game))
    except ValueError as exc:
        raise UsageError(f"the quarantine of {game} cannot run with these options: {exc}") from None


#: Set by the stop line: a task that finishes as the server stops (a tournament
#: woken with its last result) says nothing after it.
_stopped = False


def log(text: str) -> None:
    """One line in the organiser's log (the server's stderr). A log on a full disk
    loses the line: the league goes on (its pages say what the log would)."""
    if _stopped:
        return
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def _last_line(text: str) -> None:
    """The stop's one line: nothing is logged after it."""
    global _stopped
    log(text)
    _stopped = True


def _said_already(record: logging.LogRecord) -> bool:
    """Whether the web server's log record is worth the organiser's log: not the traceback
    of a request that met a known condition (a full or read-only disk), which the
    league has answered in words (507 or 503) and said in one sentence of its own."""
    exc = record.exc_info[1] if record.exc_info else None
    return exc is None or blocked_write(exc) is None


def _checked_games(options: ServeOptions) -> list[str]:
    """The games the league plays (all with sample bots, by default), once every
    option about them is known to work: refused here, not at the first submission."""
    known = games_with_manifests()
    games = options.games or known
    for g in games:
        base, colon, name = g.partition(":")
        if g not in known and not (colon and base in known):
            raise UsageError(f"--game {g!r}: not an installed game with sample bots (installed: {', '.join(known)})")
        if colon:  # a variant (GAME:NAME): one that loads
            load_plugin(g)
    _check_params(options.params, games)
    check_limits(timeout=options.timeout, startup_timeout=10.0, budget=None)
    for g in games:
        _check_quarantine(g, options)
    return games


def _check_params(params: dict[str, list[str]], games: list[str]) -> None:
    """Every --param GAME.KEY=VALUE names a game of the league and a value it takes."""
    for g, given in params.items():
        if g not in games:
            raise UsageError(f"--param {g}.…: {g!r} is not a game of this league ({', '.join(games)})")
        try:
            game_params(load_plugin(g), {**manifest_params(g), **dict(parse_param(p) for p in given)}, keys=True)
        except UsageError as exc:
            raise UsageError(f"--param {g}.…: {exc}") from None


def _settings(options: ServeOptions, games: list[str], level: str) -> LeagueSettings:
    """The runner's settings: the options, with the sandbox ``level`` the host resolved."""
    return LeagueSettings(
        every=options.every, jobs=options.jobs, cluster=options.cluster,
        cluster_certs=options.cluster_certs, sandbox=level, games=games, params=options.params,
        rounds=options.rounds, timeout=options.timeout, quarantine_matches=options.quarantine_matches,
        placement_matches=options.placement_matches,
        build_seconds=options.build_seconds,
        # An upload that would take the disk below --min-free-mb is refused alone (the league goes on).
        limits=UploadLimits(max_upload_bytes=options.max_upload_bytes, keep_free=options.min_free_bytes),
        pipeline_jobs=options.pipeline_jobs, quarantine_seconds=options.quarantine_seconds,
        min_free=options.min_free_bytes, pool_limit=options.pool_limit, play_idle=options.play_idle)


def serve(options: ServeOptions) -> int:
    global _stopped
    _stopped = False
    games = _checked_games(options)
    if options.check:
        level = resolve_level(options.sandbox, untrusted=True, warn=log)
        where = f"cluster {options.cluster}" if options.cluster else f"jobs {options.jobs}"
        print(f"League options are valid: games {', '.join(games)}, every {options.every:g} s, "
              f"sandbox {level}, {where}, db {options.db} (nothing was started)")
        return 0
    try:
        # Submissions are untrusted: no sandbox is a refusal unless asked for by name.
        # The pages share this trio loop with quarantines: no reply is waited for outside it.
        host = open_host(options.sandbox, SandboxPolicy(private_files=True), untrusted=True, warn=log,
                         sync_wait=0.0)
    except (SandboxUnavailable, UsageError) as exc:
        raise UsageError(str(exc)) from None
    try:
        store = open_store(options.db)
        try:
            league = League(store)  # brings the league's tables to this arena's version, or refuses the file
        except BaseException:
            store.close()
            raise
    except BaseException:
        host.close()
        raise
    runner = LeagueRunner(league, store, host, _settings(options, games, host.level), log=log)
    site = Site(league, runner, submit_limit=options.submit_limit, secure_cookies=options.secure_cookies)
    log(f"Sandbox: {host.describe()}")
    try:
        trio.run(_main, site, options)
    except KeyboardInterrupt:  # before the signal receiver was up
        _last_line("Stopped the league (SIGINT); unfinished tournaments resume at the next start")
    finally:
        host.close()
        store.close()
    return 130  # it only ends on a signal, as an interrupted command does


async def _main(site: Site, options: ServeOptions) -> None:
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"{options.host}:{options.port}"]
    config.accesslog = None
    config.errorlog = "-"
    logging.getLogger("hypercorn.error").addFilter(_said_already)
    config.graceful_timeout = 2.0
    stop = trio.Event()
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    # One line, at once: the rest of the stop (2 s at most) says nothing.
                    _last_line(f"Stopped the league ({signal.Signals(signum).name}): matches in flight are "
                               "abandoned; unfinished tournaments resume at the next start")
                    stop.set()
                    nursery.cancel_scope.cancel()
                    return

        nursery.start_soon(on_signal)
        binds = await nursery.start(lambda task_status=trio.TASK_STATUS_IGNORED: hypercorn_serve(
            make_app(site), config, shutdown_trigger=stop.wait, task_status=task_status))
        url = binds[0] if binds else f"http://{options.host}:{options.port}"
        waiting = _demo(site) if options.demo else 0
        # The line scripts and tests wait for; its format is stable.
        print(f"League serving at {url} (games: {', '.join(site.runner.settings.games)}; "
              f"tournaments every {options.every:g} s; db {options.db})", flush=True)
        await nursery.start(site.runner.run)
        if waiting:
            nursery.start_soon(_demo_when_room, site, waiting)


def _demo(site: Site) -> int:
    """An admin 'demo' (made once: its token is printed then) and each sample bot it
    does not have yet, submitted as its bot; how many found no room on the disk
    (``_demo_when_room`` submits those once there is). Only what was stored counts
    as done: a demo seeded on a full disk is seeded at the next chance, not skipped."""
    try:
        user = _demo_user(site)
    except Exception as exc:
        if blocked_write(exc) is None:
            raise
        return len(demo_submissions()) or 1  # the admin too waits for room
    waiting = 0
    # a game's demo bots play its variants too (GAME:NAME)
    for base, name, filename, data in demo_submissions():
        for game in [g for g in site.runner.settings.games if g == base or g.startswith(base + ":")]:
            found = site.league.find_bot(game, name)
            if found is not None and site.league.versions("v.bot=?", (found.id,)):
                continue  # submitted at an earlier start
            try:
                out = submit_bot(site, user, game, name, filename, data, limited=False)
                log(f"Demo: submitted {out['label']} ({game})")
            except Exception as exc:  # a demo bot that cannot be read is reported, not fatal
                if getattr(exc, "status_code", None) == 507 or blocked_write(exc) is not None:
                    waiting += 1
                    continue
                log(f"Demo: could not submit {name} ({game}): {getattr(exc, 'detail', None) or in_words(exc)}")
    return waiting


def _demo_user(site: Site) -> UserRecord:
    """The demo admin, made (with its token printed and kept in a file) if there is none;
    given a new token if its file was never written (the disk was full)."""
    league = site.league
    path = site.store.data_dir / "demo-token"
    found = next((u for u in league.users() if u["name"] == "demo"), None)
    if found is not None and path.exists():
        return found
    token = league.add_user("demo", admin=True) if found is None else league.new_token("demo")
    log(f"Demo admin 'demo', token: {token} (also in {path})")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
    except OSError as exc:
        path.unlink(missing_ok=True)  # a new token at the next start, kept then
        log(f"Demo: the token could not be kept in {path} ({in_words(exc)}); it is the one above")
    user = league.user_by_token(token)
    assert user is not None  # added just above
    return user


async def _demo_when_room(site: Site, waiting: int) -> None:
    """The demo's sample bots that found no room at the start, submitted once there
    is: when the league has room and more is free than at the last try."""
    log(f"Demo: {waiting} sample bot(s) wait for room on the league's disk; they are submitted once there is")
    tried_at = -1
    while waiting:
        await site.runner.wait_for_room()
        if site.runner.disk.spare() > tried_at:
            tried_at = site.runner.disk.spare()
            try:
                waiting = _demo(site)
            except Exception as exc:  # the demo is not worth the league
                log(f"arena: the demo could not be seeded: {in_words(exc)}")
                return
        if waiting:
            await trio.sleep(DISK_CHECK_SECONDS)  # a poll of the free space, as the disk watcher's: nothing signals it


def demo_submissions() -> list[tuple[str, str, str, bytes]]:
    """(game, name, file name, upload bytes) of every installed game's demo bots
    (``GamePlugin.demo_bots``): a single script as it is, several files as an
    archive with their arena.toml (the server builds it)."""
    out: list[tuple[str, str, str, bytes]] = []
    for game in sorted(available_games()):
        for bot in load_game(game).demo_bots():
            if bot.run is None and len(bot.files) == 1:
                out.append((game, bot.name, bot.files[0].name, bot.files[0].read_bytes()))
                continue
            manifest = f"run = {json.dumps(bot.run)}\n" + (f"build = {json.dumps(bot.build)}\n" if bot.build else "")
            files = {"arena.toml": manifest.encode(), **{f.name: f.read_bytes() for f in bot.files}}
            out.append((game, bot.name, f"{bot.name}.tar.gz", tar_gz(files)))
    return out


def tar_gz(files: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = (modes or {}).get(path, 0o644)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()

