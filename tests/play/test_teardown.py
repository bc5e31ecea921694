"""Every way a match can end leaves no bot process behind."""

from __future__ import annotations

import signal
import subprocess
import time
from functools import partial

import pytest
import trio

from arena import BotSpec, MatchSettings, run_match
from protocols import Exchange
from arena import load_game
from games.kuhn3 import Kuhn3Params

from ..conftest import PY, ROOT, clean_env, processes_with, python_bot, sigint_default


def wait_for(predicate, timeout=20.0):
    """Poll a condition about other processes (there is no event to wait on)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_ctrl_c_stops_every_bot_and_exits_130(tag):
    silent = python_bot("misbehave.py", "silent", tag)
    # faulthandler: if the arena ever hangs here, SIGABRT makes it print every thread's stack
    env = {**clean_env(), "PYTHONFAULTHANDLER": "1"}
    arena = subprocess.Popen(
        [PY, "-m", "arena", "kuhn3", silent, silent, silent, "--timeout", "60", "--hands", "3"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default,
    )
    try:
        # the bots themselves: not their supervisors (whose command lines name
        # them), nor a fork of the arena on its way to exec one (which shows
        # the arena's command line for an instant)
        bots = lambda: [p for p in processes_with(tag) if p[1].startswith(silent + " ")]  # noqa: E731
        assert wait_for(lambda: len(bots()) == 3), "the bots never started"
        arena.send_signal(signal.SIGINT)
        try:
            out, err = arena.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            with open(f"/proc/{arena.pid}/status") as f:
                masks = [line.strip() for line in f if line.startswith(("SigPnd", "ShdPnd", "SigBlk", "SigIgn",
                                                                        "SigCgt", "State"))]
            arena.send_signal(signal.SIGABRT)
            out, err = arena.communicate(timeout=30)
            pytest.fail(f"the arena did not stop 30 s after SIGINT; {masks}; its stacks:\n{err[-6000:]}")
    finally:
        arena.kill()
    assert arena.returncode == 130, err
    assert "Interrupted" in err
    assert processes_with(tag) == []  # bots and supervisors


class Exploding:
    """A dialogue that breaks (a bug in the game) in the middle of a match."""

    def run(self):
        yield Exchange([(s, b"init_hand\nHand: 0\nCards: K\n") for s in range(3)], "READY")
        raise RuntimeError("bug in the game")

    def context(self):
        return {"hand": 0}

    def standings(self):
        return 0, [0, 0, 0]


def test_an_arena_exception_still_stops_every_bot(tag):
    specs = [BotSpec.parse(python_bot("misbehave.py", "grandchild", tag)) for _ in range(3)]

    def progress(hands, payoffs):
        raise RuntimeError("bug in the arena")

    with pytest.raises(RuntimeError, match="bug in the arena"):
        trio.run(run_match, load_game("kuhn3"), specs, Kuhn3Params(hands=2), 0, MatchSettings(progress=progress))
    assert processes_with(tag) == []


def test_a_game_that_breaks_mid_match_is_the_games_failure_and_every_bot_still_stops(tag):
    specs = [BotSpec.parse(python_bot("misbehave.py", "grandchild", tag)) for _ in range(3)]
    result = trio.run(partial(run_match, dialogue=Exploding()), load_game("kuhn3"), specs, Kuhn3Params(), 0,
                      MatchSettings())
    assert result.game_error == ("game kuhn3: its dialogue raised RuntimeError: bug in the game "
                                 "(a bug in the game, not in a bot)") and result.faults == []
    assert processes_with(tag) == []


def test_cancellation_from_outside_stops_every_bot(tag):
    specs = [BotSpec.parse(python_bot("misbehave.py", "silent", tag)) for _ in range(3)]

    async def main():
        with trio.move_on_after(1.0) as scope:
            await run_match(load_game("kuhn3"), specs, Kuhn3Params(), 0, MatchSettings(timeout=60))
        return scope.cancelled_caught

    assert trio.run(main) is True
    assert processes_with(tag) == []
