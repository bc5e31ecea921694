"""A tournament from options to a stored plan and back: every option of a
new tournament checked into a ``TournamentConfig`` (``plan_tournament``, the
one place ``arena tournament``, the league server and the Python API do it),
written to the store (``create_tournament``), and read back for a resume
(``load_tournament``): the config stored is the config played."""

from __future__ import annotations

import re
from pathlib import Path
import socket
from typing import Any

from protocols import GamePlugin

from .._checks import UsageError, check_range, game_params
from .._games import load_game
from ._data import check_data
from .._plan import check_acpc, check_agents_level, check_higc, check_lifetime, check_limits, check_seed, load_plugin
from ..sandbox import SandboxPolicy, resolve_level
from .._spec import BotSpec
from ..results._store import Store, file_digest
from ..results._sprt import Sprt
from ..results._standings import BROKEN_START
from ..cluster import check_shippable
from ..cluster._security import check_secured
from ._config import COLUMNS, FAULT_RULES, TournamentConfig, unplayed_score


#: the most rounds (pairs of matches) an SPRT plays when --rounds does not say
SPRT_ROUNDS = 10_000

#: Options a resume restores from the database (and refuses to change), as the command line names them.
RESTORED = ("rounds", "seats", "lifetime", "seed", "timeout", "startup_timeout", "budget", "sandbox", "param",
            "memory_mb", "cpu_seconds", "pids", "on_fault", "max_faults", "broken_start", "duplicate", "gauntlet",
            "until_ci", "sprt", "sprt_chips", "data_mb", "keep_data")


def check_cluster(address: str | None, lifetime: str, reach: bool = False, certs: Path | None = None) -> str | None:
    """A ``--cluster`` address, checked for form and for TLS (required off loopback, with
    ``certs``), and with ``reach`` that something listens there."""
    if address is None:
        return None
    if lifetime == "tournament":
        raise UsageError("--cluster plays every match with fresh processes: give --lifetime match "
                         "(--lifetime tournament, one process per entrant for the whole tournament, "
                         "runs on this machine only)")
    m = re.fullmatch(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d+)", address)
    if not m:
        raise UsageError(f"--cluster takes a Dask scheduler's address like tls://HOST:8786, not {address!r}")
    check_secured("--cluster", address, m[1] or "tcp", m[2], certs)
    if reach:
        try:
            socket.create_connection((m[2].strip("[]"), int(m[3])), timeout=10).close()
        except OSError as exc:
            raise UsageError(f"--cluster {address}: no Dask scheduler answers there ({exc.strerror or exc})") from None
    return address


def create_tournament(store: Store, config: TournamentConfig) -> int:
    """Write the planned tournament ``config`` to ``store`` and lock it for playing; its id.

    ``config`` comes from ``plan_tournament`` (checked); its entrants are
    recorded with the SHA-256 of their files, so that a resume can tell
    whether a bot changed.
    """
    saved = config.to_dict()
    entrants = [(s.name, store.bot_id(s.name, s.command, list(s.argv))) for s in config.bots]
    settings = {k: v for k, v in saved.items() if k not in COLUMNS}
    tid = store.new_tournament(config.game, load_plugin(config.game).spec.version, config.params, config.seed,
                               config.rounds, config.lifetime, entrants, settings)
    store.lock_tournament(tid)
    return tid


def default_lifetime(plugin: GamePlugin[Any], bots: list[BotSpec], *, duplicate: bool) -> str:
    """A tournament's lifetime when none is given: the game's, but one match
    per process with --duplicate (a process that played one seating of a deal
    would know the cards of the next) or with an ACPC agent (it plays one
    match per connection)."""
    return "match" if duplicate or any(b.loopback for b in bots) else plugin.default_lifetime


