"""``arena doctor``: what each level guarantees on this machine, and why a
level does not work. Every statement is backed by a test (docs/sandbox.md)."""

from __future__ import annotations

import os
import textwrap
from typing import Any

from ._memory import proactive_reclaim
from ._policy import SandboxPolicy

ALWAYS = (
    "every level: the bot runs under the arena's supervisor in a session of its own; "
    "its exit code or signal is reported as it happened; every process it started "
    "(however it left its session) is found, counted and killed when it ends; replies "
    "are read with a length cap and deadlines; writing to it never blocks the match"
)
VIEW = (
    "filesystem: /usr and a few files of /etc read-only; the bot's own folder, its "
    "interpreter and the files the organiser named read-only (any other word of its command is "
    "text, never looked up in the arena's files); a private /tmp "
    "and /dev/shm (size-limited, counted against it, gone when it ends); nothing else"
)

SECCOMP = (
    "refuses the kernel objects every seat would share (keyrings, record, OFD "
    "and flock locks, inotify, fanotify, dnotify, leases, AIO contexts, page-cache probes; "
    "advice that would empty the page cache does nothing), new namespaces and "
    "mounts, ptrace, io_uring, bpf, perf, userfaultfd, modules, kexec, reboot, sockets other than "
    "unix, IP and netlink, any change to the supervisor's limits or priority, leaving the pinned CPU; "
    "a call of another architecture kills the bot (x32 numbers fail)"
)


_YES = {True: "yes", False: "NO "}
#: The levels past none: how each is made, beside what they all guarantee.
_LEVELS = (("basic", "util-linux (unshare, pivot_root)"), ("strict", "bubblewrap"),
           ("gvisor", "gVisor's kernel (runsc), for leagues: the same view and limits, and what namespaces "
            "leave shared between seats (the machine's counters, futex wake-ups on shared files) is the "
            "sandbox's own; about 0.2 s to start a bot and 55-200 us a line against 4"))
NOT_COVERED = (
    "not covered at any level: the system calls the filter allows still reach the kernel (a "
    "kernel bug is an escape); futex wake-ups on the pages of shared files and machine-wide "
    "counters (load, free memory) are seen by every seat; "
    "a bot's CPU use within its equal share still slows one thinking on the same core (by up "
    "to half, one spinning bot against one thinking); "
    "timing side channels"
)


def doctor_report(width: int = 100) -> str:
    """Lines for a person, wrapped to ``width`` columns: levels, what each guarantees here, defaults."""
    from ._probe import probe

    info = probe()
    lines = [
        f"arena sandbox doctor (uid {os.geteuid()}, {'root' if info.root else 'not root'})",
        "",
        ALWAYS + ".",
        "",
        f"{_YES[info.works('none')]} none    no isolation and no limits: the bot sees and may do what "
        "the arena's user may" + ("" if info.works("none") else f" -- {info.errors.get('none')}"),
        *_levels(info),
        *_limits(info),
        "",
        NOT_COVERED,
        "",
        f"default level: {info.best_default}"
        + ("" if info.best_default != "none" else "  (WARNING: bots are not isolated on this machine)"),
        f"default policy: {SandboxPolicy().describe()}",
        "tools: " + ", ".join(f"{k} {'ok' if v else 'MISSING'}" for k, v in info.tools.items()),
    ]
    wrapped = []
    for line in lines:
        # Continuation lines sit under the text, after "yes basic   ".
        indent = " " * 12 if line[:4] in ("yes ", "NO  ") else "  "
        wrapped += textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
    return "\n".join(wrapped)


def _levels(info: Any) -> list[str]:
    """A line per sandboxing level and one for the seccomp filter they share."""
    isolation = (
        "PID, network, mount, IPC and UTS namespaces (no network at all); " + VIEW + "; rlimits "
        "(CPU, file size, open files, processes, address space, no core)"
    )
    if info.root:
        isolation += "; a uid of its own per bot process, no capabilities, no_new_privs"
    else:
        isolation += ("; a user namespace: the bot runs as this user, without capabilities "
                      "(it can read what the bot's folder grants this user)")
    lines = []
    for level, how in _LEVELS:
        ok = info.works(level)
        lines.append(f"{_YES[ok]} {level:<7} {how}: {isolation}"
                     + ("" if ok else f" -- UNAVAILABLE: {info.errors.get(level)}"))
    sandboxed = info.works("basic") or info.works("strict")
    lines.append(f"{_YES[sandboxed]} seccomp filter at basic, strict and gvisor: " + SECCOMP)
    return lines


def _limits(info: Any) -> list[str]:
    """A line each for memory and processes, CPU, and the page cache between bots."""
    cg = info.cgroups
    if cg.usable:
        where = ", ".join(str(p) for p in cg.parents())
        memory = (f"{_YES[True]} cgroups per bot process (fresh each time): memory and pids limits, "
                  f"killed as a whole at the end, verdicts out-of-memory / process limit ({where})")
    else:
        memory = (f"{_YES[False]} cgroups {info.cgroup_error or 'unavailable'}: memory is bounded by "
                  "RLIMIT_AS only (no out-of-memory verdict), processes by RLIMIT_NPROC in the bot's "
                  "own user namespace")
    if cg.usable and cg.cpu_control and cg.cpu_accounting:
        cpu = (f"{_YES[True]} CPU per bot process: all its processes share one CPU cgroup "
               f"(v{cg.cpu_control[1]}) with the same weight as every other bot and at most one "
               "CPU, however many sessions or processes it makes; the CPU time limit counts "
               "all its processes together, living and dead, and stops the bot with a verdict")
    else:
        why = cg.cpu_problem if cg.usable else (info.cgroup_error or "no cgroups")
        cpu = (f"{_YES[False]} CPU {why}: per process only: the CPU time limit (RLIMIT_CPU) "
               "counts each process of a bot apart (together they may use many times it, with "
               "no verdict), and a bot with many sessions gets as many shares of a core "
               "(scheduler autogroups), so it can make a seat on the same core late")
    reclaim = proactive_reclaim()
    cache = (f"{_YES[not reclaim]} duplicate tournaments and the league: each bot process gets private "
             "copies of its files, and the system files every bot reads are held in the page cache, so no "
             "process leaves a mark there for a later one" + (f"; but {reclaim}" if reclaim else ""))
    return [memory, cpu, cache]
