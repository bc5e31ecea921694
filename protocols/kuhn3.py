"""The 3-player Kuhn text protocol, as a sans-I/O dealer dialogue.

``Kuhn3Dealer.run()`` is a generator: it yields ``Exchange`` objects (what to
write to which seat) and is sent back the reply lines, in the order the
messages were written. It reads like the seed's choreography:

    init_round -> READY
    per hand:  init_hand -> READY
               play -> <BET|FOLD> <in front>      (the seat to act, until betting ends)
               end_hand -> OK|REBUY               (every seat, from the one after the last actor)
               EndAction x3 -> Money: m0,m1,m2    (the bot's own belief, checked)
    end_round -> Thank you dealer, have a nice day!

Every list is rotated so that index 0 is the receiving seat. Choices where
the seed is silent are listed in docs/protocols/kuhn3.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import random

import games.kuhn3
from games import GameSpec, IllegalAction
from games.kuhn3 import SEATS, Action, Kuhn3Params, Kuhn3Round, Phase

from ._builtin import BuiltinGame
from ._contract import Exchange, MatchOutcome
from ._errors import ProtocolError

CLOSING = "Thank you dealer, have a nice day!"

# Replies: one space between verb and amount, optional spaces after commas,
# trailing whitespace (and so CRLF) ignored. ASCII digits only and at most 18
# of them, so that any line parses to an int or becomes a protocol error.
_ACTION = re.compile(r"([A-Z]+) (-?[0-9]{1,18})", re.ASCII)
_MONEY = re.compile(r"Money: ?(-?[0-9]{1,18}) ?, ?(-?[0-9]{1,18}) ?, ?(-?[0-9]{1,18})", re.ASCII)
_REPLY_VERBS = ("BET", "FOLD", "PASS")

Chance = Callable[[Kuhn3Round], object]


def _local(values: list[int] | tuple[int, ...], receiver: int) -> str:
    """A list in the receiver's view: its own entry first, then clockwise."""
    return f"{values[receiver]},{values[(receiver + 1) % 3]},{values[(receiver + 2) % 3]}"


_action_lines: dict[Action, str] = {}


def _action_line(action: Action) -> str:
    # Few distinct actions occur; formatting each once keeps the hot path lean.
    line = _action_lines.get(action)
    if line is None:
        line = _action_lines[action] = f"Action: {action.verb} {action.amount}\n"
    return line


def parse_action(seat: int, line: str, expected: str | Callable[[], str]) -> Action:
    """Parse a reply to ``play`` (syntax only; the rules engine checks legality)."""
    text = line.rstrip()
    match = _ACTION.fullmatch(text)
    if match is not None and match.group(1) in _REPLY_VERBS:
        return Action(match.group(1), int(match.group(2)))
    if callable(expected):
        expected = expected()
    if match is None:
        verb = text.split(" ", 1)[0] if text else ""
        if verb and verb not in _REPLY_VERBS and verb.isupper():
            reason = f"unknown verb {verb!r}; an action is BET <amount> or FOLD <amount>"
        elif not text:
            reason = "empty line where an action was expected"
        else:
            reason = "not an action of the form '<BET|FOLD|PASS> <total in front>'"
        raise ProtocolError(seat, "malformed_reply", line, expected, reason)
    verb = match.group(1)
    if verb not in _REPLY_VERBS:
        raise ProtocolError(
            seat, "malformed_reply", line, expected,
            f"unknown verb {verb!r}; an action is BET <amount> or FOLD <amount>",
        )
    return Action(verb, int(match.group(2)))


def parse_money(seat: int, line: str) -> tuple[int, int, int] | None:
    match = _MONEY.fullmatch(line.rstrip())
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


