"""kuhn3's wire read back: the one reader of what the dealer sends and the seats reply.

The text protocol (docs/protocols/kuhn3.md) sends blocks of ``Key: value``
lines with no end marker: a bot knows each message's length from its first
line. ``SeatReader`` reads one seat's received lines that way and turns each
whole message into a typed event; ``transcript_events`` reads a stored
transcript (``(seat, "->" or "<-", text)``, as ``GamePlugin.hands_of`` gets
it), the dealer's messages and the seats' replies, each reply typed by the
message it answers.

Every list in a message is in the receiver's local view (index 0: the
receiving seat, then clockwise), and the events keep it so. Pure functions
and plain data: nothing here writes, and nothing here judges a reply (the
dealer does, in protocols/kuhn3.py); a reply is read as far as the readers
of a transcript read it.

A line that begins no message of the protocol (the first line of a block
that is no header) is an ``Unknown`` event; a line inside a message that is
not the line the protocol puts there is a ``WireError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Union

#: the lines of each message, by its first line; the ``EndAction`` block has no header
SIZES = {"init_round": 5, "init_hand": 3, "play": 4, "end_hand": 6, "EndAction": 3, "end_round": 3}

#: A seat's ``Money:`` reply, the one pattern of it: the readers here and the
#: dealer's own check (``protocols.kuhn3.parse_money``) take it alike.
MONEY_REPLY = re.compile(r"Money: ?(-?[0-9]{1,18}) ?, ?(-?[0-9]{1,18}) ?, ?(-?[0-9]{1,18})", re.ASCII)


class WireError(ValueError):
    """A line where the protocol puts another: what was read and what belongs there."""


@dataclass(frozen=True, slots=True)
class SeatAction:
    """One ``Action: <VERB> <in front>`` line: a seat's latest move and its total in front."""

    verb: str  # BLIND, BET, FOLD or PASS
    amount: int


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot of ``Pots:``: its value and its winner (a local seat)."""

    amount: int
    winner: int


# -- the dealer's messages --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """``init_round``: the starting totals, the antes, hand 0's button, the end probability a/b."""

    money: tuple[int, ...]
    antes: tuple[int, ...]
    button: int
    end_prob: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandDealt:
    """``init_hand``: the hand's index (from 0) and this seat's card (``J``, ``Q``, ``K``, ``A``)."""

    hand: int
    card: str


@dataclass(frozen=True, slots=True)
class HandCutShort:
    """An ``init_hand`` a transcript ends in after the hand's index, before the card."""

    hand: int


