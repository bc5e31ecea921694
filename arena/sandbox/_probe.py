"""What works on this machine: each level is tried by starting a real bot
through its own launcher (the very chain a match uses), once per process and
only when first asked about (a command at ``--sandbox none`` tries no other
level; the default tries ``strict`` only if ``basic`` fails)."""

from __future__ import annotations

import os
import select
import socket
from collections.abc import Callable, Iterator, Mapping
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache

from .._spec import BotSpec
from ..native import NativeBuildError, supervisor_path
from ._supervision import Channel, SupervisorStatus
from ._cgroups import CgroupLayout, probe_cgroups
from ._gvisor import GvisorLauncher
from ._launchers import BasicLauncher, Launcher, StrictLauncher

LEVELS = ("none", "basic", "strict", "gvisor")
TOOLS = ("unshare", "setpriv", "prlimit", "mount", "umount", "pivot_root", "sh", "cp", "bwrap", "runsc")
_NEEDS = {
    "none": (),
    "basic": ("unshare", "setpriv", "prlimit", "mount", "umount", "pivot_root", "sh", "cp"),
    "strict": ("unshare", "setpriv", "prlimit", "sh", "bwrap"),
    "gvisor": ("unshare", "sh", "runsc"),
}


class _Outcomes(Mapping[str, str]):
    """Level -> "" when it works, else why not; each level tried when first looked up."""

    def __init__(self, attempt: Callable[[str], str]) -> None:
        self._attempt = attempt
        self._known: dict[str, str] = {}

    def __getitem__(self, level: str) -> str:
        if level not in LEVELS:
            raise KeyError(level)
        if level not in self._known:
            self._known[level] = self._attempt(level)
        return self._known[level]

    def __iter__(self) -> Iterator[str]:
        return iter(LEVELS)

    def __len__(self) -> int:
        return len(LEVELS)


@dataclass(slots=True)
class Probe:
    root: bool
    tools: dict[str, str | None]
    #: level -> "" when it works, else why not (tried on first look-up)
    errors: Mapping[str, str] = field(default_factory=dict)
    cgroups: CgroupLayout = field(default_factory=CgroupLayout)
    cgroup_error: str = ""

    def works(self, level: str) -> bool:
        return self.errors.get(level) == ""

    @property
    def best_default(self) -> str:
        # The same view, limits and guarantees either way (docs/sandbox.md):
        # bubblewrap builds them in one program, where basic runs about ten
        # util-linux tools per bot (11 against 20 ms of CPU per bot started,
        # `benchmarks.sandbox_spawn`), so it goes first when it works.
        for level in ("strict", "basic"):
            if self.works(level):
                return level
        return "none"


def _tools() -> dict[str, str | None]:
    found = {}
    for name in TOOLS:
        path = shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
        # Inside the sandbox only /usr is visible: the tools must live there.
        found[name] = os.path.realpath(path) if path else None
    return found


def try_launcher(launcher: Launcher, timeout: float = 10.0) -> str:
    """Start ``/usr/bin/true`` through ``launcher``: "" when it ran and exited 0."""
    channel = Channel.open()
    try:
        plan = launcher.plan(BotSpec.parse("/usr/bin/true"), channel.theirs.fileno())
    except OSError as exc:
        channel.close_all()
        return str(exc)
    try:
        proc = subprocess.Popen(
            plan.argv, env=plan.env, cwd=plan.cwd, pass_fds=plan.pass_fds,
            stdin=subprocess.DEVNULL if plan.stdin is None else plan.stdin,
            stdout=subprocess.DEVNULL, stderr=channel.stderr_w, start_new_session=True,
        )
    except OSError as exc:
        channel.close_all()
        if plan.cleanup:
            plan.cleanup()
        return f"cannot run {plan.argv[0]}: {exc.strerror}"
    channel.hand_over()
    status = SupervisorStatus()
    deadline = time.monotonic() + timeout
    while not status.ended and time.monotonic() < deadline:
        select.select([channel.ours], [], [], max(0.0, deadline - time.monotonic()))
        status.read_from(channel.ours)
    try:
        channel.ours.shutdown(socket.SHUT_WR)  # the supervisor waits for this before it exits
    except OSError:
        pass
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    err = b""
    try:
        err = os.read(channel.stderr_r, 4096)
    except OSError:
        pass
    for fd in (channel.stdin_w, channel.stdout_r, channel.stderr_r):
        os.close(fd)
    channel.ours.close()
    if plan.cleanup:
        plan.cleanup()
    if status.exit_code == 0 and status.started:
        return ""
    lines = err.decode(errors="replace").strip().splitlines()
    if lines:
        return lines[-1][:200]
    if status.exec_errno is not None:
        return f"the probe program could not be run ({os.strerror(status.exec_errno)})"
    return f"the probe ended with {status.ending() or 'no report'} (exit {proc.returncode})"


@cache
def probe() -> Probe:
    """Which levels work here, and why the others do not (cached per process)."""
    tools = _tools()
    root = os.geteuid() == 0
    info = Probe(root=root, tools=tools)
    info.cgroups, info.cgroup_error = probe_cgroups()
    try:
        supervisor_path()
    except (NativeBuildError, OSError) as exc:
        message = f"the bot supervisor is unavailable: {exc}"
        info.errors = {level: message for level in LEVELS}
        return info
    info.errors = _Outcomes(lambda level: _attempt(info, level))
    return info


def _attempt(info: Probe, level: str) -> str:
    """Start a bot at ``level``: "" when it ran, else why not."""
    if level == "none":
        return try_launcher(Launcher())
    missing = [t for t in _NEEDS[level] if not info.tools[t]]
    if missing:
        hint = (" (apt-get install bubblewrap)" if "bwrap" in missing
                else " (apt-get install runsc)" if "runsc" in missing else "")
        return "missing: " + ", ".join(missing) + hint
    if level == "gvisor" and not (info.root and info.cgroups.usable and info.cgroups.cpu_accounting):
        # gVisor's kernel does not enforce RLIMIT_CPU: a bot's CPU time is held by its cgroup alone.
        return "gvisor needs root and cgroups (gVisor's kernel does not enforce a CPU time limit; the bot's cgroup does)"
    cls = {"strict": StrictLauncher, "gvisor": GvisorLauncher}.get(level, BasicLauncher)
    cgroups = info.cgroups if info.cgroups.usable else None
    launcher = cls(root=info.root, cgroups=cgroups, tools=info.tools, watch=False)  # type: ignore[arg-type]
    try:
        return try_launcher(launcher)
    finally:
        launcher.close()
