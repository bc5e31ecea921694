"""Framing an innocent bot: a bot that keeps its stdin pipe full must be the
only one ever faulted, in every game and from every seat.

The attacker is ``tests/bots/tee_wrapper.py`` in front of one of the game's
sample bots: it shrinks its stdin pipe to one page and copies its input with
tee(2), so the pipe stays full and the arena's writes to it stall until the
wrapper releases the bytes, DELAY seconds later. Three cases per game and seat:

* DELAY well below the reply limit: the match completes, nobody is faulted,
  and no other seat was charged for the stalls;
* DELAY well above it: only the attacker is faulted (``timeout``, "did not
  read its input"), long before DELAY is over;
* a bot that never reads at all: only that bot is faulted (``timeout``).

Real processes and pipes; at sandbox level ``none``, and for kuhn3 also at the
default level, where the wrapper runs inside its own namespaces.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from arena._spec import BotSpec
from arena.play._host import open_host
from arena.play._match import MatchSettings, run_series
from arena.sandbox import probe
from arena import load_game

from ..conftest import PY, ROOT, TEST_BOTS, processes_with

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

WRAPPER = TEST_BOTS / "tee_wrapper.py"
NEVER_READS = TEST_BOTS / "never_reads.py"
PAGE = 4096  # the attacker's stdin pipe
#: No message of these games is longer (the largest seen is about 320 bytes):
#: with more than PAGE - this held, the pipe could not take the next one.
LONGEST_MESSAGE = 512

#: (a) stalls within the attacker's own deadline, each far longer than a
#: scheduler's delay on a busy machine: a seat charged for one is plain to see
SHORT_DELAY, LONG_TIMEOUT = 1.5, 5.0
#: (b) stalls far beyond it
LONG_DELAY, SHORT_TIMEOUT = 10.0, 0.5
#: (c) the never-reading bot: its first reply is due within this
STARTUP = 1.0
GRACE = 0.5


@dataclass(frozen=True)
class Game:
    bot: str  # a sample bot's command (relative paths are from ROOT)
    seats: int
    params: dict[str, Any]
    matches: int = 1  # played in one process (the protocol marks match boundaries)


# Each attacker receives 10 to 11 KiB: its pipe fills twice in a full match.
GAMES = {
    "kuhn3": Game(str(ROOT / "sample_bots/kuhn3/build/rule_bot"), 3, {"hands": 50}),
    "vonneumann": Game(str(ROOT / "sample_bots/vonneumann/build/naive"), 2,
                       {"sessions": 2, "games_per_session": 70}),
    "twocarddraw": Game(f"{PY} {ROOT / 'sample_bots/twocarddraw/random_bot.py'} --seed 1", 2, {"hands": 22}),
    # one rpsdraft match sends under 3 KiB to a seat: play several
    "rpsdraft": Game(f"{PY} {ROOT / 'sample_bots/rpsdraft/minimal_bot.py'}", 2,
                     {"draft_rounds": 5, "turns": 10, "hand_size": 10}, matches=4),
}

STALL_LINE = re.compile(r"TEE-WRAPPER stalled (\d+) times, fullest (\d+) bytes, got (\d+) bytes")


def _cases(games: list[str]) -> list[tuple[str, int]]:
    return [(g, seat) for g in games for seat in range(GAMES[g].seats)]


ALL = _cases(list(GAMES))
SANDBOXED = _cases(["kuhn3"])


@pytest.fixture
def host(request):
    level = getattr(request, "param", "none")
    wanted = probe().best_default if level is None else level
    if not probe().works(wanted) or (level is None and wanted == "none"):
        pytest.skip(f"{wanted} does not work here")
    h = open_host(level, warn=lambda text: None)
    yield h
    h.close()


def _gone(tag: str, within: float = 5.0) -> list:
    """Processes with ``tag`` still alive after ``within`` s (a sandbox's PID
    namespace is torn down asynchronously, after its outer process is reaped)."""
    deadline = time.monotonic() + within
    while (left := processes_with(tag)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


def _play(game: str, seat: int, bad: str, tag: str, host, log_dir: Path, **settings: Any):
    """Play ``game`` with ``bad`` (a command) at ``seat``: (results, seconds)."""
    g = GAMES[game]
    plugin = load_game(game)
    specs = [BotSpec.parse(f"{g.bot} {tag}")] * g.seats
    specs[seat] = BotSpec.parse(f"{bad} {tag}")
    params = plugin.Params(**g.params)
    matches = [(params, 7 + i) for i in range(g.matches)]
    lifetime = "tournament" if g.matches > 1 else "match"
    started = time.monotonic()
    results = trio.run(
        lambda: run_series(plugin, specs, matches,
                           MatchSettings(host=host, log_dir=log_dir, grace=GRACE, **settings), lifetime=lifetime)
    )
    return results, time.monotonic() - started


def _faults(results) -> list:
    return [f for r in results for f in r.faults]


def _short_stalls(game, seat, tag, host, tmp_path):
    sent = [0] * GAMES[game].seats

    def count(s: int, direction: str, text: str) -> None:
        if direction == "->":
            sent[s] += len(text.encode())

    results, _ = _play(game, seat, f"{PY} {WRAPPER} {SHORT_DELAY} -- {GAMES[game].bot}", tag, host,
                       tmp_path, timeout=LONG_TIMEOUT, trace=count)
    assert [f.describe() for f in _faults(results)] == []
    assert len(results) == GAMES[game].matches and all(r.completed for r in results)
    # The attack really happened: the pipe filled up, and the arena had to wait.
    report = STALL_LINE.search((tmp_path / f"seat{seat}.stderr.log").read_text())
    assert report, "the wrapper's report is missing"
    stalls, fullest, got = int(report[1]), int(report[2]), int(report[3])
    assert stalls >= 1 and fullest > PAGE - LONGEST_MESSAGE, report[0]
    assert got == sent[seat], "everything sent was delivered, the last notification too"
    # The other seats were not charged for the stalls: their clocks only ran
    # while the arena waited for them (replies take milliseconds).
    for s in results[-1].seats:
        if s.seat != seat:
            assert s.slowest_reply < SHORT_DELAY, (s.seat, s.slowest_reply)
    assert _gone(tag) == []


def _long_stalls(game, seat, tag, host, tmp_path):
    results, took = _play(game, seat, f"{PY} {WRAPPER} {LONG_DELAY} -- {GAMES[game].bot}", tag, host,
                          tmp_path, timeout=SHORT_TIMEOUT)
    (fault,) = _faults(results)
    assert fault.seat == seat, fault.describe()
    assert fault.kind == "timeout", fault.describe()
    assert "did not read its input" in fault.detail, fault.describe()
    assert not results[-1].completed
    # Judged at its own deadline: the arena never sat out the stall.
    assert took < LONG_DELAY / 2
    assert _gone(tag) == []


def _never_reads(game, seat, tag, host, tmp_path):
    results, _ = _play(game, seat, f"{PY} {NEVER_READS}", tag, host, tmp_path,
                       timeout=SHORT_TIMEOUT, startup_timeout=STARTUP)
    (fault,) = _faults(results)
    assert fault.seat == seat, fault.describe()
    assert fault.kind == "timeout", fault.describe()
    assert not results[-1].completed
    assert _gone(tag) == []


@pytest.mark.parametrize("game,seat", ALL)
def test_short_stalls_fault_nobody(game, seat, tag, host, tmp_path):
    _short_stalls(game, seat, tag, host, tmp_path)


@pytest.mark.parametrize("game,seat", ALL)
def test_long_stalls_fault_only_the_attacker(game, seat, tag, host, tmp_path):
    _long_stalls(game, seat, tag, host, tmp_path)


@pytest.mark.parametrize("game,seat", ALL)
def test_a_bot_that_never_reads_is_the_one_faulted(game, seat, tag, host, tmp_path):
    _never_reads(game, seat, tag, host, tmp_path)


@pytest.mark.parametrize("host", [None, "basic"], indirect=True, ids=["default-sandbox", "basic"])
@pytest.mark.parametrize("game,seat", SANDBOXED)
@pytest.mark.parametrize("case", [_short_stalls, _long_stalls, _never_reads],
                         ids=["short-stalls", "long-stalls", "never-reads"])
def test_in_the_sandbox(case, game, seat, tag, host, tmp_path):
    case(game, seat, tag, host, tmp_path)
