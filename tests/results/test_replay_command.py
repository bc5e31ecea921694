"""The replay command of a stored match says what it cannot reproduce."""

from __future__ import annotations

import shlex

from arena.results._report import replay_command

ENTRANTS = [("a", "python3 a.py"), ("b", "./b")]


def test_a_match_of_fresh_processes_replays_as_a_plain_command():
    command = replay_command("kuhn3", {"hands": 9}, {"hands": None}, ENTRANTS, "s1", {})
    assert shlex.split(command) == ["arena", "play", "kuhn3", "a=python3 a.py", "b=./b", "--seed", "s1",
                                    "-p", "hands=9"]


def test_a_lifetime_tournament_match_says_what_its_replay_cannot_give_back():
    command = replay_command("kuhn3", {}, {}, ENTRANTS, "s1", {}, lifetime="tournament")
    words = shlex.split(command, comments=True)  # what a shell runs: the note is a comment
    assert words == ["arena", "play", "kuhn3", "a=python3 a.py", "b=./b", "--seed", "s1"]
    assert "--lifetime tournament" in command and "keeps state across matches" in command
