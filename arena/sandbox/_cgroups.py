"""Per-process cgroups: memory, pids and CPU limits, a kill switch, a verdict.

Every bot process gets cgroups of its own, made when it starts and removed
when it has ended, so nothing one process leaves charged (page cache, tmpfs
pages) can count against the next process on the same seat. Root only here:
cgroup v1 ``memory``, ``pids`` and ``cpu`` (this machine), v2 ``memory.max``,
``pids.max`` and ``cpu.max`` where the unified hierarchy has them, and v2's
``cgroup.kill`` and ``cpu.stat`` when present.

CPU: all the processes of one bot share one CPU cgroup with the same weight
as every other bot and a cap of one CPU. A bot in a cgroup of its own is
outside the scheduler's autogroups (they apply to the root cgroup only), so
sessions (``setsid``) or processes it adds do not add to its weight. Its CPU
time is counted for all its processes together (v2 ``cpu.stat``, else v1
``cpuacct.usage``); the launcher's watchdog (``_watchdog``) kills the bot
when that reaches the policy's CPU limit.
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
    cpu_v1: Path | None = None  # v1 cpu: weights (cpu.shares) and a cap (CFS quota)
    #: v1 cpuacct, for the CPU time of a whole bot: only where there is no
    #: unified hierarchy (whose cpu.stat counts it); may be cpu_v1 (co-mounted)
    cpuacct_v1: Path | None = None
    unified: Path | None = None  # parent folder in the v2 hierarchy (kill, cpu.stat)
    v2_memory: bool = False  # memory/pids/cpu controllers available in v2
    v2_pids: bool = False
    v2_cpu: bool = False
    #: why there is no CPU controller or no CPU accounting per bot ("" when both are there)
    cpu_problem: str = ""

    @property
    def usable(self) -> bool:
        return bool(self.memory_v1 or self.v2_memory) and bool(self.pids_v1 or self.v2_pids)

    @property
    def cpu_control(self) -> str | None:
        """Where each bot gets its CPU weight and cap: "v1", "v2" or None."""
        return "v1" if self.cpu_v1 is not None else "v2" if self.v2_cpu else None

    @property
    def cpu_accounting(self) -> str | None:
        """Where a whole bot's CPU time is read: "v2" (cpu.stat), "v1" (cpuacct) or None."""
        return "v2" if self.unified is not None else "v1" if self.cpuacct_v1 is not None else None

    def parents(self) -> list[Path]:
        found: list[Path] = []
        for p in (self.memory_v1, self.pids_v1, self.cpu_v1, self.cpuacct_v1, self.unified):
            if p is not None and p not in found:
                found.append(p)
        return found


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


def _v1_parent(base: Path, name: str, needs: tuple[str, ...], problems: list[str]) -> Path | None:
    """Our folder in the v1 hierarchy of controller ``name``, if we may make
    cgroups there that have the files ``needs``."""
    mount = base / name
    if not (mount / "cgroup.procs").exists():
        return None
    # resolved: a co-mounted "cpu,cpuacct" is one folder for both names
    parent = mount.resolve() / _own_cgroup(name).lstrip("/")
    test = parent / f"arena-probe-{os.getpid()}"
    try:
        test.mkdir()
        try:
            missing = [f for f in needs if not (test / f).exists()]
        finally:
            test.rmdir()
    except OSError as exc:
        problems.append(f"v1 {name}: {exc.strerror}")
        return None
    if missing:
        problems.append(f"v1 {name}: no {', '.join(missing)}")
        return None
    return parent


def _v2_cpu(parent: Path, problems: list[str]) -> bool:
    """Whether cgroups made below ``parent`` get the v2 cpu controller, turning
    it on for them (``+cpu`` in its subtree_control) when it is off."""
    try:
        if "cpu" not in (parent / "cgroup.controllers").read_text().split():
            return False
        if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
            (parent / "cgroup.subtree_control").write_text("+cpu")
        test = parent / f"arena-probe-cpu-{os.getpid()}"
        test.mkdir()
        try:
            return (test / "cpu.max").exists() and (test / "cpu.weight").exists()
        finally:
            test.rmdir()
    except OSError as exc:
        # EBUSY: the folder holds processes (ours) and is not the root
        problems.append(f"v2 cpu: {exc.strerror}")
        return False


