"""The bounded line reader: CRLF, limits, UTF-8."""

from __future__ import annotations

import pytest

from arena import BotFault, FaultKind, LineBuffer


def lines_of(buffer: LineBuffer) -> list[str]:
    out = []
    while (line := buffer.next_line()) is not None:
        out.append(line)
    return out


def test_lf_and_crlf_endings_give_the_same_lines():
    buffer = LineBuffer()
    buffer.feed(b"READY\r\nOK\nBET 2\r")
    assert lines_of(buffer) == ["READY", "OK"]
    buffer.feed(b"\n")
    assert lines_of(buffer) == ["BET 2"]
    assert len(buffer) == 0


def test_a_line_over_the_limit_is_a_malformed_reply_even_without_newline():
    buffer = LineBuffer(max_line=16)
    buffer.feed(b"x" * 16)
    assert buffer.next_line() is None
    buffer.feed(b"x")
    with pytest.raises(BotFault) as caught:
        buffer.next_line()
    assert caught.value.kind is FaultKind.MALFORMED_REPLY
    assert "longer than 16 bytes" in caught.value.detail


def test_invalid_utf8_is_a_malformed_reply_naming_the_byte():
    buffer = LineBuffer()
    buffer.feed(b"BET \xff2\n")
    with pytest.raises(BotFault, match=r"byte 4: b'\\xff'") as caught:
        buffer.next_line()
    assert caught.value.received == "BET \\xff2"


def test_pending_keeps_a_partial_line():
    buffer = LineBuffer()
    buffer.feed(b"OK\nBE")
    assert lines_of(buffer) == ["OK"]
    assert buffer.pending() == b"BE"
