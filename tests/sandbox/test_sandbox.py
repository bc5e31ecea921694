"""The sandbox layer: level choice, what a bot sees, parent death."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from arena._spec import BotSpec
from arena._checks import UsageError
from arena.play._host import open_bots, open_host
from arena.sandbox import SandboxUnavailable, doctor_report, probe, resolve_level
from arena.cli import command
from arena.sandbox._probe import Probe
from arena.sandbox._view import build_view

from ..conftest import PY, ROOT, processes_with

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

BOT = ROOT / "tests" / "adversarial" / "attack_bot.py"


def test_doctor_names_every_level_and_what_is_not_covered():
    text = doctor_report()
    for word in ("none", "basic", "strict", "cgroups", "not covered", "seccomp", "default level",
                 "default policy"):
        assert word in text
    result = CliRunner().invoke(command(), ["doctor"])
    assert result.exit_code == 0 and "default level" in result.output


def _probe(**errors: str) -> Probe:
    return Probe(root=False, tools={}, errors={"none": "", "basic": "", "strict": "", **errors})


def test_an_unavailable_level_is_refused_never_replaced():
    info = _probe(strict="bubblewrap is not installed")
    with pytest.raises(SandboxUnavailable, match="bubblewrap is not installed"):
        resolve_level("strict", info=info)
    assert resolve_level("basic", info=info) == "basic"
    assert resolve_level(None, info=info) == "basic"  # the best that works
    assert resolve_level(None, info=_probe()) == "strict"  # bubblewrap first when both work
    with pytest.raises(UsageError, match="one of none, basic, strict"):
        resolve_level("chroot", info=info)


def test_no_sandbox_at_all_warns_and_refuses_untrusted_bots():
    info = _probe(basic="userns denied", strict="userns denied")
    warnings: list[str] = []
    assert resolve_level(None, info=info, warn=warnings.append) == "none"
    assert "NO isolation" in warnings[0] and "userns denied" in warnings[0]
    with pytest.raises(SandboxUnavailable, match="pass --sandbox none"):
        resolve_level(None, info=info, untrusted=True)
    assert resolve_level("none", info=info, untrusted=True) == "none"


def test_the_view_follows_the_command_line_never_the_bots_files(tmp_path):
    """A ``#!`` line or a program's place under some ``bin/`` widens nothing."""
    secret = tmp_path / "secret"
    secret.mkdir()
    bots = tmp_path / "league" / "bin"
    bots.mkdir(parents=True)
    script = bots / "bot.py"
    script.write_text(f"#!{secret}/python3\nprint('hi')\n")
    script.chmod(0o755)
    data = tmp_path / "data" / "strategy.txt"
    data.parent.mkdir()
    data.write_text("x")
    path_env = os.environ.get("PATH", "/usr/bin")
    for command in (str(script), f"python3 {script} {data}"):
        view = build_view(BotSpec.parse(command), path_env)
        targets = [b.target for b in view.binds]
        assert str(bots) in targets  # its own folder
        assert not any(t == str(secret) or t.startswith(str(secret) + "/") for t in targets)
        assert str(tmp_path / "league") not in targets  # not the folder above bin/
        assert str(data.parent) not in targets
    view = build_view(BotSpec.parse(f"python3 {script} {data}"), path_env)
    (named,) = [b for b in view.binds if b.target == str(data)]
    assert not named.is_dir  # a named file is bound alone


def _levels() -> list[str]:
    return [lvl for lvl in ("basic", "strict", "gvisor") if probe().works(lvl)]


@pytest.mark.parametrize("level", ["basic", "strict", "gvisor"])
def test_bot_survives_the_exit_of_tricks_spawning_thread(level, tag, monkeypatch):
    """PR_SET_PDEATHSIG fires when the *thread* that forked exits; trio forks
    from a worker thread that exits when idle. The sandbox must not use it
    there, while a bare ``setpriv --pdeathsig`` child does die."""
    if level not in _levels():
        pytest.skip(f"{level} unavailable")
    from trio._core import _thread_cache

    monkeypatch.setattr(_thread_cache, "IDLE_TIMEOUT", 0.05)
    spec = BotSpec.parse(f"{PY} {BOT} none - {tag}")

    async def main(host):
        bare = await trio.lowlevel.open_process(
            ["setpriv", "--pdeathsig", "KILL", "--", "sleep", "30"], start_new_session=True
        )
        async with open_bots([spec], host=host) as (bot,):
            # wait until every trio worker thread has gone (the spawning one included); the
            # arena's watcher of game code (arena/play/_guard.py) stays, and never forks, and
            # a thread another test left in this process is none of this test's business
            def trios() -> list[str]:
                return [t.name for t in threading.enumerate() if t.name.startswith("Trio thread")]

            with trio.move_on_after(5) as waited:
                while trios():
                    await trio.sleep(0.01)
                await bare.wait()  # the trap: killed by its thread's exit
            assert not waited.cancelled_caught, f"after 5 s: trio's threads {trios()}, the trap {bare.returncode}"
            assert bare.returncode == -signal.SIGKILL
            now = trio.current_time()
            assert bot.queue(b"Money: 10,10,10\nEndProb: 1,2\n", now) == 1, (bot.poll_status(), bot.stderr_text())
            assert await bot.receive_line(now + 10, "no reply") == "READY"

    with open_host(level, warn=lambda t: None) as host:
        trio.run(main, host)
    assert processes_with(tag) == []


