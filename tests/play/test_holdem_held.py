"""Hold'em's notifications are held for each seat's next message (issue 30).

The arena writes a notification to a seat together with the next message it
sends that seat, or at the dialogue's end (``BotProcess.hold``,
``Table.replies``): a bot is woken once per decision instead of once per
line. What each bot reads must not change: per seat, exactly the lines the
dialogue wrote to it, in its order, native or not; and a seat whose input is
closed is still found and charged, and the others play on.

Real processes over real pipes: C sample bots and two small Python test bots
(tests/bots/holdem_reads.py, tests/bots/misbehave_holdem.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena import BotSpec, MatchSettings, load_game, open_host, run_match
from arena._seeds import chance_stream
from protocols.holdem import HoldemDealer

from ..conftest import PY, ROOT, TEST_BOTS

HOLDEM = load_game("holdem")
C = ROOT / "sample_bots" / "holdem" / "build"
SIX = [str(C / "rule_bot"), str(C / "call_bot")] * 3


class Recording(HoldemDealer):
    """The game's dealer, noting every line its dialogue writes to each seat
    (its Python dialogue's: the compiled betting is off here, and held to the
    Python dialogue by tests/play/test_native_holdem.py)."""

    compiled = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.said: dict[int, list[str]] = {s: [] for s in range(self.seats)}

    def run(self):  # -> Dialogue
        dialogue = super().run()
        replies = None
        while True:
            try:
                exchange = dialogue.send(replies)
            except StopIteration as stop:
                return stop.value
            for seat, payload in exchange.sends:
                self.said[seat].append(payload.decode())
            replies = yield exchange


def play(commands: list[str], params: Any, seed: int, native: bool, log_dir: Path | None = None):
    """The result, the dialogue's lines per seat, and per seat the lines the trace shows written to it."""
    written: dict[int, list[str]] = {s: [] for s in range(len(commands))}

    def trace(seat: int, direction: str, text: str) -> None:
        if direction == "->":
            written[seat] += [line + "\n" for line in text.splitlines()]

    dealer = Recording(params, chance_stream(seed), [f"b{i}" for i in range(len(commands))])
    with open_host("none") as host:
        result = trio.run(lambda: run_match(HOLDEM, [BotSpec.parse(c) for c in commands], params, seed,
                                            MatchSettings(native=native, trace=trace, host=host, log_dir=log_dir),
                                            dialogue=dealer))
    return result, dealer.said, written


READS = f"{PY} {TEST_BOTS / 'holdem_reads.py'}"


@pytest.fixture(scope="module")
def six_seats(tmp_path_factory):
    """Six seats, the last a bot that counts how its input came; both ways."""
    params = HOLDEM.Params(hands=6)
    runs = {}
    for native in (True, False):
        logs = tmp_path_factory.mktemp("native" if native else "pure")
        result, said, written = play(SIX[:5] + [READS], params, 5, native, logs)
        count = (logs / "seat5.stderr.log").read_text().split()
        runs[native] = result, said, written, (int(count[1]), int(count[3]))
    return runs


@pytest.mark.parametrize("native", [True, False], ids=["native", "pure"])
def test_every_seat_reads_exactly_its_lines_woken_once_a_decision(six_seats, native):
    result, said, written, (reads, lines) = six_seats[native]
    assert result.completed and result.hands == 6, result.faults
    for seat, lines_said in said.items():
        assert written[seat] == lines_said, f"seat {seat}: the trace shows other lines than its dialogue wrote"
        assert lines_said[-1].startswith('{"type":"match_end"')
    # The counting bot read every line, woken about once per request it was
    # sent (held notifications came with them), not once per line.
    assert lines == len(said[5])
    asked = sum(1 for line in said[5] if line.startswith(('{"type":"act"', '{"type":"match_start"')))
    assert reads <= asked + 1 < lines / 2, (reads, asked, lines)


def test_both_ways_the_same_match(six_seats):
    (native, said_n, *_), (pure, said_p, *_) = six_seats[True], six_seats[False]
    assert said_n == said_p
    assert [s.payoff for s in native.seats] == [s.payoff for s in pure.seats]
    assert native.native_messages > 0 and pure.native_messages == 0


@pytest.mark.parametrize("hand", [1, 3], ids=["mid_match", "last_hand"])
def test_a_seat_that_closed_its_input_is_charged_and_the_others_play_on(hand):
    """Seat 1 closes its stdin, folds and exits in ``hand``: a notification is
    not held for a seat whose input is closed, so the write that finds it is
    the first one after its fold, in that hand, as without holding (it is
    charged the forfeit of that hand), the same on both paths."""
    params = HOLDEM.Params(hands=4)
    leaver = f"{PY} {TEST_BOTS / 'misbehave_holdem.py'} leave@{hand}"
    commands = [SIX[0], leaver, SIX[1]]
    outcomes = []
    for native in (True, False):
        result, said, writes = play(commands, params, 9, native)
        assert [(str(f.kind), f.seat) for f in result.faults] == [("disconnected", 1)], result.faults
        assert "while writing to it" in result.faults[0].detail
        assert result.faults[0].hand == hand
        assert result.forfeit_scores[1] < result.seats[1].payoff  # the hand it left counts as lost
        assert result.hands == 4  # the other two played every hand
        for seat in (0, 2):
            assert writes[seat] == said[seat]
        outcomes.append(([s.payoff for s in result.seats], result.forfeit_scores,
                         [(f.detail, f.hand) for f in result.faults]))
    assert outcomes[0] == outcomes[1]
