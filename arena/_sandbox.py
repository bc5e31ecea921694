"""Sandbox levels for bot processes: a probe, a policy, and Launchers.

Levels (``--sandbox``):

* ``none``   — the bot runs directly, in its own session and process group
  (what ``arena._bot`` always does: bounded reads, deadlines, group kill).
* ``basic``  — util-linux only. New PID, network, mount, IPC and UTS
  namespaces (``unshare``), rlimits (``prlimit``), a private ``/tmp`` as the
  bot's scratch and working directory. As root the bot also runs under a
  numeric uid of its own with no capabilities (``setpriv``); as another user
  a user namespace (``--user --map-root-user``) makes the namespaces possible.
* ``strict`` — bubblewrap: a minimal read-only view of the filesystem
  (``/usr``, the bot's own directory, its interpreter), a private writable
  ``/tmp``, cleared environment, ``--die-with-parent``, ``--new-session``,
  every namespace.

On top of ``basic`` and ``strict``, when the arena may create cgroups (root
here: cgroup v1 memory and pids, v2 for ``cgroup.kill`` and ``cpu.stat``) each
seat gets a cgroup with a memory and a pids limit; the cgroup is killed at the
end and its counters give the verdict (out of memory, process limit, CPU).

Parent death. ``PR_SET_PDEATHSIG`` fires when the *thread* that forked the
child exits. trio forks bots from a worker thread that exits after 10 s idle,
so ``setpriv --pdeathsig`` or a bare ``bwrap --die-with-parent`` as the
arena's direct child kills a healthy bot mid-match (measured here: at 10 s).
So the outermost process of a sandbox is ``unshare --fork --kill-child`` (its
child's death signal is tied to that single-threaded process), bwrap's
``--die-with-parent`` sits below it, and one watchdog process per launcher,
spawned from the trio thread, holds the read end of a pipe: when the arena
dies the pipe reads EOF and the watchdog SIGKILLs every outer process marked
with the launcher's token (the PID namespace takes the rest) and removes the
cgroups.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ._bot import BotSpec, LaunchPlan, Launcher, bot_environment

LEVELS = ("none", "basic", "strict")
MARKER_ENV = "ARENA_SANDBOX_ID"
#: Numeric uids handed to bots when the arena runs as root (no passwd entry needed).
UID_BASE = 2_147_000_000
UID_COUNT = 4096
#: Directories of version managers: the whole tree is exposed, not just ``bin/..``.
_MANAGER_DIRS = (".pyenv", ".nvm", ".rbenv", ".asdf", ".cargo", ".rustup", ".sdkman", ".volta")


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """Limits for every bot process of a run (per seat)."""

    memory_mb: int = 512  # cgroup memory limit; RLIMIT_AS when there is no memory cgroup
    cpu_seconds: int = 60  # RLIMIT_CPU of the bot process (soft; hard is one more second)
    wall_seconds: float | None = None  # life of one bot process; None: the match deadlines rule
    pids: int = 64  # pids cgroup limit, and RLIMIT_NPROC under a uid of its own
    file_mb: int = 64  # RLIMIT_FSIZE, and the size of the private /tmp
    open_files: int = 256  # RLIMIT_NOFILE
    network: bool = False  # never True for now: every level above none cuts the network

    def describe(self) -> str:
        wall = f", wall {self.wall_seconds:g} s" if self.wall_seconds else ""
        return (
            f"memory {self.memory_mb} MB, CPU {self.cpu_seconds} s{wall}, pids {self.pids}, "
            f"files {self.file_mb} MB, network off"
        )


# -- the probe ------------------------------------------------------------------


@dataclass(slots=True)
class CgroupLayout:
    """Where this machine's cgroup controllers are (None when unusable)."""

    memory_v1: Path | None = None  # parent dir for our cgroups in the v1 memory hierarchy
    pids_v1: Path | None = None
    unified: Path | None = None  # parent dir in the v2 hierarchy (kill, cpu.stat)
    v2_memory: bool = False  # memory/pids controllers available in v2
    v2_pids: bool = False

    @property
    def usable(self) -> bool:
        return bool(self.memory_v1 or self.v2_memory) and bool(self.pids_v1 or self.v2_pids)