def plan_tournament(
    game: str, bots: list[BotSpec], *, jobs: int = 1, cluster: str | None = None,
    params: dict[str, Any] | None = None, rounds: int | None = None, seats: int | None = None,
    lifetime: str | None = None, seed: int | str | None = None, timeout: float | None = None,
    startup_timeout: float | None = None, budget: float | None = None, sandbox: str | None = None,
    memory_mb: int | None = None, cpu_seconds: int | None = None, pids: int | None = None,
    on_fault: str | None = None, max_faults: int | None = None, broken_start: int | None = None,
    duplicate: bool | None = None, gauntlet: str | None = None, until_ci: float | None = None,
    sample: int | None = None, sprt: str | None = None, sprt_chips: str | None = None,
    data_mb: int | None = None, keep_data: str | Path | None = None,
) -> TournamentConfig:
    """Every option of a new tournament of ``game`` between the named entrants
    ``bots`` checked (raises UsageError naming the option); nothing stored.

    An option left at None takes its default, as ``arena tournament`` does
    (docs/tournaments.md): one round, the game's table size and lifetime, a
    random seed, 1 s per reply, this machine's default sandbox level (decided
    here, once: the level recorded is the level applied).
    """
    plugin = load_plugin(game)
    chosen = game_params(plugin, dict(params or {}), keys=True)
    duplicate = bool(duplicate)
    lifetime = _lifetime(plugin, chosen, bots, lifetime, duplicate)
    table = _table(plugin, chosen, bots, seats)
    test, rounds = _stopping(game, bots, table, *_which_sprt(plugin, chosen, sprt, sprt_chips), until_ci, rounds)
    seed = check_seed(seed)
    names = [s.name for s in bots]
    if gauntlet is not None and gauntlet not in names:
        raise UsageError(f"--gauntlet {gauntlet!r} is not an entrant (entrants: {', '.join(names)})")
    timeout = 1.0 if timeout is None else timeout
    startup_timeout = 10.0 if startup_timeout is None else startup_timeout
    check_limits(timeout=timeout, startup_timeout=startup_timeout, budget=budget)
    on_fault, max_faults, broken_start = _fault_options(plugin, on_fault, max_faults, broken_start)
    limits = {k: v for k, v in (("memory_mb", memory_mb), ("cpu_seconds", cpu_seconds), ("pids", pids))
              if v is not None}
    # A later seating of a duplicate deal must find nothing a bot left in its files' page cache.
    policy = SandboxPolicy(**limits, private_files=duplicate)
    level = resolve_level(sandbox)
    check_agents_level(bots, level)
    keep = None if keep_data is None else str(Path(keep_data).absolute())
    check_data(data_mb, keep, level=level, duplicate=duplicate, jobs=jobs, cluster=cluster)
    if cluster is not None:
        for spec in bots:  # a bot the cluster cannot be sent is refused before anything is stored
            check_shippable(spec)
    return TournamentConfig(
        game=game, params=chosen.model_dump(mode="json"), bots=list(bots), seed=seed, rounds=rounds,
        jobs=jobs, cluster=cluster, seats=table, lifetime=lifetime, timeout=timeout,
        startup_timeout=startup_timeout, budget=budget,
        # Every worker applies this level: the one recorded is the one applied.
        sandbox=level, policy=policy, on_fault=on_fault, max_faults=max_faults or None,
        broken_start=broken_start or None, duplicate=duplicate,
        gauntlet=None if gauntlet is None else names.index(gauntlet), until_ci=until_ci, sample=sample,
        sprt=None if test is None else test.to_json(),
        unplayed=unplayed_score(plugin, chosen), data_mb=data_mb, keep_data=keep,
    )


def _lifetime(plugin: GamePlugin[Any], params: Any, bots: list[BotSpec], lifetime: str | None, duplicate: bool) -> str:
    lifetime = lifetime or default_lifetime(plugin, bots, duplicate=duplicate)
    check_lifetime(plugin, lifetime, matches=2)  # a tournament is many matches
    if duplicate and lifetime == "tournament":
        raise UsageError("--duplicate plays each bot process for one match, so that no bot remembers a deal "
                         "from one seating to the next: it cannot go with --lifetime tournament")
    check_acpc(plugin, params, bots, lifetime=lifetime, matches=2)
    check_higc(plugin, params, bots)
    return lifetime


def _table(plugin: GamePlugin[Any], params: Any, bots: list[BotSpec], seats: int | None) -> int:
    """Bots per match: ``--seats``, else what the parameters fix, else the game's size for the entrants."""
    check_range("--seats", seats, 1, 1000, optional=True)
    table = (plugin.fixed_seats(params) or plugin.table_seats(len(bots))) if seats is None else seats
    try:
        plugin.check_seats(params, table)
    except ValueError as exc:
        raise UsageError(str(exc) if seats is None else f"--seats {seats}: {exc}") from None
    if len(bots) < table:
        raise UsageError(f"a {plugin.spec.id} tournament needs at least {table} entrants, got {len(bots)}")
    return table