def probe_cgroups() -> tuple[CgroupLayout, str]:
    """The layout, and why it is not usable ("" when it is).

    The CPU controller and CPU accounting are not needed for ``usable`` (the
    memory and pids limits are); ``cpu_control`` and ``cpu_accounting`` say
    whether they are there, and the layout's ``cpu_problem`` why not.
    """
    layout = CgroupLayout()
    if os.geteuid() != 0:
        layout.cpu_problem = "not root"
        return layout, "not root (no delegated cgroup subtree is used)"
    base = Path("/sys/fs/cgroup")
    problems: list[str] = []
    cpu_problems: list[str] = []
    for name in ("memory", "pids"):
        setattr(layout, f"{name}_v1", _v1_parent(base, name, (), problems))
    layout.cpu_v1 = _v1_parent(base, "cpu", ("cpu.shares", "cpu.cfs_quota_us"), cpu_problems)
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
                layout.v2_cpu = layout.cpu_v1 is None and _v2_cpu(parent, cpu_problems)
            break
    if layout.unified is None:  # no cpu.stat: count a bot's CPU time in v1 cpuacct
        layout.cpuacct_v1 = _v1_parent(base, "cpuacct", ("cpuacct.usage",), cpu_problems)
    if not layout.usable and not problems:
        problems.append("no memory and pids controllers found")
    if not (layout.cpu_control and layout.cpu_accounting):
        layout.cpu_problem = "; ".join(cpu_problems) or "no cpu controller found"
    return layout, "; ".join(problems)


