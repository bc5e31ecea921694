"""Hold'em hands as PHH, the Poker Hand History format (a ``.phhs`` file).

Sans-I/O: ``HandHistories`` reads the JSON lines the arena sends each seat
(``sent(seat, line)``, e.g. from the match's trace hook) and builds one hand
history per hand: players in PokerKit's order (its player 1 is the first
seat after the button, the button last; heads-up the big blind first),
named by entrant name and with their arena seats (from 1) in ``seats``;
antes, blinds, starting stacks, every hole card, action and board card,
the cards shown, and the finishing stacks. ``dumps()`` writes them as one
``.phhs`` text, hands numbered ``[1]``, ``[2]``... The format:
https://phh.readthedocs.io. A notice reaches every seat dealt in; each
event is taken once, whichever seat's copy comes first.

No-limit hands are PHH's variant ``NT`` (``min_bet``: the big blind). The
hands of a limit game (``gamedef`` in ``match_start``'s params) are the
fixed-limit variant ``FT``: ``small_bet`` is the raise size before the flop
and on it, ``big_bet`` on the turn and the river, as PHH has them; the
game's own raise sizes and caps per street ride along as the user-defined
fields ``_raise_sizes`` and ``_max_raises``. PokerKit's ``FT`` allows 4 bets
and raises a street: a game whose sizes are not one small bet then one big
bet, or that allows more raises, is written the same way, and its hands
replay in PokerKit only as far as they fit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import tomli_w


@dataclass
class _Hand:
    number: int
    order: list[int]  # arena seats in PokerKit's player order
    small_blind: int
    big_blind: int
    ante: int
    starting: list[int]
    holes: dict[int, list[str]] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    street_bets: dict[int, int] = field(default_factory=dict)
    max_bet: int = 0
    shown: list[tuple[int, list[str]]] = field(default_factory=list)
    finishing: list[int] | None = None
    seen: dict[int, int] = field(default_factory=dict)  # per recipient: notices read
    #: ACPC's view of the betting: per seat the chips committed in the hand, and the rounds' actions
    committed: dict[int, int] = field(default_factory=dict)
    acpc: list[str] = field(default_factory=lambda: [""])
    boards: list[str] = field(default_factory=list)
    #: limit: the game's raise sizes and caps per street; None: no-limit
    limit: tuple[list[int], list[int]] | None = None

    def player(self, seat: int) -> str:
        return f"p{self.order.index(seat) + 1}"


class HandHistories:
    """Every hand of a match (or a series) seen through the messages sent to its seats."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.done: list[tuple[_Hand, list[str]]] = []
        self.hand: _Hand | None = None
        self.params: dict = {}
        self.stacks: list[int] = []  # each seat's chips at the end of the last hand (freezeout)
        self.tournament: int | None = None

    def sent(self, seat: int, text: str) -> None:
        for line in text.splitlines():
            if line.startswith("{"):
                self._message(seat, json.loads(line))

    def _message(self, seat: int, msg: dict) -> None:
        kind = msg.get("type")
        if kind == "match_start":
            self.params = msg.get("params", {})
            self.names = list(msg.get("players", self.names))
            self.tournament = None
        elif kind == "hand_start":
            self._start(seat, msg)
        elif self.hand is None:
            return
        elif kind in ("action", "street"):
            hand = self.hand
            i = hand.seen.get(seat, 0)
            hand.seen[seat] = i + 1
            if i < len(hand.events):
                return  # another seat's copy was read already
            if kind == "street":
                cards = "".join(msg["board"][-1 if msg["street"] != "flop" else 0:])
                hand.events.append("d db " + cards)
                hand.boards.append(cards)
                hand.acpc.append("")
                hand.street_bets, hand.max_bet = {}, 0
            else:
                hand.events.append(self._action(hand, msg))
        elif kind == "hand_end" and self.hand.finishing is None:
            hand = self.hand
            hand.finishing = [msg["stacks"][s] for s in hand.order]
            hand.shown = [(x["seat"], x["cards"]) for x in msg.get("shown", [])]
            self.stacks = list(msg["stacks"])
            self.done.append((hand, list(self.names)))
            self.hand = None

    def _start(self, seat: int, msg: dict) -> None:
        hand = self.hand
        if hand is None or hand.number != msg["hand"]:
            seats = sorted(msg["in_hand"])
            button = msg["button"]
            order = [s for s in seats if s > button] + [s for s in seats if s <= button]
            if msg.get("tournament") is None:
                starting = [self.params.get("stack", 0)] * len(order)
            else:
                if msg["tournament"] != self.tournament:
                    self.tournament = msg["tournament"]
                    self.stacks = [self.params.get("stack", 0)] * len(msg["stacks"])
                starting = [self.stacks[s] for s in order]
            hand = self.hand = _Hand(msg["hand"], order, msg["small_blind"], msg["big_blind"], msg["ante"],
                                     starting)
            gamedef = self.params.get("gamedef")
            if isinstance(gamedef, dict) and gamedef.get("betting") == "limit":
                hand.limit = (list(gamedef["raise_size"]), list(gamedef["max_raises"]))
            hand.street_bets = {s: msg["bets"][s] for s in order}
            hand.committed = {s: msg["bets"][s] for s in order}
            hand.max_bet = max(hand.street_bets.values())
        hand.holes[seat] = msg["cards"]

    @staticmethod
    def _action(hand: _Hand, msg: dict) -> str:
        s = msg["seat"]
        hand.committed[s] = hand.committed.get(s, 0) + msg["amount"]
        if msg["action"] == "fold":
            hand.acpc[-1] += "f"
            return f"{hand.player(s)} f"
        bet = msg["bet"]
        hand.street_bets[s] = bet
        if bet > hand.max_bet:
            hand.max_bet = bet
            # ACPC: the raiser's total in the hand (no-limit); a limit raise has one size, and no number
            hand.acpc[-1] += "r" if hand.limit is not None else f"r{hand.committed[s]}"
            return f"{hand.player(s)} cbr {bet}"
        hand.acpc[-1] += "c"
        return f"{hand.player(s)} cc"

    def acpc_log(self) -> str:
        """The hands as the ACPC dealer logs them: ``STATE:<hand>:<betting>:<cards>:<results>:<players>``,
        positions as for ACPC agents (docs/acpc.md), every hole card, the players' net results."""
        lines = []
        for hand, names in self.done:
            holes = "|".join("".join(hand.holes.get(s, [])) for s in hand.order)
            results = "|".join(str(end - start) for start, end in zip(hand.starting, hand.finishing or []))
            players = "|".join(_acpc_name(names[s]) for s in hand.order)
            lines.append(f"STATE:{hand.number}:{'/'.join(hand.acpc)}:{holes}{''.join('/' + b for b in hand.boards)}"
                         f":{results}:{players}\n")
        return "".join(lines)

    def dumps(self) -> str:
        return "\n\n".join(f"[{i + 1}]\n{_one(hand, names)}" for i, (hand, names) in enumerate(self.done)) + "\n"


