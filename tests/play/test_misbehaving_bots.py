"""Every installed game against every misbehaviour, through the real CLI.

Each case plays a real ``arena play GAME`` match (child processes, pipes)
at the game's smallest table: one seat misbehaves at one of its requests,
the others play legal replies. All of them are tests/bots/misbehave_any.py
replaying a match the game's own dialogue played in-process
(tests/scripted.py), so what is legal, what is illegal and what the report
should say all come from the plugin: a newly installed game is covered
without a line here.

For each: exit code 1, one fault, of the right closed kind, on the
misbehaving seat and bot; the detail, what was received and what was
expected match what the game's dialogue (or the arena's line reader) says
about that reply; the human report names them too; and no process the test
started is left alive.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena import available_games
from protocols import Exchange

from .. import scripted
from ..conftest import processes_with, python_bot, replay_key, run_json

GAMES = sorted(available_games())
SEED = replay_key(5)
#: per reply: the misbehaving seat's silence costs this much wall time, and a
#: well-behaved seat's reply must come within it however busy the machine is
TIMEOUT = 2.0

#: the misbehaviours: mode -> the fault kind (None: whichever of
#: malformed_reply and illegal_action the game's dialogue gives), and the
#: words the detail must contain (None: the dialogue's own reason, exactly)
MODES: dict[str, tuple[str | None, str | None]] = {
    "silent": ("timeout", f"no reply within {TIMEOUT:g} s"),
    "slow": ("timeout", f"no reply within {TIMEOUT:g} s"),  # replies, but after the deadline
    "exit_mid": ("disconnected", "exited (code 0)"),
    "close_stdout": ("disconnected", "closed its stdout"),
    "crash": ("crashed", "exited with code 3"),
    "signal": ("crashed", "killed by SIGSEGV"),
    "huge_line": ("malformed_reply", "without a newline"),
    "bad_utf8": ("malformed_reply", "not valid UTF-8"),
    "garbage": ("malformed_reply", None),
    "illegal": ("illegal_action", None),  # well formed, against the rules or the state
    "misplaced": (None, None),  # a reply legal elsewhere in the match, not here
}
#: modes in which the bot writes no reply line at all (the arena's BotFault)
TRANSPORT = ("silent", "slow", "exit_mid", "close_stdout", "crash", "signal", "huge_line")
#: what a report says was expected when the game gave no words for it
NO_WORDS = next(f.default for f in dataclasses.fields(Exchange) if f.name == "expect")


#: (game, mode) pairs that cannot exist: the game has no such reply at all.
#: Only these go untested; any other game without one fails.
NO_SUCH_REPLY = {
    ("pennies", "illegal"): "every well-formed coin is legal",
}


def bad_reply(mode: str, trigger: scripted.Trigger, legal: bytes) -> bytes | None:
    """The line the misbehaving seat writes at its trigger (None: see TRANSPORT)."""
    if mode in TRANSPORT:
        return scripted.GONE
    if mode == "garbage":
        return b"lol what is this"
    if mode == "bad_utf8":
        return legal[: len(legal) // 2] + b"\xff\xfe" + legal[len(legal) // 2:]
    found = trigger.illegal if mode == "illegal" else trigger.misplaced
    assert found is not None, (
        f"no {mode} reply found: the game refuses none of the match's other replies, nor its legal "
        "replies with one value changed, that way (if it has none at all, add it to NO_SUCH_REPLY)")
    return found.encode()


def placeholder_names(game: str) -> tuple[str, ...]:
    return tuple(f"seat{i}" for i in range(scripted.table(game).seats))


def play_case(game: str, bad: int, at: int, reply: bytes | None, mode: str, tag: str, tmp_path):
    """The real match: seat ``bad`` misbehaves at its ``at``-th request, by
    writing ``reply`` (mode ``none``) or as ``mode`` says; the others replay.
    Checks what every case shares; returns the fault and the in-process match."""
    table = scripted.table(game)
    script = tmp_path / "script.json"
    bots = [python_bot("misbehave_any.py", str(script), str(seat), tag) for seat in range(table.seats)]
    played = scripted.play(game, SEED, scripted.names_of(bots), bad, at, reply)
    own = {"trigger": played.trigger_step, "mode": mode, "slow": 3 * TIMEOUT}
    scripted.write_script(script, played, {bad: own})
    proc, result = run_json("play", game, *bots, *table.options(), "--seed", SEED,
                            "--timeout", str(TIMEOUT))
    assert proc.returncode == 1, proc.stderr
    assert result["completed"] is False
    # One fault, on the misbehaving seat only.
    assert [(f["seat"], f["bot"]) for f in result["faults"]] == [(bad, bots[bad])], proc.stderr
    fault = result["faults"][0]
    # What was expected: the words of the request the seat failed to answer.
    assert fault["expected"] == (played.verdict.expected if played.verdict else played.expected), fault
    assert fault["expected"] and fault["expected"] != NO_WORDS, fault
    # The human report names the seat, the kind, what came and what was due.
    assert f"seat {bad} " in proc.stderr and fault["kind"] in proc.stderr
    assert "  expected: " in proc.stderr
    assert ("  received: " in proc.stderr) == (fault["received"] is not None)
    assert processes_with(tag) == []
    return fault, played


def assert_as_the_game_says(fault: dict, played: scripted.Played, kind: str | None) -> None:
    """The fault is the one the game's dialogue (or the arena's line reader)
    gives that reply in-process: kind, detail and what was received."""
    said = played.verdict or played.line_fault
    assert said is not None, "the game accepted the reply"
    detail = played.verdict.reason if played.verdict else played.line_fault.detail
    assert fault["kind"] == (kind or str(said.kind)), fault
    assert fault["kind"] in ("malformed_reply", "illegal_action")
    assert fault["detail"] == detail and fault["received"] == said.received, fault


@pytest.mark.parametrize(("game", "mode"), [(g, m) for g in GAMES for m in MODES if (g, m) not in NO_SUCH_REPLY])
def test_fault_is_typed_and_names_the_seat(game, mode, tag, tmp_path):
    table = scripted.table(game)
    bad = list(MODES).index(mode) % table.seats  # every seat gets some of the misbehaviours
    trigger = scripted.trigger(game, SEED, placeholder_names(game), bad)
    legal_run = scripted.play(game, SEED, list(placeholder_names(game)))
    legal = legal_run.steps[bad][legal_run.requests[bad][trigger.at]].reply
    reply = bad_reply(mode, trigger, legal)
    fault, played = play_case(game, bad, trigger.at, reply, mode if mode in TRANSPORT else "none", tag, tmp_path)

    kind, words = MODES[mode]
    if mode in TRANSPORT:
        assert played.verdict is None and played.line_fault is None  # in-process, no line came
        assert fault["kind"] == kind, fault
    else:
        assert_as_the_game_says(fault, played, kind)
    assert words is None or words in fault["detail"], fault
    if mode == "huge_line":
        assert fault["received"].startswith("{{{{")
    if mode == "crash":
        assert "something went wrong in my bot" in fault["stderr_tail"]


def money_off_by_one(legal: str) -> str:
    head, numbers = legal.split(" ", 1)
    first, rest = numbers.split(",", 1)
    return f"{head} {int(first) + 1},{rest}"


#: What a few protocols say about their own kinds of wrong reply, word for
#: word: (game, the request, by a word of its first line; the reply, or a
#: function of the legal one; the kind; words of the detail or the received
#: line; the hand the report names, or ... for any).
WORDING = [
    ("kuhn3", "play", "CALL 2", "malformed_reply", "unknown verb 'CALL'", ...),
    ("kuhn3", "play", "BET 3", "illegal_action", "above the maximum bet of 2", ...),
    ("kuhn3", "EndAction", money_off_by_one, "illegal_action", "wrong totals", ...),
    ("kuhn3", "end_round", "Thanks, bye", "malformed_reply", "Thanks, bye", ...),
    ("rpsdraft", "draft_pick", "{'type': 'pick', 'index': 0}", "malformed_reply", "not JSON", None),
    ("rpsdraft", "main_play", '{"type": "fold", "index": 0}', "malformed_reply", "got type 'fold'", 0),
    ("rpsdraft", "draft_pick", '{"type": "pick", "index": 0, "why": "because"}', "malformed_reply", "why", None),
    ("rpsdraft", "main_play", '{"type": "play", "index": 7}', "illegal_action", "index 7 is outside", 0),
    ("rpsdraft", "draft_pick", '{"type": "pick", "index": "0"}', "illegal_action", "must be an integer", None),
]


@pytest.mark.parametrize(("game", "request_word", "reply", "kind", "words", "hand"), WORDING,
                         ids=[f"{row[0]}-{row[4]}" for row in WORDING])
def test_protocol_specific_wrong_replies_are_reported_in_words(game, request_word, reply, kind, words, hand, tag,
                                                               tmp_path):
    bad = WORDING.index((game, request_word, reply, kind, words, hand)) % scripted.table(game).seats
    at = scripted.request_with(game, SEED, placeholder_names(game), bad, request_word)
    if callable(reply):
        legal_run = scripted.play(game, SEED, list(placeholder_names(game)))
        reply = reply(legal_run.steps[bad][legal_run.requests[bad][at]].reply.decode())
    fault, played = play_case(game, bad, at, reply.encode(), "none", tag, tmp_path)
    assert_as_the_game_says(fault, played, kind)
    assert words in f"{fault['detail']} {fault['received']}", fault
    if hand is not ...:
        assert fault["hand"] == hand, fault
