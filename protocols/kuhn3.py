"""The 3-player Kuhn text protocol, as a sans-I/O dealer dialogue.

``Kuhn3Dealer.run()`` is a generator: it yields ``Exchange`` objects (what to
write to which seat) and is sent back the reply lines, in the order the
messages were written. Underneath it is a state machine (``step`` says which
exchange comes next, ``next_exchange``/``feed`` play one), so the dialogue can
stop between any two exchanges and ``resume()`` from its state. The rules
are the C engine's (``games.kuhn3.Kuhn3Round``); the compiled dialogue beside
this file (kuhn3_compiled.c) includes that engine and plays on the dealer's
own round in place, sharing with this dialogue only the step and the answers
to end_hand (``KUHN3_COMPILED``). The choreography:

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
from enum import IntEnum
from collections.abc import Callable, Sequence

import random
from pathlib import Path
from typing import Any

import games.kuhn3
from games import GameSpec, IllegalAction
from games.kuhn3 import SEATS, Action, Kuhn3Params, Kuhn3Round, Phase, engine_params

from ._builtin import SAMPLE_BOTS, BuiltinGame
from ._contract import CompiledDialogue, DemoBot, Exchange, MatchIndex, MatchOutcome
from . import kuhn3_wire as wire
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn

CLOSING = "Thank you dealer, have a nice day!"

# Replies: one space between verb and amount, optional spaces after commas,
# trailing whitespace (and so CRLF) ignored. ASCII digits only and at most 18
# of them, so that any line parses to an int or becomes a protocol error.
_ACTION = re.compile(r"([A-Z]+) (-?[0-9]{1,18})", re.ASCII)
_REPLY_VERBS = ("BET", "FOLD", "PASS")

Chance = Callable[[Kuhn3Round], object]


# The codes of the answers to end_hand in ``Kuhn3Dealer.native_state``
# (kuhn3_compiled.c's ANSWER).
_ANSWERS = ("", "OK", "REBUY")
_ANSWER_CODE = {a: i for i, a in enumerate(_ANSWERS)}


class Step(IntEnum):
    """Which exchange of the dialogue comes next."""

    INIT_ROUND = 0
    INIT_HAND = 1
    PLAY = 2
    END_HAND = 3
    END_ACTION = 4
    END_ROUND = 5
    DONE = 6


#: The compiled twin of the dialogue (kuhn3_compiled.c). It includes the
#: engine's source (one copy of the rules) and works on the dealer's own
#: Kuhn3Round in place, so the state it shares with this dialogue is only
#: where the dialogue stands: the step and each seat's answer to end_hand.
#: This layout is that state's only declaration (the C struct K3State is
#: generated from it).
KUHN3_COMPILED = CompiledDialogue(
    source=Path(__file__).with_name("kuhn3_compiled.c"),
    function="kuhn3_play",
    struct="K3State",
    layout=(("step", 1), ("answers", SEATS)),
    # init_round and end_round stay in Python
    steps=frozenset({Step.INIT_HAND, Step.PLAY, Step.END_HAND, Step.END_ACTION}),
    includes=(Path(games.kuhn3.__file__).with_name("_engine.c"),),
)


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
    match = wire.MONEY_REPLY.fullmatch(line.rstrip())
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
        self.step = Step.INIT_ROUND
        self.answers = ["", "", ""]  # each seat's answer to end_hand, for EndAction
        #: the seats ACPC agents play (the match sets it, docs/acpc.md): their end_hand shows every
        #: card not folded at a showdown, as the ACPC dealer shows them, not only those kuhn3's muck turns up
        self.acpc_seats: frozenset[int] = frozenset()

    def context(self) -> dict[str, int | None]:
        """The hand being played, or None before the first and at end_round."""
        hand = self.round.hand
        return {"hand": hand if hand >= 0 and self.step < Step.END_ROUND else None}

    def standings(self) -> tuple[int, list[int]]:
        """Hands completed so far and every seat's running total."""
        return self.round.hands_played, list(self.round.money)

    def scores(self) -> list[float]:
        """bankroll / sqrt(hands), as the original dealer reported."""
        n = self.round.hands_played
        return [m / n**0.5 if n else 0.0 for m in self.round.money]

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now: the parameters, where the round stands
        (exchange, hand, button), every total, this hand's actions and what
        each seat has in front, the seats' answers to end_hand, its own card,
        and of the last finished hand only what its showdown turned up (the
        mucked and folded cards stay hidden)."""
        r = self.round
        result = r.last_result
        public_result = None if result is None else (
            result.number, result.button, result.actions, result.in_front, result.last_actor, result.shown,
            result.pots)
        return (seat, self.params, int(self.step), r.phase.value, r.hand, r.hands_played, r.first_button,
                r.button, tuple(r.money), r.cards[seat], tuple(r.latest), tuple(r.in_front), r.price,
                tuple(r.folded), r.to_act, tuple(r._pending), tuple(self.answers), public_result)

    def tournament_scores(self) -> list[float]:
        """Tournaments rank kuhn3 bots by chips won (bankroll), not bankroll / sqrt(hands)."""
        return [float(m) for m in self.round.money]

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule, the worst legal continuation: the faulting seat keeps
        its chips so far and loses the most a hand can cost (the larger of
        ``max_bet`` and the antes) in the hand in play and in every hand still
        to come: all of them with ``hands``, the expected number (b/a from a
        hand in play, (b-a)/a between hands) when the round ends by chance."""
        r = self.round
        p = r.params
        scores = self.tournament_scores()
        worst = max(p.max_bet, *p.antes)
        if r.phase is Phase.OVER:
            left = 0.0
        elif p.hands is not None:
            left = float(p.hands - r.hands_played)
        else:
            a, b = p.end_prob
            left = (b - a) / a if r.phase is Phase.CONTINUE else b / a
        scores[seat] = float(r.money[seat]) - worst * left
        return scores

    # -- where the dialogue stands, for the compiled loop ----------------------

    #: the compiled twin of this dialogue (``protocols.CompiledDialogue``)
    compiled = KUHN3_COMPILED

    def native_chance(self) -> tuple[Kuhn3Round, SeededChance] | None:
        """The round the compiled dialogue plays on (in place) and the chance
        it draws deals and ends from, when that chance is the seeded kind (a
        rigged test dialogue keeps the Python path)."""
        chance = self._chance
        if self.acpc_seats:  # the compiled end_hand knows kuhn3's muck only
            return None
        return (self.round, chance) if isinstance(chance, SeededChance) else None

    def native_state(self) -> dict[str, int | tuple[int, ...]]:
        """What the dialogue holds beside its round, by field of ``KUHN3_COMPILED.layout``."""
        return {"step": int(self.step), "answers": tuple(_ANSWER_CODE[a] for a in self.answers)}

    def load_native_state(self, v: dict[str, Any]) -> None:
        """The inverse of ``native_state``: take over where the compiled dialogue
        stopped (it has moved the round itself)."""
        self.step = Step(v["step"])
        self.answers = [_ANSWERS[a] for a in v["answers"]]

    def native_params(self) -> tuple[int, ...]:
        """The round's parameters as the engine reads them (``games.kuhn3.engine_params``)."""
        return engine_params(self.params)

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
        cards = res.shown
        if seat in self.acpc_seats and sum(a.verb != "FOLD" for a in res.actions) > 1:
            cards = tuple(None if a.verb == "FOLD" else c for a, c in zip(res.actions, res.cards))
        shown = ",".join(cards[(seat + i) % SEATS] or "-" for i in range(SEATS))
        pots = " ".join(f"{value},{(winner - seat) % SEATS}" for value, winner in res.pots)
        return (
            "end_hand\n" + self._actions(actions, seat) + f"Showdown: {shown}\nPots: {pots}\n"
        ).encode()

    def _expect_exact(self, seat: int, line: str, want: str) -> None:
        if line.rstrip() != want:
            raise ProtocolError(seat, "malformed_reply", line, want, f"expected exactly {want!r}")

    def _end_order(self) -> list[int]:
        """end_hand and EndAction go to every seat, from the one after the last actor."""
        result = self.round.last_result
        assert result is not None
        return [(result.last_actor + k) % SEATS for k in range(1, SEATS + 1)]

    # -- the dialogue ---------------------------------------------------------
    #
    # A state machine: ``step`` says which exchange comes next, ``next_exchange``
    # renders it from the round's state and ``feed`` checks its replies and moves
    # on. ``run`` is the generator the contract asks for; ``resume`` is the same
    # loop picked up wherever ``step`` stands (the compiled dialogue,
    # kuhn3_compiled.c, hands the match back this way).

    def run(self):  # -> Dialogue
        self.round.apply_chance(self._chance(self.round))  # where the button starts
        return (yield from self.resume())

    def resume(self):  # -> Dialogue
        while (exchange := self.next_exchange()) is not None:
            self.feed((yield exchange))
        return MatchOutcome(payoffs=list(self.round.money), hands=self.round.hands_played)

    def next_exchange(self) -> Exchange | None:
        r, step = self.round, self.step
        if step is Step.PLAY:
            seat = r.to_act
            # What is legal is put in words only when a report needs it.
            return Exchange([(seat, self._play(seat))], r.describe_legal)
        if step is Step.INIT_HAND:
            return Exchange([(s, self._init_hand(s)) for s in range(SEATS)], "READY")
        if step is Step.END_HAND:
            return Exchange([(s, self._end_hand(s)) for s in self._end_order()], "OK or REBUY")
        if step is Step.END_ACTION:
            answers = self.answers
            return Exchange(
                [(s, "".join(f"EndAction: {answers[(s + i) % SEATS]}\n" for i in range(SEATS)).encode())
                 for s in self._end_order()],
                "Money: <m0>,<m1>,<m2>",
            )
        if step is Step.INIT_ROUND:
            return Exchange([(s, self._init_round(s)) for s in range(SEATS)], "READY")
        if step is Step.END_ROUND:
            return Exchange(
                [(s, f"end_round\nBankrolls: {_local(r.money, s)}\nNumHands: {r.hands_played}\n".encode())
                 for s in range(SEATS)],
                repr(CLOSING),
            )
        return None

    def feed(self, replies: list[str]) -> None:
        r, step = self.round, self.step
        if step is Step.PLAY:
            seat = r.to_act
            (line,) = replies
            try:
                r.apply_action(seat, parse_action(seat, line, r.describe_legal))
            except IllegalAction as exc:
                raise ProtocolError(seat, "illegal_action", line, r.describe_legal(), str(exc)) from None
            if r.phase is not Phase.BETTING:
                self.step = Step.END_HAND
        elif step is Step.INIT_HAND or step is Step.INIT_ROUND:
            for s, line in enumerate(replies):
                self._expect_exact(s, line, "READY")
            if step is Step.INIT_ROUND:
                self._deal()
            else:
                self.step = Step.PLAY
        elif step is Step.END_HAND:
            answers = [""] * SEATS
            for s, line in zip(self._end_order(), replies):
                answer = line.rstrip()
                if answer not in ("OK", "REBUY"):
                    raise ProtocolError(
                        s, "malformed_reply", line, "OK or REBUY",
                        "end_hand is answered with OK (or REBUY, which changes nothing here)",
                    )
                answers[s] = answer
            self.answers = answers
            self.step = Step.END_ACTION
        elif step is Step.END_ACTION:
            for s, line in zip(self._end_order(), replies):
                self._check_money(s, line)
            if r.phase is Phase.CONTINUE:
                r.apply_chance(self._chance(r))  # does the round end here?
            if r.phase is Phase.OVER:
                self.step = Step.END_ROUND
            else:
                self._deal()
        elif step is Step.END_ROUND:
            for s, line in enumerate(replies):
                self._expect_exact(s, line, CLOSING)
            self.step = Step.DONE
        else:
            raise RuntimeError("the kuhn3 dialogue is over")

    def _deal(self) -> None:
        self.round.apply_chance(self._chance(self.round))
        self.step = Step.INIT_HAND

    def _check_money(self, s: int, line: str) -> None:
        r = self.round
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


