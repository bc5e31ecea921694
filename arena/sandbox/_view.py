"""What a sandboxed bot sees of the filesystem.

The view is the same at ``basic`` and ``strict`` and is decided from the
command line the organiser wrote, never from the bot's files:

* the system, read-only: ``/usr`` (with ``/bin``, ``/lib``... as links into
  it) and a few files of ``/etc`` a dynamic program or an interpreter reads
  at start-up;
* the runtime the command names: the interpreter given as the command's first
  word (``python3``, ``/opt/node/bin/node``) and its install tree, read-only,
  with its own configuration folder ``/etc/NAME`` if there is one (mono reads
  ``/etc/mono/config`` to find its native libraries);
* the bot's own folder, read-only: the folder of its program, or of its
  script when the first word is an interpreter;
* every other file or folder the organiser named (``BotSpec.files``: the
  command line's paths, made absolute where it was typed; a league's bot
  folder), read-only, as itself (a strategy file is bound alone, not its
  folder); any other word is text, never looked up in the arena's files;
* private writable places, fresh for each process: ``/tmp`` and ``/dev/shm``
  (tmpfs, size-limited), and a fresh ``/proc``.

Nothing is added because of what a file contains (no ``#!`` line is
followed) or where the program lives (a program in some ``bin/`` does not
expose the folder above it).

When the bot runs under a uid of its own and cannot read its own folder (a
``0700`` folder, such as any ``mktemp -d``), the launcher stages a private
readable copy and binds that instead (``stage``).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .._spec import BotSpec

#: Files of /etc that programs read at start-up (a missing one is skipped).
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/ssl/openssl.cnf", "/etc/localtime")
#: The devices of /dev, at every level alike. No /dev/ptmx: the machine counts
#: open pseudo-terminals (/proc/sys/kernel/pty/nr), a number every seat reads.
DEVICES = ("null", "zero", "full", "random", "urandom")
#: Links in /dev to the process's own descriptors.
DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
             ("stderr", "/proc/self/fd/2"))
#: Links at the root into /usr (Debian's merged /usr).
ROOT_LINKS = (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"))
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
#: Version managers: their whole tree is one runtime (shims reach into it).
_MANAGER_DIRS = (".pyenv", ".nvm", ".rbenv", ".asdf", ".cargo", ".rustup", ".sdkman", ".volta")

#: Where a bot's data folder (``BotSpec.data``) appears, writable: the one place it keeps
#: files from one process to the next.
DATA_TARGET = "/data"
#: The supervisor's path inside every view.
SUPERVISOR_TARGET = "/.arena/supervisor"


@dataclass(frozen=True, slots=True)
class Bind:
    """One read-only bind: host ``source`` appears at ``target``."""

    source: str
    target: str
    is_dir: bool


@dataclass(frozen=True, slots=True)
class View:
    argv: tuple[str, ...]  # every path absolute
    binds: tuple[Bind, ...]  # outermost first; system binds excluded
    path: str  # PATH inside the sandbox
    own_dir: str | None
    #: the bot serves a socket to a program it starts (an ACPC agent): loopback is up in its namespace
    loopback: bool = False
    #: the host folder shown writable at ``DATA_TARGET`` (its entrant's data folder), if any
    data: str | None = None

    def key(self) -> tuple:
        """What makes two views need different skeletons."""
        return (*((b.target, b.is_dir) for b in self.binds), self.data is not None)


def _under_system(path: str) -> bool:
    return path == "/usr" or path.startswith("/usr/")


def _install_root(path: str) -> str:
    """The tree an interpreter needs: a version manager's folder, the prefix
    above its ``bin`` folder, or else its own folder."""
    parts = Path(path).parts
    for i, part in enumerate(parts[:-1]):
        if part in _MANAGER_DIRS:
            return str(Path(*parts[: i + 1]))
    parent = Path(path).parent
    for ancestor in [parent, *parent.parents]:
        if ancestor.name == "bin" and ancestor.parent != Path("/"):
            return str(ancestor.parent)
    return str(parent)


def _shebang(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    return head[2:].split(b"\n", 1)[0].decode(errors="replace").split()


def runtime_roots(interpreter: str, path_env: str) -> list[str]:
    """Trees that the organiser-named ``interpreter`` needs, read-only.

    Its install tree for the path as named and as resolved (a venv's
    ``bin/python`` is a link into a base install), and, for an interpreter
    that is itself a script (a version manager's shim), the tree of the
    interpreter its ``#!`` line names. Only the organiser's interpreter is
    read this way, never the bot's own files.
    """
    roots: list[str] = []
    candidates = [interpreter, os.path.realpath(interpreter)]
    line = _shebang(os.path.realpath(interpreter))
    if line:
        inner = line[0]
        if os.path.basename(inner) == "env" and len(line) > 1:
            inner = shutil.which(line[1], path=path_env) or ""
        if inner:
            candidates += [inner, os.path.realpath(inner)]
    for path in candidates:
        if path and os.path.exists(path) and not _under_system(path):
            roots.append(_install_root(path))
    return roots


@dataclass(frozen=True, slots=True)
class CommandParts:
    """A bot command read the way the view reads it."""

    argv: tuple[str, ...]  # every path absolute, a command name resolved on PATH
    interpreter_roots: tuple[str, ...]  # the organiser's runtime: read-only, never the bot's
    own_dir: str | None  # the folder of the program, or of the script after an interpreter
    named: tuple[tuple[str, bool], ...]  # other existing paths on the command line (path, is_dir)
    #: /etc/NAME of the runtime the first word names (a folder or a file), if it exists
    runtime_etc: tuple[tuple[str, bool], ...] = ()


def command_parts(spec: BotSpec, path_env: str) -> CommandParts:
    """Which words of ``spec`` are the runtime, the bot's own folder and its other files.

    Only the spec's ``files`` (the organiser's) are files: no word is tried
    against the arena's own files, so a word like ``league.db`` that names
    nothing of the bot's is text to the bot, whatever the arena's working
    folder holds.
    """
    argv = list(spec.argv)
    argv[0], interpreter_roots, program = _first_word(argv[0], path_env)
    own = spec.files if spec.files is not None else tuple(
        (w, os.path.isdir(w)) for w in argv[1:] if os.path.isabs(w) and os.path.exists(w))

    def own_file(word: str) -> bool:
        return os.path.isabs(word) and any(
            word == p or (is_dir and word.startswith(p.rstrip("/") + "/")) for p, is_dir in own)

    script = next((w for w in argv[1:] if not w.startswith("-") and own_file(w) and os.path.isfile(w)), None)
    named = [(p, d) for p, d in own if p != script]
    if script is not None and program is not None:
        # ``/path/to/interp script.py``: the first word is the runtime.
        interpreter_roots = runtime_roots(program, path_env)
        program = None
    main = script or program
    own_dir = os.path.dirname(main) if main else None
    # The first word is a runtime (a command name, or a program followed by its script).
    etc = _runtime_etc(argv[0]) if program is None and os.path.isabs(argv[0]) else ()
    parts = CommandParts(tuple(argv), tuple(interpreter_roots), own_dir, tuple(named), etc)
    return _with_relayed(parts, spec, path_env) if spec.seat_kind.relay and "--" in argv else parts


def _with_relayed(parts: CommandParts, spec: BotSpec, path_env: str) -> CommandParts:
    """A relay's command (``RELAY ... -- CMD``) read as the relay's and as CMD's alike: CMD's
    runtime (its interpreter, named or on PATH) and its own folder are shown too, as they
    would be for CMD alone."""
    words = spec.argv[list(spec.argv).index("--") + 1:]
    if not words:
        return parts
    inner = command_parts(BotSpec(command=shlex.join(words), argv=tuple(words), name=spec.name,
                                  files=spec.files), path_env)
    named = [*parts.named, *(((inner.own_dir, True),) if inner.own_dir else ())]
    return CommandParts(parts.argv, tuple(dict.fromkeys((*parts.interpreter_roots, *inner.interpreter_roots))),
                        parts.own_dir, tuple(dict.fromkeys(named)),
                        tuple(dict.fromkeys((*parts.runtime_etc, *inner.runtime_etc))))


def _first_word(first: str, path_env: str) -> tuple[str, list[str], str | None]:
    """The first word made absolute, the runtime it stands in (a command name's
    installed tool, found on the organiser's PATH), and the program (a path)."""
    if "/" in first:
        return os.path.abspath(first), [], os.path.abspath(first)
    found = shutil.which(first, path=path_env)
    return (found, runtime_roots(found, path_env), None) if found else (first, [], None)


def _runtime_etc(runtime: str) -> tuple[tuple[str, bool], ...]:
    """A runtime's configuration under /etc, decided from its name only."""
    name = os.path.basename(runtime)
    config = f"/etc/{name}"
    return ((config, os.path.isdir(config)),) if name and os.path.exists(config) else ()


def shared_files(spec: BotSpec, path_env: str) -> list[str]:
    """What the bot sees that other bots see too (the system, its runtime): not its own files."""
    parts = command_parts(spec, path_env)
    return ["/usr", *(f for f in SYSTEM_FILES if os.path.exists(f)), *parts.interpreter_roots,
            *(p for p, _ in parts.runtime_etc)]


def bot_files(spec: BotSpec, path_env: str) -> list[tuple[str, bool]]:
    """The bot's own files and folders (not the runtime, not the system), outermost
    first, none inside another: what the view binds as the bot's and what a
    cluster ships (``arena.cluster``)."""
    parts = command_parts(spec, path_env)
    wanted = ([(parts.own_dir, True)] if parts.own_dir else []) + list(parts.named)
    chosen: list[tuple[str, bool]] = []
    for path, is_dir in sorted(wanted, key=lambda w: (w[0].count("/"), w[0])):
        if _under_system(path) or path == "/" or any(
                path == c or (c_dir and path.startswith(c.rstrip("/") + "/")) for c, c_dir in chosen):
            continue
        chosen.append((path, is_dir))
    return chosen


def build_view(
    spec: BotSpec, path_env: str, stage: Callable[[str, bool], str] | None = None,
) -> View:
    """The view of one bot command (see the module docstring)."""
    parts = command_parts(spec, path_env)
    argv, interpreter_roots, own_dir, named = list(parts.argv), parts.interpreter_roots, parts.own_dir, parts.named

    wanted: list[tuple[str, bool, bool]] = []  # (path, is_dir, may_stage)
    for root in interpreter_roots:
        wanted.append((root, True, False))
    for path, is_dir in parts.runtime_etc:
        wanted.append((path, is_dir, False))
    if own_dir:
        wanted.append((own_dir, True, True))
    for path, is_dir in named:
        wanted.append((path, is_dir, True))
    binds: list[Bind] = []
    seen: set[str] = set()
    for path, is_dir, may_stage in sorted(wanted, key=lambda w: (w[0].count("/"), w[0])):
        # (a path inside a folder already shown is shown by it: bwrap cannot make a mount point
        # inside a read-only bind, as for an interpreter named inside its own runtime tree)
        if _under_system(path) or path in seen or path == "/" or any(
                b.is_dir and path.startswith(b.target.rstrip("/") + "/") for b in binds):
            continue
        seen.add(path)
        source = stage(path, is_dir) if (stage is not None and may_stage) else path
        binds.append(Bind(source=source, target=path, is_dir=is_dir))
    # The bot's PATH: the system's, after the organiser's entries that lie in
    # an exposed runtime tree (a version manager's shims need their own).
    inside = [d for d in path_env.split(":") if d and any(
        d == r or d.startswith(r.rstrip("/") + "/") for r in interpreter_roots)]
    path = ":".join(dict.fromkeys(inside + list(SYSTEM_PATH)))
    return View(argv=tuple(argv), binds=tuple(binds), path=path, own_dir=own_dir,
                loopback=spec.loopback, data=spec.data)


def unreadable_by_others(path: str, is_dir: bool) -> bool:
    """Whether a uid other than the owner would be refused somewhere in ``path``."""
    def denied(p: str, directory: bool) -> bool:
        try:
            mode = os.lstat(p).st_mode
        except OSError:
            return False
        if os.path.islink(p):
            return False
        if directory:
            return (mode & 0o005) != 0o005
        if mode & 0o100 and not mode & 0o001:
            return True  # its owner may run it, others not
        return not mode & 0o004

    if not is_dir:
        return denied(path, False)
    if denied(path, True):
        return True
    for top, dirs, files in os.walk(path):
        for d in dirs:
            if denied(os.path.join(top, d), True):
                return True
        for f in files:
            if denied(os.path.join(top, f), False):
                return True
    return False