@dataclass(slots=True)
class Probe:
    root: bool
    tools: dict[str, str | None]
    basic_ok: bool
    basic_error: str
    strict_ok: bool
    strict_error: str
    cgroups: CgroupLayout
    cgroup_error: str
    uid_drop: bool

    @property
    def best_default(self) -> str:
        return "basic" if self.basic_ok else "none"


def _own_cgroup(controller: str) -> str:
    """This process's path in a v1 hierarchy (or "" for v2 with ``controller=""``)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if (controller == "" and names == "") or controller in names.split(","):
                return path
    except OSError:
        pass
    return "/"


def _probe_cgroups() -> tuple[CgroupLayout, str]:
    layout = CgroupLayout()
    if os.geteuid() != 0:
        return layout, "not root (no delegated cgroup subtree is used)"
    base = Path("/sys/fs/cgroup")
    problems = []
    for name in ("memory", "pids"):
        mount = base / name
        if (mount / "cgroup.procs").exists():
            parent = mount / _own_cgroup(name).lstrip("/")
            try:
                test = parent / f"arena-probe-{os.getpid()}"
                test.mkdir()
                test.rmdir()
                setattr(layout, f"{name}_v1", parent)
            except OSError as exc:
                problems.append(f"v1 {name}: {exc.strerror}")
    for candidate in (base / "unified", base):
        if (candidate / "cgroup.controllers").exists():
            parent = candidate / _own_cgroup("").lstrip("/")
            try:
                test = parent / f"arena-probe-{os.getpid()}"
                test.mkdir()
                has_kill = (test / "cgroup.kill").exists()
                test.rmdir()
            except OSError as exc:
                problems.append(f"v2: {exc.strerror}")
                break
            if has_kill:
                layout.unified = parent
                controllers = (parent / "cgroup.controllers").read_text().split()
                layout.v2_memory = "memory" in controllers and layout.memory_v1 is None
                layout.v2_pids = "pids" in controllers and layout.pids_v1 is None
            break
    if not layout.usable and not problems:
        problems.append("no memory and pids controllers found")
    return layout, "; ".join(problems)


def _run_probe(argv: list[str], env: dict[str, str] | None = None) -> str:
    """'' when ``argv`` runs and exits 0, else the reason."""
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=10, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        return (err[-1] if err else f"exit code {proc.returncode}")[:200]
    return ""


_PROBE: Probe | None = None


def probe(refresh: bool = False) -> Probe:
    """What each layer gives on this machine (cached per process)."""
    global _PROBE
    if _PROBE is not None and not refresh:
        return _PROBE
    tools = {name: shutil.which(name) for name in ("unshare", "setpriv", "prlimit", "mount", "sh", "bwrap")}
    root = os.geteuid() == 0
    cgroups, cg_error = _probe_cgroups()
    true = shutil.which("true") or "/bin/true"
    if all(tools[t] for t in ("unshare", "setpriv", "prlimit", "mount", "sh")):
        chain = _basic_chain(root, uid=UID_BASE + UID_COUNT - 1, policy=SandboxPolicy(), fstab=None, cg_files=[])
        basic_error = _run_probe(chain + [true], env=bot_environment())
    else:
        basic_error = "util-linux tools missing: " + ", ".join(
            t for t in ("unshare", "setpriv", "prlimit", "mount", "sh") if not tools[t]
        )
    if tools["bwrap"]:
        strict_error = _run_probe(
            _strict_prefix(root, UID_BASE + UID_COUNT - 1, SandboxPolicy(), [], [], "/usr/bin:/bin")
            + ["/usr/bin/true"]
        )
    else:
        strict_error = "bubblewrap is not installed (apt-get install bubblewrap)"
    _PROBE = Probe(
        root=root,
        tools=tools,
        basic_ok=not basic_error,
        basic_error=basic_error,
        strict_ok=not strict_error and not basic_error.startswith("util-linux"),
        strict_error=strict_error,
        cgroups=cgroups,
        cgroup_error=cg_error,
        uid_drop=root and bool(tools["setpriv"]),
    )
    return _PROBE


# -- command chains ---------------------------------------------------------------


def _prlimit(policy: SandboxPolicy, memory_cgroup: bool, own_uid: bool) -> list[str]:
    # With a memory cgroup the cgroup is the real limit (and gives an OOM verdict);
    # the address-space limit stays as a loose backstop.
    address = policy.memory_mb * (4 if memory_cgroup else 1) * 1024 * 1024
    argv = [
        "prlimit",
        f"--as={address}",
        f"--cpu={policy.cpu_seconds}:{policy.cpu_seconds + 1}",
        f"--fsize={policy.file_mb * 1024 * 1024}",
        f"--nofile={policy.open_files}",
        "--core=0",
    ]
    if own_uid:
        # Counts per uid (only meaningful with a uid per bot); with a pids cgroup
        # that one is the limit (and gives the verdict), this is a backstop.
        argv.append(f"--nproc={policy.pids * (2 if memory_cgroup else 1)}")
    return argv + ["--"]


def _setpriv(uid: int) -> list[str]:
    return [
        "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
        "--inh-caps=-all", "--bounding-set=-all", "--",
    ]


def _attach_script(cg_files: list[str]) -> str:
    return "".join(f"echo $$ >{shlex.quote(f)} && " for f in cg_files)


def _basic_chain(
    root: bool, uid: int, policy: SandboxPolicy, fstab: str | None, cg_files: list[str]
) -> list[str]:
    """``unshare`` namespaces, then (in them) cgroup attach + mounts, uid drop, rlimits."""
    argv: list[str] = []
    if policy.wall_seconds:
        argv += ["timeout", "--foreground", "-s", "KILL", f"{policy.wall_seconds:g}"]
    argv += ["unshare"]
    if not root:
        argv += ["--user", "--map-root-user"]
    argv += [
        "--net", "--pid", "--ipc", "--uts", "--mount", "--fork", "--kill-child",
        "--mount-proc", "--propagation", "private", "--",
    ]
    # Real root creates the namespaces (no user namespace: its "root" would be
    # kuid 0 without a prior drop), prepares the mounts, then drops to the bot's uid.
    if fstab is None:
        mounts = (
            f"mount -t tmpfs -o size={policy.file_mb * 1024 * 1024},mode=1777,nosuid,nodev arena-tmp /tmp"
        )
    else:
        mounts = f"mount -a -T {shlex.quote(fstab)}"
    script = _attach_script(cg_files) + mounts + ' && cd /tmp && exec "$@"'
    argv += ["sh", "-c", script, "arena-sandbox"]
    if root:
        argv += _setpriv(uid)
    argv += _prlimit(policy, memory_cgroup=bool(cg_files), own_uid=root)
    return argv


def _strict_prefix(
    root: bool, uid: int, policy: SandboxPolicy, exposed: list[str], cg_files: list[str], path: str,
) -> list[str]:
    argv: list[str] = []
    if policy.wall_seconds:
        argv += ["timeout", "--foreground", "-s", "KILL", f"{policy.wall_seconds:g}"]
    # The anchor: bwrap's --die-with-parent is tied to this process, not to
    # trio's spawning thread (which exits after 10 s idle).
    argv += ["unshare", "--fork", "--kill-child", "--"]
    if cg_files:
        argv += ["sh", "-c", _attach_script(cg_files) + 'exec "$@"', "arena-sandbox"]
    argv += [
        "bwrap",
        # As root, --unshare-all would add a user namespace mapping only uid 0,
        # and the uid drop below could not happen: name the namespaces instead.
        *(["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
          if root else ["--unshare-all"]),
        "--die-with-parent", "--new-session", "--as-pid-1",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
        "--perms", "0755", "--dir", "/etc",
        "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        "--perms", "0755", "--dir", "/etc/ssl",
        "--ro-bind-try", "/etc/ssl/openssl.cnf", "/etc/ssl/openssl.cnf",  # node reads it at start-up
        "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "1777", "--size", str(policy.file_mb * 1024 * 1024), "--tmpfs", "/tmp",
    ]
    made = {"/", "/tmp", "/usr", "/proc", "/dev", "/etc"}
    for directory in exposed:
        # bwrap would create the missing parents 0700: a stranger uid could not pass
        for parent in reversed(Path(directory).parents):
            if str(parent) not in made:
                made.add(str(parent))
                argv += ["--perms", "0755", "--dir", str(parent)]
        argv += ["--ro-bind", directory, directory]
    argv += [
        "--chdir", "/tmp", "--clearenv",
        "--setenv", "PATH", path, "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
        "--setenv", "LANG", "C.UTF-8", "--",
    ]
    if root:
        argv += _setpriv(uid)
    argv += _prlimit(policy, memory_cgroup=bool(cg_files), own_uid=root)
    return argv


# -- what a bot needs to see --------------------------------------------------------


def _install_root(path: str) -> str:
    """The directory to expose so that ``path`` works: a version manager's tree,
    the prefix above a ``bin`` directory, or else the file's directory."""
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


