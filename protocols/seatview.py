"""A seat played by a person: one seat's messages in words, and its choices.

A person at the table (``human`` in place of a bot command) plays through
the same dialogue as a bot: a small program of the arena's own sits in the
seat, reads exactly the lines that seat is sent, and writes its reply lines.
What it shows the person comes from a ``SeatView``, which a game provides
through ``GamePlugin.seat_view``; it only ever sees that seat's messages, so
a person is never shown more than a bot in the same seat would know.

Sans-I/O, like the dialogues: ``feed`` takes one line and says what to show
and whether a decision is due; ``reply`` turns a decision into the reply
line. The terminal side (arena/play/_person.py) does the reading and writing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


#: what the prompt's brackets hold when the person types the reply line itself (the plain view)
RAW_CHOICE = "a reply line of the protocol"


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal choice, as the person types it; ``low``/``high``: it takes an amount in that range."""

    word: str
    low: int | None = None
    high: int | None = None

    @property
    def label(self) -> str:
        return self.word if self.low is None else f"{self.word} {self.low}..{self.high}"


@dataclass(slots=True)
class Turn:
    """What one message means to the person in the seat.

    ``shown``: lines to show. ``choices``: a decision is due, one of these
    (``question`` asks it). ``auto``: a reply the view writes on the
    person's behalf (acknowledgements, bookkeeping the protocol asks for).
    ``raw``: the view cannot tell the choices; the person types the reply
    line itself (the plain fallback)."""

    shown: list[str] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    question: str = "Your move"
    auto: str | None = None
    raw: bool = False
    #: the choices are not every legal reply: others mean the same as one of
    #: them (vonneumann cuts a bet over the limit to it), so ``arena
    #: check-game`` holds the dialogue to accepting these, not to refusing the rest
    partial: bool = False

    def prompt(self) -> str:
        """The prompt line: the question, then the choices in brackets."""
        if self.raw:
            return f"{self.question} [{RAW_CHOICE}] "
        return f"{self.question} [{'/'.join(c.label for c in self.choices)}] "


def word_for(name: str, taken: set[str] | None = None) -> str:
    """A game's name for a choice (OpenSpiel's ``Bid: 2 5``, a card) as a word
    the prompt can show: spaces kept single, and none of the prompt's own
    marks (``/``, ``[``, ``]``), so that ``[a/b/c]`` reads one way. With
    ``taken``, a name already used gets ``#2``, ``#3``... (and is added)."""
    word = " ".join(name.split()).replace("/", "|").replace("[", "(").replace("]", ")") or "?"
    if taken is not None:
        base, n = word, 1
        while word.casefold() in taken:
            n += 1
            word = f"{base}#{n}"
        taken.add(word.casefold())
    return word


def pick(typed: str, choices: list[Choice]) -> tuple[Choice, int | None]:
    """The choice a person typed (``raise 10``, ``Fold``, ``Bid: 2 5``), in any
    case and spacing, or ValueError with the reason."""
    text = " ".join(typed.split())
    if not text:
        raise ValueError("nothing was typed")
    key = text.casefold()
    whole = next((c for c in choices if c.low is None and c.word.casefold() == key), None)
    if whole is not None:
        return whole, None
    for c in sorted(choices, key=lambda c: -len(c.word)):  # the longest name first: "bid" inside "bid 2"
        word = c.word.casefold()
        if key == word or key.startswith(word + " "):
            rest = text[len(word):].strip()
            if c.low is None:
                raise ValueError(f"{c.word} takes no amount")
            if not (rest.isascii() and rest.isdigit()):
                raise ValueError(f"{c.word} needs an amount from {c.low} to {c.high}, like '{c.word} {c.low}'")
            amount = int(rest)
            if not c.low <= amount <= c.high:  # type: ignore[operator]
                raise ValueError(f"{amount} is outside {c.low}..{c.high}")
            return c, amount
    raise ValueError(f"{text!r} is not one of {'/'.join(c.label for c in choices)}")


class SeatView:
    """A seat's messages for a person; games override ``feed`` and ``reply``.

    This base is the plain fallback every game gets: each line is shown as
    it came, and the person types the reply line. JSON games' framing is
    understood (``match_start`` is answered ready, ``match_end`` needs no
    reply); for anything else the view cannot know whether a line is a
    request, so it asks after every line."""

    #: every seat's name where the arena knows them, for a game whose messages do not
    #: carry them (kuhn3's text protocol): the person's program sets it
    names: list[str] | None = None

    def __init__(self, seat: int, params: dict) -> None:
        self.seat = seat
        self.params = params

    def feed(self, line: str) -> Turn | None:
        """One line the seat was sent; None while a message is incomplete."""
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            kind = message.get("type")
            if kind == "match_start":
                return Turn([f"Match started: you are seat {message.get('seat')}"], auto='{"type": "ready"}')
            if kind == "match_end":
                scores = message.get("scores")
                if isinstance(scores, list) and all(isinstance(x, (int, float)) for x in scores):
                    mine = f"; you (seat {self.seat}) scored {scores[self.seat]:+g}" if self.seat < len(scores) else ""
                    return Turn([f"Match over: scores {', '.join(f'{x:g}' for x in scores)}{mine}"])
                return Turn([f"Match over: {line}"])
        return Turn([line], raw=True, question="Reply")

    def reply(self, choice: Choice, amount: int | None) -> str:
        """The reply line for a choice of the last turn."""
        raise NotImplementedError  # the fallback's replies are typed raw


SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def card_text(card: str) -> str:
    """``Ah`` -> ``A♥``, ``Td`` -> ``10♦``; anything else as it is."""
    if len(card) == 2 and card[1] in SUITS:
        rank = "10" if card[0] == "T" else card[0]
        return rank + SUITS[card[1]]
    return card
