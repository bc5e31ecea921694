#!/usr/bin/env python3
"""rpsdraft bot that plays the odds.

Draft: keep the card with the better chance to beat a random card on a random
base. Main phase: the opponent's next card is taken as uniform over what it may
still hold: the cards it is known to have (it received them from us or we
gave them away), plus every unseen card weighted by the chance that it is one
of the opponent's unknown cards. Play the card whose chance to win now most
exceeds its chance to win later on a random base. Standard library only.
"""
import json
import sys

BEATS = {"R": "S", "S": "P", "P": "R"}
CARDS = [s + str(n) for s in "RPS" for n in range(10)]


def beats(a: str, b: str, base: str) -> bool:
    pa, pb = a[1] == base[1], b[1] == base[1]
    if pa != pb:
        return pa
    if a[1] != b[1]:
        return a[1] > b[1]
    return BEATS[a[0]] == b[0]


def strength(card: str) -> float:
    wins = total = 0
    for o in CARDS:
        for b in CARDS:
            if len({card, o, b}) == 3:
                total += 1
                wins += beats(card, o, b)
    return wins / total


STRENGTH = {c: strength(c) for c in CARDS}


class Match:
    def __init__(self) -> None:
        self.unseen = set(CARDS)  # not mine, not known to be the opponent's, not shown
        self.opp_known: set[str] = set()  # the opponent's cards it has not played yet
        self.deck_size = 0
        self.opp_played = 0

    def pick(self, cards: list[str]) -> int:
        self.deck_size += 2
        i = 0 if STRENGTH[cards[0]] >= STRENGTH[cards[1]] else 1
        self.unseen.difference_update(cards)
        self.opp_known.add(cards[1 - i])
        return i

    def win_chance(self, card: str, base: str) -> float:
        unknown = max(0, self.deck_size - self.opp_played - len(self.opp_known))
        pool = [c for c in self.unseen if c != base]
        weight = unknown / len(pool) if pool else 0.0
        win = sum(beats(card, o, base) for o in self.opp_known)
        win += weight * sum(beats(card, o, base) for o in pool)
        total = len(self.opp_known) + weight * len(pool)
        return win / total if total else 0.5

    def play(self, hand: list[str], base: str) -> int:
        self.unseen.discard(base)
        later = list(self.unseen)

        def score(card: str) -> float:
            future = 0.0
            if len(hand) > 1 and later:  # a card kept now can still be played
                future = sum(self.win_chance(card, b) for b in later) / len(later)
            return self.win_chance(card, base) - future

        return max(range(len(hand)), key=lambda i: score(hand[i]))

    def opponent_played(self, card: str) -> None:
        self.unseen.discard(card)
        self.opp_known.discard(card)
        self.opp_played += 1


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


match = Match()
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "match_start":
        match = Match()
        send({"type": "ready"})
    elif kind == "draft_pick":
        send({"type": "pick", "index": match.pick(msg["cards"])})
    elif kind == "draft_receive":
        match.unseen.discard(msg["card"])
    elif kind == "main_play":
        send({"type": "play", "index": match.play(msg["hand"], msg["base"])})
    elif kind == "turn_result":
        match.opponent_played(msg["opponent_card"])
