"""A person in a seat (``human``), driven through a real pseudo-terminal:
whole matches of kuhn3 and hold'em against C bots, wrong input asked again,
Ctrl-C, and nothing on screen that the seat may not know."""

from __future__ import annotations

import json
import re

import pytest

from arena._spec import BadBotCommand, BotSpec
from protocols.seatview import Choice, pick
from tests.conftest import PY, ROOT, clean_env, processes_with, replay_key
from tests.play.terminal import Terminal

KUHN3_BOT = str(ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot")
HOLDEM_BOT = str(ROOT / "sample_bots" / "holdem" / "build" / "call_bot")
PROMPT = r"Your action \[([^\]]*)\] "


def arena(*args: str) -> Terminal:
    return Terminal([PY, "-m", "arena", *args], cwd=str(ROOT), env=clean_env())


def hands(screen: str) -> list[str]:
    """The screen cut into hands (each from its 'Hand N:' line)."""
    return re.split(r"\n(?=Hand \d+:)", screen)[1:]


def test_kuhn3_a_whole_match_with_a_wrong_word_asked_again():
    term = arena("kuhn3", "human:ann", KUHN3_BOT, KUHN3_BOT, "--hands", "4", "--seed", replay_key("11"))
    decisions = 0
    while True:
        try:
            prompt = term.expect(PROMPT + "|Round over", timeout=30)
        except AssertionError:
            raise
        if prompt.group(0).startswith("Round over"):
            break
        choices = prompt.group(1).split("/")
        assert choices in (["check", "bet"], ["fold", "call"])
        if decisions == 0:
            term.type("raise\n")  # not a kuhn3 word: asked again, never a fault
            term.expect(rf"'raise' is not one of {'/'.join(choices)}; try again\n" + PROMPT)
        term.type(("bet" if "bet" in choices else "call") + "\n")
        decisions += 1
    assert term.finish() == 0, term.screen
    assert decisions >= 1
    assert "completed after 4 hands" in term.screen
    assert re.search(r"^[\s│]*0[\s│]+ann[\s│]", term.screen, re.M), term.screen  # the results table names the person
    blocks = hands(term.screen)
    assert len(blocks) == 4
    for block in blocks:
        mine = re.search(r"your card is ([JQKA])", block).group(1)
        before_showdown = block.split("showdown")[0].replace(f"your card is {mine}", "")
        # No other seat's card before the showdown reveals it (none at all with no showdown).
        assert not re.search(r"\b[JQKA]\b", before_showdown), block


def test_holdem_a_whole_match_no_hole_card_but_ours_before_the_showdown():
    term = arena("holdem", "human", HOLDEM_BOT, HOLDEM_BOT, "--hands", "3", "--seed", replay_key("4"), "--json")
    first = True
    while True:
        prompt = term.expect(PROMPT + "|Match over", timeout=30)
        if prompt.group(0).startswith("Match over"):
            break
        choices = prompt.group(1).split("/")
        if first:
            raise_range = next(c for c in choices if c.startswith("raise "))
            low = int(raise_range.split()[1].split("..")[0])
            term.type(f"raise {low - 1}\n")  # below the smallest raise: asked again
            term.expect(rf"{low - 1} is outside {low}\.\.\d+; try again\n" + PROMPT)
            term.type("raise\n")
            term.expect(r"raise needs an amount from \d+ to \d+.*; try again\n" + PROMPT)
            term.type(f"raise {low}\n")
            first = False
            continue
        term.type(("check" if "check" in choices else "call") + "\n")
    assert term.finish() == 0, term.screen
    assert "completed after 3 hands" in term.screen
    assert "you raise to" in term.screen
    # The person's seat ran outside the sandbox, and says so; the bots at the host's level.
    assert "seat 0: a person, outside the sandbox" in term.screen
    result = json.loads(term.screen[term.screen.index("\n{"):])
    level = result["sandbox"]["level"]
    assert level != "person" and result["matches"][0]["sandbox"] == level
    assert [s["sandbox"] for s in result["matches"][0]["seats"]] == ["person", level, level]
    card = r"(?:10|[2-9JQKA])[♠♥♦♣]"
    blocks = hands(term.screen)
    assert len(blocks) == 3
    for block in blocks:
        mine = set(re.findall(card, re.search(r"your cards ([^;]*);", block).group(1)))
        assert len(mine) == 2
        public = set()
        for line in block.splitlines():
            if re.match(r"\s+\S.* shows? ", line):
                break  # the showdown: cards shown to every seat from here on
            if re.match(r"(Flop|Turn|River): ", line):
                public |= set(re.findall(card, line))
            assert set(re.findall(card, line)) <= mine | public, line


def test_ctrl_c_at_a_prompt_ends_the_match_with_130_and_stops_every_process():
    term = arena("kuhn3", "human", KUHN3_BOT, KUHN3_BOT, "--seed", replay_key("3"))
    term.expect(PROMPT)
    seat = f"arena.play._person kuhn3 0 "
    # The seat's program waits on the person, on this terminal and no other.
    assert [p for p in processes_with(seat) if term.tty in p[1].split()]
    term.type("\x03")
    assert term.finish() == 130, term.screen
    assert re.search(r"Interrupted kuhn3 seed 3:[0-9a-f]{32}: every bot was stopped", term.screen), term.screen
    assert not [p for p in processes_with(seat) if term.tty in p[1].split()]


def test_choices_are_picked_by_word_and_amount_or_refused_with_the_reason():
    choices = [Choice("fold"), Choice("call"), Choice("raise", 4, 400)]
    assert pick("Fold", choices) == (choices[0], None)
    assert pick(" raise 40 ", choices) == (choices[2], 40)
    for typed, reason in [("", "nothing was typed"), ("bet", "'bet' is not one of fold/call/raise"),
                          ("call 3", "call takes no amount"), ("raise x", "raise needs an amount from 4 to 400"),
                          ("raise 401", "401 is outside 4..400")]:
        with pytest.raises(ValueError, match=re.escape(reason)):
            pick(typed, choices)


def test_human_with_trace_is_refused_before_anything_starts():
    from click.testing import CliRunner

    from arena.cli import command

    result = CliRunner().invoke(command(), ["kuhn3", "human", KUHN3_BOT, KUHN3_BOT, "--trace"])
    assert result.exit_code == 2
    assert "--trace shows every seat's messages" in result.output


def test_human_is_refused_wherever_a_person_cannot_play():
    for command in ("human", "human:ann"):
        with pytest.raises(BadBotCommand, match="plays only in a single match"):
            BotSpec.parse(command)  # tournaments, quarantine and the league parse this way
    assert BotSpec.parse("human:ann", person_ok=True).name == "ann"


GAMES = {  # a game, its opponents and a short match: each asks with its own choices
    "pennies": (["pennies"], [str(ROOT / "examples" / "pennies" / "arena_pennies" / "bots" / "copy_bot.py")],
                ["--throws", "3"]),
    "rpsdraft": (["rpsdraft"], [str(ROOT / "sample_bots" / "rpsdraft" / "simple_bot.py")],
                 ["--draft-rounds", "2", "--turns", "2"]),
    "twocarddraw": (["twocarddraw"], [f"node {ROOT / 'sample_bots' / 'twocarddraw' / 'pair_of_fours.js'}"],
                    ["--hands", "3"]),
    "liars_dice": (["openspiel", "--game", "liars_dice"], [str(ROOT / "sample_bots" / "openspiel" / "random_bot.py")],
                   []),
    "leduc_poker": (["openspiel", "--game", "leduc_poker"],
                    [str(ROOT / "sample_bots" / "openspiel" / "random_bot.py")], []),
}
ASKED = r"\n(?P<q>[^\n]*) \[(?P<c>[^\]\n]*)\] "


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_person_plays_every_kind_of_game_typing_the_choices_shown(game):
    # The prompt names the legal choices in the game's words (never a protocol
    # line); a word that is not one of them is asked again, never a fault.
    command, bots, options = GAMES[game]
    term = arena(*command, "human:ann", *bots, *options, "--seed", replay_key("8"))
    decisions = 0
    while True:
        asked = term.expect(ASKED + r"|\n(Finished|Interrupted)", timeout=30)
        if asked.group("q") is None:
            break
        choices = asked.group("c").split("/")
        assert "reply line" not in asked.group("c") and "{" not in asked.group("c"), term.screen
        word, _, span = choices[-1].rpartition(" ") if ".." in choices[-1] else (choices[-1], "", "")
        if decisions == 0:
            term.type("nonsense\n")
            term.expect(r"'nonsense' is not one of [^\n]*; try again" + ASKED)
        term.type((f"{word} {span.split('..')[0]}" if span else word) + "\n")
        decisions += 1
    assert term.finish() == 0, term.screen
    assert decisions >= 1, term.screen
    assert re.search(r"\nFinished [^\n]*: completed after", term.screen), term.screen  # no seat faulted