def _write(path: Path, value: str, optional: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not optional:
            raise


#: Every bot's CPU weight (v1 cpu.shares, v2 cpu.weight: each its default),
#: and its cap of one CPU: a quota of one period per period.
CPU_SHARES = 1024
CPU_WEIGHT = 100
CPU_PERIOD_US = 100_000
#: The largest weights the kernel accepts (v1, v2).
_MOST = {"cpu.shares": 262_144, "cpu.weight": 10_000}


class BotCgroup:
    """The cgroups of one bot process (every controller), fresh when made."""

    def __init__(self, layout: CgroupLayout, name: str, policy: SandboxPolicy, extra_mb: int = 0,
                 extra_pids: int = 0) -> None:
        """``extra_mb`` and ``extra_pids``: what the sandbox itself needs beside the bot (gVisor's kernel)."""
        self.layout = layout
        self.policy = policy
        self.dirs: list[Path] = []
        self.memory = self.pids = self.cpu = self.cpuacct = self.unified = None
        limit = str((policy.memory_mb + extra_mb) * 1024 * 1024)
        try:
            if layout.memory_v1 is not None:
                self.memory = self._make(layout.memory_v1 / name)
                _write(self.memory / "memory.limit_in_bytes", limit)
                _write(self.memory / "memory.memsw.limit_in_bytes", limit, optional=True)
            if layout.pids_v1 is not None:
                self.pids = self._make(layout.pids_v1 / name)
                _write(self.pids / "pids.max", str(policy.pids + 1 + extra_pids))  # + the supervisor
            if layout.cpu_v1 is not None:
                self.cpu = self._make(layout.cpu_v1 / name)
                _write(self.cpu / "cpu.shares", str(CPU_SHARES))
                _write(self.cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                _write(self.cpu / "cpu.cfs_quota_us", str(CPU_PERIOD_US))
            if layout.cpuacct_v1 is not None and layout.unified is None:
                same = layout.cpuacct_v1 == layout.cpu_v1
                self.cpuacct = self.cpu if same else self._make(layout.cpuacct_v1 / name)
            if layout.unified is not None:
                self.unified = self._make(layout.unified / name)
                if layout.v2_memory:
                    _write(self.unified / "memory.max", limit)
                    _write(self.unified / "memory.swap.max", "0", optional=True)
                if layout.v2_pids:
                    _write(self.unified / "pids.max", str(policy.pids + 1 + extra_pids))
                if layout.v2_cpu:
                    _write(self.unified / "cpu.weight", str(CPU_WEIGHT))
                    _write(self.unified / "cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}")
        except OSError:
            self.remove()
            raise
        self._reweigh()

    def _reweigh(self) -> None:
        """Give the launcher's folder the weight of all its bots together.

        The bots of a launcher share its folder, which competes with what
        runs outside it (the arena, other sessions). Weighed as one bot, it
        would leave each of its bots a fraction of what one session (one
        autogroup) gets; weighed as all of them, each bot gets as much as one
        session does, and the folder's share is split equally among them.
        """
        weights = ((self.cpu, "cpu.shares", CPU_SHARES),
                   (self.unified if self.layout.v2_cpu else None, "cpu.weight", CPU_WEIGHT))
        for d, name, unit in weights:
            if d is None:
                continue
            try:
                bots = sum(1 for entry in os.scandir(d.parent) if entry.is_dir())
                _write(d.parent / name, str(min(_MOST[name], unit * max(1, bots))))
            except OSError:
                pass  # the launcher's folder is gone: nothing left to weigh

    def _make(self, path: Path) -> Path:
        for parent in reversed(path.parents):
            if not parent.exists():
                parent.mkdir()  # the launcher's folder, shared by its processes
                lay = self.layout
                wanted = (("+memory", lay.v2_memory), ("+pids", lay.v2_pids), ("+cpu", lay.v2_cpu))
                ctl = " ".join(c for c, on in wanted if on)
                if parent.parent == lay.unified and ctl:
                    _write(parent / "cgroup.subtree_control", ctl, optional=True)
        path.mkdir()
        self.dirs.append(path)
        return path

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def cpu_used(self) -> float | None:
        """CPU seconds used by all the bot's processes, living and dead (None: not counted here)."""
        try:
            if self.unified is not None:
                for line in (self.unified / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
            if self.cpuacct is not None:
                return int((self.cpuacct / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            pass
        return None

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
        return counts

    def verdict(self) -> str | None:
        """What the limits saw: out of memory, the process limit, the CPU limit."""
        counts = self._counters()
        if counts.get("v1.oom_kill", 0) > 0 or counts.get("v2.oom_kill", 0) > 0:
            return f"out of memory (killed at its limit of {self.policy.memory_mb} MB)"
        if counts.get("pids.max", 0) > 0:
            return f"hit its process limit of {self.policy.pids} ({counts['pids.max']} forks refused)"
        used = self.cpu_used()
        if used is not None and used >= self.policy.cpu_seconds:
            # The watchdog stops the bot there; RLIMIT_CPU stops any one process there too.
            return (f"used up its CPU time limit of {self.policy.cpu_seconds} s "
                    f"(all its processes together: {used:.2f} s)")
        return None

    def leftovers(self) -> int | None:
        """The bot's processes in its cgroup other than the bot and its supervisor:
        what it started that is still there (None: the cgroup cannot be read).

        Counted here, by the arena, not taken from the supervisor's word: the
        supervisor runs under the bot's uid. The supervisor is PID 1 of the
        bot's PID namespace and the bot PID 2; the sandbox's outer processes
        (unshare, bwrap), in the cgroup too, are in no PID namespace of the bot."""
        where = self.pids or self.unified or self.memory or self.cpu
        if where is None:
            return None
        try:
            pids = (where / "cgroup.procs").read_text().split()
        except OSError:
            return None
        left = 0
        for pid in pids:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue  # gone meanwhile
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            nspid = fields.get("NSpid", "").split()
            if len(nspid) >= 2 and int(nspid[-1]) > 2 and not fields.get("State", "").strip().startswith(("Z", "X")):
                left += 1
        return left

    def kill(self) -> None:
        if self.unified is not None and (self.unified / "cgroup.kill").exists():
            _write(self.unified / "cgroup.kill", "1", optional=True)
        for d in self.dirs:
            if d == self.unified:
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
        self._reweigh()
        self.dirs.clear()
