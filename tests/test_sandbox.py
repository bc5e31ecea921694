"""The sandbox layer: probe, fallback, command resolution, parent death."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import trio
import typer
from typer.testing import CliRunner

from arena import _sandbox
from arena._bot import BotSpec, open_bots
from arena._sandbox import (
    BasicLauncher, PlainLauncher, SandboxPolicy, StrictLauncher, doctor_report, make_launcher, probe,
    register, resolve_command, sandbox_summary,
)

from .conftest import PY, ROOT, processes_with

BOT = ROOT / "tests" / "adversarial" / "attack_bot.py"


def test_doctor_names_every_layer():
    text = doctor_report()
    for word in ("basic", "strict", "own uid", "cgroups", "default level", "default policy"):
        assert word in text
    app = typer.Typer()
    register(app)

    @app.command("other")
    def other() -> None:  # typer needs two commands to keep the name
        pass

    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0 and "default level" in result.output


def test_fallback_is_loud(monkeypatch):
    info = probe()
    warnings: list[str] = []
    monkeypatch.setattr(_sandbox, "_PROBE", dataclasses.replace(info, strict_ok=False, strict_error="no bwrap"))
    launcher = make_launcher("strict", warn=warnings.append)
    try:
        if info.basic_ok:
            assert isinstance(launcher, BasicLauncher)
        assert "falling back to 'basic'" in warnings[0]
    finally:
        launcher.close()
    warnings.clear()
    monkeypatch.setattr(
        _sandbox, "_PROBE", dataclasses.replace(info, basic_ok=False, basic_error="userns denied", strict_ok=False)
    )
    launcher = make_launcher(None, warn=warnings.append)
    assert isinstance(launcher, PlainLauncher)
    assert "NO isolation" in warnings[-1]
    assert sandbox_summary(launcher)["level"] == "none"
    with pytest.raises(ValueError):
        make_launcher("chroot")


def test_command_resolution_exposes_program_and_interpreter(tmp_path, monkeypatch):
    data = tmp_path / "data.txt"
    data.write_text("x")
    monkeypatch.chdir(ROOT)
    spec = BotSpec.parse(f"{PY} tests/adversarial/attack_bot.py none {data} tag")
    resolved = resolve_command(spec, os.environ.get("PATH", "/usr/bin"))
    assert resolved.argv[1] == str(BOT)
    assert resolved.own_dir == str(BOT.parent)
    assert any(str(BOT.parent).startswith(e) for e in resolved.exposed)
    real = os.path.realpath(PY)
    if not real.startswith("/usr/"):
        assert any(real.startswith(e + "/") for e in resolved.exposed)
    # A file named later on the command line (a shim's entry, a strategy file)
    # is read by the bot: its folder is visible too (read-only, see _fstab).
    assert any(str(tmp_path) == e or str(tmp_path).startswith(e + "/") for e in resolved.exposed)


def test_each_seat_gets_its_own_uid_and_the_json_summary():
    info = probe()
    if not (info.basic_ok and info.root):
        pytest.skip("needs root and the basic level")
    launcher = make_launcher("basic", warn=lambda t: None)
    try:
        spec = BotSpec.parse(f"{PY} {BOT} none - x")
        uids = {next(a for a in launcher.plan(spec, seat).argv if a.startswith("--reuid=")) for seat in range(3)}
        assert len(uids) == 3
        summary = sandbox_summary(launcher)
        assert summary["level"] == "basic" and "own uid" in summary["layers"]
        assert summary["policy"]["memory_mb"] == SandboxPolicy().memory_mb
    finally:
        launcher.close()


def _levels():
    info = probe()
    return [lvl for lvl, ok in (("basic", info.basic_ok), ("strict", info.strict_ok)) if ok]


@pytest.mark.parametrize("level", ["basic", "strict"])
def test_bot_survives_the_exit_of_tricks_spawning_thread(level, tag, monkeypatch):
    """PR_SET_PDEATHSIG fires when the *thread* that forked exits; trio forks
    from a worker thread that exits when idle. The sandbox must not use it
    there, while a bare ``setpriv --pdeathsig`` child does die."""
    if level not in _levels():
        pytest.skip(f"{level} unavailable")
    from trio._core import _thread_cache

    monkeypatch.setattr(_thread_cache, "IDLE_TIMEOUT", 0.05)
    launcher = make_launcher(level, warn=lambda t: None)
    spec = BotSpec.parse(f"{PY} {BOT} none - {tag}")

    async def main():
        bare = await trio.lowlevel.open_process(
            ["setpriv", "--pdeathsig", "KILL", "--", "sleep", "30"], start_new_session=True
        )
        async with open_bots([spec], log_dir=None, launcher=launcher) as (bot,):
            # wait until every worker thread has gone (the spawning one included)
            with trio.fail_after(5):
                while threading.active_count() > 1:
                    await trio.sleep(0.01)
                await bare.wait()  # the trap: killed by its thread's exit
            assert bare.returncode == -signal.SIGKILL
            now = trio.current_time()
            await bot.send(b"Money: 10,10,10\nEndProb: 1,2\n", now + 5)
            assert await bot.receive_line(now + 10, now, "no reply") == "READY"

    try:
        trio.run(main)
    finally:
        launcher.close()
    assert processes_with(tag) == []


ARENA_SCRIPT = """
import sys, trio
from games import load_game
from arena._bot import BotSpec
from arena._match import MatchSettings, run_match
from arena._sandbox import make_launcher
level, bot, good = sys.argv[1:4]
plugin = load_game("kuhn3")
launcher = make_launcher(level)
specs = [BotSpec.parse(bot), BotSpec.parse(good), BotSpec.parse(good)]
print("started", flush=True)
trio.run(run_match, plugin, specs, plugin.Params(hands=3), 1, MatchSettings(timeout=60, launcher=launcher))
"""


@pytest.mark.parametrize("level", ["basic", "strict"])
def test_nothing_survives_when_the_arena_is_killed(level, tag):
    if level not in _levels():
        pytest.skip(f"{level} unavailable")
    bad = f"{PY} {BOT} escape - {tag}"  # leaves a setsid escapee, then plays
    slow = f"{PY} {BOT} sleep-forever - {tag}"
    arena = subprocess.Popen(
        [PY, "-c", ARENA_SCRIPT, level, bad, slow], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert arena.stdout.readline().strip() == b"started"
        deadline = time.monotonic() + 20
        # both bots and the escapee are up (the sleeper reported through its log... we look at /proc)
        while len(processes_with(tag)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(processes_with(tag)) >= 3
        arena.send_signal(signal.SIGKILL)
        arena.wait()
        deadline = time.monotonic() + 5
        while processes_with(tag) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert processes_with(tag) == []
    finally:
        arena.stdout.close()
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        for pid, _ in processes_with(tag):
            os.kill(pid, signal.SIGKILL)
