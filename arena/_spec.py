"""A bot as the organiser wrote it: a command line, checked before anything
starts, and the small environment every bot process gets. What the sandbox
builds its view from and what every path that starts a bot takes."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path


#: The relay of OpenSpiel's competition (HIGC) bots, ``higc:CMD`` (the same way in).
HIGC_RELAY = Path(__file__).resolve().parent.parent / "protocols" / "higc" / "relay.py"


class BadBotCommand(ValueError):
    """A bot command that cannot even be tried (usage error, said before start)."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the user gave it: a path or a command line, and a display name."""

    command: str
    argv: tuple[str, ...]
    name: str
    #: an ACPC agent (``acpc:CMD``): the relay serves it on the loopback of its namespace
    loopback: bool = False
    #: a person's seat (``human`` or ``human:NAME``): the arena's own program
    #: (arena/play/_person.py) plays it on the person's terminal, with no deadline
    person: bool = False
    #: The bot's own files and folders, absolute, as ``(path, is_dir)``: with the
    #: folder of its program (or script), all the sandbox shows it of the host
    #: besides the system and its runtime (arena/sandbox/_view.py). Named by the
    #: organiser (the command line's paths, made absolute when it is parsed; a
    #: league's bot folder), never found by trying the bot's words against the
    #: arena's files: every other word is text. None: the absolute words of
    #: ``argv`` that name something (a spec built by hand, with absolute paths).
    files: tuple[tuple[str, bool], ...] | None = None

    @classmethod
    def parse(cls, command: str, name: str | None = None, *, person_ok: bool = False,
              files: tuple[tuple[str, bool], ...] | None = None) -> "BotSpec":
        """Split and check a command line; raise BadBotCommand with a sentence.

        The command is the organiser's, read where they typed it: a word that
        names a file or folder here is made absolute and becomes one of the
        bot's ``files``. Given ``files`` (a league's bot folder, whose run
        command is the author's), no word is looked up: each is text unless
        it is one of those files or inside one of those folders.

        ``human`` (or ``human:NAME``) is a person's seat, allowed only where
        ``person_ok`` (a single match or series on a terminal); its argv is
        filled in by ``for_person`` once the game and seat are known.

        ``acpc:CMD`` is an ACPC agent: the bot run is the relay (the program
        built from protocols/acpc/relay.c) followed by CMD, so the sandbox's
        view binds the relay's folder as CMD's runtime and CMD's files as the
        bot's own. ``higc:CMD``
        is a bot of OpenSpiel's competition referee, behind its relay
        (protocols/higc/relay.py) in the same way."""
        if command == "human":  # a person, unnamed
            return _person(cls, command, "", name, person_ok, files)
        for prefix, kind in SEAT_KINDS.items():
            if command.startswith(prefix):
                return kind(cls, command, command[len(prefix):], name, person_ok, files)
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BadBotCommand(f"bot command {command!r} cannot be split: {exc}") from None
        if not argv:
            raise BadBotCommand("empty bot command")
        _check_program(command, argv)
        if files is None:
            argv, files = _organisers_paths(argv)
        else:
            files = tuple((os.path.abspath(p), d) for p, d in files)
        return cls(command=command, argv=tuple(argv), name=name or command, files=files)

    def behind(self) -> tuple[tuple[str, bool], ...]:
        """Its files when it runs behind one of the arena's relays: its program is then a word of the relay's command."""
        program = ((self.argv[0], False),) if "/" in self.argv[0] else ()
        return program + tuple(f for f in self.files or () if f not in program)


def _check_program(command: str, argv: list[str]) -> None:
    """The program of a command line must be one that can be started: raise BadBotCommand with a sentence."""
    exe = argv[0]
    if len(argv) == 1 and _BARE_INTERPRETER.fullmatch(Path(exe).name):
        # `arena GAME python3 mybot.py ...` unquoted: the interpreter would
        # read the game's messages as its program and wait for the end of them.
        raise BadBotCommand(
            f"bot {command!r} is an interpreter with no program: it would read the game's messages as "
            f"its program. Quote each bot's whole command line, like \"{exe} mybot.py\"")
    if "/" not in exe:
        if shutil.which(exe) is None:
            raise BadBotCommand(f"bot {command!r}: {exe!r} is not a program on PATH "
                                f"(for a file in this folder write ./{exe})")
        return
    path = Path(exe)
    if not path.exists():
        raise BadBotCommand(f"bot {command!r}: {exe} does not exist")
    if path.is_dir():
        raise BadBotCommand(f"bot {command!r}: {exe} is a directory, not a program")
    if not os.access(path, os.X_OK):
        interp = {".py": "python3", ".js": "node", ".pl": "perl", ".rb": "ruby", ".sh": "sh"}.get(path.suffix)
        hint = f' (run `chmod +x {exe}` or give "{interp} {exe}")' if interp else ""
        raise BadBotCommand(f"bot {command!r}: {exe} is not executable{hint}")