ARENA_SCRIPT = """
import sys, trio
from arena import load_game
from arena import BotSpec, MatchSettings, run_match, open_host
level, bot, good = sys.argv[1:4]
plugin = load_game("kuhn3")
host = open_host(level)
specs = [BotSpec.parse(bot), BotSpec.parse(good), BotSpec.parse(good)]
print("started", flush=True)
# Nothing may end the match before the test kills the arena, however slow the
# machine. Seed 5 asks seat 0 to play first: the escape happens at its first
# play, before a sleeping seat holds the match up.
trio.run(run_match, plugin, specs, plugin.Params(hands=3), 5,
         MatchSettings(timeout=120, startup_timeout=120, host=host))
"""


@pytest.mark.parametrize("level", [pytest.param("none", marks=pytest.mark.unsandboxed), "basic", "strict"])
def test_nothing_survives_when_the_arena_is_killed(level, tag):
    if level != "none" and level not in _levels():
        pytest.skip(f"{level} unavailable")
    bad = f"{PY} {BOT} escape - {tag}"  # leaves a setsid escapee, then plays
    slow = f"{PY} {BOT} sleep-forever - {tag}"
    errors = tempfile.TemporaryFile()
    arena = subprocess.Popen(
        [PY, "-c", ARENA_SCRIPT, level, bad, slow], cwd=ROOT, stdout=subprocess.PIPE, stderr=errors
    )
    try:
        assert arena.stdout.readline().strip() == b"started"
        # A generous bound: it only ends a test that has already failed, and a
        # 2-core CI machine running two suites side by side once needed over 20 s.
        started = time.monotonic()
        # Everything is up once the escapee is: it is exec'd at seat 0's first
        # play, after every seat has answered. (Counting command lines is not
        # enough: the escape bot's forks carry its own command line for a
        # moment, so a count can reach four and fall back to three.)
        escapee = f"{PY} -c import time"
        while time.monotonic() < started + 90:
            found = processes_with(tag)
            if any(cmd.startswith(escapee) for _, cmd in found):
                break
            time.sleep(0.02)
        else:  # say everything
            errors.seek(0)
            pytest.fail(f"no escapee {time.monotonic() - started:.0f} s after the arena started: {found}\n"
                        f"arena exit: {arena.poll()}, stderr:\n{errors.read().decode(errors='replace')[-3000:]}")
        roles = [cmd.split()[2] for _, cmd in found if cmd.startswith(f"{PY} {BOT} ")]
        assert roles.count("sleep-forever") == 2 and "escape" in roles, found
        arena.send_signal(signal.SIGKILL)
        arena.wait()
        deadline = time.monotonic() + 5
        while processes_with(tag) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert processes_with(tag) == []
    finally:
        arena.stdout.close()
        errors.close()
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        for pid, _ in processes_with(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # gone since it was listed
                pass


def _runsc_processes(root: str) -> list[tuple[int, str]]:
    """gVisor's processes of the launcher whose runsc state folder is ``root``."""
    return [(pid, cmd) for pid, cmd in processes_with("runsc") if f"--root={root}" in cmd]


def test_nothing_of_gvisor_survives_when_the_arena_is_killed(tag):
    """At gvisor the bots' processes are gVisor's, not the host's: what must not
    outlive the arena is gVisor itself, every sandbox of it (the escapee and the
    sleeping seats live in them)."""
    if "gvisor" not in _levels():
        pytest.skip("gvisor unavailable")
    bad = f"{PY} {BOT} escape - {tag}"
    slow = f"{PY} {BOT} sleep-forever - {tag}"
    errors = tempfile.TemporaryFile()
    arena = subprocess.Popen([PY, "-c", ARENA_SCRIPT, "gvisor", bad, slow], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=errors)
    try:
        assert arena.stdout.readline().strip() == b"started"
        started, root, found = time.monotonic(), None, []
        while time.monotonic() < started + 90:  # a bound for a test that has already failed
            mine = [cmd for pid, cmd in processes_with("runsc") if _descends(pid, arena.pid)]
            root = next((w.split("=", 1)[1] for cmd in mine for w in cmd.split() if w.startswith("--root=")), None)
            found = _runsc_processes(root) if root else []
            if sum(" boot " in cmd for _, cmd in found) == 3:  # the three sandboxes are up
                break
            time.sleep(0.02)
        else:
            errors.seek(0)
            pytest.fail(f"three sandboxes not up after {time.monotonic() - started:.0f} s: {found}\n"
                        f"{errors.read().decode(errors='replace')[-3000:]}")
        arena.send_signal(signal.SIGKILL)
        arena.wait()
        deadline = time.monotonic() + 10
        while _runsc_processes(root) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _runsc_processes(root) == []
    finally:
        arena.stdout.close()
        errors.close()
        if arena.poll() is None:
            arena.kill()
            arena.wait()


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


# -- a machine where no sandbox works: refused, never replaced ------------------------

_NO_USERNS = r"""
import ctypes, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER: its maps are written by the parent
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.readline()
# Below this namespace no user namespace may be made: what a locked-down host does.
with open("/proc/sys/user/max_user_namespaces", "w") as f:
    f.write("0")
if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS, to reach the checkout as an ordinary user
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
subprocess.run(["mount", "--make-rprivate", "/"], check=True)
subprocess.run(["sh", "-c", sys.argv[1]], check=True)
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
os.execve(sys.argv[2], sys.argv[2:], {k: v for k, v in os.environ.items()})
"""


def _arena_without_user_namespaces(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``arena ARGS`` as uid 65534 where user namespaces cannot be made."""
    from .. import unprivileged

    stage = unprivileged.private_stage()
    script = unprivileged.mount_script(unprivileged.needed_paths(), stage)
    child = subprocess.Popen([PY, "-c", _NO_USERNS, script, PY, "-m", "arena", *args], cwd=ROOT, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        for name in ("uid_map", "gid_map"):
            Path(f"/proc/{child.pid}/{name}").write_text("0 0 1\n65534 65534 1\n")
        out, err = child.communicate("go\n", timeout=120)
    finally:
        child.kill()
        shutil.rmtree(stage, ignore_errors=True)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def test_levels_that_do_not_work_are_refused_on_the_command_line():
    """As an ordinary user on a host that forbids user namespaces, basic and
    strict cannot work: asking for them is exit 2 with the reason; without a
    request the bots run at none with a warning; quarantine refuses."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make the locked-down user namespace")
    home = Path(tempfile.mkdtemp(prefix="arena-locked-down-"))  # reachable by uid 65534
    os.chown(home, 65534, 65534)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home),
           "ARENA_CACHE_DIR": str(home / "cache"), "LANG": "C.UTF-8"}
    bot = str(ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot")
    # what each tool says when the kernel refuses the namespace
    refused = {"basic": "unshare failed", "strict": "bwrap"}
    try:
        doctor = _arena_without_user_namespaces("doctor", env=env)
        assert doctor.returncode == 0, doctor.stderr
        text = " ".join(doctor.stdout.split())  # unwrapped
        assert re.search(r"NO basic .*UNAVAILABLE: unshare: unshare failed", text), doctor.stdout
        assert re.search(r"NO strict .*UNAVAILABLE: bwrap", text), doctor.stdout
        assert "yes none" in text and "default level: none" in text
        for level, words in refused.items():
            proc = _arena_without_user_namespaces("kuhn3", bot, bot, bot, "--hands", "1", "--sandbox", level,
                                                  env=env)
            assert proc.returncode == 2, proc.stderr
            assert f"sandbox '{level}' does not work here:" in proc.stderr and words in proc.stderr
            assert "Traceback" not in proc.stderr
        proc = _arena_without_user_namespaces("kuhn3", bot, bot, bot, "--hands", "1", env=env)
        assert proc.returncode == 0, proc.stderr
        assert "no sandbox works here" in proc.stderr and "NO isolation" in proc.stderr
        proc = _arena_without_user_namespaces("quarantine", "kuhn3", bot, env=env)
        assert proc.returncode == 2 and "pass --sandbox none" in proc.stderr, proc.stderr
    finally:
        shutil.rmtree(home, ignore_errors=True)