class Kuhn3Dealer:
    """Runs one kuhn3 round over the text protocol.

    ``chance`` resolves every chance step of the engine (button, deals, the
    end of the round); the arena passes one drawn from the match seed, tests
    pass rigged ones.
    """

    def __init__(self, params: Kuhn3Params, chance: Chance) -> None:
        self.params = params
        self.round = Kuhn3Round(params)
        self._chance = chance
        self._closing = False  # end_round has been sent

    def context(self) -> dict[str, int | None]:
        """The hand being played, or None before the first and at end_round."""
        hand = self.round.hand
        return {"hand": hand if hand >= 0 and not self._closing else None}

    def standings(self) -> tuple[int, list[int]]:
        """Hands completed so far and every seat's running total."""
        return self.round.hands_played, list(self.round.money)

    def scores(self) -> list[float]:
        """bankroll / sqrt(hands), as the original dealer reported."""
        n = self.round.hands_played
        return [m / n**0.5 if n else 0.0 for m in self.round.money]

    def tournament_scores(self) -> list[float]:
        """Tournaments rank kuhn3 bots by chips won (bankroll), not bankroll / sqrt(hands)."""
        return [float(m) for m in self.round.money]

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule: a faulting seat loses what it has in front in the hand
        being played, on top of its deficit; a lead is never kept."""
        r = self.round
        scores = self.tournament_scores()
        at_stake = r.in_front[seat] if r.phase is Phase.BETTING else 0
        scores[seat] = float(min(r.money[seat], 0) - at_stake)
        return scores

    # -- rendering ------------------------------------------------------------

    def _init_round(self, seat: int) -> bytes:
        r, p = self.round, self.params
        a, b = p.announced_end_prob()
        return (
            f"init_round\nMoney: {_local(r.money, seat)}\nBlinds: {_local(p.antes, seat)}\n"
            f"Button: {(r.first_button - seat) % SEATS}\nEndProb: {a},{b}\n"
        ).encode()

    def _init_hand(self, seat: int) -> bytes:
        r = self.round
        return f"init_hand\nHand: {r.hand}\nCards: {r.cards[seat]}\n".encode()

    def _actions(self, actions: list[Action] | tuple[Action, ...], seat: int) -> str:
        return (
            _action_line(actions[seat])
            + _action_line(actions[(seat + 1) % 3])
            + _action_line(actions[(seat + 2) % 3])
        )

    def _play(self, seat: int) -> bytes:
        return ("play\n" + self._actions(self.round.latest, seat)).encode()

    def _end_hand(self, seat: int) -> bytes:
        res = self.round.last_result
        assert res is not None
        actions = list(res.actions)
        # Seats whose turn never came, from the one after the last actor up to
        # this receiver, are reported as PASS with what they have in front.
        s = (res.last_actor + 1) % SEATS
        while s != seat:
            actions[s] = Action("PASS", res.in_front[s])
            s = (s + 1) % SEATS
        shown = ",".join(res.shown[(seat + i) % SEATS] or "-" for i in range(SEATS))
        pots = " ".join(f"{value},{(winner - seat) % SEATS}" for value, winner in res.pots)
        return (
            "end_hand\n" + self._actions(actions, seat) + f"Showdown: {shown}\nPots: {pots}\n"
        ).encode()

    # -- the dialogue ---------------------------------------------------------

    def _expect_exact(self, seat: int, line: str, want: str) -> None:
        if line.rstrip() != want:
            raise ProtocolError(seat, "malformed_reply", line, want, f"expected exactly {want!r}")

    def _end_of_hand(self):  # -> Dialogue step
        """end_hand (OK or REBUY), then the three EndAction lines and the bots' totals check."""
        r = self.round
        result = r.last_result
        assert result is not None
        order = [(result.last_actor + k) % SEATS for k in range(1, SEATS + 1)]
        replies = yield Exchange([(s, self._end_hand(s)) for s in order], "OK or REBUY")
        answers = [""] * SEATS
        for s, line in zip(order, replies):
            answer = line.rstrip()
            if answer not in ("OK", "REBUY"):
                raise ProtocolError(
                    s, "malformed_reply", line, "OK or REBUY",
                    "end_hand is answered with OK (or REBUY, which changes nothing here)",
                )
            answers[s] = answer
        endaction = [
            "".join(f"EndAction: {answers[(s + i) % SEATS]}\n" for i in range(SEATS)).encode()
            for s in range(SEATS)
        ]
        replies = yield Exchange(
            [(s, endaction[s]) for s in order], "Money: <m0>,<m1>,<m2>"
        )
        for s, line in zip(order, replies):
            want = _local(r.money, s)
            believed = parse_money(s, line)
            if believed is None:
                raise ProtocolError(
                    s, "malformed_reply", line, f"Money: {want}",
                    "expected the totals check 'Money: <m0>,<m1>,<m2>'",
                )
            if ",".join(map(str, believed)) != want:
                raise ProtocolError(
                    s, "illegal_action", line, f"Money: {want}",
                    f"wrong totals after hand {r.hand}: the bot believes "
                    f"{','.join(map(str, believed))}, the dealer has {want} (local view)",
                )

    def run(self):  # -> Dialogue
        r = self.round
        r.apply_chance(self._chance(r))  # where the button starts
        replies = yield Exchange([(s, self._init_round(s)) for s in range(SEATS)], "READY")
        for s, line in enumerate(replies):
            self._expect_exact(s, line, "READY")

        while r.phase is not Phase.OVER:
            r.apply_chance(self._chance(r))  # the deal
            replies = yield Exchange([(s, self._init_hand(s)) for s in range(SEATS)], "READY")
            for s, line in enumerate(replies):
                self._expect_exact(s, line, "READY")

            while r.phase is Phase.BETTING:
                seat = r.to_act
                # What is legal is put in words only when a report needs it.
                (line,) = yield Exchange([(seat, self._play(seat))], r.describe_legal)
                try:
                    r.apply_action(seat, parse_action(seat, line, r.describe_legal))
                except IllegalAction as exc:
                    raise ProtocolError(
                        seat, "illegal_action", line, r.describe_legal(), str(exc)
                    ) from None

            yield from self._end_of_hand()
            if r.phase is Phase.CONTINUE:
                r.apply_chance(self._chance(r))  # does the round end here?

        self._closing = True
        bankrolls = [
            (f"end_round\nBankrolls: {_local(r.money, s)}\nNumHands: {r.hands_played}\n").encode()
            for s in range(SEATS)
        ]
        replies = yield Exchange([(s, bankrolls[s]) for s in range(SEATS)], repr(CLOSING))
        for s, line in enumerate(replies):
            self._expect_exact(s, line, CLOSING)
        return MatchOutcome(payoffs=list(r.money), hands=r.hands_played)


