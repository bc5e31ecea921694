"""Hold'em's wire read back: the one reader of the JSON lines the dealer sends.

Every message of the hold'em protocol (docs/protocols/holdem.md) is one
JSON object on one line, its ``type`` saying which. ``read`` turns one line
a seat was sent into a typed event with the message's fields (lists as
tuples); ``transcript_events`` reads a stored transcript (``(seat, "->" or
"<-", text)``, as ``GamePlugin.hands_of`` gets it) into ``(seat, event)``.
Pure functions and plain data; the replies (judged by the dealer,
protocols/jsonlines.py) are not read here.

A line that is no JSON object is a ``Garbled`` event, a JSON object of a
type the protocol does not send an ``Unknown`` one; a message of a known
type without one of its fields is a ``WireError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Union


class WireError(ValueError):
    """A message of a known type that lacks a field (or holds one of the wrong shape)."""


# -- the parts of messages ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LastAction:
    """``act``'s last action of the hand: ``action`` is a reply's word, or ``big_blind``."""

    seat: int
    action: str
    amount: int


@dataclass(frozen=True, slots=True)
class Shown:
    """A seat's cards shown at the end of a hand, and its best five in words."""

    seat: int
    cards: tuple[str, ...]
    hand: str


@dataclass(frozen=True, slots=True)
class PotWon:
    """One pot of ``hand_end`` (the main pot first): who could win it, who did, with what
    (``hand`` None: won without a showdown)."""

    amount: int
    seats: tuple[int, ...]
    winners: tuple[int, ...]
    hand: str | None


# -- the messages ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """``match_start``: this seat, and every seat's bot name in seat order."""

    match: int
    seat: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandStarted:
    """``hand_start``: this seat's hole cards, the button, the blinds, the stacks."""

    hand: int
    tournament: int | None
    seat: int
    cards: tuple[str, ...]
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    in_hand: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ActionSeen:
    """``action``: a seat's move, as every seat of the hand is told it."""

    hand: int
    seat: int
    action: str  # fold, call, raise or allin
    amount: int
    bet: int
    stack: int
    pot: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class StreetDealt:
    """``street``: the flop, the turn or the river; ``board`` is every community card so far."""

    hand: int
    street: str
    board: tuple[str, ...]
    pot: int