@dataclass(slots=True)
class Resolved:
    argv: list[str]  # with relative paths made absolute and argv[0] found on PATH
    exposed: list[str]  # directories to make visible, outermost first, no duplicates
    own_dir: str | None  # the bot's own directory (its program or script)


def resolve_command(spec: BotSpec, path_env: str) -> Resolved:
    """Absolute paths for everything the command names, and what must be visible."""
    argv = list(spec.argv)
    needed: list[str] = []
    data_dirs: list[str] = []
    own_dir = None
    exe = argv[0]
    if "/" not in exe:
        found = shutil.which(exe, path=path_env)
        if found:
            argv[0] = exe = found
    else:
        argv[0] = exe = os.path.abspath(exe)
    files = [exe]
    for i, arg in enumerate(argv[1:], start=1):
        if not arg.startswith("-") and os.path.isfile(arg):
            argv[i] = os.path.abspath(arg)
            if own_dir is None:
                # The first file argument is the script: its directory is the
                # bot's own.
                files.append(argv[i])
                own_dir = os.path.dirname(argv[i])
            else:
                # Later file arguments (a shim's entry, a strategy file) are
                # read by the bot: their folders are visible, read-only.
                data_dirs.append(os.path.dirname(argv[i]))
    interp = _shebang(exe)
    if interp:
        if os.path.basename(interp[0]) == "env" and len(interp) > 1:
            found = shutil.which(interp[1], path=path_env)
            if found:
                files.append(found)
        else:
            files.append(interp[0])
    if own_dir is None:
        own_dir = os.path.dirname(exe)
    for f in files:
        for variant in {f, os.path.realpath(f)}:
            if variant.startswith("/usr/") or not os.path.exists(variant):
                continue
            needed.append(_install_root(variant) if variant != os.path.realpath(own_dir or "") else variant)
            # a shim or launcher script in turn names its interpreter
            inner = _shebang(variant)
            if inner and not inner[0].startswith("/usr/") and os.path.exists(inner[0]):
                needed.append(_install_root(inner[0]))
    if own_dir:
        needed.append(own_dir)
        needed.append(os.path.realpath(own_dir))
    for d in data_dirs:
        needed += [d, os.path.realpath(d)]
    exposed: list[str] = []
    for d in sorted(set(needed), key=lambda p: (p.count("/"), p)):
        if d in ("/", "") or d.startswith("/usr/") or d == "/usr":
            continue
        if any(d == e or d.startswith(e.rstrip("/") + "/") for e in exposed):
            continue
        exposed.append(d)
    return Resolved(argv=argv, exposed=exposed, own_dir=own_dir)