class SeededChance:
    """Resolve every chance step of a round from one ``random.Random``.

    ``deal`` and ``ends`` are the two steps of a hand on their own, so that the
    arena's compiled kuhn3 loop draws exactly what this dealer would, in the
    same order.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, r: Kuhn3Round) -> object:
        if r.phase is Phase.BUTTON:
            return self.rng.randrange(SEATS)
        if r.phase is Phase.DEAL:
            return self.deal()
        return self.ends(*r.params.end_prob)

    def deal(self) -> tuple[str, str, str]:
        return tuple(self.rng.sample(("J", "Q", "K", "A"), SEATS))  # type: ignore[return-value]

    def ends(self, a: int, b: int) -> bool:
        return self.rng.randrange(b) < a


def seeded_chance(rng: random.Random) -> SeededChance:
    return SeededChance(rng)


class Kuhn3SeatView(SeatView):
    """One seat's kuhn3 for a person. The protocol's acknowledgements and the
    ``Money:`` totals are answered on the person's behalf (kept here the way
    a bot keeps them, from what this seat was told). The lines are read by
    ``kuhn3_wire.SeatReader``; a line out of place there is its ``WireError``."""

    def __init__(self, seat: int, params: dict) -> None:
        super().__init__(seat, params)
        self.max_bet = int(params.get("max_bet", 2))
        self.wire = wire.SeatReader()
        self.money = [0, 0, 0]
        self.mine = 0  # what this seat has in front, from the last play message

    def _who(self, local: int) -> str:
        """A seat in this seat's local view (0: this one, then clockwise), by name where known."""
        if local == 0:
            return "you"
        where = ("", "the next seat", "the seat after")[local]
        names = self.names
        if names is not None and len(names) == SEATS:
            return f"{names[(self.seat + local) % SEATS]} ({where})"
        return where

    def _moves(self, actions: Sequence[wire.SeatAction], ended: bool = False) -> str:
        """Each seat's latest move in words and what it has in front. At the hand's end
        the protocol says only who folded (``PASS``: stayed in, whatever it did)."""
        verbs = {"BLIND": "anted", "BET": "bet", "PASS": "checked", "FOLD": "folded"}
        return ", ".join(f"{self._who(i)} " + (("folded" if a.verb == "FOLD" else "stayed in") if ended
                                                else verbs.get(a.verb, a.verb.lower())) + f" ({a.amount} in front)"
                         for i, a in enumerate(actions))

    def feed(self, line: str) -> Turn | None:
        event = self.wire.feed(line)
        if isinstance(event, wire.RoundStarted):
            self.money = list(event.money)
            return Turn([f"Kuhn poker, 3 seats: cards J < Q < K < A, antes {','.join(map(str, event.antes))}, "
                         f"a bet takes you to {self.max_bet} in front."], auto="READY")
        if isinstance(event, wire.HandDealt):
            return Turn(["", f"Hand {event.hand + 1}: your card is {event.card}"], auto="READY")
        if isinstance(event, wire.YourTurn):
            return self._your_turn(event)
        if isinstance(event, wire.HandEnded):
            return self._hand_ended(event)
        if isinstance(event, wire.EndActions):
            return Turn([], auto="Money: " + ",".join(str(m) for m in self.money))
        if isinstance(event, wire.RoundEnded):
            return Turn(["", f"Round over after {event.hands} hands: you finished {event.bankrolls[0]:+d}."],
                        auto=CLOSING)
        if isinstance(event, wire.Unknown):
            return Turn([event.line], raw=True, question="Reply")
        return None  # a message of several lines, not whole yet

    def _your_turn(self, turn: wire.YourTurn) -> Turn:
        self.mine = turn.actions[0].amount
        facing = max(a.amount for a in turn.actions) > self.mine
        choices = [Choice("fold"), Choice("call")] if facing else [Choice("check"), Choice("bet")]
        return Turn([f"  so far: {self._moves(turn.actions)}"], choices, question="Your action")

    def _hand_ended(self, end: wire.HandEnded) -> Turn:
        shown = [f"{self._who(i)} {card}" for i, card in enumerate(end.showdown) if card is not None]
        lines = [f"  at the end: {self._moves(end.actions, ended=True)}",
                 "  showdown: " + ", ".join(shown) if shown else "  no showdown"]
        for i, action in enumerate(end.actions):
            self.money[i] -= action.amount
        for pot in end.pots:
            self.money[pot.winner] += pot.amount
            lines.append(f"  pot {pot.amount} to {self._who(pot.winner)}")
        lines.append(f"  your total: {self.money[0]:+d}")
        return Turn(lines, auto="OK")

    def reply(self, choice: Choice, amount: int | None) -> str:
        if choice.word == "fold":
            return f"FOLD {self.mine}"
        if choice.word == "check":
            return f"BET {self.mine}"
        return f"BET {self.max_bet}"


