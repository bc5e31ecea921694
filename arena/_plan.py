"""From a command line to a checked plan: the one place where what a user
typed is validated, for ``arena play``/``arena <game>``, ``arena tournament``
and ``arena quarantine`` alike.

Every check raises ``UsageError`` with one sentence naming the option or
parameter, what was given and what is accepted; the commands exit 2 with it
before anything is started or written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from protocols import GamePlugin

from ._spec import BadBotCommand, BotSpec, for_person
from ._checks import UsageError, check_range, game_params
from ._games import PluginLoadError, load_game
from ._seeds import derive_seed, run_seed

LIFETIMES = ("match", "tournament")


def load_plugin(game_id: str) -> GamePlugin[Any]:
    try:
        return load_game(game_id)
    except PluginLoadError as exc:
        raise UsageError(str(exc)) from None


def check_limits(*, timeout: float, startup_timeout: float, budget: float | None) -> None:
    check_range("--timeout", timeout, 0, 3600, low_open=True)
    check_range("--startup-timeout", startup_timeout, 0, 3600, low_open=True)
    check_range("--budget", budget, 0, 10_000_000, low_open=True, optional=True)


def check_seed(seed: int | str | None) -> str:
    """The run's key from ``--seed``: the seed and a fresh secret (``arena._seeds.run_seed``)."""
    return run_seed(seed)


def check_lifetime(plugin: GamePlugin[Any], lifetime: str, matches: int) -> None:
    """``--lifetime tournament`` needs a protocol that marks where matches end."""
    if lifetime not in LIFETIMES:
        raise UsageError(f"--lifetime is 'match' or 'tournament', not {lifetime!r}")
    if lifetime == "tournament" and matches > 1 and not plugin.reusable_processes:
        raise UsageError(f"{plugin.spec.id}'s protocol has no match boundaries: "
                         "--lifetime tournament needs one match (use --lifetime match)")


def check_seats(plugin: GamePlugin[Any], params: BaseModel, seats: int) -> None:
    try:
        plugin.check_seats(params, seats)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


_NAMED = re.compile(r"([A-Za-z][A-Za-z0-9_.+-]{0,39})=(.+)", re.S)


def check_acpc(plugin: GamePlugin[Any], params: BaseModel, specs: list[BotSpec], *, lifetime: str = "match",
               matches: int = 1) -> None:
    """Refuse, before anything starts, a match ACPC agents cannot play (docs/acpc.md)."""
    agents = [s.command for s in specs if s.loopback]
    if not agents:
        return
    if lifetime == "tournament" and matches > 1:
        raise UsageError(f"{agents[0]!r} is an ACPC agent, which plays one match per connection (as under the "
                         "ACPC dealer): --lifetime tournament cannot keep it for the next match; use --lifetime match")
    why = plugin.acpc_refusal(params.model_dump(mode="json"))  # the game's own word on its ACPC translation
    if why:
        raise UsageError(f"{agents[0]!r} is an ACPC agent and cannot play this match: {why}")


def check_higc(plugin: GamePlugin[Any], params: BaseModel, specs: list[BotSpec]) -> None:
    """Refuse, before anything starts, a match the HIGC relay cannot give its bots the
    referee's observations of (the game's word, ``higc_refusal``): never a bot's fault."""
    relayed = [s.command for s in specs if s.kind == "higc"]
    if relayed:
        why = plugin.higc_refusal(params.model_dump(mode="json"))
        if why:
            raise UsageError(f"{relayed[0]!r} is a bot of OpenSpiel's competition referee and cannot play this "
                             f"match: {why}")


def check_agents_level(specs: list[BotSpec], level: str) -> None:
    """An ACPC agent's relay hands the agent's connection to the arena over a
    socket, which gVisor's kernel cannot do: refused before anything starts."""
    agents = [s.command for s in specs if s.loopback]
    if agents and level == "gvisor":
        raise UsageError(f"{agents[0]!r} is an ACPC agent, which cannot play at --sandbox gvisor (gVisor's kernel "
                         "cannot hand the agent's connection to the arena): use strict or basic")


def entrant(text: str) -> tuple[str | None, str]:
    """``NAME=COMMAND`` or a bare command: (name or None, command)."""
    match = _NAMED.fullmatch(text)
    return (match.group(1), match.group(2)) if match else (None, text)


def bot_specs(texts: list[str], *, person_ok: bool = False) -> list[BotSpec]:
    """``NAME=COMMAND`` or a bare command for each bot, checked."""
    specs = []
    for text in texts:
        name, command = entrant(text)
        try:
            specs.append(BotSpec.parse(command, name=name, person_ok=person_ok))
        except BadBotCommand as exc:
            raise UsageError(str(exc)) from None
    return specs


