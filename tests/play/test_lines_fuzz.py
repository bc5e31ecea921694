"""Fuzz: the arena's line reader splits a bot's bytes into the same lines
(or the same fault), however the pipe happens to chunk them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import BotFault, LineBuffer


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
