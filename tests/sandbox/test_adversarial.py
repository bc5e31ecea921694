"""The adversarial corpus (tests/adversarial/attack_bot.py), for kuhn3, at the
default sandbox level (strict where bubblewrap works) and at ``basic``.

For each attack: the attempt fails (read from the bot's own stderr report in
the log folder) or the bot is stopped with the right fault kind, the match
ends within its deadlines plus grace, and no process of it survives.
"""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest
import trio

from arena._spec import BotSpec
from arena.play._match import MatchSettings, run_match
from arena.play._host import open_host
from arena.sandbox import SandboxPolicy, probe
from arena import load_game

from ..conftest import PY, ROOT, assert_completed, processes_with

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

BOT = ROOT / "tests" / "adversarial" / "attack_bot.py"
RULE_BOT = ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot"
PLUGIN = load_game("kuhn3")
TIMEOUT = 1.0
GRACE = 0.5

# attack -> (fault kind or None for a completed match, what the bot reports or None)
CASES = {
    "connect-local": (None, "FAILED"),
    "connect-outside": (None, "FAILED"),
    "read-shadow": (None, "FAILED"),
    "read-db": (None, "FAILED"),
    "read-other-bot": (None, "FAILED"),
    "write-outside": (None, "FAILED"),
    "write-1g": (None, "FAILED"),
    "alloc-2g": ("crashed", None),
    "fork-bomb": ("timeout", "FAILED"),
    "cpu-spin": ("crashed", "STARTED"),
    "sleep-forever": ("timeout", "STARTED"),
    "stdout-flood": ("malformed_reply", "STARTED"),
    "stderr-flood": (None, "STARTED"),
    "close-stdout": ("timeout", "STARTED"),
    "ignore-sigterm": ("timeout", "STARTED"),
    "escape": (None, "STARTED"),
    "outlive": (None, "STARTED"),
}

#: the default level (strict where bubblewrap works), basic, and gVisor's kernel
LEVELS = ["default", "basic", "gvisor"]


def _level_or_skip(level: str) -> str | None:
    info = probe()
    wanted = info.best_default if level == "default" else level
    if not info.works(wanted):
        pytest.skip(f"{wanted} sandbox unavailable: {info.errors.get(wanted)}")
    return None if level == "default" else level


