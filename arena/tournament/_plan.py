"""A tournament from options to a stored plan and back: every option of a
new tournament checked into a ``TournamentConfig`` (the one place both
``arena tournament`` and the league server do it), written to the store, and
read back for ``--resume``."""

from __future__ import annotations

import re
import socket
from typing import Any

from .._checks import UsageError, check_range, game_params, parse_param
from .._games import load_game
from .._plan import check_lifetime, check_limits, check_seed, load_plugin
from ..sandbox import SandboxPolicy, resolve_level
from .._spec import BotSpec
from ..results._store import Store, file_digest
from ._run import BROKEN_START, FAULT_RULES, TournamentConfig, unplayed_score


#: Options a resume restores from the database (and refuses to change).
RESTORED = ("rounds", "seats", "lifetime", "seed", "timeout", "startup_timeout", "budget", "sandbox", "param",
            "memory_mb", "cpu_seconds", "pids", "on_fault", "max_faults", "broken_start", "duplicate", "gauntlet",
            "until_ci")


def check_cluster(address: str | None, lifetime: str, reach: bool = False) -> str | None:
    """A ``--cluster`` address, checked for form, and with ``reach`` that something listens there."""
    if address is None:
        return None
    if lifetime == "tournament":
        raise UsageError("--cluster plays every match with fresh processes: give --lifetime match "
                         "(--lifetime tournament, one process per entrant for the whole tournament, "
                         "runs on this machine only)")
    m = re.fullmatch(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d+)", address)
    if not m:
        raise UsageError(f"--cluster takes a Dask scheduler's address like tcp://HOST:8786, not {address!r}")
    if reach:
        try:
            socket.create_connection((m[2].strip("[]"), int(m[3])), timeout=10).close()
        except OSError as exc:
            raise UsageError(f"--cluster {address}: no Dask scheduler answers there ({exc.strerror or exc})") from None
    return address


def create_tournament(store: Store, config: TournamentConfig, plugin: Any, settings: dict[str, Any]) -> int:
    """Write a planned tournament to ``store`` and lock it; its id."""
    entrants = [(s.name, store.bot_id(s.name, s.command, list(s.argv))) for s in config.bots]
    tid = store.new_tournament(config.game, plugin.spec.version, config.params, config.seed, config.rounds,
                               config.lifetime, entrants, settings)
    store.lock_tournament(tid)
    return tid


def plan_tournament(game: str, specs: list[BotSpec], given: dict[str, Any], jobs: int):
    """Every option of a new tournament checked (raises UsageError); nothing stored.

    ``given``: the options of ``RESTORED`` that were set. The one place both
    ``arena tournament`` and the league server turn options into a config.
    """
    plugin = load_plugin(game)
    params = game_params(plugin, dict(parse_param(p) for p in given.get("param", [])), keys=True)
    # A process that played one seating of a duplicate deal would know the
    # cards of the next: with --duplicate every bot process plays one match.
    duplicate = bool(given.get("duplicate"))
    lifetime = given.get("lifetime", "match" if duplicate else plugin.default_lifetime)
    check_lifetime(plugin, lifetime, matches=2)  # a tournament is many matches
    if duplicate and lifetime == "tournament":
        raise UsageError("--duplicate plays each bot process for one match, so that no bot remembers a deal "
                         "from one seating to the next: it cannot go with --lifetime tournament")
    table = given.get("seats")
    check_range("--seats", table, 1, 1000, optional=True)
    seats = plugin.table_seats(len(specs)) if table is None else table
    try:
        plugin.check_seats(params, seats)
    except ValueError as exc:
        raise UsageError(str(exc) if table is None else f"--seats {table}: {exc}") from None
    if len(specs) < seats:
        raise UsageError(f"a {game} tournament needs at least {seats} entrants, got {len(specs)}")
    rounds = given.get("rounds", 1)
    check_range("--rounds", rounds, 1, 1_000_000)
    seed = check_seed(given.get("seed"))
    names = [s.name for s in specs]
    gauntlet = given.get("gauntlet")
    if gauntlet is not None and gauntlet not in names:
        raise UsageError(f"--gauntlet {gauntlet!r} is not an entrant (entrants: {', '.join(names)})")
    settings = _settings(given, plugin)
    settings["seats"] = seats
    settings["unplayed"] = unplayed_score(plugin, params)
    config = TournamentConfig(
        game=game, params=params.model_dump(mode="json"), bots=specs, seed=seed, rounds=rounds, jobs=jobs,
        lifetime=lifetime, **_config_settings(settings, names),
    )
    return config, plugin, settings