@dataclass(frozen=True, slots=True)
class YourTurn:
    """``play``: the seat is asked to act; each seat's latest action, the receiver first."""

    actions: tuple[SeatAction, ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """``end_hand``: the actions as sent (``PASS`` by position), the true amounts in front,
    the cards shown (None: ``-``, folded or mucked), the pots."""

    actions: tuple[SeatAction, ...]
    showdown: tuple[str | None, ...]
    pots: tuple[Pot, ...]


@dataclass(frozen=True, slots=True)
class EndActions:
    """The ``EndAction`` block: every seat's answer to ``end_hand`` (``OK`` or ``REBUY``); the
    seat replies with its ``Money:`` totals."""

    answers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """``end_round``: the final totals and the number of hands played."""

    bankrolls: tuple[int, ...]
    hands: int


@dataclass(frozen=True, slots=True)
class Unknown:
    """A line that begins no message of the protocol (trailing whitespace dropped)."""

    line: str


Message = Union[RoundStarted, HandDealt, HandCutShort, YourTurn, HandEnded, EndActions, RoundEnded, Unknown]


# -- the seats' replies (in a transcript) -----------------------------------------


@dataclass(frozen=True, slots=True)
class ActionReplied:
    """A reply to ``play``: its words (``verb``, and ``amount`` as written, for a
    well-formed one ``BET 2``: ``BET``, ``"2"``), and the line as it came."""

    text: str
    verb: str
    amount: str


@dataclass(frozen=True, slots=True)
class MoneyReplied:
    """A reply to the ``EndAction`` block: the totals the seat believes (local view), None
    when the line is no ``Money: m0,m1,m2``."""

    text: str
    totals: tuple[int, int, int] | None


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """Any other reply (``READY``, ``OK``, ``REBUY``, the closing sentence, or one no
    message asked for): the header of the last message begun to the seat ("" if none)."""

    to: str
    text: str


Reply = Union[ActionReplied, MoneyReplied, Acknowledged]
Event = Union[Message, Reply]


# -- reading ----------------------------------------------------------------------


def _value(line: str, key: str) -> str:
    head, colon, value = line.partition(":")
    if not colon or head != key:
        raise WireError(f"{line!r} where kuhn3 sends '{key}: ...'")
    return value.strip()


def _int(line: str, key: str) -> int:
    value = _value(line, key)
    try:
        return int(value)
    except ValueError:
        raise WireError(f"{line!r} where kuhn3 sends '{key}: <number>'") from None


def _ints(line: str, key: str) -> tuple[int, ...]:
    value = _value(line, key)
    try:
        return tuple(int(x) for x in value.split(","))
    except ValueError:
        raise WireError(f"{line!r} where kuhn3 sends '{key}: <n>,<n>,...'") from None


def _action(line: str) -> SeatAction:
    words = _value(line, "Action").split()
    try:
        return SeatAction(words[0], int(words[1]))
    except (IndexError, ValueError):
        raise WireError(f"{line!r} where kuhn3 sends 'Action: <VERB> <in front>'") from None


def _pots(line: str) -> tuple[Pot, ...]:
    pots = []
    for pot in _value(line, "Pots").split():
        try:
            value, winner = (int(x) for x in pot.split(","))
        except ValueError:
            raise WireError(f"{line!r} where kuhn3 sends 'Pots: <value>,<winner> ...'") from None
        pots.append(Pot(value, winner))
    return tuple(pots)


def _round_started(block: list[str]) -> RoundStarted:
    return RoundStarted(_ints(block[1], "Money"), _ints(block[2], "Blinds"), _int(block[3], "Button"),
                        _ints(block[4], "EndProb"))


def _hand_dealt(block: list[str]) -> HandDealt:
    return HandDealt(_int(block[1], "Hand"), _value(block[2], "Cards"))


def _your_turn(block: list[str]) -> YourTurn:
    return YourTurn(tuple(_action(line) for line in block[1:]))


def _hand_ended(block: list[str]) -> HandEnded:
    shown = tuple(None if card == "-" else card for card in _value(block[4], "Showdown").split(","))
    return HandEnded(tuple(_action(line) for line in block[1:4]), shown, _pots(block[5]))


def _end_actions(block: list[str]) -> EndActions:
    return EndActions(tuple(_value(line, "EndAction") for line in block))


def _round_ended(block: list[str]) -> RoundEnded:
    return RoundEnded(_ints(block[1], "Bankrolls"), _int(block[2], "NumHands"))


_READERS: dict[str, Callable[[list[str]], Message]] = {
    "init_round": _round_started, "init_hand": _hand_dealt, "play": _your_turn, "end_hand": _hand_ended,
    "EndAction": _end_actions, "end_round": _round_ended,
}


def header(line: str) -> str | None:
    """The message a line begins (a key of ``SIZES``), or None."""
    line = line.rstrip()
    if line.startswith("EndAction"):
        return "EndAction"
    return line if line in SIZES else None


class SeatReader:
    """One seat's received lines, one at a time, as its messages: ``feed``
    gives the event once a message is whole (None before). ``kind``: the
    header of the last message begun ("" before the first)."""

    def __init__(self) -> None:
        self.kind = ""
        self._block: list[str] = []

    def feed(self, line: str) -> Message | None:
        line = line.rstrip()
        if not self._block:
            kind = header(line)
            if kind is None:
                return Unknown(line)
            self.kind = kind
        self._block.append(line)
        if len(self._block) < SIZES[self.kind]:
            return None
        block, self._block = self._block, []
        return _READERS[self.kind](block)

    def cut(self) -> Message | None:
        """The message the lines stopped in the middle of (a transcript cut
        short), where that says anything: an ``init_hand`` with its number
        and no card (``HandCutShort``). Forgets the rest of it."""
        block, self._block = self._block, []
        if self.kind == "init_hand" and len(block) == 2:
            return HandCutShort(_int(block[1], "Hand"))
        return None


def read_action(text: str) -> ActionReplied:
    """A seat's reply to ``play``, read as far as its words."""
    verb, _, amount = text.strip().partition(" ")
    return ActionReplied(text, verb, amount)


def read_reply(to: str, text: str) -> Reply:
    """A seat's reply line, read as an answer to the message ``to`` (a ``SeatReader.kind``)."""
    if to == "play":
        return read_action(text)
    if to == "EndAction":
        found = MONEY_REPLY.fullmatch(text.strip())
        totals = (int(found[1]), int(found[2]), int(found[3])) if found else None
        return MoneyReplied(text, totals)
    return Acknowledged(to, text)


def transcript_events(lines: Iterable[tuple[int, str, str]]) -> Iterator[tuple[int, Event]]:
    """A transcript's lines as ``(seat, event)``, in order: each message once
    it is whole, each reply as it comes. A message the transcript ends in
    the middle of comes last, as far as ``SeatReader.cut`` reads it."""
    readers: dict[int, SeatReader] = {}
    for seat, direction, text in lines:
        reader = readers.get(seat)
        if reader is None:
            reader = readers[seat] = SeatReader()
        if direction != "->":
            yield seat, read_reply(reader.kind, text)
            continue
        event = reader.feed(text)
        if event is not None:
            yield seat, event
    for seat, reader in readers.items():
        cut = reader.cut()
        if cut is not None:
            yield seat, cut
