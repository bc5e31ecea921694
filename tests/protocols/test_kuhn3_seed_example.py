"""The seed's worked example, reproduced line for line for every seat.

Three real child processes answer from scripts; the engine's chance steps are
rigged so that the seat under test receives exactly the example's lines.
"""

from __future__ import annotations

from functools import partial

import pytest
import trio

from arena import BotSpec, MatchSettings, open_host, run_match
from arena import load_game
from games.kuhn3 import Kuhn3Params, Phase
from protocols.kuhn3 import Kuhn3Dealer

from ..conftest import ROOT, python_bot

GOLDEN = ROOT / "tests" / "golden" / "kuhn3_seed_example.txt"


def example() -> tuple[list[str], list[str]]:
    """(dealer lines, replies) of the example, comments dropped."""
    sent, replies = [], []
    for line in GOLDEN.read_text().splitlines():
        if line.startswith("#"):
            continue
        (replies if line.startswith("> ") else sent).append(line.removeprefix("> "))
    return sent, replies


# What the other two seats reply, by their position relative to the example's
# player 0: the seat after it (the first button) and the one after that.
NEXT_SEAT_REPLIES = [
    "READY", "READY", "FOLD 1", "OK", "Money: -1,3,-2",
    "READY", "FOLD 1", "OK", "Money: -2,2,0", "Thank you dealer, have a nice day!",
]
SEAT_AFTER_NEXT_REPLIES = [
    "READY", "READY", "BET 2", "OK", "Money: 3,-2,-1",
    "READY", "FOLD 1", "OK", "Money: 2,0,-2", "Thank you dealer, have a nice day!",
]


def rigged(focus: int):
    """Chance outcomes that put the example's player 0 in seat ``focus``."""
    deals = iter([
        {focus: "Q", (focus + 1) % 3: "J", (focus + 2) % 3: "K"},
        {focus: "A", (focus + 1) % 3: "K", (focus + 2) % 3: "Q"},
    ])
    ends = iter([False, True])

    def resolve(r):
        if r.phase is Phase.BUTTON:
            return (focus + 1) % 3
        if r.phase is Phase.DEAL:
            deal = next(deals)
            return tuple(deal[s] for s in range(3))
        return next(ends)

    return resolve


@pytest.mark.parametrize("focus", [0, 1, 2])
def test_seed_example_line_for_line(focus, tmp_path):
    sent, focus_replies = example()
    replies = {
        focus: focus_replies,
        (focus + 1) % 3: NEXT_SEAT_REPLIES,
        (focus + 2) % 3: SEAT_AFTER_NEXT_REPLIES,
    }
    specs = []
    for seat in range(3):
        (tmp_path / f"replies{seat}").write_text("\n".join(replies[seat]) + "\n")
        specs.append(BotSpec.parse(python_bot(
            "script_bot.py", str(tmp_path / f"replies{seat}"), str(tmp_path / f"got{seat}"))))
    params = Kuhn3Params(end_prob=(50, 100))
    dealer = Kuhn3Dealer(params, rigged(focus))
    # level none, by name: the script bots write what they got to files of the test's
    with open_host("none") as host:
        result = trio.run(partial(run_match, dialogue=dealer), load_game("kuhn3"), specs, params, 0,
                          MatchSettings(host=host))

    assert result.faults == []
    assert result.completed and result.hands == 2
    got = (tmp_path / f"got{focus}").read_text().splitlines()
    assert got == sent
    # The final totals, in canonical seats, match the example's last Money line.
    expected = {focus: 0, (focus + 1) % 3: -2, (focus + 2) % 3: 2}
    assert [s.payoff for s in result.seats] == [expected[s] for s in range(3)]