@dataclass(frozen=True, slots=True)
class YourTurn:
    """``act``: the seat is asked to act; the state of the hand and its legal actions."""

    hand: int
    street: str
    seat: int
    cards: tuple[str, ...]
    board: tuple[str, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    pot: int
    to_call: int
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    in_hand: tuple[int, ...]
    last_action: LastAction | None
    legal: tuple[str, ...]
    min_raise_to: int | None
    max_raise_to: int | None


@dataclass(frozen=True, slots=True)
class HandEnded:
    """``hand_end``: the board, the cards shown, the pots, each seat's stack and profit."""

    hand: int
    board: tuple[str, ...]
    shown: tuple[Shown, ...]
    pots: tuple[PotWon, ...]
    stacks: tuple[int, ...]
    profits: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TournamentEnded:
    """``tournament_end`` (freezeout): each seat's place (1: the winner) and points."""

    tournament: int
    places: tuple[float, ...]
    points: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """``match_end``: every seat's score."""

    match: int
    scores: tuple[float, ...]
    completed: bool


@dataclass(frozen=True, slots=True)
class Unknown:
    """A JSON object of a type hold'em does not send (``type``: what it says, if anything)."""

    line: str
    type: object


@dataclass(frozen=True, slots=True)
class Garbled:
    """A line that is no JSON object."""

    line: str
    reason: str


Event = Union[MatchStarted, HandStarted, ActionSeen, StreetDealt, YourTurn, HandEnded, TournamentEnded, MatchEnded,
              Unknown, Garbled]


# -- reading ----------------------------------------------------------------------


def _last_action(m: Any) -> LastAction | None:
    return None if m is None else LastAction(m["seat"], m["action"], m["amount"])


def _match_started(m: dict[str, Any]) -> MatchStarted:
    return MatchStarted(m["match"], m["seat"], tuple(m["players"]))


def _hand_started(m: dict[str, Any]) -> HandStarted:
    return HandStarted(m["hand"], m["tournament"], m["seat"], tuple(m["cards"]), m["button"], m["small_blind_seat"],
                       m["big_blind_seat"], m["small_blind"], m["big_blind"], m["ante"], tuple(m["stacks"]),
                       tuple(m["bets"]), tuple(m["in_hand"]))


def _action_seen(m: dict[str, Any]) -> ActionSeen:
    return ActionSeen(m["hand"], m["seat"], m["action"], m["amount"], m["bet"], m["stack"], m["pot"], m["all_in"])


def _street_dealt(m: dict[str, Any]) -> StreetDealt:
    return StreetDealt(m["hand"], m["street"], tuple(m["board"]), m["pot"])


def _your_turn(m: dict[str, Any]) -> YourTurn:
    return YourTurn(m["hand"], m["street"], m["seat"], tuple(m["cards"]), tuple(m["board"]), tuple(m["stacks"]),
                    tuple(m["bets"]), m["pot"], m["to_call"], m["button"], m["small_blind_seat"], m["big_blind_seat"],
                    m["small_blind"], m["big_blind"], tuple(m["in_hand"]), _last_action(m["last_action"]),
                    tuple(m["legal"]), m["min_raise_to"], m["max_raise_to"])


def _hand_ended(m: dict[str, Any]) -> HandEnded:
    shown = tuple(Shown(s["seat"], tuple(s["cards"]), s["hand"]) for s in m["shown"])
    pots = tuple(PotWon(p["amount"], tuple(p["seats"]), tuple(p["winners"]), p["hand"]) for p in m["pots"])
    return HandEnded(m["hand"], tuple(m["board"]), shown, pots, tuple(m["stacks"]), tuple(m["profits"]))


def _tournament_ended(m: dict[str, Any]) -> TournamentEnded:
    return TournamentEnded(m["tournament"], tuple(m["places"]), tuple(m["points"]))


def _match_ended(m: dict[str, Any]) -> MatchEnded:
    return MatchEnded(m["match"], tuple(m["scores"]), m.get("completed", True))


_READERS: dict[str, Callable[[dict[str, Any]], Event]] = {
    "match_start": _match_started, "hand_start": _hand_started, "action": _action_seen, "street": _street_dealt,
    "act": _your_turn, "hand_end": _hand_ended, "tournament_end": _tournament_ended, "match_end": _match_ended,
}


def read(line: str) -> Event:
    """One line sent to a seat, as its event."""
    try:
        m = json.loads(line)
    except (ValueError, RecursionError) as exc:  # (an integer of over 4300 digits is a ValueError too)
        reason = getattr(exc, "msg", None) or ("nested too deeply" if isinstance(exc, RecursionError) else str(exc))
        return Garbled(line, f"not JSON: {reason}")
    if not isinstance(m, dict):
        return Garbled(line, f"a message is a JSON object, got {type(m).__name__}")
    kind = m.get("type")
    parse = _READERS.get(kind) if isinstance(kind, str) else None
    if parse is None:
        return Unknown(line, kind)
    try:
        return parse(m)
    except KeyError as exc:
        raise WireError(f"a {kind} message without its field {exc}: {line}") from None
    except TypeError as exc:
        raise WireError(f"a {kind} message of the wrong shape ({exc}): {line}") from None


def transcript_events(lines: Iterable[tuple[int, str, str]]) -> Iterator[tuple[int, Event]]:
    """The messages of a transcript as ``(seat, event)``, in order. The
    dealer writes each as one JSON object from the line's first byte: any
    other line sent (and every reply) is left out."""
    for seat, direction, text in lines:
        if direction == "->" and text.startswith("{"):
            event = read(text)
            if not isinstance(event, Garbled):
                yield seat, event
