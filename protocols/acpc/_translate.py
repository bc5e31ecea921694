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
    if params.get("mode", params.get("format", "cash")) != "cash":  # "format": an arena before 0.2
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


# -- kuhn3 ----------------------------------------------------------------------

#: The ACPC package's kuhn.limit.3p game: antes of 1 (its "blinds"), one bet
#: of 1 more, four ranks (J Q K A) of one suit, position 0 acting first.
KUHN3_GAMEDEF = ("GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\n"
                 "firstPlayer = 1\nmaxRaises = 1\nnumSuits = 1\nnumRanks = 4\nnumHoleCards = 1\n"
                 "numBoardCards = 0\nstack = 2 2 2\nEND GAMEDEF\n")


def kuhn3_refusal(params: dict) -> str | None:
    """Why a kuhn3 match cannot be played by an ACPC agent (None: it can)."""
    if tuple(params.get("antes", (1, 1, 1))) != (1, 1, 1) or params.get("max_bet", 2) != 2:
        return "the ACPC kuhn.limit.3p game has antes of 1,1,1 and a bet to 2: play ACPC agents with those"
    return None


class Kuhn3Translator:
    """One seat of kuhn3 as ACPC states (kuhn.limit.3p).

    Works in the seat's local view (local 0 is this seat, +1 clockwise).
    Positions: position 0 is the seat clockwise of the button, the first to
    act; the button is position 2. The dealer's ``play`` lines show each
    seat's latest action only, so the betting is replayed by the rules, each
    seat's move read from its line (or, after the last request, from the
    true amounts in front at ``end_hand``).
    """

    def __init__(self, button0: int) -> None:
        self.button = (button0 - 1) % 3  # moved one seat before every hand, the first included
        self.totals = [0, 0, 0]
        self.hand = -1
        self.sent = ""
        self.asked = False

    def start_hand(self, hand: int, card: str) -> list[str]:
        self.hand = hand
        self.button = (self.button + 1) % 3
        self.order = [(self.button + 1 + p) % 3 for p in range(3)]  # local seats by position
        self.me = self.order.index(0)
        self.card = card + "c"
        self.front = [1, 1, 1]  # by position
        self.folded = [False] * 3
        self.bettor: int | None = None
        self.responded: set[int] = set()
        self.next = 0  # the position to act (None once betting is over)
        self.tokens: list[str] = []
        self.shown = ["", "", ""]
        self.shown[self.me] = self.card
        return [] if self.next == self.me else [self._send()]

    def _apply(self, p: int, token: str) -> None:
        if token == "f":
            self.folded[p] = True
        elif token == "r":
            self.front[p] = 2
            self.bettor = p
        elif self.bettor is not None:
            self.front[p] = 2
        if self.bettor is not None and p != self.bettor:
            self.responded.add(p)
        self.tokens.append(token)
        self.next = self._after(p)

    def _after(self, p: int) -> int | None:
        live = [q for q in range(3) if not self.folded[q]]
        if len(live) <= 1:
            return None
        if self.bettor is None:
            return None if p == 2 else p + 1  # the first pass ends when the button checks
        for k in range(1, 3):
            q = (p + k) % 3
            if q != self.bettor and not self.folded[q] and q not in self.responded:
                return q
        return None

    def _token(self, p: int, amount: int, fold: bool) -> str:
        if fold:
            return "f"
        if amount > self.front[p]:
            return "r" if self.bettor is None else "c"
        return "f" if self.bettor is not None else "c"

    def play(self, actions: list[tuple[str, int]]) -> list[str]:
        """A ``play`` request: ``actions`` are the (verb, in front) lines in local order."""
        while self.next is not None and self.next != self.me:
            p = self.next
            verb, amount = actions[self.order[p]]
            self._apply(p, self._token(p, amount, verb == "FOLD"))
        self.asked = True
        return [self._send()]

    def end_hand(self, amounts: list[int], showdown: list[str], pots: list[tuple[int, int]]) -> list[str]:
        """``end_hand``: the true amounts in front, the cards shown, the pots (local winner) — all local."""
        while self.next is not None:
            p = self.next
            final = amounts[self.order[p]]
            self._apply(p, self._token(p, final, False))
        for p in range(3):
            card = showdown[self.order[p]]
            if card != "-":
                self.shown[p] = card + "c"
        for i in range(3):
            self.totals[i] -= amounts[i]
        for value, winner in pots:
            self.totals[winner] += value
        return [self._send()]

    def _send(self) -> str:
        self.sent = f"MATCHSTATE:{self.me}:{self.hand}:{''.join(self.tokens)}:{'|'.join(self.shown)}"
        return self.sent

    def reply(self, line: str) -> str:
        """The arena's reply (``BET n`` or ``FOLD n``) to the agent's response ``line``; AcpcFault if none."""
        state = self.sent
        if not self.asked:
            raise AcpcFault(f"sent {line!r} when it was not its turn; expected nothing")
        self.asked = False
        expected = f"the state it was sent followed by :f, :c or :r, i.e. {state}:c"
        head, colon, action = line.rpartition(":")
        if not colon or not head.startswith("MATCHSTATE:"):
            raise AcpcFault(f"sent {line!r}, which is not an ACPC response; expected {expected}")
        if head != state:
            raise AcpcFault(f"answered another state: sent {line!r}; expected a response to {state!r}")
        p = self.me
        if action in ("r", "r2") and self.bettor is None:
            token = "r"
        elif action == "c" or (action == "f" and self.bettor is None):
            token = "c"  # a fold where a check is free is the check it means, as ACPC's dealer takes it
        elif action == "f":
            token = "f"
        elif action.startswith("r") and self.bettor is not None:
            raise AcpcFault(f"raised in {line!r}, and the one bet of the hand was made; expected :c or :f")
        else:
            raise AcpcFault(f"sent the action {action!r} in {line!r}; expected {expected}")
        before = self.front[p]
        self._apply(p, token)
        if token == "f":
            return f"FOLD {before}"
        return f"BET {self.front[p]}"

    def money(self) -> str:
        return "Money: " + ",".join(map(str, self.totals))