def seeded_chance(rng) -> Chance:
    """Resolve every chance step of a round from one ``random.Random``."""

    def resolve(r: Kuhn3Round) -> object:
        if r.phase is Phase.BUTTON:
            return rng.randrange(SEATS)
        if r.phase is Phase.DEAL:
            return tuple(rng.sample(("J", "Q", "K", "A"), SEATS))
        a, b = r.params.end_prob
        return rng.randrange(b) < a

    return resolve


class Kuhn3Plugin(BuiltinGame):
    spec = GameSpec(
        id="kuhn3",
        version=1,
        title="3-player Kuhn poker",
        min_seats=3,
        max_seats=3,
        description="Four cards, one each, antes of 1, one bet to 2; the seed's text protocol.",
    )
    Params = Kuhn3Params
    rules = games.kuhn3.__doc__ or ""
    #: the text protocol has no match boundaries: one process per round
    reusable_processes = False
    #: the longest reply line accepted (the longest valid one, 'Money: ...', is under 80)
    max_reply_bytes = 256
    round_note = "every ordered choice of 3 entrants (each in every seat)"
    playthrough_matches = (({"hands": 6}, 7),)

    def open_dialogue(self, params: Kuhn3Params, rng: random.Random, names: list[str] | None = None,
                      match_index: int = 0) -> Kuhn3Dealer:
        return Kuhn3Dealer(params, seeded_chance(rng))

    def random_reply(self, run: Kuhn3Dealer, seat: int, payload: bytes, rng: random.Random) -> str:
        head = payload.split(b"\n", 1)[0]
        r = run.round
        if head in (b"init_round", b"init_hand"):
            return "READY"
        if head == b"play":
            return str(rng.choice(r.legal_actions())[0])
        if head == b"end_hand":
            return "OK"
        if head.startswith(b"EndAction"):
            return "Money: " + _local(r.money, seat)
        if head == b"end_round":
            return CLOSING
        raise ValueError(f"kuhn3 sends no message {head!r}")



PLUGIN = Kuhn3Plugin()
