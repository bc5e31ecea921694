"""Per-process cgroups: a memory and a pids limit, a kill switch, a verdict.

Every bot process gets cgroups of its own, made when it starts and removed
when it has ended, so nothing one process leaves charged (page cache, tmpfs
pages) can count against the next process on the same seat. Root only here:
cgroup v1 ``memory`` and ``pids`` (this machine), v2 ``memory.max`` and
``pids.max`` where the unified hierarchy has them, and v2's ``cgroup.kill``
and ``cpu.stat`` when present.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ._policy import SandboxPolicy


@dataclass(slots=True)
class CgroupLayout:
    """Where this machine's cgroup controllers are (None when unusable)."""

    memory_v1: Path | None = None  # parent folder for our cgroups in the v1 memory hierarchy
    pids_v1: Path | None = None
    unified: Path | None = None  # parent folder in the v2 hierarchy (kill, cpu.stat)
    v2_memory: bool = False  # memory/pids controllers available in v2
    v2_pids: bool = False

    @property
    def usable(self) -> bool:
        return bool(self.memory_v1 or self.v2_memory) and bool(self.pids_v1 or self.v2_pids)

    def parents(self) -> list[Path]:
        return [p for p in (self.memory_v1, self.pids_v1, self.unified) if p is not None]


def _own_cgroup(controller: str) -> str:
    """This process's path in a v1 hierarchy (or in v2 with ``controller=""``)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if (controller == "" and names == "") or controller in names.split(","):
                return path
    except OSError:
        pass
    return "/"


def probe_cgroups() -> tuple[CgroupLayout, str]:
    """The layout, and why it is not usable ("" when it is)."""
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


def _write(path: Path, value: str, optional: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not optional:
            raise


class BotCgroup:
    """The cgroups of one bot process (every controller), fresh when made."""

    def __init__(self, layout: CgroupLayout, name: str, policy: SandboxPolicy) -> None:
        self.layout = layout
        self.policy = policy
        self.dirs: list[Path] = []
        self.memory = self.pids = self.unified = None
        limit = str(policy.memory_mb * 1024 * 1024)
        try:
            if layout.memory_v1 is not None:
                self.memory = self._make(layout.memory_v1 / name)
                _write(self.memory / "memory.limit_in_bytes", limit)
                _write(self.memory / "memory.memsw.limit_in_bytes", limit, optional=True)
            if layout.pids_v1 is not None:
                self.pids = self._make(layout.pids_v1 / name)
                _write(self.pids / "pids.max", str(policy.pids + 1))  # + the supervisor
            if layout.unified is not None:
                self.unified = self._make(layout.unified / name)
                if layout.v2_memory:
                    _write(self.unified / "memory.max", limit)
                    _write(self.unified / "memory.swap.max", "0", optional=True)
                if layout.v2_pids:
                    _write(self.unified / "pids.max", str(policy.pids + 1))
        except OSError:
            self.remove()
            raise

    def _make(self, path: Path) -> Path:
        for parent in reversed(path.parents):
            if not parent.exists():
                parent.mkdir()  # the launcher's folder, shared by its processes
                if parent.parent == self.layout.unified and (self.layout.v2_memory or self.layout.v2_pids):
                    ctl = " ".join(
                        c for c, on in (("+memory", self.layout.v2_memory), ("+pids", self.layout.v2_pids)) if on
                    )
                    _write(parent / "cgroup.subtree_control", ctl, optional=True)
        path.mkdir()
        self.dirs.append(path)
        return path

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
        if self.pids is not None:
            read_kv(self.pids / "pids.events", "pids.")
        if self.unified is not None:
            read_kv(self.unified / "memory.events", "v2.")
            read_kv(self.unified / "pids.events", "pids.")
            read_kv(self.unified / "cpu.stat", "cpu.")
        return counts

    def verdict(self) -> str | None:
        """What the limits saw: out of memory, the process limit, the CPU limit."""
        counts = self._counters()
        if counts.get("v1.oom_kill", 0) > 0 or counts.get("v2.oom_kill", 0) > 0:
            return f"out of memory (killed at its limit of {self.policy.memory_mb} MB)"
        if counts.get("pids.max", 0) > 0:
            return f"hit its process limit of {self.policy.pids} ({counts['pids.max']} forks refused)"
        used = counts.get("cpu.usage_usec", 0) / 1e6
        if used >= self.policy.cpu_seconds:
            return f"used up its CPU time limit of {self.policy.cpu_seconds} s"
        return None

    def kill(self) -> None:
        if self.unified is not None and (self.unified / "cgroup.kill").exists():
            _write(self.unified / "cgroup.kill", "1", optional=True)
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
        """Kill what is left and remove the folders (retrying while processes die)."""
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
                    self.kill()
                    time.sleep(0.005)
        self.dirs.clear()
