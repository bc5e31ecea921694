"""What the arena itself knows of ACPC, in Python: which matches an ACPC
agent cannot play (checked at the command line, before anything starts),
the words of an agent's wrong response, and kuhn3 hands as the ACPC dealer
logs them (``--acpc-log``).

The live translation, between the game's messages and an agent's
MATCHSTATE lines, is in C (docs/acpc.md): hold'em's in the codec (and the
relay under ``--acpc-lenient``), kuhn3's in the relay. kuhn3's replay of
the betting is here too, for the log, which is read from the lines sent to
the seats; tests/protocols/test_acpc_translate.py holds the relay's states
to it, and tests/protocols/test_acpc_dealer.py both to the ACPC dealer's.
"""

from __future__ import annotations

import json
from typing import Any

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
    if params.get("stack", 400) < params.get("big_blind", 2):
        return ("the ACPC dealer refuses a game definition whose blind is above a player's stack: play ACPC agents "
                "with a stack of at least the big blind")
    if params.get("gamedef") is not None:
        return _gamedef_refusal(params["gamedef"])
    return None


#: ACPC's MAX_NUM_ACTIONS (game.h): the actions of one round
DEALER_ACTIONS = 64


def _gamedef_refusal(gamedef: Any) -> str | None:
    """Why a match of this game definition (``params["gamedef"]``: a ``GameDef``'s values) cannot be
    played by an ACPC agent (None: it can). The relay (relay.c's ``refusal``) says the same."""
    from games.holdem._gamedef import DEFAULT_STACK, GameDef

    try:
        g = gamedef if isinstance(gamedef, GameDef) else GameDef.model_validate(gamedef)
    except ValueError:
        return ("the match's gamedef is not a whole ACPC game definition (its every key, as the arena writes one), "
                "and ACPC agents are given the match's own")
    n = g.num_players
    if n == 2 and g.blind[0] == g.blind[1]:
        # the arena takes the button's blind as the largest posted (a tie goes to the later position)
        return ("heads-up with equal blinds the arena asks the big blind first before the flop, and this game "
                "definition the button (firstPlayer = 2): ACPC agents would be asked out of turn; play them with "
                "a big blind above the small blind")
    if not g.limit:
        return None
    for cap in g.max_raises:
        # the dealer refuses a raise once the round's actions and a call from every player could pass its
        # limit; the k-th raise of a round comes after at most k * (n - 1) actions
        if cap * (n - 1) + n > DEALER_ACTIONS:
            return (f"the ACPC dealer allows no raise that could take a round past {DEALER_ACTIONS} actions, and a "
                    f"cap of {cap} bets and raises a round can with {n} players: play ACPC agents with maxRaises "
                    f"of at most {(DEALER_ACTIONS - n) // (n - 1)} a round")
    most = g.most_put_in()
    if g.stack[0] < most:
        return ("in a limit game whose stacks can run out the ACPC dealer's betting is not the arena's (it lets "
                "a seat that can only call raise, and a short all-in reopen the betting): play ACPC agents with "
                f"stacks of at least {most}, what the caps let a seat put in (or no stack line: ACPC's "
                f"{DEFAULT_STACK})")
    return None


#: each fault line's code: what the agent sent ({action}: the action it wrote), in the ACPC
#: dealer's words where it has some, and what the dealer does with it
_DEALER_DOES = {
    "comment": ("a comment line", "skips it"),
    "bad_state": ('a line that is not a state the ACPC dealer can read (its "bad state format in response")',
                  "skips it"),
    "other_state": ('a response to another state than the one it was sent (the ACPC dealer\'s "un-requested '
                    'response")', "skips it"),
    "bad_action": ('the action {action}, which the ACPC dealer cannot read (its "bad action format in response")',
                   "takes it as c"),
    "invalid_action": ("the raise {action} where no raise is allowed (the ACPC dealer's \"invalid action\")",
                       "takes it as c"),
    "raise_size": ("the raise {action}, outside the sizes allowed (the ACPC dealer's \"invalid action\")",
                   "brings it to the nearest size allowed"),
}


def agent_fault(line: str) -> tuple[str, str, str, str] | None:
    """The fault an ACPC agent's wrong response is, from the fault line the
    relay or the codec puts in place of the seat's reply (acpc_text.h's
    ``acpc_fault``), in ACPC's words: ``(kind, detail, received, expected)``,
    ``received`` being the agent's own line. None: ``line`` is not one."""
    if not line.startswith('{"acpc_fault"'):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    code, received = str(data.get("acpc_fault")), str(data.get("received", ""))
    if code == "version":
        return ("malformed_reply", f"ACPC agent sent {received!r} on connecting; expected VERSION:2.0.0",
                received, "VERSION:2.0.0")
    state, letters = str(data.get("state", "")), str(data.get("actions", "c"))
    low, high = data.get("min"), data.get("max")
    choices = [":c"] + [":f"] * ("f" in letters) + [":r<N>" if low is not None else ":r"] * ("r" in letters)
    expected = (f"a response to {state!r}: that state followed by {', '.join(choices[:-1])}"
                f"{' or ' if len(choices) > 1 else ''}{choices[-1]}")
    if low is not None and "r" in letters:
        expected += f", N from {low} to {high} (its chips in the hand after raising)"
    what, does = _DEALER_DOES.get(code, (code, "ends the match"))
    detail = (f"ACPC agent sent {what.format(action=repr(str(data.get('action', ''))))}; the dealer {does}, and "
              "so does --acpc-lenient")
    kind = "illegal_action" if code in ("invalid_action", "raise_size") else "malformed_reply"
    return kind, detail, received, expected


