"""The league's pages cache parsed transcripts; a page asked for before a
match's transcript was complete must not keep serving what it saw then."""

from __future__ import annotations

import gzip

from arena.league._web import _transcript


def test_a_transcript_read_before_it_was_written_is_read_again(tmp_path):
    path = tmp_path / "m1.log.gz"
    assert _transcript(str(path)) == []  # asked for early: not there yet
    with gzip.open(path, "wt") as f:
        f.write("[  0.001] seat 0 -> 0\n")
    assert [line["text"] for line in _transcript(str(path))] == ["0"]
    with gzip.open(path, "at") as f:  # and once more, when it grows
        f.write("[  0.002] seat 0 <- check\n")
    assert [(line["seat"], line["dir"], line["text"]) for line in _transcript(str(path))] == [
        (0, "->", "0"), (0, "<-", "check")]
