"""vonneumann's compiled dialogue (``protocols/vonneumann_compiled.c``) and the
pure-Python dialogue play the same matches: per seat the same lines, the same
games, money, scores and faults, with replies in every irregular but valid
form (handed back to Python mid-exchange) and with every kind of fault (whose
words come from the Python dialogue only). The helpers are test_native.py's.

Real child processes over real pipes; the test bot's sleeps only shape its
output (a reply in two writes, a slow reply), they never synchronise the test.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from arena import load_game
from arena._seeds import chance_stream
from arena.native import compiled_dialogue
from protocols.vonneumann import CARD_BITS, VONNEUMANN_COMPILED, Step

from ..conftest import ROOT
from .test_native import assert_same_match, assert_same_transcripts, both_ways, bot_command, patient, play, summary

__all__ = ["patient"]  # a fixture, used by name

VN = load_game("vonneumann")
C_BOTS = ROOT / "sample_bots" / "vonneumann" / "build"
NAIVE, LIKEME = str(C_BOTS / "naive"), str(C_BOTS / "likeme")


def test_the_compiled_dialogue_is_built_and_its_layout_declared_once():
    assert compiled_dialogue(VONNEUMANN_COMPILED) is not None, "vonneumann's compiled dialogue could not be built"
    assert re.search(r"}\s*VNState\s*;", VONNEUMANN_COMPILED.source.read_text()) is None, \
        "vonneumann_compiled.c declares its own state struct; it must come from the layout"
    # The dialogue's state survives a round trip through the integers at every step of a match
    # whose sessions end early (stack 30, ante 10) and late.
    dealer = VN.open_dialogue(VN.Params(stack=30, sessions=6, games_per_session=4), chance_stream(5), ["a", "b"], 1)
    rng = chance_stream("replies")
    gen, replies, steps = dealer.run(), None, set()
    while True:
        state = dealer.native_state()
        assert VONNEUMANN_COMPILED.unpack(VONNEUMANN_COMPILED.pack(state)) == state
        dealer.load_native_state(state)
        assert dealer.native_state() == state
        steps.add(dealer.step)
        try:
            exchange = gen.send(replies)
        except StopIteration:
            break
        replies = [VN.random_reply(dealer, s, p, rng) for s, p in exchange.sends] if exchange.reply else []
    assert steps >= set(VONNEUMANN_COMPILED.steps) | {Step.START, Step.END}


def test_a_card_is_written_as_orjson_writes_it():
    # The compiled dialogue formats no float: each card's text is orjson's, made by
    # the dealer with the deal (the same draw as the Python path's), and any other
    # card's (where the loop starts) by the function the dealer hands over with it.
    assert "double_to_string" not in VONNEUMANN_COMPILED.source.read_text()
    dealer = VN.open_dialogue(VN.Params(), chance_stream(4), ["a", "b"])
    (match, with_texts, text), _ = dealer.native_chance()
    assert match is dealer.state and text(-1.0) == b"-1.0"
    same = VN.open_dialogue(VN.Params(), chance_stream(4), ["a", "b"])._deal
    for _ in range(2000):
        a, b, a_text, b_text = with_texts()
        assert (a, b) == same() and (a_text, b_text) == (orjson.dumps(a), orjson.dumps(b))
        assert (a * (1 << CARD_BITS)).is_integer() and (b * (1 << CARD_BITS)).is_integer()


# -- the C sample bots: the compiled dialogue plays nearly all of it ------------------------------

# sessions closing after every game (more than the 32 a call may close), early (stacks), at their length
C_MATCHES = {
    "one_game_sessions": {"sessions": 70, "games_per_session": 1},
    "short_stacks": {"sessions": 30, "stack": 40, "games_per_session": 20},
    "default_sessions": {"sessions": 8},
}


@pytest.mark.parametrize("case", sorted(C_MATCHES))
def test_the_compiled_dialogue_plays_the_same_match(case, patient):
    params = VN.Params(**C_MATCHES[case])
    native, pure, nl, pl = both_ways(VN, [NAIVE, LIKEME], params, 17, host=patient)
    assert native.completed and native.hands > 0
    assert_same_match(native, pure, nl, pl)
    # all but match_start (2) and match_end (2), sent by Python by design
    assert native.native_messages == native.exchanges - 4, (native.native_messages, native.exchanges)


# -- a test bot: legal play, replies in chosen forms, faults on cue ------------------------------

# Arguments: MODE@GAMES (match_game numbers), e.g. "crlf@3,5"; a fault ("crash@3")
# comes at the bot's first request in that game or later.
VN_BOT = r'''
import json, os, sys, time

out = sys.stdout.buffer
FAULTS = {"illegal", "garbage", "wrong_type", "call_string", "crash", "exit_mid", "close_stdout", "huge",
          "bad_utf8", "silent", "partial", "two_lines"}
plan = {}
for arg in sys.argv[1:]:
    mode, _, games = arg.partition("@")
    plan[mode] = [int(g) for g in games.split(",")]
game = -1


def on(mode):
    games = plan.get(mode)
    if games is None:
        return False
    return game >= games[0] if mode in FAULTS else game in games


def raw(data):
    out.write(data)
    out.flush()


def wait_for_eof():
    for _ in sys.stdin:
        pass
    os._exit(0)


def fault():
    if on("illegal"):
        raw(b'{"type":"bet","amount":2.5}\n')
    elif on("garbage"):
        raw(b"lol what is this\n")
    elif on("wrong_type"):
        raw(b'{"type":"ready"}\n')
    elif on("call_string"):
        raw(b'{"type":"call","call":"yes"}\n')
    elif on("huge"):
        raw(b'{"type":"bet","amount":' + b"1" * 2000 + b"}\n")
    elif on("bad_utf8"):
        raw(b'{"type":"bet","amount":\xff\xfe1}\n')
    elif on("two_lines"):
        raw(b'{"type":"bet","amount":1}\n{"type":"bet","amount":1}\n')
    elif on("crash"):
        sys.stderr.write("Traceback: something went wrong in my bot\n")
        sys.stderr.flush()
        os._exit(3)
    elif on("exit_mid"):
        os._exit(0)
    elif on("close_stdout"):
        os.close(1)
        wait_for_eof()
    elif on("silent"):
        wait_for_eof()
    elif on("partial"):
        raw(b'{"type":"bet"')
        wait_for_eof()
    else:
        return False
    return True


def send(kind, key, value):
    if on("slow"):
        time.sleep(0.02)
    if on("reordered"):
        text = json.dumps({key: value, "type": kind})
    elif on("spaced"):
        text = json.dumps({"type": kind, key: value})
    else:
        text = json.dumps({"type": kind, key: value}, separators=(",", ":"))
    if on("float") and kind == "bet":
        text = text.replace(str(value), f"{value}.0")
    if on("negzero") and kind == "bet" and value == 0:
        text = text.replace("0", "-0")
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
    m = json.loads(line)
    kind = m["type"]
    if kind == "match_start":
        raw(b'{"type":"ready"}\n')
        continue
    if kind == "match_end":
        continue
    game = m["match_game"]
    if fault():
        continue
    if kind == "a_turn":
        bet = int(m["card"] * 40) - 10  # passes with low cards
        if on("huge_bet"):
            bet = 10 ** 17 if bet > 0 else bet
        if on("bigger_bet"):
            bet = 10 ** 25 if bet > 0 else bet
        if on("negzero"):
            bet = 0
        send("bet", "amount", bet)
    else:
        send("call", "call", m["card"] > 0.4)
'''


@pytest.fixture(scope="module")
def vn_bot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("native_vn") / "vonneumann_test_bot.py"
    path.write_text(VN_BOT)
    return path


PARAMS = {"sessions": 2, "games_per_session": 8}

# case -> (each seat's modes, text some reply line must contain on both paths, or None)
IRREGULAR = {
    "spaced": ([["spaced@1,2,3,4,5,6,7"], []], '"amount": '),  # taken by the compiled dialogue too
    "reordered": ([["reordered@2,3,5"], []], '{"amount"'),
    "float_amount": ([[], ["float@1,2,3,4,5,6"]], ".0}"),
    "negative_zero": ([["negzero@2,4,6"], []], "-0"),
    "crlf": ([["crlf@2,3"], ["crlf@4,5"]], None),
    "trailing_spaces": ([[], ["trailing@1,3,5"]], "  "),
    "split_writes": ([["split@1,2,3"], []], None),
    "slow_replies": ([[], ["slow@2,3"]], None),
    "huge_bets": ([["huge_bet@0,2,4,6,8"], ["bigger_bet@1,3,5,7,9"]], "0000000000"),
}


@pytest.mark.parametrize("case", sorted(IRREGULAR))
def test_irregular_replies_hand_back_cleanly(case, vn_bot, patient):
    modes, witness = IRREGULAR[case]
    native, pure, nl, pl = both_ways(VN, [bot_command(vn_bot, *m) for m in modes], VN.Params(**PARAMS), 23,
                                     host=patient)
    assert native.completed and pure.completed, (native.faults, pure.faults)
    assert native.hands > 0  # sessions end early when a stack runs short (huge bets)
    assert_same_match(native, pure, nl, pl)
    assert native.native_messages > 0
    if witness is not None:
        for lines in (nl, pl):
            assert any(d == "<-" and witness in t for seat in lines.values() for d, t in seat), case


FAULTS = {
    "illegal": "illegal_action",
    "garbage": "malformed_reply",
    "wrong_type": "malformed_reply",
    "call_string": "malformed_reply",
    "huge": "malformed_reply",
    "bad_utf8": "malformed_reply",
    "two_lines": "malformed_reply",
    "crash": "crashed",
    "exit_mid": "disconnected",
    "close_stdout": "disconnected",
    "silent": "timeout",
    "partial": "timeout",
}
FAULT_GAME = 5


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_faults_are_the_same_on_both_paths(mode, vn_bot, patient):
    kind = FAULTS[mode]
    seat = sorted(FAULTS).index(mode) % 2
    commands = [bot_command(vn_bot), bot_command(vn_bot)]
    commands[seat] = bot_command(vn_bot, f"{mode}@{FAULT_GAME}")
    # (a timeout fault waits out the limit; the replies before it must beat it on a busy machine)
    timeout = 2.0 if kind == "timeout" else 5.0
    runs = [play(VN, commands, VN.Params(**PARAMS), 31, native, timeout=timeout, grace=0.1, host=patient)
            for native in (True, False)]
    (native, native_lines), (pure, pure_lines) = runs
    for result in (native, pure):
        assert not result.completed
        assert [(str(f.kind), f.seat) for f in result.faults] == [(kind, seat)], result.faults
        assert result.faults[0].hand is not None and result.faults[0].hand >= FAULT_GAME
    assert native.native_messages > 0 and pure.native_messages == 0
    assert summary(native) == summary(pure)
    assert_same_transcripts(native_lines, pure_lines)