_KUHN3_BLOCKS = {"init_round": 5, "init_hand": 3, "play": 4, "end_hand": 6, "end_round": 3}


class Kuhn3Log:
    """kuhn3 hands as the ACPC dealer logs them (``STATE:`` lines), read from
    the blocks sent to the seats and seat 0's replies (the trace hook)."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.done: list[str] = []
        self._pending: dict[int, list[str]] = {}
        self._cards: dict[int, str] = {}
        self._tr: Kuhn3Translator | None = None

    def sent(self, seat: int, text: str) -> None:
        for line in text.splitlines():
            pending = self._pending.setdefault(seat, [])
            pending.append(line)
            size = 3 if pending[0].startswith("EndAction:") else _KUHN3_BLOCKS.get(pending[0], 1)
            if len(pending) == size:
                del self._pending[seat]
                self._block(seat, pending)

    def received(self, seat: int, text: str) -> None:
        tr = self._tr
        if seat != 0 or tr is None or not tr.asked:
            return
        verb, _, amount = text.strip().partition(" ")
        if verb == "FOLD":
            token = "f"
        elif amount.isdigit() and int(amount) > tr.front[tr.me] and tr.bettor is None:
            token = "r"
        else:
            token = "c"
        tr.reply(f"{tr.sent}:{token}")

    def _block(self, seat: int, lines: list[str]) -> None:
        head = lines[0]
        value = [line.split(":", 1)[1].strip() for line in lines[1:]]
        if head == "init_hand":
            self._cards[seat] = value[1] + "c"
        if seat != 0:
            return
        if head == "init_round":
            self._tr = Kuhn3Translator(int(value[2]))
        elif self._tr is None:
            return
        elif head == "init_hand":
            self._tr.start_hand(int(value[0]), value[1])
        elif head == "play":
            self._tr.play([(a.split()[0], int(a.split()[1])) for a in value[:3]])
        elif head == "end_hand":
            tr = self._tr
            amounts = [int(a.split()[1]) for a in value[:3]]
            pots = [tuple(map(int, pot.split(","))) for pot in value[4].split()]
            tr.end_hand(amounts, value[3].split(","), pots)  # type: ignore[arg-type]
            net = [-a for a in amounts]
            for pot, winner in pots:
                net[winner] += pot
            order = tr.order  # seat 0's local seats are the canonical ones
            self.done.append(
                f"STATE:{tr.hand}:{''.join(tr.tokens)}:{'|'.join(self._cards.get(s, '') for s in order)}"
                f":{'|'.join(str(net[s]) for s in order)}:{'|'.join(_name(self.names[s]) for s in order)}\n")

    def acpc_log(self) -> str:
        return "".join(self.done)


def _name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-+=" else "_" for c in name) or "_"
