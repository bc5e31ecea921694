"""A bot as the organiser wrote it: a command line, checked before anything
starts, and the small environment every bot process gets. What the sandbox
builds its view from and what every path that starts a bot takes. What kind
of seat a command names (a program, a person, an ACPC agent, ...) is
``arena.seats``'s to say."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from .seats import PROGRAM, SEAT_KINDS, BadBotCommand, SeatKind, kind_of_command, named_here
from .seats.human import for_person

__all__ = ["BadBotCommand", "BotSpec", "behind_relay", "bot_environment", "for_person"]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the user gave it: a path or a command line, and a display name."""

    command: str
    argv: tuple[str, ...]
    name: str
    #: Its seat kind's name (``arena.seats.SEAT_KINDS``): a program, a person, an ACPC agent, ...
    kind: str = PROGRAM.name
    #: The bot's own files and folders, absolute, as ``(path, is_dir)``: with the
    #: folder of its program (or script), all the sandbox shows it of the host
    #: besides the system and its runtime (arena/sandbox/_view.py). Named by the
    #: organiser (the command line's paths, made absolute when it is parsed; a
    #: league's bot folder), never found by trying the bot's words against the
    #: arena's files: every other word is text. None: the absolute words of
    #: ``argv`` that name something (a spec built by hand, with absolute paths).
    files: tuple[tuple[str, bool], ...] | None = None
    #: A folder of the host the bot may write, shown at ``/data`` in its sandbox: its entrant's
    #: data folder, kept across a tournament's matches (``arena.tournament``); None: none.
    data: str | None = None

    @classmethod
    def parse(cls, command: str, name: str | None = None, *, person_ok: bool = False,
              files: tuple[tuple[str, bool], ...] | None = None) -> "BotSpec":
        """Split and check a command line; raise BadBotCommand with a sentence.

        The command is the organiser's, read where they typed it: a word that
        names a file or folder here is made absolute and becomes one of the
        bot's ``files``. Given ``files`` (a league's bot folder, whose run
        command is the author's), no word is looked up: each is text unless
        it is one of those files or inside one of those folders.

        A prefix names another kind of seat (``human``, ``acpc:CMD``,
        ``higc:CMD``: ``arena.seats``), whose module reads the rest."""
        kind, rest = kind_of_command(command)
        if kind.parse is not None:
            return kind.parse(cls, command, rest, name, person_ok, files)
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

    @property
    def seat_kind(self) -> SeatKind:
        return SEAT_KINDS[self.kind]

    @property
    def person(self) -> bool:
        """A person's seat (``arena.seats.human``)."""
        return SEAT_KINDS[self.kind].person

    @property
    def loopback(self) -> bool:
        """An ACPC agent's seat (``arena.seats.acpc``): loopback up, its connection handed over."""
        return SEAT_KINDS[self.kind].loopback

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


def _organisers_paths(argv: list[str]) -> tuple[list[str], tuple[tuple[str, bool], ...]]:
    """The command with each word that names something here made absolute, and
    those paths: the bot's files as the organiser named them. The first word is
    the program (absolute when it has a ``/``) or a command on PATH; flags are
    never paths."""
    out = [os.path.abspath(argv[0]) if "/" in argv[0] else argv[0]]
    files: list[tuple[str, bool]] = []
    for word in argv[1:]:
        named = named_here(word)
        if named is not None:
            files.append(named)
            word = named[0]
        out.append(word)
    return out, tuple(files)



def behind_relay(spec: BotSpec) -> tuple[str, BotSpec]:
    """``(prefix, the bot behind the relay)`` for a kind that runs behind one of
    the arena's relays (``acpc:CMD``, ``higc:CMD``); ``("", spec)`` for any
    other bot. The bot behind is what is the author's (a cluster ships it);
    each machine puts its own relay before it."""
    kind = spec.seat_kind
    if kind.relay and kind.prefix is not None:
        return kind.prefix, BotSpec.parse(spec.command[len(kind.prefix):], name=spec.name)
    return "", spec


#: interpreters that, given no program, read one from stdin (python3, python3.11, node, ...)
_BARE_INTERPRETER = re.compile(r"(python|pypy|node|nodejs|perl|ruby|php|lua|bash|sh|dash|zsh|Rscript)[0-9.]*")


def bot_environment() -> dict[str, str]:
    """An explicit, small environment: bots must not depend on ours."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "LANG": "C.UTF-8",
    }