def _blocked_ancestor(directory: str) -> str | None:
    """The outermost ancestor of ``directory`` that a stranger cannot traverse."""
    path = Path(directory)
    for ancestor in reversed([path, *path.parents]):
        try:
            mode = ancestor.stat().st_mode
        except OSError:
            return None
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return str(ancestor)
    return None


def _sandbox_path(path_env: str, exposed: list[str]) -> str:
    keep = []
    for d in path_env.split(":"):
        if d and (d.startswith("/usr/") or any(d == e or d.startswith(e + "/") for e in exposed)):
            keep.append(d)
    for d in ("/usr/bin", "/bin"):
        if d not in keep:
            keep.append(d)
    return ":".join(keep)


# -- cgroups ----------------------------------------------------------------------


class SeatCgroup:
    """One seat's cgroups, reused by every process that seat starts."""

    def __init__(self, layout: CgroupLayout, name: str, policy: SandboxPolicy) -> None:
        self.layout = layout
        self.policy = policy
        self.dirs: list[Path] = []
        self.memory = self.pids = self.unified = None
        limit = str(policy.memory_mb * 1024 * 1024)
        if layout.memory_v1 is not None:
            self.memory = self._make(layout.memory_v1 / name)
            self._write(self.memory / "memory.limit_in_bytes", limit)
            self._write(self.memory / "memory.memsw.limit_in_bytes", limit, optional=True)
        if layout.pids_v1 is not None:
            self.pids = self._make(layout.pids_v1 / name)
            self._write(self.pids / "pids.max", str(policy.pids))
        if layout.unified is not None:
            self.unified = self._make(layout.unified / name)
            if layout.v2_memory:
                self._write(self.unified / "memory.max", limit)
                self._write(self.unified / "memory.swap.max", "0", optional=True)
            if layout.v2_pids:
                self._write(self.unified / "pids.max", str(policy.pids))
        self.baseline = self._counters()

    def _make(self, path: Path) -> Path:
        for parent in reversed(path.parents):
            if not parent.exists():
                parent.mkdir()  # shared by the seats: the launcher removes it
                if parent.parent == self.layout.unified and (self.layout.v2_memory or self.layout.v2_pids):
                    ctl = " ".join(
                        c for c, on in (("+memory", self.layout.v2_memory), ("+pids", self.layout.v2_pids)) if on
                    )
                    self._write(parent / "cgroup.subtree_control", ctl, optional=True)
        path.mkdir(exist_ok=True)
        self.dirs.append(path)
        return path

    @staticmethod
    def _write(path: Path, value: str, optional: bool = False) -> None:
        try:
            path.write_text(value)
        except OSError:
            if not optional:
                raise

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in (self.memory, self.pids, self.unified) if d is not None]

    def _counters(self) -> dict[str, int]:
        counts: dict[str, int] = {}

        def read_kv(path: Path, prefix: str) -> None:
            try:
                for line in path.read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if value.strip().isdigit():
                        counts[prefix + key] = int(value)
            except OSError:
                pass

        if self.memory is not None:
            read_kv(self.memory / "memory.oom_control", "v1.")
            try:
                counts["v1.failcnt"] = int((self.memory / "memory.failcnt").read_text())
            except (OSError, ValueError):
                pass
        if self.pids is not None:
            read_kv(self.pids / "pids.events", "pids.")
        if self.unified is not None:
            read_kv(self.unified / "memory.events", "v2.")
            read_kv(self.unified / "pids.events", "pids.")
            read_kv(self.unified / "cpu.stat", "cpu.")
        return counts

    def rebase(self) -> None:
        self.baseline = self._counters()

    def verdict(self) -> str | None:
        now = self._counters()
        delta = {k: v - self.baseline.get(k, 0) for k, v in now.items()}
        if delta.get("v1.oom_kill", 0) > 0 or delta.get("v2.oom_kill", 0) > 0:
            return f"out of memory (killed at its limit of {self.policy.memory_mb} MB)"
        if delta.get("pids.max", 0) > 0:
            return f"hit its process limit of {self.policy.pids} ({delta['pids.max']} forks refused)"
        used = delta.get("cpu.usage_usec", 0) / 1e6
        if used >= self.policy.cpu_seconds:
            return f"used up its CPU time limit of {self.policy.cpu_seconds} s"
        return None

    def kill(self) -> None:
        if self.unified is not None and (self.unified / "cgroup.kill").exists():
            self._write(self.unified / "cgroup.kill", "1", optional=True)
        for d in (self.memory, self.pids):
            if d is None:
                continue
            try:
                pids = (d / "cgroup.procs").read_text().split()
            except OSError:
                continue
            for pid in pids:
                try:
                    os.kill(int(pid), 9)
                except OSError:
                    pass

    def remove(self) -> None:
        self.kill()
        for d in reversed(self.dirs):
            deadline = time.monotonic() + 1.0
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy: processes still dying
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.005)
        self.dirs.clear()