def seat_people(plugin: GamePlugin[Any], params: list[BaseModel], specs: list[BotSpec]) -> list[BotSpec]:
    """Give each person's seat (``human``) its program, on this process's terminal."""
    if not any(s.person for s in specs):
        return specs
    if len(params) > 1 or sum(s.person for s in specs) > 1:
        raise UsageError("a person plays one seat of one match: one human, and no --matches series")
    tty = next((os.ttyname(fd) for fd in (0, 1, 2) if os.isatty(fd)), None)
    if tty is None:
        raise UsageError("human needs a terminal to play on, and this command has none (stdin, stdout and "
                         "stderr are all redirected)")
    text = json.dumps(params[0].model_dump(mode="json"))
    names = [s.name for s in specs]
    return [for_person(s, plugin.spec.id, seat, text, tty, names=names) if s.person else s
            for seat, s in enumerate(specs)]

#: programs that run the file named after them (and their own flags before it)
_INTERPRETERS = {"python", "pypy", "node", "perl", "ruby", "sh", "bash", "java", "mono", "php", "Rscript",
                 "lua", "dotnet"}
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.+-]+")


def _program(argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """(the program's file name, the arguments after it): interpreters and
    their flags skipped, so ``python3 -u bots/x.py --seed 1`` is ``x.py``."""
    words = list(argv)
    while len(words) > 1 and Path(words[0]).name.rstrip("0123456789.") in _INTERPRETERS:
        words = words[1:]
        while len(words) > 1 and words[0].startswith("-"):
            words = words[1:]
    return Path(words[0]).name or words[0], words[1:]


def _clean(text: str) -> str:
    """A name's characters: letters, digits and ``_ . + -``, a letter first, 40 at most."""
    text = _NAME_CHARS.sub("-", text).strip("-")
    if not text[:1].isalpha():
        text = "bot-" + text
    return text[:40].rstrip("-")


def _own_argv(spec: BotSpec) -> tuple[str, ...]:
    """The bot's own command: an ACPC agent's or HIGC bot's, not the relay's before it."""
    if spec.seat_kind.relay and "--" in spec.argv:
        return spec.argv[spec.argv.index("--") + 1:]
    return spec.argv


def entrant_names(specs: list[tuple[str | None, BotSpec]]) -> list[str]:
    """A name for every entrant: ``NAME=`` as given, or the program's file name
    (``rule_bot``, ``random_bot.py``). Where two programs share a file name
    their folder is put first (``v1-bot``); where one program is given twice
    with different arguments, the word that tells them apart names them: a
    file among those arguments (``node runner.js a/rps_Simple.js`` is
    ``rps_Simple.js``), else the arguments after the program
    (``random_bot.py-seed-1``); only the same command twice is ``-2``, ``-3``."""
    given = [n for n, _ in specs if n is not None]
    for name in set(given):
        if given.count(name) > 1:
            raise UsageError(f"two entrants are named {name!r}; every NAME= must be different")
    names = [n if n is not None else _auto_name(specs, i) for i, (n, _) in enumerate(specs)]
    taken = set(given)
    out = []
    for (named, _), name in zip(specs, names):
        if named is None:  # the same command twice: -2, -3
            base, k = name, 1
            while name in taken:
                k += 1
                name = f"{base[:37]}-{k}"
        taken.add(name)
        out.append(name)
    return out


def _auto_name(specs: list[tuple[str | None, BotSpec]], i: int) -> str:
    """Entrant ``i``'s name from its program: its folder first where another
    entrant's program has the same file name; where the same program is given
    with other arguments, the file argument that differs, else its arguments."""
    program, args = _program(_own_argv(specs[i][1]))
    same = [(j, spec) for j, (n, spec) in enumerate(specs) if n is None and _program(_own_argv(spec))[0] == program]

    def path_of(spec: BotSpec) -> str:
        return next((w for w in _own_argv(spec) if Path(w).name == program), program)

    base = program
    if len({path_of(spec) for _, spec in same}) > 1:  # two different files of one name: say whose folder
        base = f"{Path(path_of(specs[i][1])).parent.name}-{program}"
    if len({spec.command for _, spec in same}) > 1 and args:  # one program, told apart by its arguments
        others = [_program(_own_argv(spec))[1] for j, spec in same if j != i]
        told = _told_apart(args, others)
        if told is None:  # its arguments, or where they are too long for a name, those that differ
            told = "-".join([base, *(a.lstrip("-") for a in args)])
            if len(_clean(told)) >= 40:
                told = "-".join([base, *(w.lstrip("-") for w in _differing(args, others))])
        base = told
    return _clean(base)


def _told_apart(args: list[str], others: list[list[str]]) -> str | None:
    """The name a program's arguments ``args`` give it beside the same program's ``others``:
    the first file among the words that differ (its folder first where another's file of that
    name is elsewhere; the other words that differ after it where another's is the same file),
    or None where no file differs."""
    files = [p for p in _differing_at(args, others) if _file_like(args[p])]
    if not files:
        return None
    at, word = files[0], args[files[0]]
    name = Path(word).name
    alike = [o[at] for o in others if len(o) > at and Path(o[at]).name == name]
    if any(w != word for w in alike):  # the same file name in another folder
        name = f"{Path(word).parent.name}-{name}"
    if word in alike:  # the same file: what else differs
        name = "-".join([name, *(w.lstrip("-") for w in _differing(args, others, leave=at))])
    return name


def _differing_at(args: list[str], others: list[list[str]]) -> list[int]:
    """The positions of ``args`` whose word is not the same in all of ``others``."""
    return [p for p in range(len(args)) if any(o[p:p + 1] != args[p:p + 1] for o in others)]


def _differing(args: list[str], others: list[list[str]], leave: int = -1) -> list[str]:
    """The words of ``args`` that differ from ``others`` (but the one at ``leave``), each with
    the option before it that it belongs to (``--seed 2``)."""
    at = _differing_at(args, others)
    return [w for p in at if p != leave
            for w in ([args[p - 1]] if p and args[p - 1].startswith("-") and p - 1 not in at else []) + [args[p]]]


def _file_like(word: str) -> bool:
    """A word of a command that names a file: a path, or a name with an extension (not an option)."""
    return not word.startswith("-") and "=" not in word and (
        "/" in word or bool(re.fullmatch(r"[\w.+-]*[A-Za-z_][\w+-]*\.[A-Za-z][\w]{0,7}", word)))


def entrant_specs(texts: list[str]) -> list[BotSpec]:
    """Tournament entrants, ``NAME=COMMAND`` or a bare command, checked and named."""
    parsed = []
    for text in texts:
        name, command = entrant(text)
        try:
            parsed.append((name, BotSpec.parse(command)))
        except BadBotCommand as exc:
            raise UsageError(str(exc)) from None
    return [dataclasses.replace(spec, name=name) for (_, spec), name in zip(parsed, entrant_names(parsed))]


@dataclass(frozen=True, slots=True)
class PlayPlan:
    """One match or a series, checked: what ``run_series`` needs."""

    plugin: GamePlugin[Any]
    bots: list[BotSpec]
    #: (parameters, seed) of every match
    matches: list[tuple[BaseModel, str]]
    seed: str
    lifetime: str
    timeout: float
    startup_timeout: float
    budget: float | None
    log_dir: Path | None
    #: the bots' order at the table in each seating of every match (``bots`` indices); one
    #: seating but with ``--duplicate``, where every seating plays each match's cards
    seatings: tuple[tuple[int, ...], ...] = ()


def duplicate_seatings(plugin: GamePlugin[Any], seats: int) -> tuple[tuple[int, ...], ...]:
    """Every seating a duplicate deal is played in, as a tournament seats a table
    (the game's ``seatings``: each rotation, or every ordering): each bot plays
    every seat's cards."""
    import itertools

    if plugin.seatings == "rotations":
        return tuple(tuple((s + r) % seats for s in range(seats)) for r in range(seats))
    return tuple(itertools.permutations(range(seats)))


def check_duplicate(specs: list[BotSpec], lifetime: str) -> None:
    """``--duplicate`` needs seats to swap, a fresh process per seating, and no person."""
    if len(specs) < 2:
        raise UsageError("--duplicate plays the same cards with the bots in every seat: it needs two bots or more")
    if lifetime == "tournament":
        raise UsageError("--duplicate plays each bot process for one match, so that no bot remembers a deal "
                         "from one seating to the next: not with --lifetime tournament")
    if any(s.person for s in specs):
        raise UsageError("--duplicate deals the same cards to every seating, and a person remembers them: "
                         "not with a human seat")


def plan_play(
    game_id: str, bots: list[str], raws: list[dict[str, Any]], *, keys: bool, seed: int | str | None,
    lifetime: str, timeout: float, startup_timeout: float, budget: float | None, log_dir: Path | None,
    duplicate: bool = False,
) -> PlayPlan:
    """Check a play command line; ``raws`` holds each match's parameters as given.
    ``duplicate``: every match is played in every seating on the same cards."""
    plugin = load_plugin(game_id)
    params = [game_params(plugin, raw, keys=keys) for raw in raws]
    for p in params:
        check_seats(plugin, p, len(bots))
    check_limits(timeout=timeout, startup_timeout=startup_timeout, budget=budget)
    seed = check_seed(seed)
    if log_dir is not None and log_dir.exists() and not log_dir.is_dir():
        raise UsageError(f"--log-dir {log_dir} is a file, not a folder")
    check_lifetime(plugin, lifetime, len(params))
    specs = seat_people(plugin, params, bot_specs(bots, person_ok=True))
    for p in params:
        check_acpc(plugin, p, specs, lifetime=lifetime, matches=len(params))
        check_higc(plugin, p, specs)
    # One match plays the run's seed itself; a series derives one per match.
    matches = ([(params[0], seed)] if len(params) == 1
               else [(p, derive_seed(seed, game_id, "match", i)) for i, p in enumerate(params)])
    if duplicate:
        check_duplicate(specs, lifetime)
    seatings = duplicate_seatings(plugin, len(specs)) if duplicate else (tuple(range(len(specs))),)
    return PlayPlan(plugin=plugin, bots=specs, matches=matches, seed=seed, lifetime=lifetime, timeout=timeout,
                    startup_timeout=startup_timeout, budget=budget, log_dir=log_dir, seatings=seatings)
