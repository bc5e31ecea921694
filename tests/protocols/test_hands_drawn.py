"""The golden playthroughs read back as hands (``GamePlugin.hands_of``), as
the league's match page draws them: cards, actions, pots, results."""

from __future__ import annotations

import json
import re

from arena._games import load_game
from protocols._builtin import GOLDEN


def transcript(game: str) -> list[tuple[int, str, str]]:
    """The first match of a game's golden playthrough as (seat, direction, text)."""
    lines = []
    for raw in (GOLDEN / f"{game}.playthrough").read_text().splitlines():
        if raw.startswith("#") and lines:
            break  # the next match
        found = re.match(r"(\d+) (->|<-) ?(.*)$", raw)
        if found:
            lines.append((int(found[1]), found[2], found[3]))
    return lines


def test_kuhn3_hands_have_every_seats_own_card_actions_a_winner_and_zero_sum_results():
    lines = transcript("kuhn3")
    hands = load_game("kuhn3").hands_of(lines)
    dealt = [(s, t[7:]) for s, d, t in lines if d == "->" and t.startswith("Cards: ")]
    assert len(hands) == len(dealt) // 3 > 1
    for n, hand in enumerate(hands):
        assert [(s["seat"], s["cards"][0]) for s in hand["seats"]] == dealt[3 * n:3 * n + 3]
        assert sum(s["profit"] for s in hand["seats"]) == 0
        (pot,) = hand["pots"]
        assert hand["seats"][pot["winners"][0]]["profit"] == max(s["profit"] for s in hand["seats"]) > 0
        words = [a["words"] for a in hand["streets"][0]["actions"]]
        assert words and all(re.fullmatch(r"checks|folds|bets to \d+|calls \d+", w) for w in words), words
    # The golden's first hand: seat 1 bets, seat 2 calls, seat 0 folds; seat 1 takes the pot of 5.
    first = hands[0]
    assert [(a["seat"], a["words"]) for a in first["streets"][0]["actions"]] == [
        (1, "bets to 2"), (2, "calls 2"), (0, "folds")]
    assert first["pots"] == [{"amount": 5, "winners": [1], "words": None}]


def test_holdem_hands_have_hole_cards_streets_pots_and_the_dealers_profits():
    lines = transcript("holdem")
    hands = load_game("holdem").hands_of(lines)
    ends = [json.loads(t) for s, d, t in lines if d == "->" and s == 0 and '"type":"hand_end"' in t]
    assert len(hands) == len(ends) == 3
    for hand, end in zip(hands, ends):
        assert [s["profit"] for s in hand["seats"]] == end["profits"]
        assert all(len(s["cards"]) == 2 for s in hand["seats"])
        assert [c for st in hand["streets"] for c in st["board"]] == end["board"]
        assert sum(p["amount"] for p in hand["pots"]) == sum(p["amount"] for p in end["pots"])
        assert hand["streets"][0]["actions"][:2][1]["words"].startswith("big blind")


def test_limit_holdem_hands_are_drawn_with_bets_raises_of_the_streets_size_and_the_dealers_profits():
    """The ACPC limit games' golden (heads-up: raises of 10 before and on the
    flop, 20 on the turn and river): a street's first raise after the flop is
    drawn as a bet, each later one raises by the street's size."""
    lines = transcript("holdem_limit")
    hands = load_game("holdem").hands_of(lines)
    ends = [json.loads(t) for s, d, t in lines if d == "->" and s == 0 and '"type":"hand_end"' in t]
    assert len(hands) == len(ends) > 1
    size = {"preflop": 10, "flop": 10, "turn": 20, "river": 20}
    seen = set()
    for hand, end in zip(hands, ends):
        assert [s["profit"] for s in hand["seats"]] == end["profits"]
        for street in hand["streets"]:
            level = 10 if street["name"] == "preflop" else 0  # the big blind is the first bet
            for action in street["actions"][2 if street["name"] == "preflop" else 0:]:
                verb, _, amount = action["words"].rpartition(" ")
                if verb in ("bets", "raises to"):
                    assert (verb == "bets") == (level == 0 and street["name"] != "preflop"), (street, action)
                    assert int(amount) == level + size[street["name"]], (street, action)
                    level = int(amount)
                    seen.add(verb)
    assert seen == {"bets", "raises to"}, seen
