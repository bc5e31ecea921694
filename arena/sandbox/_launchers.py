"""Launchers: how one bot process is started at each sandbox level.

Every level runs the bot under the arena's supervisor (``arena/native``),
which receives the bot's pipes over a socket and reports how the bot ended.
Above ``none`` the supervisor and the bot run in fresh PID, network, mount,
IPC and UTS namespaces, see only the filesystem view of ``_view``, under
rlimits, and (as root) under a uid of their own with no capabilities and in
cgroups of their own.

``basic`` builds the view with util-linux: real root (or the root of a new
user namespace when the arena is not root) fills a tmpfs root from a skeleton
(read-only once built, so no mount shows a host path) and
the view's binds, then ``pivot_root`` into it and detaches the old root, so
nothing of the host's filesystem is left reachable. ``strict`` builds the
same view with bubblewrap.

PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, and
trio forks from a worker thread that exits after 10 s idle: nothing here
relies on it. The outermost process is ``unshare --fork --kill-child`` (its
child's death signal is tied to that single-threaded process); the
supervisor ends the bot when the arena's end of its socket closes; a
watchdog per launcher kills the outer processes and removes the cgroups if
the arena dies.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import stat
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._spec import BotSpec, bot_environment
from ..native import supervisor_path
from ._cgroups import BotCgroup, CgroupLayout
from ._memory import hold_for
from ._policy import SandboxPolicy
from ._uids import UidClaim
from ._view import (
    DATA_TARGET, DEV_LINKS, DEVICES, ROOT_LINKS, SUPERVISOR_TARGET, SYSTEM_FILES, View, build_view, shared_files,
    unreadable_by_others,
)
from ._watchdog import MARKER_ENV, Watchdog

#: Largest bot folder the arena copies for one bot process (a folder its uid
#: cannot read, or any with ``SandboxPolicy.private_files``).
STAGE_LIMIT = 256 * 1024 * 1024


class StagingError(OSError):
    """A bot's files that cannot be copied for one of its processes."""


