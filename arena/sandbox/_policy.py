"""The limits every bot process of a run gets, checked when they are made."""

from __future__ import annotations

from dataclasses import dataclass

from .._checks import UsageError, check_range

#: (option, field, low, high): the accepted range of each limit.
LIMITS = (
    ("--memory-mb", "memory_mb", 16, 1 << 20),
    ("--cpu-seconds", "cpu_seconds", 1, 1_000_000),
    ("--pids", "pids", 1, 65_536),
    ("--file-mb", "file_mb", 1, 1 << 20),
    ("--shm-mb", "shm_mb", 1, 1 << 20),
    ("--open-files", "open_files", 16, 1 << 20),
)


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """Limits per bot process (each seat's process gets them all)."""

    memory_mb: int = 512  # cgroup memory limit; RLIMIT_AS when there is no memory cgroup
    cpu_seconds: int = 60  # RLIMIT_CPU (soft; the hard limit is one second more)
    wall_seconds: float | None = None  # life of one bot process; None: the match deadlines rule
    pids: int = 64  # pids cgroup limit, and RLIMIT_NPROC under a uid of its own
    file_mb: int = 64  # RLIMIT_FSIZE, and the size of the private /tmp
    shm_mb: int = 64  # the size of the private /dev/shm
    open_files: int = 256  # RLIMIT_NOFILE
    #: Each bot process sees a private copy of its own files, made for it and
    #: removed at its end, rather than the files themselves: what it leaves in
    #: their page cache (pages read, or not) reaches no later process. On for
    #: duplicate tournaments and the league, where a later seating of the same
    #: deal must remember nothing; off, a bot's folder is shown as it is.
    private_files: bool = False

    def __post_init__(self) -> None:
        for option, name, low, high in LIMITS:
            value = getattr(self, name)
            check_range(option, value, low, high)
            if not isinstance(value, int):
                raise UsageError(f"{option} must be a whole number, got {value}")
        check_range("--wall-seconds", self.wall_seconds, 0, 1_000_000, low_open=True, optional=True)

    @property
    def write_mb(self) -> int:
        """All a bot may write, in every writable place together."""
        return self.file_mb + self.shm_mb

    def describe(self) -> str:
        wall = f", wall {self.wall_seconds:g} s" if self.wall_seconds else ""
        private = ", private copies of its files" if self.private_files else ""
        return (
            f"memory {self.memory_mb} MB, CPU {self.cpu_seconds} s{wall}, pids {self.pids}, "
            f"writes {self.file_mb} MB /tmp + {self.shm_mb} MB /dev/shm, network off{private}"
        )

    def to_json(self) -> dict:
        return {
            "memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds,
            "wall_seconds": self.wall_seconds, "pids": self.pids, "file_mb": self.file_mb,
            "shm_mb": self.shm_mb, "open_files": self.open_files, "network": False,
            "private_files": self.private_files,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> "SandboxPolicy":
        if not data:
            return cls()
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**fields)