def _settings(given: dict[str, Any], plugin: Any) -> dict[str, Any]:
    """The run options a resume restores, checked; the sandbox level decided here, once."""
    timeout, startup, budget = given.get("timeout", 1.0), given.get("startup_timeout", 10.0), given.get("budget")
    check_limits(timeout=timeout, startup_timeout=startup, budget=budget)
    until_ci = given.get("until_ci")
    check_range("--until-ci", until_ci, 0, 1e12, low_open=True, optional=True)
    on_fault = given.get("on_fault", "forfeit")
    if on_fault not in FAULT_RULES:
        raise UsageError(f"--on-fault is one of {', '.join(FAULT_RULES)}, not {on_fault!r}")
    max_faults = given.get("max_faults", plugin.default_max_faults)
    check_range("--max-faults", max_faults, 0, 1_000_000, optional=True)
    broken_start = given.get("broken_start", BROKEN_START)
    check_range("--broken-start", broken_start, 0, 1_000_000)
    limits = {k: given[k] for k in ("memory_mb", "cpu_seconds", "pids") if k in given}
    policy = SandboxPolicy(**limits)
    # Every worker applies this level: the one recorded is the one applied.
    level = resolve_level(given.get("sandbox"))
    return {"timeout": timeout, "startup_timeout": startup, "budget": budget, "sandbox": level,
            "policy": policy.to_json(), "on_fault": on_fault, "max_faults": max_faults or None,
            "broken_start": broken_start or None,
            "duplicate": bool(given.get("duplicate")), "gauntlet": given.get("gauntlet"), "until_ci": until_ci,
            "sample": given.get("sample")}


def _config_settings(settings: dict[str, Any], names: list[str]) -> dict[str, Any]:
    gauntlet = settings.get("gauntlet")
    return {
        "timeout": settings.get("timeout", 1.0), "startup_timeout": settings.get("startup_timeout", 10.0),
        "budget": settings.get("budget"), "sandbox": settings.get("sandbox"), "seats": settings.get("seats", 0),
        "policy": SandboxPolicy.from_json(settings.get("policy")),
        "on_fault": settings.get("on_fault", "forfeit"), "max_faults": settings.get("max_faults"),
        "broken_start": settings.get("broken_start"),
        "duplicate": bool(settings.get("duplicate")),
        "gauntlet": names.index(gauntlet) if gauntlet is not None else None,
        "until_ci": settings.get("until_ci"), "unplayed": settings.get("unplayed", 0.0),
        "sample": settings.get("sample"),
    }


def load_tournament(store: Store, tid: int, jobs: int, *, game: str | None = None, bots: Any = None,
                    accept_changed: bool = False) -> tuple[TournamentConfig, Any]:
    """Tournament ``tid`` as it was started, locked for playing on (raises UsageError)."""
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
    specs = [BotSpec(command=r["command"], argv=BotSpec.parse(r["command"]).argv, name=e["name"])
             for r, e in zip(records, entrants)]
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
    settings = saved["settings"]
    # The level recorded must still work here; it is never silently replaced.
    resolve_level(settings.get("sandbox"))
    config = TournamentConfig(
        game=saved["game"], params=saved["params"], bots=specs, seed=saved["seed"], rounds=saved["rounds"],
        jobs=jobs, lifetime=saved["lifetime"], **_config_settings(settings, [s.name for s in specs]),
    )
    store.lock_tournament(tid)
    return config, plugin