@dataclass(slots=True)
class LaunchPlan:
    """How one bot process is started."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None = None
    pass_fds: tuple[int, ...] = ()
    #: after the process ended: kill what is left, return what the limits saw
    cleanup: Callable[[], str | None] | None = None
    #: what the bot itself runs (argv inside the sandbox), for messages
    bot_argv: tuple[str, ...] = ()
    view: View | None = None
    #: the processes the bot started that are still there, counted by the arena
    #: in the bot's cgroup (None: the supervisor's count is all there is)
    count_leftovers: Callable[[], int | None] | None = None
    #: the launch chain's stdin (a descriptor), or None for /dev/null
    stdin: int | None = None


class Launcher:
    """``none``: the supervisor and the bot run directly, in their own session.

    No isolation and no limits: the bot sees what the arena's user sees. What
    every level gives is here too: bounded reads, deadlines, the exact way
    the bot ended, and every process it started killed at the end.
    """

    level = "none"

    def __init__(self, policy: SandboxPolicy | None = None) -> None:
        self.policy = policy or SandboxPolicy()

    @property
    def layers(self) -> list[str]:
        return ["none"]

    def describe(self) -> str:
        return "none (own session only: no isolation, no limits)"

    def summary(self) -> dict[str, Any]:
        return {"level": self.level, "layers": self.layers,
                "policy": None if self.level == "none" else self.policy.to_json()}

    def prepare(self, spec: BotSpec) -> None:
        """Work before ``plan`` that may take long (BotHost runs it in a thread): none here."""

    def plan(self, spec: BotSpec, sock_fd: int) -> LaunchPlan:
        return LaunchPlan(
            argv=[supervisor_path(), str(sock_fd), "--", *spec.argv],
            env=bot_environment(), pass_fds=(sock_fd,), bot_argv=spec.argv,
        )

    def close(self) -> None:
        pass


class SandboxLauncher(Launcher):
    """What ``basic`` and ``strict`` share: state folder, uids, cgroups, watchdog, staging."""

    level = "sandbox"

    def __init__(
        self, policy: SandboxPolicy | None = None, *, root: bool, cgroups: CgroupLayout | None,
        tools: dict[str, str], watch: bool = True, warn: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(policy)
        self.warn = warn or (lambda text: print(f"arena: WARNING: {text}", file=sys.stderr))
        self.root = root
        self.cg_layout = cgroups
        self.tools = tools
        self.token = uuid.uuid4().hex[:16]
        self._watch = watch
        self._watchdog: Watchdog | None = None
        self._counter = itertools.count()
        # Private to the arena's user: skeletons, and each process's copies of its files.
        base = "/run" if root and os.access("/run", os.W_OK) else None
        # Named at random, not by the token: a copy's mount shows the path.
        self._state = Path(tempfile.mkdtemp(prefix="arena-sandbox-", dir=base))

    @property
    def layers(self) -> list[str]:
        layers = [self.level]
        if self.root:
            layers.append("own uid")
        if self.cg_layout is not None:
            layers.append("cgroups")
        return layers

    def describe(self) -> str:
        return " + ".join(self.layers) + f" ({self.policy.describe()})"

    def _cgroup_tops(self) -> list[str]:
        if self.cg_layout is None:
            return []
        return [str(p / f"arena-{self.token}") for p in self.cg_layout.parents()]

    def prepare(self, spec: BotSpec) -> None:
        """With ``private_files``: every page of the files the bot shares with other
        processes in the page cache, so that none says what another read
        (arena/sandbox/_memory.py). Reads gigabytes the first time: BotHost
        calls it in a thread before ``plan``."""
        if self.policy.private_files:
            hold_for(shared_files(spec, bot_environment()["PATH"]), self.warn)

    # -- the bot's own files -------------------------------------------------------

    def _copies(self, folder: Path, uid: int | None) -> Callable[[str, bool], str]:
        """What shows one process its own files: each as it is, or a copy in
        ``folder`` (removed with it when the process has ended) that only the
        process's ``uid`` may read (None: the arena's own uid). A copy is made
        when the policy asks for private files, or when the bot's uid could
        not read the files themselves (a ``0700`` folder). Only the bot's own
        files come here (``build_view``), never anything else on the host."""
        made = itertools.count()

        def show(path: str, is_dir: bool) -> str:
            if not (self.policy.private_files or (uid is not None and unreadable_by_others(path, is_dir))):
                return path
            dest = folder / f"own-{next(made)}"
            _copy_private(path, str(dest), is_dir, uid)
            return str(dest)

        return show

    # -- one process ----------------------------------------------------------------

    def plan(self, spec: BotSpec, sock_fd: int) -> LaunchPlan:
        if self._watch and self._watchdog is None:
            self._watchdog = Watchdog(self.token, str(self._state), self._cgroup_tops(), self.policy.cpu_seconds)
        env = bot_environment()
        n = next(self._counter)
        claim = UidClaim(os.getpid() * 7 + n) if self.root else None
        cg = None
        fds: list[int] = []  # descriptors the launch chain reads (strict: the supervisor's bytes)
        # This process's own things (copies of its files, its mount lines), removed at its end.
        mine = self._state / f"p{n}"
        try:
            mine.mkdir(mode=0o700)
            uid = claim.uid if claim is not None else os.geteuid()
            view = build_view(spec, env["PATH"], self._copies(mine, claim.uid if claim is not None else None))
            if view.data is not None and claim is not None:
                hand_tree(view.data, uid)  # this process's alone while it runs (its entrant's never overlap)
            self.prepare(spec)  # (done already, off the event loop, by BotHost.start)
            if self.cg_layout is not None:
                cg = BotCgroup(self.cg_layout, f"arena-{self.token}/b{n}", self.policy, *self.cgroup_overhead)
            argv = self._outer(view, cg, self._bot_chain(uid, sock_fd, view), fds, mine, uid)
        except BaseException:
            _close_all(fds)
            shutil.rmtree(mine, ignore_errors=True)
            if cg is not None:
                cg.remove()
            if claim is not None:
                claim.release()
            raise
        outer_env = {"PATH": view.path, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                     MARKER_ENV: self.token}

        def cleanup() -> str | None:
            _close_all(fds)
            verdict = None
            if cg is not None:
                cg.kill()
                verdict = cg.verdict()
                cg.remove()
            shutil.rmtree(mine, ignore_errors=True)  # before its uid may go to another bot
            if view.data is not None and claim is not None:
                hand_tree(view.data, os.geteuid())  # nothing left to that uid once another bot holds it
            if claim is not None:
                claim.release()
            return verdict

        return LaunchPlan(argv=argv, env=outer_env, pass_fds=(sock_fd, *fds), cleanup=cleanup,
                          bot_argv=view.argv, view=view,
                          count_leftovers=cg.leftovers if cg is not None and self.counts_in_cgroup else None,
                          stdin=sock_fd if self.socket_on_stdin else None)

    #: the bot's processes are host processes in its cgroup, which the arena counts (not so under gVisor)
    counts_in_cgroup = True
    #: the supervisor's socket is the launch chain's stdin (gVisor passes a sandbox no other descriptor)
    socket_on_stdin = False
    #: what the sandbox itself needs in the bot's cgroups beyond the policy: (memory MB, processes)
    cgroup_overhead: tuple[int, int] = (0, 0)

    def _bot_chain(self, uid: int, sock_fd: int, view: View) -> list[str]:
        """What runs inside the namespaces: the uid and limits set, then the supervisor and the bot."""
        return self._inner(uid) + [SUPERVISOR_TARGET, "--seccomp", str(sock_fd), "--", *view.argv]

    def _inner(self, uid: int) -> list[str]:
        """Inside the namespaces: drop to the bot's uid and every capability, set rlimits."""
        p = self.policy
        argv = [self.tools["setpriv"]]
        if self.root:
            argv += [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        argv += ["--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        # With a memory cgroup the cgroup is the limit (and gives an OOM
        # verdict); without one, RLIMIT_DATA bounds what the bot really uses
        # (a JIT's reserved, untouched address space does not count). The
        # address-space limit is a loose backstop either way.
        mb = 1024 * 1024
        argv += [
            self.tools["prlimit"], f"--as={p.memory_mb * 4 * mb}", f"--cpu={p.cpu_seconds}:{p.cpu_seconds + 1}",
            f"--fsize={p.file_mb * mb}", f"--nofile={p.open_files}", "--core=0",
        ]
        if self.cg_layout is None:
            argv.append(f"--data={p.memory_mb * mb}")
        # Counted per uid and user namespace: a uid of its own (root), or a user
        # namespace of its own (not root), makes it this bot's alone. With a
        # pids cgroup that one is the limit (and the verdict), this a backstop.
        argv.append(f"--nproc={(p.pids + 1) * (2 if self.cg_layout is not None else 1)}")
        return argv + ["--"]

    def _wall(self) -> list[str]:
        w = self.policy.wall_seconds
        return ["timeout", "--foreground", "-s", "KILL", f"{w:g}"] if w else []

    def _outer(self, view: View, cg: BotCgroup | None, inner: list[str], fds: list[int], mine: Path,
               uid: int) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        """Remove the launcher's cgroup folders and state; stop the watchdog."""
        for top in self._cgroup_tops():
            try:
                os.rmdir(top)
            except OSError:
                pass
        if self._watchdog is not None:
            self._watchdog.close()
            self._watchdog = None
        shutil.rmtree(self._state, ignore_errors=True)


def _close_all(fds: list[int]) -> None:
    while fds:
        os.close(fds.pop())


def _attach(cg: BotCgroup | None) -> str:
    if cg is None:
        return ""
    return "".join(f"echo $$ >{shlex.quote(f)} && " for f in cg.procs_files)



def _make_skeleton(skel: Path, dirs: list[str], files: list[str]) -> None:
    """The new root's mount points (folders, empty files, the root's links)
    and the supervisor, copied: the root is a tmpfs filled from this, so that
    no mount inside shows where on the host it came from."""
    skel.mkdir(mode=0o755)
    for d in dirs:
        (skel / d).mkdir(mode=0o755, parents=True, exist_ok=True)
    for f in files:
        (skel / f).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        (skel / f).touch(mode=0o644)
    for name, target in ROOT_LINKS:
        (skel / name).symlink_to(target)
    for name, target in DEV_LINKS:
        (skel / "dev" / name).symlink_to(target)
    supervisor = skel / SUPERVISOR_TARGET.lstrip("/")
    shutil.copyfile(supervisor_path(), supervisor)
    supervisor.chmod(0o755)
    for path in [skel, *skel.rglob("*")]:  # mkdir's mode is cut by the umask
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)

class BasicLauncher(SandboxLauncher):
    """util-linux: namespaces, a pivot_root into the view, rlimits, uid drop."""

    level = "basic"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._root = self._state / "root"
        self._root.mkdir(mode=0o755)
        self._fstabs: dict[tuple, tuple[str, str, list[str]]] = {}

    def _skeleton(self, view: View) -> tuple[str, str, list[str]]:
        """For the targets of ``view`` (made once per set of targets): a
        skeleton holding every mount point, the fstab of the system mounts and
        the private tmpfs places, and the commands that make the mount points
        that lie inside a private tmpfs (for a bot that lives under /tmp).
        Returns (skeleton, fstab, those commands)."""
        key = view.key()
        if key in self._fstabs:
            return self._fstabs[key]
        n = len(self._fstabs)
        skel = self._state / f"skeleton-{n}"
        r = str(self._root)
        lines = []
        dirs = ["usr", "proc", "tmp", "dev", "dev/shm", "etc", ".arena", ".arena/old"]
        files = [f"dev/{d}" for d in DEVICES]
        lines.append(f"/usr {_esc(r + '/usr')} none bind,ro,nosuid,nodev 0 0")
        for f in SYSTEM_FILES:
            if os.path.exists(f):
                (dirs if os.path.isdir(f) else files).append(f.lstrip("/"))
                lines.append(f"{_esc(f)} {_esc(r + f)} none bind,ro,nosuid,nodev 0 0")
        for d in DEVICES:
            lines.append(f"/dev/{d} {_esc(r + '/dev/' + d)} none bind 0 0")
        p = self.policy
        lines += [
            f"proc {_esc(r + '/proc')} proc nosuid,nodev,noexec 0 0",
            f"arena-tmp {_esc(r + '/tmp')} tmpfs size={p.file_mb}m,mode=1777,nosuid,nodev 0 0",
            f"arena-shm {_esc(r + '/dev/shm')} tmpfs size={p.shm_mb}m,mode=1777,nosuid,nodev 0 0",
        ]
        prep: list[str] = []
        for b in view.binds:
            if _in_private_tmpfs(b.target):
                target = shlex.quote(r + b.target)
                parent = shlex.quote(r + os.path.dirname(b.target))
                make = f"mkdir {target}" if b.is_dir else f": > {target}"
                prep.append(f"mkdir -p {parent} && {{ [ -e {target} ] || {make}; }}")
            else:
                (dirs if b.is_dir else files).append(b.target.lstrip("/"))
        if view.data is not None:
            dirs.append(DATA_TARGET.lstrip("/"))
        _make_skeleton(skel, dirs, files)
        fstab = self._state / f"fstab-{n}"
        fstab.write_text("\n".join(lines) + "\n")
        self._fstabs[key] = (str(skel), str(fstab), prep)
        return self._fstabs[key]

    def _mounts(self, view: View, mine: Path) -> str:
        """The shell commands that build the root of one process: a small tmpfs
        filled from the skeleton, the system mounts, then the view's binds
        (whose sources may be this process's own copies: their lines are
        written to ``mine``), read-only once its mounts are in place."""
        skel, fstab, prep = self._skeleton(view)
        r = str(self._root)
        binds: list[str] = []
        later: list[str] = []  # binds whose mount point is in a private tmpfs
        for b in view.binds:
            subs = _submounts(b.source) if b.is_dir else []
            # A tree holding mounts is bound with them (a user namespace may not
            # reveal what they cover), each made read-only in turn.
            line = f"{_esc(b.source)} {_esc(r + b.target)} none {'rbind' if subs else 'bind'},ro,nosuid,nodev 0 0"
            for sub in subs:
                inside = r + b.target + sub[len(b.source.rstrip("/")):]
                line += f"\nnone {_esc(inside)} none remount,bind,ro,nosuid,nodev 0 0"
            (later if _in_private_tmpfs(b.target) else binds).append(line)
        if view.data is not None:  # the one writable bind: its entrant's data folder
            binds.append(f"{_esc(view.data)} {_esc(r + DATA_TARGET)} none bind,nosuid,nodev 0 0")
        mount = shlex.quote(self.tools["mount"])
        # The mount is made read-only, not the tmpfs itself, which a user namespace may not remount.
        root = shlex.quote(r)
        commands = (f"{mount} -t tmpfs -o size=4m,mode=0755,nosuid,nodev arena-root {root} && "
                    f"{shlex.quote(self.tools['cp'])} -a {shlex.quote(skel)}/. {root}/ && "
                    f"{mount} -a -T {shlex.quote(fstab)}")
        if binds:
            (mine / "binds").write_text("\n".join(binds) + "\n")
            commands += f" && {mount} -a -T {shlex.quote(str(mine / 'binds'))}"
        if later:
            (mine / "binds-late").write_text("\n".join(later) + "\n")
            commands += " && umask 022 && " + " && ".join(prep)
            commands += f" && {mount} -a -T {shlex.quote(str(mine / 'binds-late'))}"
        return commands + f" && {mount} -o remount,bind,ro {root}"

    def _outer(self, view, cg, inner, fds, mine, uid):
        argv = self._wall()
        if cg is not None:
            # Into the bot's cgroups before the cgroup namespace is made, so
            # that inside they are its root (no host path, no run token).
            argv += [self.tools["sh"], "-c", _attach(cg) + 'exec "$@"', "arena-sandbox"]
        argv.append(self.tools["unshare"])
        if not self.root:
            argv += ["--user", "--map-root-user"]
        argv += ["--net", "--pid", "--ipc", "--uts", "--mount", "--cgroup", "--fork", "--kill-child",
                 "--propagation", "private", "--"]
        # Real root (or the new user namespace's root) builds the view, then
        # leaves the host's filesystem behind for good.
        t = {k: shlex.quote(self.tools[k]) for k in ("pivot_root", "umount")}
        mounts = self._mounts(view, mine)
        # A fresh network namespace has its loopback down: an ACPC relay needs
        # it to serve its agent (which still reaches nothing outside).
        lo = f"{shlex.quote(shutil.which('ip') or '/usr/sbin/ip')} link set lo up && " if view.loopback else ""
        script = (
            f"{lo}{mounts} && "
            f"cd {shlex.quote(str(self._root))} && {t['pivot_root']} . .arena/old && "
            f"{t['umount']} -l /.arena/old && cd /tmp && unset OLDPWD && exec \"$@\""
        )
        return argv + [self.tools["sh"], "-c", script, "arena-sandbox", *inner]


def _submounts(path: str) -> list[str]:
    """Mount points strictly below ``path`` in the arena's mount namespace."""
    prefix = path.rstrip("/") + "/"
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                point = line.split()[4].encode().decode("unicode_escape")  # \040 is a space
                if point.startswith(prefix):
                    found.append(point)
    except OSError:
        pass
    return sorted(found, key=lambda p: p.count("/"))


def _in_private_tmpfs(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in ("/tmp", "/dev/shm"))


def _esc(path: str) -> str:
    """A path as fstab wants it (octal escapes for blanks and backslashes)."""
    return path.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012")


class StrictLauncher(SandboxLauncher):
    """bubblewrap builds the same view."""

    level = "strict"

    def _outer(self, view, cg, inner, fds, mine, uid):
        p = self.policy
        argv = self._wall() + [self.tools["unshare"], "--fork", "--kill-child", "--"]
        if cg is not None:
            argv += [self.tools["sh"], "-c", _attach(cg) + 'exec "$@"', "arena-sandbox"]
        argv += [
            self.tools["bwrap"],
            # As root, --unshare-all would add a user namespace mapping only uid 0,
            # and the uid drop inside could not happen: name the namespaces instead.
            *(["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
              if self.root else ["--unshare-all"]),
            "--die-with-parent", "--new-session", "--as-pid-1",
            "--ro-bind", "/usr", "/usr",
        ]
        for name, target in ROOT_LINKS:
            argv += ["--symlink", target, "/" + name]
        argv += ["--perms", "0755", "--dir", "/etc"]
        for f in SYSTEM_FILES:
            if os.path.exists(f):
                if os.path.dirname(f) != "/etc":
                    argv += ["--perms", "0755", "--dir", os.path.dirname(f)]
                argv += ["--ro-bind", f, f]
        # /dev as basic makes it: bwrap's own --dev would add /dev/ptmx and a devpts
        argv += ["--proc", "/proc", "--perms", "0755", "--dir", "/dev"]
        for d in DEVICES:
            argv += ["--dev-bind", f"/dev/{d}", f"/dev/{d}"]
        for name, target in DEV_LINKS:
            argv += ["--symlink", target, f"/dev/{name}"]
        argv += [
            "--perms", "1777", "--size", str(p.file_mb << 20), "--tmpfs", "/tmp",
            "--perms", "1777", "--size", str(p.shm_mb << 20), "--tmpfs", "/dev/shm",
            "--perms", "0755", "--dir", "/.arena",
        ]
        # The supervisor is copied in from a descriptor (bwrap reads it to the
        # end, so a fresh one each time): a bind would show its host path.
        fds.append(os.open(supervisor_path(), os.O_RDONLY | os.O_CLOEXEC))
        argv += ["--perms", "0555", "--file", str(fds[-1]), SUPERVISOR_TARGET]
        made = {"/", "/tmp", "/usr", "/proc", "/dev", "/etc", "/.arena"}
        for b in view.binds:
            # bwrap would create missing parents 0700: a stranger uid could not pass
            for parent in reversed(Path(b.target).parents):
                if str(parent) not in made:
                    made.add(str(parent))
                    argv += ["--perms", "0755", "--dir", str(parent)]
            argv += ["--ro-bind", b.source, b.target]
            made.add(b.target)
        if view.data is not None:  # the one writable bind: its entrant's data folder
            argv += ["--perms", "0755", "--dir", DATA_TARGET, "--bind", view.data, DATA_TARGET]
        argv += [
            # The root bwrap builds is a tmpfs whose folders (as not root) belong
            # to the bot's own uid: read-only, like basic's root.
            "--remount-ro", "/",
            "--chdir", "/tmp", "--clearenv",
            "--setenv", "PATH", view.path, "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
            "--setenv", "LANG", "C.UTF-8", "--",
        ]
        return argv + inner


def hand_tree(folder: str, uid: int) -> None:
    """Give ``folder`` and everything in it to ``uid`` (a data folder, between its entrant's
    processes, each of which runs under a uid of its own). Links are not followed."""
    os.chown(folder, uid, uid, follow_symlinks=False)
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.chown(os.path.join(top, name), uid, uid, follow_symlinks=False)


def _copy_private(path: str, dest: str, is_dir: bool, uid: int | None) -> None:
    """Copy ``path`` to ``dest`` for one bot process: owned by ``uid`` (None: as
    made), readable (and runnable, where its owner could run it) by that owner
    alone. Links are copied as links."""
    total = 0
    for top, _, files in os.walk(path) if is_dir else [("", [], [path])]:
        for f in files:
            try:
                total += os.lstat(os.path.join(top, f)).st_size
            except OSError:
                pass
        if total > STAGE_LIMIT:
            raise StagingError(
                f"{path} is over {STAGE_LIMIT >> 20} MB, too much to copy for each bot process "
                f"(each process is given its own copy of a folder its uid cannot read, and in a duplicate "
                f"tournament or the league of every bot's files): give the bot a folder of its own with only "
                f"what it needs")

    def own(p: str) -> None:
        mode = os.lstat(p).st_mode
        if uid is not None:
            os.lchown(p, uid, uid)
        if stat.S_ISLNK(mode):
            return
        os.chmod(p, 0o500 if stat.S_ISDIR(mode) or mode & 0o100 else 0o400)

    if not is_dir:
        shutil.copy2(path, dest)
        own(dest)
        return
    shutil.copytree(path, dest, symlinks=True)
    for top, dirs, files in os.walk(dest, topdown=False):
        for f in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            own(os.path.join(top, f))
        own(top)
