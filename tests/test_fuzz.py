"""Fuzz: any bytes a bot sends become an accepted reply or a protocol fault.

Never an exception of another kind, never a hang: first on the sans-I/O
layers (many examples), then through real processes and pipes.
"""

from __future__ import annotations

import random

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import BotFault, BotSpec, FaultKind, LineBuffer, MatchSettings, run_match
from arena import load_game
from games.kuhn3 import Kuhn3Params
from protocols import ProtocolError
from protocols.kuhn3 import PLUGIN as KUHN3, Kuhn3Dealer, seeded_chance

from .conftest import python_bot

# Bytes that look almost like replies hit the parsers' corners more often.
near_miss = st.lists(
    st.sampled_from(
        [b"BET", b"FOLD", b"PASS", b"READY", b"OK", b"REBUY", b"Money:", b"Thank you dealer, have a nice day!",
         b" ", b"  ", b",", b"-", b"0", b"1", b"2", b"99999999999999999999", b"\r", b"\t", b"\xff", b"\xc3",
         "٣".encode(), b"\x00"]
    ),
    max_size=12,
).map(b"".join)
replies = st.one_of(st.binary(max_size=120), near_miss)


@settings(max_examples=1500, deadline=None)
@given(replies, st.integers(0, 60), st.integers(0, 2**32 - 1))
def test_any_reply_bytes_are_accepted_or_a_protocol_error(junk, at, seed):
    rng = random.Random(seed)
    dealer = Kuhn3Dealer(Kuhn3Params(hands=4), seeded_chance(random.Random(seed)))
    gen = dealer.run()
    answer = None
    sent = 0
    try:
        while True:
            exchange = gen.send(answer)
            answer = []
            for seat, payload in exchange.sends:
                if sent == at:
                    buffer = LineBuffer(max_line=64)
                    buffer.feed(junk + b"\n")
                    line = buffer.next_line()
                    assert line is not None
                else:
                    line = KUHN3.random_reply(dealer, seat, payload, rng)
                answer.append(line)
                sent += 1
    except StopIteration:
        pass
    except ProtocolError as exc:
        assert exc.kind in ("malformed_reply", "illegal_action")
        assert exc.received is not None and exc.reason
    except BotFault as exc:
        assert exc.kind is FaultKind.MALFORMED_REPLY


@settings(max_examples=500, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=8), st.integers(8, 64))
def test_line_buffer_splits_any_chunking_the_same_way(chunks, max_line):
    data = b"".join(chunks)
    whole, pieces = LineBuffer(max_line), LineBuffer(max_line)

    def drain(buffer):
        out = []
        try:
            while (line := buffer.next_line()) is not None:
                out.append(line)
        except BotFault as exc:
            out.append(("fault", exc.kind))
        return out

    whole.feed(data)
    expected = drain(whole)
    got = []
    for chunk in chunks:
        pieces.feed(chunk)
        got.extend(drain(pieces))
        if got and isinstance(got[-1], tuple):
            break
    if expected and isinstance(expected[-1], tuple):
        assert got and isinstance(got[-1], tuple)
        assert got[:-1] == expected[: len(got) - 1]
    else:
        assert got == expected


@pytest.mark.parametrize("seed", range(12))
def test_random_bytes_from_real_processes(seed, tag):
    specs = [BotSpec.parse(python_bot("fuzz_bot.py", str(seed * 3 + i), tag)) for i in range(3)]
    result = trio.run(
        run_match,
        load_game("kuhn3"),
        specs,
        Kuhn3Params(hands=5),
        seed,
        MatchSettings(timeout=0.5, startup_timeout=5),
    )
    assert result.completed or len(result.faults) == 1
    for fault in result.faults:
        assert fault.kind in set(FaultKind)
        assert fault.seat in (0, 1, 2) and fault.detail
