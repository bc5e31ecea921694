"""What the arena itself knows of ACPC, in Python: which matches an ACPC
agent cannot play (checked at the command line, before anything starts),
and kuhn3 hands as the ACPC dealer logs them (``--acpc-log``).

The live translation, between the game's messages and an agent's
MATCHSTATE lines, is the relay's (``relay.c``; docs/acpc.md): holdem's
positions and ``r<N>`` amounts are there only. kuhn3's replay of the betting
is here too, for the log, which is read from the lines sent to the seats;
tests/protocols/test_acpc_translate.py holds the relay's states to it.
"""

from __future__ import annotations

from .. import kuhn3_wire as wire


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


# -- kuhn3 ----------------------------------------------------------------------

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
        self.next: int | None = 0  # the position to act (None once betting is over)
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


class Kuhn3Log:
    """kuhn3 hands as the ACPC dealer logs them (``STATE:`` lines), read from
    the messages sent to the seats (``kuhn3_wire.SeatReader``) and seat 0's
    replies (the trace hook)."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.done: list[str] = []
        self._readers: dict[int, wire.SeatReader] = {}
        self._cards: dict[int, str] = {}
        self._tr: Kuhn3Translator | None = None

    def sent(self, seat: int, text: str) -> None:
        reader = self._readers.get(seat)
        if reader is None:
            reader = self._readers[seat] = wire.SeatReader()
        for line in text.splitlines():
            event = reader.feed(line)
            if event is not None:
                self._told(seat, event)

    def received(self, seat: int, text: str) -> None:
        tr = self._tr
        if seat != 0 or tr is None or not tr.asked:
            return
        reply = wire.read_action(text)
        if reply.verb == "FOLD":
            token = "f"
        elif reply.amount.isdigit() and int(reply.amount) > tr.front[tr.me] and tr.bettor is None:
            token = "r"
        else:
            token = "c"
        tr.reply(f"{tr.sent}:{token}")

    def _told(self, seat: int, event: wire.Message) -> None:
        if isinstance(event, wire.HandDealt):
            self._cards[seat] = event.card + "c"
        if seat != 0:
            return
        if isinstance(event, wire.RoundStarted):
            self._tr = Kuhn3Translator(event.button)
        elif self._tr is None:
            return
        elif isinstance(event, wire.HandDealt):
            self._tr.start_hand(event.hand, event.card)
        elif isinstance(event, wire.YourTurn):
            self._tr.play([(a.verb, a.amount) for a in event.actions])
        elif isinstance(event, wire.HandEnded):
            self._hand_ended(self._tr, event)

    def _hand_ended(self, tr: Kuhn3Translator, event: wire.HandEnded) -> None:
        amounts = [a.amount for a in event.actions]
        pots = [(pot.amount, pot.winner) for pot in event.pots]
        tr.end_hand(amounts, ["-" if card is None else card for card in event.showdown], pots)
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