def _gone(tag: str, within: float = 3.0) -> list:
    """Processes with ``tag`` still alive after ``within`` s (killing is asynchronous
    across a PID namespace: its init is reaped after the outer process)."""
    deadline = time.monotonic() + within
    while (left := processes_with(tag)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


def _play(host, specs, log_dir: Path, hands: int = 3, timeout: float = TIMEOUT):
    settings = MatchSettings(timeout=timeout, grace=GRACE, host=host, log_dir=log_dir)
    return trio.run(run_match, PLUGIN, specs, PLUGIN.Params(hands=hands), 7, settings)


def _target(attack: str, tmp_path: Path, tag: str) -> str:
    if attack == "read-shadow":
        return "/etc/shadow"
    if attack == "read-db":
        db = tmp_path / "results.db"
        db.write_bytes(b"SQLite format 3\x00 dummy results")
        return str(db)
    if attack == "read-other-bot":
        return str(ROOT / "sample_bots" / "kuhn3" / "rule_bot.c")
    if attack == "write-outside":
        # a place every user may write on the host, outside its view (a checkout
        # under /tmp would lie inside the bot's own private /tmp)
        return f"/var/tmp/escaped-{tag}"
    return "-"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("attack", sorted(CASES))
def test_attack_is_contained(attack, level, tag, tmp_path):
    chosen = _level_or_skip(level)
    kind, report = CASES[attack]
    policy = SandboxPolicy(cpu_seconds=1) if attack == "cpu-spin" else SandboxPolicy()
    target = _target(attack, tmp_path, tag)
    host = open_host(chosen, policy, warn=lambda text: None)
    logs = tmp_path / "logs"
    seat = sorted(CASES).index(attack) % 3
    # The attacker's neighbours: a compiled bot (no interpreter to start in each sandbox), tagged
    # like it so that what either leaves behind is seen.
    good = BotSpec.parse(f"{RULE_BOT} {tag}")
    specs = [good, good, good]
    specs[seat] = BotSpec.parse(f"{PY} {BOT} {attack} at:{target} {tag}")
    # let RLIMIT_CPU (1 s) and the memory limit stop these before the deadline does
    # The CPU limit counts CPU time, which a busy machine hands out slowly: no
    # wall-clock deadline may race it. The memory limit likewise.
    # A match that should play to its end (kind None) gets room for a busy machine: its bots
    # answer at once, so a longer limit costs nothing, and a 1 s one raced the load.
    timeout = {"cpu-spin": 120.0, "alloc-2g": 120.0}.get(attack, TIMEOUT if kind is not None else 10.0)
    if level == "gvisor" and attack == "fork-bomb":
        timeout = 15.0  # a fork takes gVisor's ptrace platform about 16 ms: let the bomb reach its limit
    try:
        started = time.monotonic()
        result = _play(host, specs, logs, timeout=timeout)
        took = time.monotonic() - started
        verdict = " ".join(f.detail for f in result.faults)  # the limits' verdict is in the detail
    finally:
        host.close()
        if attack == "write-outside":
            Path(target).unlink(missing_ok=True)
    stderr = (logs / f"seat{seat}.stderr.log").read_text(errors="replace")
    lines = [ln for ln in stderr.splitlines() if ln.startswith(f"ATTACK-RESULT {attack} ")]

    if attack == "alloc-2g" and not probe().cgroups.usable:
        kind = None  # no cgroup to kill it: its allocation fails (RLIMIT_DATA) and it plays on
    if kind is None:
        assert_completed(result)
    else:
        assert not result.completed
        (fault,) = result.faults
        assert fault.seat == seat, fault.describe()
        if attack == "close-stdout":  # under a wrapper no EOF: only the deadline sees it
            assert fault.kind in ("timeout", "disconnected")
        else:
            assert fault.kind == kind, fault.describe()
    if report is not None:
        assert lines and lines[0].split()[2] == report, stderr[-500:]

    # The attack-specific outcome.
    if attack == "connect-outside":  # gVisor's network stack says it of the host
        assert ("EHOSTUNREACH" if level == "gvisor" else "ENETUNREACH") in lines[0]
    if attack.startswith("read-"):
        # outside its view, at every level: not "permission denied", simply not there
        assert "FAILED ENOENT" in lines[0], lines[0]
    if attack == "write-1g":
        assert "EFBIG" in lines[0] or "ENOSPC" in lines[0]
    if attack == "fork-bomb":
        forks = int(lines[0].split("after ")[1].split()[0])
        assert forks < SandboxPolicy().pids
    if attack == "alloc-2g":
        if probe().cgroups.usable:
            assert verdict and "out of memory" in verdict
        else:
            assert "FAILED MemoryError" in stderr
    if attack == "cpu-spin":
        if probe().cgroups.usable:
            assert verdict and "CPU time" in verdict
    if attack == "fork-bomb" and probe().cgroups.usable and level != "gvisor":
        assert verdict and "process limit" in verdict  # (gVisor's kernel counts the bot's processes itself)
    if attack == "stderr-flood":
        assert (logs / f"seat{seat}.stderr.log").stat().st_size < 1024 * 1024 + 200

    # It ends: its deadline (or its limit) plus grace, with room for a busy
    # machine; only a match that waits for ever fails this.
    assert took < timeout + GRACE + 30.0
    assert _gone(tag) == []
    assert not Path(f"/var/tmp/escaped-{tag}").exists()


def _fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_60_runs_do_not_leak_fds_or_memory(tag, tmp_path):
    _level_or_skip("default")
    if not RULE_BOT.exists():
        pytest.skip("build sample_bots/kuhn3/build/rule_bot first (make bots)")
    host = open_host(None, warn=lambda text: None)
    fast = ["connect-local", "read-shadow", "escape", "none"]
    good = BotSpec.parse(str(RULE_BOT))
    specs = {a: [BotSpec.parse(f"{PY} {BOT} {a} at:/etc/shadow {tag}"), good, good] for a in fast}
    # Most runs are three compiled bots (what leaks is the arena's: pipes, the
    # supervisor, the host's state); every fifth brings an attacker, each of
    # the four three times. 60 runs and 8 MB: a leak of 140 kB a run shows.
    plan = [specs[fast[(i // 5) % 4]] if i % 5 == 0 else [good, good, good] for i in range(60)]
    try:
        for i in range(8):  # warm-up: caches, the watchdog, the supervisor build
            _play(host, specs[fast[i % 4]] if i < 4 else plan[1], tmp_path / "logs", hands=2)
        gc.collect()
        fds, rss = _fd_count(), _rss_kb()
        for seats in plan:
            result = _play(host, seats, tmp_path / "logs", hands=2)
            assert_completed(result)
        gc.collect()
        assert _fd_count() <= fds
        assert _rss_kb() - rss < 8 * 1024, (rss, _rss_kb())
    finally:
        host.close()
    assert _gone(tag) == []