# -- kuhn3 ----------------------------------------------------------------------

def kuhn3_refusal(params: dict) -> str | None:
    """Why a kuhn3 match cannot be played by an ACPC agent (None: it can)."""
    if tuple(params.get("antes", (1, 1, 1))) != (1, 1, 1) or params.get("max_bet", 2) != 2:
        return "the ACPC kuhn.limit.3p game has antes of 1,1,1 and a bet to 2: play ACPC agents with those"
    return None


class Kuhn3Translator:
    """One seat of kuhn3 as ACPC states (kuhn.limit.3p), as the relay translates it.

    Works in the seat's local view (local 0 is this seat, +1 clockwise).
    Positions: position 0 is the seat clockwise of the button, the first to
    act; the button is position 2. The dealer's ``play`` lines show each
    seat's latest action only, so the betting is replayed by the rules, each
    seat's move read from its line (or, after the last request, from the
    true amounts in front at ``end_hand``). As the ACPC dealer does, the
    agent gets the state before the first action, one after each action,
    and the final one with the cards shown; they wait in ``queue`` for the
    next one it must answer (``play``) or the end (``flush``). Cards are the
    ACPC deck's: Js, Qs, Ks, As.
    """

    def __init__(self, button0: int) -> None:
        self.button = (button0 - 1) % 3  # moved one seat before every hand, the first included
        self.totals = [0, 0, 0]
        self.hand = -1
        self.sent = ""
        self.asked = False
        self.queue: list[str] = []

    def start_hand(self, hand: int, card: str) -> None:
        self.hand = hand
        self.button = (self.button + 1) % 3
        self.order = [(self.button + 1 + p) % 3 for p in range(3)]  # local seats by position
        self.me = self.order.index(0)
        self.front = [1, 1, 1]  # by position
        self.folded = [False] * 3
        self.bettor: int | None = None
        self.responded: set[int] = set()
        self.next: int | None = 0  # the position to act (None once betting is over)
        self.tokens: list[str] = []
        self.shown = ["", "", ""]
        self.shown[self.me] = card[:1] + "s"
        self._send()  # the state before the first action

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
        if self.next is not None:  # the last state waits for the cards shown
            self._send()

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
        """A ``play`` request: ``actions`` are the (verb, in front) lines in local order.
        The states sent now, the last of them the one to answer."""
        while self.next is not None and self.next != self.me:
            p = self.next
            verb, amount = actions[self.order[p]]
            self._apply(p, self._token(p, amount, verb == "FOLD"))
        self.asked = True
        return self.flush()

    def end_hand(self, amounts: list[int], showdown: list[str], pots: list[tuple[int, int]]) -> None:
        """``end_hand``: the true amounts in front, the cards shown, the pots (local winner) — all local."""
        while self.next is not None:
            p = self.next
            final = amounts[self.order[p]]
            self._apply(p, self._token(p, final, False))
        for p in range(3):
            card = showdown[self.order[p]].strip()
            if card not in ("-", ""):
                self.shown[p] = card[:1] + "s"
        for i in range(3):
            self.totals[i] -= amounts[i]
        for value, winner in pots:
            self.totals[winner] += value
        self._send()  # the final state

    def _send(self) -> None:
        self.sent = f"MATCHSTATE:{self.me}:{self.hand}:{''.join(self.tokens)}:{'|'.join(self.shown)}"
        self.queue.append(self.sent)

    def flush(self) -> list[str]:
        """The states waiting, now sent."""
        out, self.queue = self.queue, []
        return out

    def reply(self, line: str) -> str:
        """The arena's reply (``BET n`` or ``FOLD n``) to the agent's response ``line``,
        written as the state sent, ':' and one letter; AcpcFault if it is not one."""
        state = self.sent
        if not self.asked:
            raise AcpcFault(f"sent {line!r} when it was not its turn; expected nothing")
        self.asked = False
        head, colon, action = line.rpartition(":")
        if not colon or head != state or action not in ("c", "f", "r"):
            raise AcpcFault(f"sent {line!r}; expected a response to {state!r}, such as {state}:c")
        if action == "r" and self.bettor is not None:
            raise AcpcFault(f"raised in {line!r}, and the one bet of the hand was made; expected :c or :f")
        p = self.me
        token = "c" if action == "f" and self.bettor is None else action  # a free fold is the check it means
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
            self._cards[seat] = event.card + "s"
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
            self._tr.flush()  # the log needs the betting only

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
