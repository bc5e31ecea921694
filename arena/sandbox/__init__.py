"""Sandbox levels for bot processes: owns what a bot may see and use (a probe,
a policy, launchers, the supervisor protocol, a doctor).

Levels (``--sandbox``, or ``ARENA_SANDBOX`` for a whole environment):

* ``none``   -- the bot runs under the arena's supervisor in its own session:
  exact exit reports, every process it started killed at the end, bounded
  reads, deadlines. No isolation and no limits.
* ``basic``  -- util-linux: new PID, network, mount, IPC and UTS namespaces;
  a filesystem view built from the organiser's command line only (system
  read-only, the bot's folder and interpreter read-only, private size-limited
  ``/tmp`` and ``/dev/shm``); rlimits; as root a uid of its own with no
  capabilities, and cgroups (memory, pids) fresh for every process.
* ``strict`` -- the same view and limits, built by bubblewrap.

Asking for a level that does not work here is a usage error; without a
request the best level that works is used (``basic``, else ``strict``), and
``none`` only with a loud warning.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from .._checks import UsageError
from ._doctor import doctor_report
from ._gvisor import GvisorLauncher
from ._memory import share_checks_with
from ._launchers import BasicLauncher, LaunchPlan, Launcher, SandboxLauncher, StagingError, StrictLauncher
from ._policy import LIMITS, SandboxPolicy
from ._probe import LEVELS, Probe, probe

__all__ = [
    "LEVELS",
    "LIMITS",
    "BasicLauncher",
    "GvisorLauncher",
    "LaunchPlan",
    "Launcher",
    "Probe",
    "SandboxLauncher",
    "SandboxPolicy",
    "SandboxUnavailable",
    "StagingError",
    "StrictLauncher",
    "doctor_report",
    "open_launcher",
    "probe",
    "requested_level",
    "resolve_level",
    "share_checks_with",
]

ENV = "ARENA_SANDBOX"


class SandboxUnavailable(UsageError):
    """A level was asked for that does not work on this machine."""


def requested_level(level: str | None) -> str | None:
    """The level asked for: the option, else ``ARENA_SANDBOX``, else None (the default)."""
    chosen = level or os.environ.get(ENV) or None
    if chosen is not None and chosen not in LEVELS:
        source = "--sandbox" if level else ENV
        raise UsageError(f"{source} is one of {', '.join(LEVELS)}, not {chosen!r}")
    return chosen


def _stderr_warning(text: str) -> None:
    print(f"arena: WARNING: {text}", file=sys.stderr)


def resolve_level(
    level: str | None = None, *, warn: Callable[[str], None] | None = None, untrusted: bool = False,
    info: Probe | None = None,
) -> str:
    """The level to use for ``level`` (see ``requested_level``): one that works here.

    An explicit level that does not work raises ``SandboxUnavailable`` with
    the probe's reason. Without one, the best level that works is used; when
    none does, bots run unsandboxed with a warning, or, for ``untrusted``
    bots (quarantine), ``SandboxUnavailable`` says how to accept that.
    """
    warn = warn or _stderr_warning
    chosen = requested_level(level)
    info = info or probe()
    if chosen is not None and not info.works(chosen):
        raise SandboxUnavailable(
            f"sandbox '{chosen}' does not work here: {info.errors.get(chosen)} (see `arena doctor`)"
        )
    if chosen is None:
        chosen = info.best_default
        if chosen == "none":
            reasons = "; ".join(f"{lv}: {info.errors.get(lv)}" for lv in ("basic", "strict"))
            if untrusted:
                raise SandboxUnavailable(
                    f"no sandbox works here ({reasons}); to run this bot with no isolation "
                    "anyway, pass --sandbox none"
                )
            warn(f"no sandbox works here ({reasons}); bots run with NO isolation and NO limits "
                 "(sandbox 'none'; see `arena doctor`)")
    return chosen


def open_launcher(
    level: str | None = None, policy: SandboxPolicy | None = None, *, cgroups: bool = True,
    warn: Callable[[str], None] | None = None, untrusted: bool = False,
) -> Launcher:
    """The launcher for ``level`` (see ``resolve_level``); close it when done."""
    warn = warn or _stderr_warning
    chosen = resolve_level(level, warn=warn, untrusted=untrusted)
    policy = policy or SandboxPolicy()
    if chosen == "none":
        return Launcher(policy)
    info = probe()
    layout = info.cgroups if (cgroups and info.cgroups.usable) else None
    if cgroups and layout is None:
        warn(f"no per-bot cgroups ({info.cgroup_error or 'unavailable'}): memory is bounded by "
             "RLIMIT_AS only, and there is no out-of-memory verdict")
    cls = {"strict": StrictLauncher, "gvisor": GvisorLauncher}.get(chosen, BasicLauncher)
    return cls(policy, root=info.root, cgroups=layout, tools=info.tools, warn=warn)  # type: ignore[arg-type]