def hands_from_transcript(lines) -> list[dict[str, Any]]:
    """A kuhn3 transcript as hands (``GamePlugin.hands_of``): cards from
    each seat's ``init_hand``, actions from the replies to ``play``, the pot
    from one ``end_hand`` (its winner in that receiver's local numbering),
    each seat's result from the totals the dealer checks (seat 0's
    ``Money:`` reply, whose local view is the canonical one). The lines are
    read by ``kuhn3_wire.transcript_events``."""
    hands: list[dict[str, Any]] = []
    money = [0] * SEATS
    turns: dict[int, wire.YourTurn] = {}  # the last play message to each seat
    hand: dict[str, Any] | None = None
    for seat, event in wire.transcript_events(lines):
        if isinstance(event, (wire.HandDealt, wire.HandCutShort)):
            if hand is None or hand["number"] != event.hand:
                hand = _new_hand(event.hand)
                hands.append(hand)
            if isinstance(event, wire.HandDealt):
                hand["seats"][seat]["cards"] = [event.card]
        elif isinstance(event, wire.YourTurn):
            turns[seat] = event
        elif hand is None:
            continue
        elif isinstance(event, wire.HandEnded) and not hand["pots"]:
            hand["pots"] = [{"amount": p.amount, "winners": [(p.winner + seat) % SEATS], "words": None}
                            for p in event.pots]
        elif isinstance(event, wire.ActionReplied):
            acted = hand["streets"][0]["actions"]
            acted.append({"seat": seat, "words": _action_words(event, turns.get(seat), acted)})
        elif isinstance(event, wire.MoneyReplied) and seat == 0 and event.totals is not None:
            for s, now in enumerate(event.totals):
                hand["seats"][s]["profit"] = now - money[s]
            money = list(event.totals)
    return hands


