"""hold'em's compiled betting (``protocols/holdem_compiled.c``) and the
pure-Python dialogue play the same matches: per seat the same lines, the same
hands, chips and faults, at 2 to 10 seats, with replies in irregular but
valid forms (handed back to Python mid-exchange) and with every kind of
fault (whose words come from the Python dialogue; the others play on, in
Python). Freezeout stays on the Python path. The helpers are test_native.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arena import BotSpec, MatchSettings, load_game, run_match
from arena.native import compiled_dialogue
from protocols.holdem import HOLDEM_COMPILED

from ..conftest import PY, ROOT, TEST_BOTS
from .test_native import assert_same_match, assert_same_transcripts, both_ways, bot_command, patient, play, summary

__all__ = ["patient"]  # a fixture, used by name

HOLDEM = load_game("holdem")
C = ROOT / "sample_bots" / "holdem" / "build"
RULE, CALL = str(C / "rule_bot"), str(C / "call_bot")


def test_the_compiled_betting_is_built_here():
    assert compiled_dialogue(HOLDEM_COMPILED) is not None


@pytest.mark.parametrize("seats", [2, 6, 10])
def test_the_compiled_betting_plays_the_same_match(seats, patient):
    # Heads-up, a call of the compiled dialogue plays some 20 hands, more than
    # the 16 decks it asks of the dealer at a time: the second batch follows
    # the first within the call.
    commands = [(RULE, CALL)[i % 2] for i in range(seats)]
    hands = 70 if seats == 2 else 30
    native, pure, nl, pl = both_ways(HOLDEM, commands, HOLDEM.Params(hands=hands), 5, host=patient)
    assert native.completed and native.hands == hands
    assert_same_match(native, pure, nl, pl)
    assert native.native_messages > native.exchanges / 2, (native.native_messages, native.exchanges)


def test_freezeout_stays_on_the_python_path(patient):
    native, pure, nl, pl = both_ways(HOLDEM, [RULE, CALL, RULE], HOLDEM.Params(mode="freezeout", tournaments=1,
                                                                               stack=400), 6, host=patient)
    assert_same_match(native, pure, nl, pl)


# Arguments: MODE@HANDS ("spaced@1,2"); a fault ("crash@3") comes at the bot's
# first act in that hand or later.
HOLDEM_BOT = r'''
import json, os, sys, time

out = sys.stdout.buffer
FAULTS = {"illegal", "garbage", "crash", "exit_mid", "close_stdout", "huge", "bad_utf8", "silent", "partial",
          "leave"}
plan = {}
for arg in sys.argv[1:]:
    mode, _, hands = arg.partition("@")
    plan[mode] = [int(h) for h in hands.split(",")]
hand = -1


def on(mode):
    hands = plan.get(mode)
    if hands is None:
        return False
    return hand >= hands[0] if mode in FAULTS else hand in hands


def raw(data):
    out.write(data)
    out.flush()


def wait_for_eof():
    for _ in sys.stdin:
        pass
    os._exit(0)


def fault(msg):
    if on("illegal"):
        raw(b'{"type":"action","action":"raise","to":1}\n')
    elif on("garbage"):
        raw(b"what is a blind\n")
    elif on("huge"):
        raw(b'{"type":"action","action":"' + b"c" * 5000 + b'"}\n')
    elif on("bad_utf8"):
        raw(b'{"type":"action","action":"\xff\xfe"}\n')
    elif on("crash"):
        os._exit(3)
    elif on("exit_mid"):
        os._exit(0)
    elif on("close_stdout"):
        os.close(1)
        wait_for_eof()
    elif on("silent"):
        wait_for_eof()
    elif on("partial"):
        raw(b'{"type":"action"')
        wait_for_eof()
    elif on("leave"):
        os.close(0)
        raw(b'{"type":"action","action":"fold"}\n' if "fold" in msg["legal"] else
            b'{"type":"action","action":"call"}\n')
        os._exit(0)
    else:
        return False
    return True


def send(fields):
    if on("slow"):
        time.sleep(0.02)
    if on("reordered"):
        fields = dict(reversed(list(fields.items())))
    text = json.dumps(fields) if on("spaced") else json.dumps(fields, separators=(",", ":"))
    if on("null_to") and "to" not in fields:
        text = text[:-1] + ',"to":null}'
    if on("trailing"):
        text += "  "
    data = (text + ("\r\n" if on("crlf") else "\n")).encode()
    if on("split"):
        half = len(data) // 2
        raw(data[:half])
        time.sleep(0.002)
        data = data[half:]
    raw(data)


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        raw(b'{"type":"ready"}\n')
        continue
    if kind != "act":
        continue
    hand = msg["hand"]
    if fault(msg):
        continue
    legal = msg["legal"]
    if "raise" in legal and (hand + msg["seat"]) % 3 == 0 and msg["street"] != "river":
        send({"type": "action", "action": "raise", "to": msg["min_raise_to"]})
    elif "fold" in legal and msg["to_call"] > 400:
        send({"type": "action", "action": "fold"})
    else:
        send({"type": "action", "action": "call"})
'''


@pytest.fixture(scope="module")
def holdem_bot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("native_holdem") / "holdem_test_bot.py"
    path.write_text(HOLDEM_BOT)
    return path


IRREGULAR = {
    "spaced": ([["spaced@0,1,2,3,4,5"], [], []], '"action": '),  # taken by the compiled betting too
    "reordered": ([[], ["reordered@1,2,4"], []], '{"action"'),
    "null_to": ([[], [], ["null_to@0,2,3"]], '"to":null'),
    "crlf_trailing": ([["crlf@1,3"], ["trailing@2,4"], []], "  "),
    "split_slow": ([["split@1,2"], [], ["slow@3"]], None),
}


@pytest.mark.parametrize("case", sorted(IRREGULAR))
def test_irregular_replies_hand_back_cleanly(case, holdem_bot, patient):
    modes, witness = IRREGULAR[case]
    # a seat with nothing to show is a C sample bot (cheaper than a Python one)
    commands = [bot_command(holdem_bot, *m) if m else (RULE, CALL)[i % 2] for i, m in enumerate(modes)]
    native, pure, nl, pl = both_ways(HOLDEM, commands, HOLDEM.Params(hands=6), 23, host=patient)
    assert native.completed and pure.completed, (native.faults, pure.faults)
    assert_same_match(native, pure, nl, pl)
    assert native.native_messages > 0
    if witness is not None:
        for lines in (nl, pl):
            assert any(d == "<-" and witness in t for seat in lines.values() for d, t in seat), case


FAULTS = {
    "illegal": "illegal_action",
    "garbage": "malformed_reply",
    "huge": "malformed_reply",
    "bad_utf8": "malformed_reply",
    "crash": "crashed",
    "exit_mid": "disconnected",
    "close_stdout": "disconnected",
    "silent": "timeout",
    "partial": "timeout",
    "leave": "disconnected",
}
FAULT_HAND = 2


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_faults_are_the_same_on_both_paths(mode, holdem_bot, patient):
    kind = FAULTS[mode]
    seat = sorted(FAULTS).index(mode) % 3
    commands = [RULE, CALL, RULE]  # the innocent seats: C sample bots (cheaper than Python ones)
    commands[seat] = bot_command(holdem_bot, f"{mode}@{FAULT_HAND}")
    timeout = 0.5 if kind == "timeout" else 5.0
    runs = [play(HOLDEM, commands, HOLDEM.Params(hands=5), 31, native, timeout=timeout, grace=0.1, host=patient)
            for native in (True, False)]
    (native, native_lines), (pure, pure_lines) = runs
    for result in (native, pure):
        assert [(str(f.kind), f.seat) for f in result.faults] == [(kind, seat)], result.faults
        assert result.faults[0].hand is not None and result.faults[0].hand >= FAULT_HAND
        assert result.hands == 5  # the others play on
    assert native.native_messages > 0 and pure.native_messages == 0
    assert summary(native) == summary(pure)
    assert_same_transcripts(native_lines, pure_lines)


def test_a_bot_is_woken_once_a_decision_on_the_compiled_path(tmp_path, patient):
    # The compiled betting holds the notices as BotProcess.hold does: a bot that
    # counts its reads is woken about once per request, as on the Python path.
    commands = [RULE, CALL, RULE, CALL, RULE, f"{PY} {TEST_BOTS / 'holdem_reads.py'}"]
    lines: list[str] = []

    def trace(seat: int, direction: str, text: str) -> None:
        if seat == 5 and direction == "->":
            lines.extend(text.splitlines())

    result = trio.run(lambda: run_match(HOLDEM, [BotSpec.parse(c) for c in commands], HOLDEM.Params(hands=6), 5,
                                        MatchSettings(trace=trace, host=patient, log_dir=tmp_path)))
    assert result.completed and result.native_messages > result.exchanges / 2
    reads, read_lines = (int(x) for x in (tmp_path / "seat5.stderr.log").read_text().split()[1:4:2])
    asked = sum(1 for line in lines if line.startswith(('{"type":"act"', '{"type":"match_start"')))
    assert read_lines == len(lines)
    assert reads <= asked + 1 < read_lines / 2, (reads, asked, read_lines)


# -- the renderings done twice: the compiled dialogue's against the Python dialogue's --------------------

def _renderer():
    from arena.native import _load, compiled_dialogue_path

    return _load(compiled_dialogue_path(HOLDEM_COMPILED))


def test_every_message_the_compiled_dialogue_renders_is_the_python_dialogues():
    """act, action (with the streets it opens), hand_start and hand_end,
    rendered by the C and by the Python dialogue from the same engine state,
    byte for byte: 2 to 10 seats, random stacks (side pots, seats not dealt
    in, all-in blinds), antes, random legal actions, every step of 1,500
    hands. Whole matches are compared by the tests above; this reaches the
    states a few matches do not."""
    import random

    from games.holdem import HoldemHand

    c = _renderer()
    rng = random.Random(30)
    dealer = HOLDEM.open_dialogue(HOLDEM.Params(hands=10), random.Random(0), ["a"] * 10)
    kinds: dict[str, int] = {}

    def same(kind, hand, number, seat, shown, python):
        kinds[kind] = kinds.get(kind, 0) + 1
        assert c.render(kind, hand, number, seat, shown) == python, (kind, hand.board, hand.hole)

    for number in range(1500):
        seats = rng.randint(2, 10)
        stacks = [rng.choice((0, rng.randint(1, 30), rng.randint(100, 2000), 400)) for _ in range(seats)]
        dealt = [s for s in range(seats) if stacks[s]]
        if len(dealt) < 2:
            stacks[0] = stacks[1] = 400
            dealt = [s for s in range(seats) if stacks[s]]
        small = rng.randint(0, 20)
        blinds = (small, rng.randint(max(small, 1), 40), rng.choice((0, 0, rng.randint(1, 10))))
        hand = HoldemHand(stacks, rng.choice(dealt), *blinds, rng.sample(range(52), 2 * len(dealt) + 5))
        for s in dealt:
            same("hand_start", hand, number, s, 0, dealer._hand_start(hand, s, number))
        shown = len(hand.board)  # nobody could act: the streets were dealt at once
        while not hand.over:
            seat = hand.to_act
            same("act", hand, number, seat, shown, dealer._ask(hand, seat, number).sends[0][1])
            legal = hand.legal()
            action = rng.choice(legal.actions)
            hand.act(action, rng.randint(legal.min_to, legal.max_to) if action == "raise" else None)
            notice = dealer._notice(hand, number, hand.last_action, hand.after_action, shown)
            same("notice", hand, number, 0, shown, b"".join(m for x, m in notice if x == dealt[0]))
            shown = len(hand.board)
        same("hand_end", hand, number, 0, shown, dealer._hand_end(hand, [dealt[0]], number)[0][1])
    assert min(kinds.values()) > 20, kinds


def test_a_showdown_in_words_is_the_same_both_ways():
    # Every category and every rank the words name (describe reads the category
    # and the two top ranks), and values as eval7 gives them for random hands.
    import random

    from games.holdem import describe
    from games.holdem._cards import evaluate

    c = _renderer()
    values = [cat << 24 | top << 16 | second << 12 | 0x321 for cat in range(9) for top in range(13)
              for second in range(13)]
    rng = random.Random(7)
    values += [evaluate(rng.sample(range(52), 7)) for _ in range(2000)]
    for v in values:
        assert c.describe(v) == describe(v), v
    assert c.describe(-1) is None and c.describe(15 << 16) is None  # not eval7's: left to Python