# -- uids ---------------------------------------------------------------------------


def _uid_lock_dir() -> Path:
    for base in ("/run", tempfile.gettempdir()):
        d = Path(base) / "arena-sandbox-uids"
        try:
            d.mkdir(mode=0o700, exist_ok=True)
            return d
        except OSError:
            continue
    raise OSError("no directory for uid locks")


def _claim_uid(start: int) -> tuple[int, int]:
    """A uid no other arena process holds (a flock held for our lifetime)."""
    d = _uid_lock_dir()
    for k in range(UID_COUNT - 1):  # the last one is the probe's
        n = (start + k) % (UID_COUNT - 1)
        fd = os.open(d / str(UID_BASE + n), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return UID_BASE + n, fd
    raise OSError("every sandbox uid is taken")


# -- the watchdog -------------------------------------------------------------------

_WATCHDOG = r"""
import os, sys, time, shutil
token, state, top = sys.argv[1], sys.argv[2], sys.argv[3:]
while os.read(0, 4096):
    pass
# The arena closed the pipe (it ended or died): kill what carries our token.
needle = ("%s=%s" % ("ARENA_SANDBOX_ID", token)).encode()
for _ in range(3):
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    if needle in f.read().split(b"\0"):
                        os.kill(int(name), 9)
            except OSError:
                pass
    time.sleep(0.05)
for d in top:
    for path, dirs, files in os.walk(d, topdown=False):
        if "cgroup.kill" in files:
            try:
                open(os.path.join(path, "cgroup.kill"), "w").write("1")
            except OSError:
                pass
        try:
            for pid in open(os.path.join(path, "cgroup.procs")).read().split():
                os.kill(int(pid), 9)
        except OSError:
            pass
    for _ in range(100):
        for path, dirs, files in os.walk(d, topdown=False):
            try:
                os.rmdir(path)
            except OSError:
                pass
        if not os.path.exists(d):
            break
        time.sleep(0.01)
shutil.rmtree(state, ignore_errors=True)
"""


# -- launchers ----------------------------------------------------------------------


class SandboxLauncher(Launcher):
    """Common part of ``basic`` and ``strict``: marker, uids, cgroups, watchdog."""

    level = "sandbox"

    def __init__(self, policy: SandboxPolicy | None = None, *, cgroups: bool = True, info: Probe | None = None):
        self.policy = policy or SandboxPolicy()
        self.info = info or probe()
        self.token = uuid.uuid4().hex[:16]
        self.root = self.info.root
        self.cg_layout = self.info.cgroups if (cgroups and self.info.cgroups.usable) else None
        self._uids: dict[int, tuple[int, int]] = {}
        self._cgroups: dict[int, SeatCgroup] = {}
        self._verdicts: dict[int, str | None] = {}
        self._watchdog: subprocess.Popen | None = None
        self._watch_fd: int | None = None
        # Outside /tmp: the bots get a private /tmp, and staged mounts live here.
        state_base = "/run" if self.root and os.access("/run", os.W_OK) else None
        self._state = Path(tempfile.mkdtemp(prefix=f"arena-sandbox-{self.token}-", dir=state_base))
        self._fstabs: dict[tuple[str, ...], str] = {}
        self.spawns = 0

    # names for reports
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

    def _cg_top(self) -> list[str]:
        if self.cg_layout is None:
            return []
        parents = [self.cg_layout.memory_v1, self.cg_layout.pids_v1, self.cg_layout.unified]
        return [str(p / f"arena-{self.token}") for p in parents if p is not None]

    def _ensure_watchdog(self) -> None:
        if self._watchdog is not None:
            return
        read_end, write_end = os.pipe()  # both close-on-exec: no bot inherits them
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG, self.token, str(self._state), *self._cg_top()],
                stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C on the terminal is not for it
            )
        finally:
            os.close(read_end)
        self._watch_fd = write_end

    def _uid(self, seat: int) -> int:
        if seat not in self._uids:
            self._uids[seat] = _claim_uid(os.getpid() * 3 + seat)
        return self._uids[seat][0]

    def _cgroup(self, seat: int) -> SeatCgroup | None:
        if self.cg_layout is None:
            return None
        cg = self._cgroups.get(seat)
        if cg is None:
            cg = self._cgroups[seat] = SeatCgroup(self.cg_layout, f"arena-{self.token}/seat{seat}", self.policy)
        else:
            cg.kill()  # nothing of an earlier process of this seat may count
            cg.rebase()
        return cg

    def plan(self, spec: BotSpec, seat: int) -> LaunchPlan:
        self._ensure_watchdog()
        self.spawns += 1
        env = bot_environment()
        resolved = resolve_command(spec, env["PATH"])
        uid = self._uid(seat) if self.root else os.geteuid()
        cg = self._cgroup(seat)
        self._verdicts.pop(seat, None)
        argv = self._chain(resolved, uid, cg, env)
        outer_env = dict(env)
        outer_env[MARKER_ENV] = self.token

        def on_end() -> str | None:
            if cg is None:
                return None
            cg.kill()
            verdict = cg.verdict()
            self._verdicts[seat] = verdict
            return verdict

        return LaunchPlan(argv=argv, env=outer_env, on_end=on_end)

    def _chain(self, resolved: Resolved, uid: int, cg: SeatCgroup | None, env: dict[str, str]) -> list[str]:
        raise NotImplementedError

    def verdict(self, seat: int) -> str | None:
        """What the cgroup saw for the last process of ``seat`` (also without ``on_end``)."""
        if seat in self._verdicts:
            return self._verdicts[seat]
        cg = self._cgroups.get(seat)
        return cg.verdict() if cg is not None else None

    def close(self) -> None:
        """Kill and remove every cgroup, free the uids, stop the watchdog."""
        for cg in self._cgroups.values():
            cg.remove()
        self._cgroups.clear()
        for top in self._cg_top():
            try:
                os.rmdir(top)
            except OSError:
                pass
        for _, fd in self._uids.values():
            os.close(fd)
        self._uids.clear()
        if self._watch_fd is not None:
            os.close(self._watch_fd)
            self._watch_fd = None
        if self._watchdog is not None:
            try:
                self._watchdog.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._watchdog.kill()
                self._watchdog.wait()
            self._watchdog = None
        shutil.rmtree(self._state, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class BasicLauncher(SandboxLauncher):
    """util-linux: namespaces, private /tmp, rlimits, a uid of its own as root."""

    level = "basic"

    def _fstab(self, exposed: list[str]) -> str:
        """Mounts made as root inside the new mount namespace: a private /tmp,
        and the needed trees that it or a directory a stranger uid cannot
        traverse (e.g. an interpreter under /root) would hide."""
        covered: dict[str, list[str]] = {}
        for d in exposed:
            top = "/tmp" if d == "/tmp" or d.startswith("/tmp/") else None
            if top is None and self.root:
                top = _blocked_ancestor(d)
            if top is not None and top != d:
                covered.setdefault(top, []).append(d)
        key = tuple(sorted(f"{t}>{d}" for t, ds in covered.items() for d in ds))
        if key in self._fstabs:
            return self._fstabs[key]
        staged = []
        lines = []
        for t, ds in sorted(covered.items()):
            for d in ds:
                stage = self._state / f"stage-{len(self._fstabs)}-{len(staged)}"
                stage.mkdir()
                lines.append(f"{_fstab_escape(d)} {_fstab_escape(str(stage))} none bind 0 0")
                staged.append((str(stage), d))
        size = self.policy.file_mb * 1024 * 1024
        lines.append(f"arena-tmp /tmp tmpfs size={size},mode=1777,nosuid,nodev 0 0")
        for t in sorted(covered):
            if t != "/tmp":
                lines.append(f"arena-hide {_fstab_escape(t)} tmpfs size=65536,mode=0755,nosuid,nodev 0 0")
        for stage, d in staged:
            lines.append(f"{_fstab_escape(stage)} {_fstab_escape(d)} none bind,ro,X-mount.mkdir=0755 0 0")
        path = self._state / f"fstab-{len(self._fstabs)}"
        path.write_text("\n".join(lines) + "\n")
        self._fstabs[key] = str(path)
        return str(path)

    def _chain(self, resolved, uid, cg, env):
        fstab = self._fstab(resolved.exposed)
        return _basic_chain(
            self.root, uid, self.policy, fstab, cg.procs_files if cg is not None else []
        ) + resolved.argv


def _fstab_escape(path: str) -> str:
    return path.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011")


class StrictLauncher(SandboxLauncher):
    """bubblewrap: only /usr, the bot's directory and its interpreter, read-only."""

    level = "strict"

    def _chain(self, resolved, uid, cg, env):
        path = _sandbox_path(env["PATH"], resolved.exposed)
        return _strict_prefix(
            self.root, uid, self.policy, resolved.exposed, cg.procs_files if cg is not None else [], path
        ) + resolved.argv


class PlainLauncher(Launcher):
    """``none``: what arena._bot does by itself (own session, group kill)."""

    level = "none"

    def describe(self) -> str:
        return "none (own session and process group only: no isolation, no limits)"

    def close(self) -> None:
        pass

    def verdict(self, seat: int) -> str | None:
        return None


def make_launcher(
    level: str | None = None, policy: SandboxPolicy | None = None, *, cgroups: bool = True,
    warn: Any = None,
) -> Launcher:
    """The launcher for ``level`` (None: the best default), falling back loudly.

    ``warn`` is called with a sentence for every fallback (default: stderr).
    """
    if warn is None:
        def warn(text: str) -> None:
            print(f"arena: WARNING: {text}", file=sys.stderr)
    info = probe()
    if level is not None and level not in LEVELS:
        raise ValueError(f"--sandbox is one of {', '.join(LEVELS)}, not {level!r}")
    wanted = level or info.best_default
    if wanted == "strict" and not info.strict_ok:
        warn(f"sandbox 'strict' is unavailable here ({info.strict_error}); falling back to 'basic'")
        wanted = "basic"
    if wanted == "basic" and not info.basic_ok:
        warn(
            f"sandbox 'basic' is unavailable here ({info.basic_error}); bots run with NO isolation "
            "and NO limits (sandbox 'none')"
        )
        wanted = "none"
    if level is None and not info.basic_ok:
        warn(
            f"no sandbox works here ({info.basic_error}); bots run with NO isolation and NO limits "
            "(sandbox 'none'; see `arena doctor`)"
        )
    if wanted == "none":
        return PlainLauncher()
    if cgroups and not info.cgroups.usable:
        warn(f"no per-bot cgroups ({info.cgroup_error or 'unavailable'}): memory is bounded by "
             "RLIMIT_AS only, and no OOM verdict")
    cls = StrictLauncher if wanted == "strict" else BasicLauncher
    return cls(replace(policy or SandboxPolicy()), cgroups=cgroups, info=info)


def sandbox_summary(launcher: Launcher | None) -> dict[str, Any]:
    """What goes into the ``--json`` output as ``sandbox``."""
    if launcher is None or isinstance(launcher, PlainLauncher) or launcher.level == "none":
        return {"level": "none", "layers": ["none"], "policy": None}
    assert isinstance(launcher, SandboxLauncher)
    p = launcher.policy
    return {
        "level": launcher.level,
        "layers": launcher.layers,
        "policy": {
            "memory_mb": p.memory_mb, "cpu_seconds": p.cpu_seconds, "wall_seconds": p.wall_seconds,
            "pids": p.pids, "file_mb": p.file_mb, "open_files": p.open_files, "network": p.network,
        },
    }


# -- doctor -------------------------------------------------------------------------


def doctor_report(refresh: bool = True) -> str:
    """What each layer gives on this machine, as lines for a person."""
    info = probe(refresh=refresh)
    ok = {True: "yes", False: "NO "}
    lines = [
        f"arena sandbox doctor (uid {os.geteuid()}, {'root' if info.root else 'not root'})",
        "",
        "tools: " + ", ".join(f"{k} {'ok' if v else 'MISSING'}" for k, v in info.tools.items()),
        "",
        f"{ok[True]} always  own session + process group, bounded reads, deadlines, group kill at the end",
        f"{ok[info.basic_ok]} basic   PID/net/mount/IPC/UTS namespaces, private /tmp, rlimits "
        f"(address space, CPU, file size, open files, no core)"
        + ("" if info.basic_ok else f" -- {info.basic_error}"),
        f"{ok[info.uid_drop]} own uid a numeric uid per seat, no capabilities (setpriv)"
        + ("" if info.uid_drop else " -- needs root"),
        f"{ok[info.strict_ok]} strict  bubblewrap: read-only minimal filesystem view, cleared env"
        + ("" if info.strict_ok else f" -- {info.strict_error}"),
    ]
    cg = info.cgroups
    if cg.usable:
        where = ", ".join(
            f"{name} {path}" for name, path in (
                ("v1 memory", cg.memory_v1), ("v1 pids", cg.pids_v1), ("v2", cg.unified)
            ) if path is not None
        )
        lines.append(f"{ok[True]} cgroups per-seat memory + pids limits, kill at the end, OOM verdict ({where})")
    else:
        lines.append(f"{ok[False]} cgroups {info.cgroup_error or 'unavailable'}")
    lines += [
        "",
        f"default level: {info.best_default}"
        + ("" if info.basic_ok else "  (WARNING: bots are not isolated on this machine)"),
        f"default policy: {SandboxPolicy().describe()}",
    ]
    return "\n".join(lines)


def register(app: Any) -> None:
    """Add ``arena doctor`` to a typer app."""

    @app.command("doctor")
    def doctor_cmd() -> None:
        """Show which sandbox layers work on this machine and what each gives."""
        import typer

        typer.echo(doctor_report())
