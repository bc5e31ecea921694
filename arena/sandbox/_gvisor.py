"""``gvisor``: the bot runs on gVisor's kernel (``runsc``, Debian's package),
not the host's, for a league that must also close what namespaces share.

The view, the supervisor and the limits are those of the other levels; what
changes is who answers the bot's system calls. gVisor's kernel is a process
of its own per bot, so what the host kernel shares between the seats of one
machine is no longer shared (measured, benchmarks/covert_channels.py and
docs/sandbox.md): the machine's counters (``/proc/loadavg``, the fork,
thread, open-file, AIO and terminal counts, free memory) are the sandbox's
own, and a futex wake at a shared file's page reaches no other bot. Page
cache timing still crosses (gVisor reads the host's files): duplicate
tournaments and the league hold the system's files in memory at this level
too (arena/sandbox/_memory.py).

The cost: about 0.2 s to start a bot and 55 to 200 us per line exchanged
(against about 4 us), 20 to 40 MB of memory per bot; ptrace is the only
platform of Debian's runsc that works in a VM without KVM.

How it is built: an OCI bundle per bot process (its ``config.json`` in the
process's own folder, a read-only root of mount points made once per view),
``runsc run`` in a PID namespace of its own (``unshare --kill-child``: if
the arena dies, gVisor's processes die with it) and, as root, in the bot's
cgroups. gVisor gives a sandbox no descriptor but its stdio, so the
supervisor's socket is the sandbox's stdin (``--seccomp 0``); the supervisor
runs inside, as the OCI process, under the bot's uid and rlimits, and
installs the same seccomp filter before it starts the bot. The bot's
processes are gVisor's, not the host's: the arena cannot count them in a
cgroup, and takes the supervisor's count (the filter keeps the bot's hands
off it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ._launchers import SandboxLauncher, _attach, _make_skeleton
from ._view import DATA_TARGET, SUPERVISOR_TARGET, SYSTEM_FILES, View

#: What gVisor's own kernel needs in the bot's cgroups beside the bot: its
#: memory (about 40 MB measured per bot, with room) and threads (about 35).
OVERHEAD_MB = 128
OVERHEAD_PIDS = 1024


class GvisorLauncher(SandboxLauncher):
    """The same view and limits, on gVisor's kernel (runsc)."""

    level = "gvisor"
    counts_in_cgroup = False
    socket_on_stdin = True
    cgroup_overhead = (OVERHEAD_MB, OVERHEAD_PIDS)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._roots: dict[tuple, Path] = {}

    def _bot_chain(self, uid: int, sock_fd: int, view: View) -> list[str]:
        # The OCI process sets the uid and the limits; the socket is descriptor 0.
        return [SUPERVISOR_TARGET, "--seccomp", "0", "--", *view.argv]

    def _rootfs(self, view: View) -> Path:
        """The read-only root of mount points for the targets of ``view``, made once."""
        key = view.key()
        if key in self._roots:
            return self._roots[key]
        root = self._state / f"gvisor-root-{len(self._roots)}"
        dirs = ["usr", "proc", "dev", "tmp", "etc", ".arena"]
        files: list[str] = []
        for f in SYSTEM_FILES:
            if os.path.exists(f):
                (dirs if os.path.isdir(f) else files).append(f.lstrip("/"))
        for b in view.binds:
            if not b.target.startswith(("/tmp/", "/dev/")):
                (dirs if b.is_dir else files).append(b.target.lstrip("/"))
        if view.data is not None:
            dirs.append(DATA_TARGET.lstrip("/"))
        _make_skeleton(root, dirs, files)
        self._roots[key] = root
        return root

    def _spec(self, view: View, inner: list[str], uid: int) -> dict:
        p = self.policy
        mb = 1024 * 1024
        binds = [{"destination": f, "type": "bind", "source": f, "options": ["rbind", "ro"]}
                 for f in SYSTEM_FILES if os.path.exists(f)]
        binds += [{"destination": b.target, "type": "bind", "source": b.source, "options": ["rbind", "ro"]}
                  for b in view.binds]
        if view.data is not None:  # the one writable bind: its entrant's data folder
            binds.append({"destination": DATA_TARGET, "type": "bind", "source": view.data,
                          "options": ["rbind", "rw", "nosuid", "nodev"]})
        limits = {"RLIMIT_AS": p.memory_mb * 4 * mb, "RLIMIT_DATA": p.memory_mb * mb,
                  "RLIMIT_CPU": p.cpu_seconds, "RLIMIT_FSIZE": p.file_mb * mb, "RLIMIT_NOFILE": p.open_files,
                  "RLIMIT_CORE": 0, "RLIMIT_NPROC": p.pids + 1}
        return {
            "ociVersion": "1.0.0",
            "process": {
                "terminal": False, "user": {"uid": uid if self.root else 0, "gid": uid if self.root else 0},
                "args": inner, "cwd": "/tmp",
                "env": [f"PATH={view.path}", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8"],
                "capabilities": {k: [] for k in ("bounding", "effective", "inheritable", "permitted", "ambient")},
                "noNewPrivileges": True,
                "rlimits": [{"type": k, "hard": v + (1 if k == "RLIMIT_CPU" else 0), "soft": v}
                            for k, v in limits.items()],
            },
            "root": {"path": "rootfs", "readonly": True},
            "hostname": "bot",
            "mounts": [
                {"destination": "/proc", "type": "proc", "source": "proc"},
                {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
                {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
                 "options": ["nosuid", "nodev", "mode=1777", f"size={p.file_mb}m"]},
                {"destination": "/dev/shm", "type": "tmpfs", "source": "tmpfs",
                 "options": ["nosuid", "nodev", "mode=1777", f"size={p.shm_mb}m"]},
                {"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro"]},
                *binds,
            ],
            "linux": {"namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]},
        }

    def _outer(self, view, cg, inner, fds, mine, uid):
        bundle = mine / "bundle"
        bundle.mkdir(mode=0o700)
        (bundle / "rootfs").symlink_to(self._rootfs(view))
        (bundle / "config.json").write_text(json.dumps(self._spec(view, inner, uid)))
        runsc = [self.tools["runsc"], f"--root={self._state / 'runsc'}", "--network=none", "--ignore-cgroups"]
        if not self.root:
            runsc.append("--rootless")
        runsc += ["run", "--bundle", str(bundle), f"arena-{self.token}-{mine.name}"]
        argv = self._wall()
        if cg is not None:
            argv += [self.tools["sh"], "-c", _attach(cg) + 'exec "$@"', "arena-sandbox"]
        # A PID namespace around gVisor's processes: if the arena (and so unshare) dies, they die.
        argv += [self.tools["unshare"], *([] if self.root else ["--user", "--map-root-user"]),
                 "--pid", "--fork", "--kill-child", "--mount-proc", "--", *runsc]
        return argv