# -- seat kinds: what stands in a seat besides a program the organiser names ----------------


def _person(cls: type[BotSpec], command: str, rest: str, name: str | None, person_ok: bool,
            files: tuple[tuple[str, bool], ...] | None) -> BotSpec:
    """``human`` or ``human:NAME``: a person's seat (its argv filled in by ``for_person``)."""
    if not person_ok:
        raise BadBotCommand(
            f"{command!r} is a person's seat, which plays only in a single match "
            "(arena GAME, arena play), not in tournaments, quarantine or the league "
            "(for a program named human, write ./human)")
    return cls(command=command, argv=(), name=name or rest or "human", person=True)


def _acpc_agent(cls: type[BotSpec], command: str, rest: str, name: str | None, person_ok: bool,
                files: tuple[tuple[str, bool], ...] | None) -> BotSpec:
    """``acpc:CMD``: an ACPC agent, behind the relay that serves it on its namespace's loopback."""
    from protocols.acpc import BuildError, relay_path  # only when an agent plays

    inner = cls.parse(rest, files=files)
    # How long the agent has to connect (seconds): ARENA_ACPC_CONNECT_TIMEOUT, else 10.
    wait = os.environ.get("ARENA_ACPC_CONNECT_TIMEOUT", "10")
    try:
        relay = relay_path()
    except BuildError as exc:
        raise BadBotCommand(f"bot {command!r} needs the ACPC relay: {exc}") from None
    # Descriptor 3 is its hand-over socket to the arena (arena.sandbox._supervision.Channel).
    argv = (relay, "--connect-timeout", wait, "--hand-over", "3", "--", *inner.argv)
    return cls(command=command, argv=argv, name=name or command, loopback=True, files=inner.behind())


def _higc_bot(cls: type[BotSpec], command: str, rest: str, name: str | None, person_ok: bool,
              files: tuple[tuple[str, bool], ...] | None) -> BotSpec:
    """``higc:CMD``: a bot of OpenSpiel's competition referee, behind its relay."""
    inner = cls.parse(rest, files=files)
    argv = (sys.executable, "-I", str(HIGC_RELAY), "--", *inner.argv)
    # The relay's script is the program the interpreter runs: its folder is shown as the bot's.
    return cls(command=command, argv=argv, name=name or command, files=((str(HIGC_RELAY), False), *inner.behind()))


#: Each seat kind by the prefix that names it (``human`` alone is a person too): one place to add the next.
SEAT_KINDS = {"human:": _person, "acpc:": _acpc_agent, "higc:": _higc_bot}


def _organisers_paths(argv: list[str]) -> tuple[list[str], tuple[tuple[str, bool], ...]]:
    """The command with each word that names something here made absolute, and
    those paths: the bot's files as the organiser named them. The first word is
    the program (absolute when it has a ``/``) or a command on PATH; flags are
    never paths."""
    out = [os.path.abspath(argv[0]) if "/" in argv[0] else argv[0]]
    files: list[tuple[str, bool]] = []
    for word in argv[1:]:
        if word and not word.startswith("-") and os.path.exists(word):
            word = os.path.abspath(word)
            files.append((word, os.path.isdir(word)))
        out.append(word)
    return out, tuple(files)


#: The prefixes that put one of the arena's relays before a bot written for another referee.
RELAY_PREFIXES = ("acpc:", "higc:")


def behind_relay(spec: BotSpec) -> tuple[str, BotSpec]:
    """``(prefix, the bot behind the relay)`` for ``acpc:CMD`` and ``higc:CMD``;
    ``("", spec)`` for any other bot. The bot behind is what is the author's
    (a cluster ships it); each machine puts its own relay before it."""
    for prefix in RELAY_PREFIXES:
        if spec.command.startswith(prefix):
            return prefix, BotSpec.parse(spec.command[len(prefix):], name=spec.name)
    return "", spec


def for_person(spec: BotSpec, game: str, seat: int, params_json: str, tty: str, events: bool = False) -> BotSpec:
    """A person's seat made runnable: the program that plays it on ``tty``
    (in words, or with ``events`` as JSON lines for a program such as the /play page)."""
    argv = (sys.executable, "-m", "arena.play._person", game, str(seat), params_json, tty,
            *(("events",) if events else ()))
    return BotSpec(command=spec.command, argv=argv, name=spec.name, person=True)

#: interpreters that, given no program, read one from stdin (python3, python3.11, node, ...)
_BARE_INTERPRETER = re.compile(r"(python|pypy|node|nodejs|perl|ruby|php|lua|bash|sh|dash|zsh|Rscript)[0-9.]*")


def bot_environment() -> dict[str, str]:
    """An explicit, small environment: bots must not depend on ours."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "LANG": "C.UTF-8",
    }
