"""Sans-I/O translation between the holdem JSON protocol and ACPC MATCHSTATE lines.

Stdlib only: ``relay.py`` imports this file inside the sandbox.

Positions: ACPC numbers the players of a hand from the dealer's point of
view; the arena's seats are fixed and the button moves. An agent's position
in a hand is its index in the hand's order: the seats dealt in, clockwise
from the seat after the button (so the button is the last position). With
three or more seats that makes position 0 the small blind and 1 the big
blind, as ``blind = SB BB 0 ...`` says; heads-up the order is (big blind,
button), as the reverse-blinds game definitions say (``blind = BB SB``).

Amounts: ACPC's ``r<N>`` is the chips the raiser has committed in the whole
hand after raising; the arena's ``to`` is its bet on this street. They
differ by what the seat committed on earlier streets (antes are refused:
ACPC cannot express them).
"""

from __future__ import annotations

import re

_RAISE = re.compile(r"r(\d{1,10})")


class AcpcFault(Exception):
    """An agent's line that is not a response to the state it was sent: the sentence says
    what was received and what was expected."""


def refusal(params: dict) -> str | None:
    """Why a holdem match with these parameters cannot be played by an ACPC agent (None: it can)."""
    if params.get("format", "cash") != "cash":
        return ("ACPC agents play cash hands only: a freezeout (stacks carried over from hand to hand, "
                "rising blinds) cannot be written as an ACPC game definition")
    if params.get("ante", 0):
        return "ACPC game definitions have no antes: play ACPC agents with ante 0"
    if params.get("small_blind", 1) == 0:
        return "an ACPC game definition needs a small blind above 0"
    return None


def gamedef(params: dict, seats: int) -> str:
    """The ACPC game definition of a holdem cash match with ``seats`` seats."""
    stack, sb, bb = params.get("stack", 400), params.get("small_blind", 1), params.get("big_blind", 2)
    if seats == 2:  # positions (big blind, button): reverse blinds
        blinds, first = f"{bb} {sb}", "2 1 1 1"
    else:  # positions (small blind, big blind, ..., button)
        blinds, first = " ".join(map(str, [sb, bb] + [0] * (seats - 2))), "3 1 1 1"
    return ("GAMEDEF\nnolimit\n"
            f"numPlayers = {seats}\nnumRounds = 4\nstack = {' '.join([str(stack)] * seats)}\n"
            f"blind = {blinds}\nfirstPlayer = {first}\nnumSuits = 4\nnumRanks = 13\n"
            "numHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n")


class HoldemTranslator:
    """One seat's view of the match as ACPC states.

    ``feed(message)`` takes each JSON message the arena sends this seat and
    returns the MATCHSTATE lines to send the agent now. A state is held
    back until the next message shows it is complete (an action followed by
    the next street is one ACPC state). After an ``act`` request,
    ``reply(line)`` turns the agent's response into the arena's reply.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.pending = False
        self.hand = -1
        self.order: list[int] = []
        self.rounds: list[list[str]] = [[]]
        self.committed: dict[int, int] = {}
        self.street_bet: dict[int, int] = {}
        self.max_bet = 0
        self.holes: dict[int, str] = {}
        self.boards: list[str] = []
        self.sent = ""  # the last state line sent
        self.act: dict | None = None  # the request being answered

    # -- arena -> agent ---------------------------------------------------------

    def feed(self, msg: dict) -> list[str]:
        kind = msg.get("type")
        out: list[str] = []
        if kind == "hand_start":
            self._start(msg)
            self.pending = True
        elif kind == "street":
            self.rounds.append([])
            cards = "".join(msg["board"])
            self.boards.append(cards[2 * sum(len(b) // 2 for b in self.boards):])
            self.street_bet = {s: 0 for s in self.order}
            self.max_bet = 0
            self.pending = True
        elif kind == "action":
            out += self._flush()
            self._action(msg)
            self.pending = True
        elif kind == "act":
            out += self._flush(force=True)
            self.act = msg
        elif kind == "hand_end":
            for shown in msg.get("shown", []):
                self.holes[shown["seat"]] = "".join(shown["cards"])
            out += self._flush(force=True)
        return out

    def _start(self, msg: dict) -> None:
        self.hand = msg["hand"]
        seats = sorted(msg["in_hand"])
        button = msg["button"]
        self.order = [s for s in seats if s > button] + [s for s in seats if s <= button]
        self.rounds = [[]]
        self.boards = []
        self.committed = {s: msg["bets"][s] for s in self.order}
        self.street_bet = dict(self.committed)
        self.max_bet = max(self.committed.values())
        self.holes = {self.seat: "".join(msg["cards"])}

    def _action(self, msg: dict) -> None:
        s, amount = msg["seat"], msg["amount"]
        self.committed[s] += amount
        self.street_bet[s] += amount
        if msg["action"] == "fold":
            token = "f"
        elif self.street_bet[s] > self.max_bet:
            self.max_bet = self.street_bet[s]
            token = f"r{self.committed[s]}"
        else:
            token = "c"
        self.rounds[-1].append(token)

    def state(self) -> str:
        """The current MATCHSTATE line of this seat."""
        position = self.order.index(self.seat)
        betting = "/".join("".join(r) for r in self.rounds)
        holes = "|".join(self.holes.get(s, "") for s in self.order)
        cards = holes + "".join("/" + b for b in self.boards)
        return f"MATCHSTATE:{position}:{self.hand}:{betting}:{cards}"

    def _flush(self, force: bool = False) -> list[str]:
        if not (self.pending or force):
            return []
        self.pending = False
        self.sent = self.state()
        return [self.sent]

    # -- agent -> arena ---------------------------------------------------------

    def reply(self, line: str) -> dict:
        """The arena's reply for the agent's response ``line`` to the last state; AcpcFault if none."""
        act, state = self.act, self.sent
        self.act = None
        expected = (f"the state it was sent followed by :f, :c or :r<N> (N: its chips committed in the "
                    f"hand after raising), i.e. {state}:c")
        if act is None:
            raise AcpcFault(f"sent {line!r} when it was not its turn; expected nothing")
        head, colon, action = line.rpartition(":")
        if not colon or not head.startswith("MATCHSTATE:"):
            raise AcpcFault(f"sent {line!r}, which is not an ACPC response; expected {expected}")
        if head != state:
            raise AcpcFault(f"answered another state: sent {line!r}; expected a response to {state!r}")
        if action == "c":
            return {"type": "action", "action": "call"}
        if action == "f":
            # ACPC's dealer takes a fold where a check is free as the check it means.
            return {"type": "action", "action": "call" if act["to_call"] == 0 else "fold"}
        match = _RAISE.fullmatch(action)
        if match:
            before = self.committed[self.seat] - self.street_bet[self.seat]
            return {"type": "action", "action": "raise", "to": int(match.group(1)) - before}
        raise AcpcFault(f"sent the action {action!r} in {line!r}; expected {expected}")