def _new_hand(number: int) -> dict[str, Any]:
    return {"number": number, "seats": [{"seat": s, "cards": [], "profit": 0} for s in range(SEATS)],
            "streets": [{"name": "betting", "board": [], "actions": []}], "pots": []}


def _action_words(reply: wire.ActionReplied, turn: wire.YourTurn | None, acted: list[dict[str, Any]]) -> str:
    """A reply to ``play`` in words. A BET of what the seat has in front
    already (its own line of the play message) is a check; the first bet of
    the hand bets, the later ones call."""
    mine = "" if turn is None else str(turn.actions[0].amount)
    raised = any(a["words"].startswith("bets") for a in acted)
    bet = f"calls {reply.amount}" if raised else f"bets to {reply.amount}"
    return {"FOLD": "folds", "BET": "checks" if reply.amount == mine else bet}.get(reply.verb, reply.text)


class Kuhn3Plugin(BuiltinGame[Kuhn3Params]):
    spec = GameSpec(
        id="kuhn3",
        version=2,  # 2: deals from the keyed chance stream (arena._seeds)
        title="3-player Kuhn poker",
        min_seats=3,
        max_seats=3,
        description="Four cards, one each, antes of 1, one bet to 2; a line-based text protocol.",
    )
    payoff_label = "chips"
    score_label = "chips/√hands"
    tournament_label = "chips"
    Params = Kuhn3Params
    rules = games.kuhn3.__doc__ or ""
    #: the text protocol has no match boundaries: one process per round
    reusable_processes = False
    #: the longest reply line accepted (the longest valid one, 'Money: ...', is under 80)
    max_reply_bytes = 256
    round_note = "every ordered choice of 3 entrants (each in every seat)"
    playthrough_matches = (({"hands": 6}, 7),)

    hand_formats = frozenset({"acpc"})

    def big_blind(self, params: Kuhn3Params | None = None) -> float | None:
        ante = max(params.antes) if params is not None else 1
        return float(ante) or None

    def luck_reader(self, params: Kuhn3Params, seed: str) -> Any | None:
        from .kuhn3_luck import Kuhn3Luck

        return Kuhn3Luck(seed)

    def hand_histories(self, names: list[str]) -> Any:
        from .acpc import Kuhn3Log

        return Kuhn3Log(names)

    def acpc_refusal(self, params: dict[str, Any]) -> str | None:
        from .acpc import kuhn3_refusal

        return kuhn3_refusal(params)

    def native_parts(self) -> tuple[Any, ...]:
        from games.kuhn3._native import ENGINE  # kuhn3's engine, built by games itself

        return (KUHN3_COMPILED, ENGINE.path)

    def demo_bots(self) -> tuple[DemoBot, ...]:
        k = SAMPLE_BOTS / "kuhn3"
        scripts = [DemoBot(name, (k / script,)) for script, name in (
            ("random_bot.py", "random"), ("check_fold_bot.py", "check-fold"), ("equilibrium_bot.py", "equilibrium"),
            ("rule_bot.js", "rule-js"))]
        return (*scripts, DemoBot("rule-c", (k / "rule_bot.c",), run="./rule_bot",
                                  build="gcc -O2 -o rule_bot rule_bot.c"))

    def invariants(self, params: Kuhn3Params) -> tuple[str, ...]:
        # Every hand's pot is made of the chips the seats put in and goes
        # whole to one seat: what the winner gains the others lose.
        return ("zero_sum",)

    def exploit(self, params: Kuhn3Params) -> Any:
        """``arena exploit``: a seat's hands read as OpenSpiel's kuhn_poker(players=3) (protocols/kuhn3_exploit.py)."""
        from .kuhn3_exploit import exploit_model

        return exploit_model(params)

    def open_dialogue(self, params: Kuhn3Params, rng: random.Random, names: list[str] | None = None,
                      match_index: MatchIndex = 0) -> Kuhn3Dealer:
        return Kuhn3Dealer(params, seeded_chance(rng))

    def hands_of(self, lines) -> list[dict[str, Any]]:
        return hands_from_transcript(lines)

    def seat_view(self, params: Kuhn3Params, seat: int) -> Kuhn3SeatView:
        return Kuhn3SeatView(seat, params.model_dump(mode="json"))

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