def _one(hand: _Hand, names: list[str]) -> str:
    n = len(hand.order)
    blinds = [hand.small_blind, hand.big_blind] + [0] * (n - 2)
    deal = [f"d dh {hand.player(s)} {''.join(hand.holes.get(s, ['????']))}" for s in hand.order]
    shown = {s: cards for s, cards in hand.shown}
    # PokerKit's showdown order: from the last bettor of the last street, else from player 1, clockwise.
    last_street = hand.events[_last_street_start(hand.events):]
    aggressors = [e.split()[0] for e in last_street if " cbr " in e]
    start = int(aggressors[-1][1:]) - 1 if aggressors else 0
    shows = [f"{hand.player(s)} sm {''.join(shown[s])}"
             for s in (hand.order[(start + k) % n] for k in range(n)) if s in shown]
    if hand.limit is None:
        betting: list[tuple[str, object]] = [("variant", "NT"), ("ante_trimming_status", True),
                                             ("antes", [hand.ante] * n), ("blinds_or_straddles", blinds),
                                             ("min_bet", hand.big_blind)]
    else:  # fixed-limit: PHH's small bet (preflop, flop) and big bet (turn, river)
        sizes = hand.limit[0]
        betting = [("variant", "FT"), ("ante_trimming_status", True), ("antes", [hand.ante] * n),
                   ("blinds_or_straddles", blinds), ("small_bet", sizes[0]), ("big_bet", sizes[2])]
    fields = [
        *betting,
        ("starting_stacks", hand.starting),
        ("actions", deal + hand.events + shows),
        ("hand", hand.number + 1),
        ("seats", [s + 1 for s in hand.order]),
        ("seat_count", len(names)),
        ("players", [names[s] for s in hand.order]),
        ("finishing_stacks", hand.finishing),
    ]
    if hand.limit is not None:
        fields += [("_raise_sizes", hand.limit[0]), ("_max_raises", hand.limit[1])]
    # tomli_w writes any Unicode a name holds as TOML allows it (json.dumps's
    # \ud83d\ude00 for one emoji is a pair of surrogates, which TOML refuses).
    return tomli_w.dumps(dict(fields))


def _acpc_name(name: str) -> str:
    """A name as one field of a STATE line (no separators, no blanks)."""
    return "".join(c if c.isalnum() or c in "._-+=" else "_" for c in name) or "_"


def _last_street_start(events: list[str]) -> int:
    for i in range(len(events) - 1, -1, -1):
        if events[i].startswith("d db "):
            return i + 1
    return 0