def _which_sprt(plugin: GamePlugin[Any], params: Any, sprt: str | None, sprt_chips: str | None
                ) -> tuple[str | None, str]:
    """The SPRT asked for, if any, and its model: match wins (``--sprt``) or chips (``--sprt-chips``)."""
    if sprt is not None and sprt_chips is not None:
        raise UsageError("--sprt counts match wins and --sprt-chips chips: give one")
    if sprt_chips is None:
        return sprt, "normalized"
    if plugin.big_blind(params) is None:
        raise UsageError(f"--sprt-chips tests chips in big blinds, and {plugin.spec.id} with these parameters has "
                         "no big blind (docs/vocabulary.md, mbb/g): use --sprt, which counts match wins")
    return sprt_chips, "chips"


def _stopping(game: str, bots: list[BotSpec], table: int, sprt: str | None, model: str, until_ci: float | None,
              rounds: int | None) -> tuple[Sprt | None, int]:
    """The sequential test, if any, and the rounds (with a test: its cap)."""
    test = None
    if sprt is not None:
        option = "--sprt-chips" if model == "chips" else "--sprt"
        test = Sprt.parse(sprt, model)
        if len(bots) != 2 or table != 2:
            raise UsageError(f"{option} tests one entrant against another in a two-seat game; this {game} "
                             f"tournament has {len(bots)} entrants at tables of {table}")
        if until_ci is not None:
            raise UsageError(f"{option} and --until-ci are two ways to stop early: give one")
        rounds = SPRT_ROUNDS if rounds is None else rounds  # --rounds is the cap
    rounds = 1 if rounds is None else rounds
    check_range("--rounds", rounds, 1, 1_000_000)
    check_range("--until-ci", until_ci, 0, 1e12, low_open=True, optional=True)
    return test, rounds


def _fault_options(plugin: GamePlugin[Any], on_fault: str | None, max_faults: int | None,
                   broken_start: int | None) -> tuple[str, int | None, int]:
    on_fault = on_fault or "forfeit"
    if on_fault not in FAULT_RULES:
        raise UsageError(f"--on-fault is one of {', '.join(FAULT_RULES)}, not {on_fault!r}")
    max_faults = plugin.default_max_faults if max_faults is None else max_faults
    check_range("--max-faults", max_faults, 0, 1_000_000, optional=True)
    broken_start = BROKEN_START if broken_start is None else broken_start
    check_range("--broken-start", broken_start, 0, 1_000_000)
    return on_fault, max_faults, broken_start


def load_tournament(store: Store, tid: int, jobs: int | None = None, *, game: str | None = None, bots: Any = None,
                    accept_changed: bool = False) -> tuple[TournamentConfig, Any]:
    """Tournament ``tid`` as it was started, locked for playing on, and its
    game's plugin (raises UsageError). ``jobs``: as many matches at once as
    it was started with, unless given. ``game`` and ``bots`` (commands), if
    given, must be the stored ones; a bot whose files changed is refused
    unless ``accept_changed`` (then recorded as an event)."""
    db = store.path
    saved = store.tournament(tid)
    if saved is None:
        raise UsageError(f"no tournament {tid} in {db}")
    if game is not None and game != saved["game"]:
        raise UsageError(f"tournament {tid} is {saved['game']}, not {game}")
    entrants = saved["entrants"]
    records = [store.bot(e["bot"]) for e in entrants]
    if bots and list(bots) != [r["command"] for r in records]:
        raise UsageError(f"tournament {tid} was started with other bots: {[r['command'] for r in records]}")
    specs = [BotSpec.parse(r["command"], name=e["name"]) for r, e in zip(records, entrants)]
    for record, spec in zip(records, specs):
        now = file_digest(list(spec.argv))
        if now != record["sha256"]:
            what = (f"bot {spec.name!r} changed since tournament {tid} started "
                    f"(SHA-256 of its files was {record['sha256'][:12]}, now {now[:12]})")
            if not accept_changed:
                raise UsageError(what + "; pass --accept-changed-bots to play on with it anyway")
            store.add_event(tid, "accepted: " + what)
    plugin = load_game(saved["game"])
    if saved["game_version"] != plugin.spec.version:
        # The same seeds would deal other cards: the tournament could not be finished as it began.
        raise UsageError(f"tournament {tid} was started with {saved['game']} version {saved['game_version']}; "
                         f"this arena has version {plugin.spec.version}, which deals differently: "
                         "start a new tournament")
    config = TournamentConfig.from_dict({**saved["settings"], **{k: saved[k] for k in COLUMNS}}, specs, jobs=jobs)
    # The level recorded must still work here; it is never silently replaced.
    resolve_level(config.sandbox)
    store.lock_tournament(tid)
    return config, plugin
