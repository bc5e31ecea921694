"""ACPC game definitions (the ACPC dealer's ``.game`` files) read for hold'em.

A game definition is a text file of ``key = values`` lines between
``GAMEDEF`` and ``END GAMEDEF`` (protocol.md and game.c of the ACPC server
package name them): the betting (a line ``limit`` or ``nolimit``; limit when
neither is given), ``numPlayers``, ``numRounds``, per position ``stack``
(2147483647, the largest int32, when not given) and ``blind``, per round
``raiseSize`` (limit), ``firstPlayer`` (from 1; 1 when not given),
``maxRaises`` (255 when not given), ``numBoardCards``, and the deck
(``numSuits``, ``numRanks``) and ``numHoleCards``. Keys are read without
regard to case; a line starting with ``#`` and an empty line are skipped.

``read_gamedef(path)`` reads one into a ``GameDef`` or raises
``GameDefError`` naming the file and line of what is wrong. It is stricter
than the ACPC dealer, so that a file is never read two ways: a line it does
not know, a value that is not a whole number, a key given twice, or a list
of values longer or shorter than the players or rounds it goes with is
refused (the dealer would skip, truncate or fill in). Then
``GameDef.unplayable`` says what a valid definition asks that the arena's
hold'em does not play (a deck other than 13 ranks of 4 suits, a number of
hole cards other than 2, rounds other than preflop, flop, turn and river,
blinds or a first player per round other than hold'em's, unequal stacks,
a cap on raises in no-limit).

Positions are the ACPC dealer's: position 0 is the first seat after the
button and the button is the last; heads-up with reverse blinds position 0
is the big blind and the button posts the small blind.

The parsed definition is what a match's parameters keep (``gamedef`` in
``HoldemParams``, and so in every seat's ``match_start``): its fields are
the ACPC keys in snake case, every one filled in, so a stored match plays
again without the file, and ``to_acpc()`` writes the same game back as a
definition the ACPC dealer and its agents read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator

#: ACPC's limits (game.h) and defaults (game.c's readGame), as facts of the format
MAX_PLAYERS, MAX_ROUNDS, MAX_SUITS, MAX_RANKS, MAX_HOLE_CARDS, MAX_BOARD_CARDS = 10, 4, 4, 13, 3, 7
DEFAULT_STACK = 2**31 - 1
DEFAULT_MAX_RAISES = 255
INT32_MAX = 2**31 - 1

#: the file's keys (lower case) -> GameDef's fields; betting is a line of its own
KEYS = {
    "numplayers": "num_players", "numrounds": "num_rounds", "stack": "stack", "blind": "blind",
    "raisesize": "raise_size", "firstplayer": "first_player", "maxraises": "max_raises", "numsuits": "num_suits",
    "numranks": "num_ranks", "numholecards": "num_hole_cards", "numboardcards": "num_board_cards",
}
#: GameDef's fields -> the key as the ACPC files spell it
SPELLING = {
    "betting": "limit/nolimit", "num_players": "numPlayers", "num_rounds": "numRounds", "stack": "stack",
    "blind": "blind", "raise_size": "raiseSize", "first_player": "firstPlayer", "max_raises": "maxRaises",
    "num_suits": "numSuits", "num_ranks": "numRanks", "num_hole_cards": "numHoleCards",
    "num_board_cards": "numBoardCards",
}
#: fields of one value; the others are lists per position or per round
SINGLE = frozenset({"num_players", "num_rounds", "num_suits", "num_ranks", "num_hole_cards"})
PER_POSITION = ("stack", "blind")
PER_ROUND = ("raise_size", "first_player", "max_raises", "num_board_cards")

SOURCE = "the game definition"


class Where:
    """Where each field of a definition was read, for a sentence: "FILE line N (numPlayers = 3)";
    a field not read from a file is named by its key."""

    def __init__(self, lines: dict[str, str] | None = None, source: str = SOURCE) -> None:
        self.lines, self.source = lines or {}, source

    def __call__(self, field: str) -> str:
        return self.lines.get(field) or f"{self.source}: {SPELLING[field]}"


class GameDefError(ValueError):
    """A game definition that is not one (or that the arena cannot play), in words naming the file and line."""


class GameDef(BaseModel):
    """One ACPC game definition, every value filled in (ACPC's defaults where the file gave none).

    Validated as ACPC's dealer validates one, in words; where the values came
    from a file (``parse_gamedef``), the words name its lines. Nothing of the
    file is kept: two definitions of the same game are equal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    betting: Literal["limit", "nolimit"]
    num_players: int
    num_rounds: int
    #: per position (position 0: the first seat after the button; the button last)
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    #: per round: limit's bet and raise size (empty in no-limit when the file gives none)
    raise_size: tuple[int, ...]
    #: per round, the position that acts first, counted from 1 as in the file
    first_player: tuple[int, ...]
    #: per round, the most bets and raises it allows (ACPC counts the first bet as a raise)
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]

    @model_validator(mode="after")
    def _valid(self, info: ValidationInfo) -> "GameDef":
        context = info.context if isinstance(info.context, dict) else {}
        problem = self.malformed(Where(context.get("where", {}), context.get("source", SOURCE)))
        if problem:
            raise ValueError(problem)
        return self

    # -- checks ------------------------------------------------------------------

    def malformed(self, at: "Where | None" = None) -> str | None:
        """Why this is not a game definition the ACPC dealer would play (None: it is one);
        ``at`` says where each value was read (a file's lines), for the words."""
        n, rounds = self.num_players, self.num_rounds
        at = at or Where()
        if not 2 <= n <= MAX_PLAYERS:
            return f"{at('num_players')}: the number of players is {n}; ACPC games have 2 to {MAX_PLAYERS}"
        if not 1 <= rounds <= MAX_ROUNDS:
            return f"{at('num_rounds')}: the number of rounds is {rounds}; ACPC games have 1 to {MAX_ROUNDS}"
        for field in PER_POSITION:
            values = getattr(self, field)
            if len(values) != n:
                return (f"{at(field)}: {len(values)} value{'s' * (len(values) != 1)} for {n} players: "
                        f"{SPELLING[field]} gives one per position")
        wanted = PER_ROUND if self.betting == "limit" or self.raise_size else PER_ROUND[1:]
        for field in wanted:
            values = getattr(self, field)
            if len(values) != rounds:
                return (f"{at(field)}: {len(values)} value{'s' * (len(values) != 1)} for {rounds} "
                        f"round{'s' * (rounds != 1)}: {SPELLING[field]} gives one per round")
        for p, (stack, blind) in enumerate(zip(self.stack, self.blind)):
            if not 1 <= stack <= INT32_MAX:
                return f"{at('stack')}: position {p + 1}'s stack is {stack}; a stack is 1 to {INT32_MAX} chips"
            if not 0 <= blind <= stack:
                return (f"{at('blind')}: position {p + 1}'s blind is {blind}; a blind is 0 chips or more, "
                        f"and at most the stack ({stack})")
        for r, size in enumerate(self.raise_size):
            if not 1 <= size <= INT32_MAX:
                return f"{at('raise_size')}: round {r + 1}'s raise size is {size}; a raise is 1 chip or more"
        for r, first in enumerate(self.first_player):
            if not 1 <= first <= n:
                return f"{at('first_player')}: round {r + 1}'s first player is {first}; positions are 1 to {n}"
        for r, cap in enumerate(self.max_raises):
            if not 0 <= cap <= 255:
                return f"{at('max_raises')}: round {r + 1}'s cap is {cap}; maxRaises is 0 to 255 a round"
        if not 1 <= self.num_suits <= MAX_SUITS:
            return f"{at('num_suits')}: {self.num_suits} suits; a deck has 1 to {MAX_SUITS}"
        if not 1 <= self.num_ranks <= MAX_RANKS:
            return f"{at('num_ranks')}: {self.num_ranks} ranks; a deck has 1 to {MAX_RANKS}"
        if not 1 <= self.num_hole_cards <= MAX_HOLE_CARDS:
            return f"{at('num_hole_cards')}: {self.num_hole_cards} hole cards; ACPC games deal 1 to {MAX_HOLE_CARDS}"
        if any(c < 0 for c in self.num_board_cards) or sum(self.num_board_cards) > MAX_BOARD_CARDS:
            return (f"{at('num_board_cards')}: board cards {list(self.num_board_cards)}; ACPC games deal 0 or more "
                    f"a round, at most {MAX_BOARD_CARDS} in all")
        dealt = n * self.num_hole_cards + sum(self.num_board_cards)
        if dealt > self.num_suits * self.num_ranks:
            return (f"{at('num_board_cards')}: {dealt} cards dealt ({n} players' hole cards and the board) from a "
                    f"deck of {self.num_suits * self.num_ranks}")
        return None

    def unplayable(self, at: "Where | None" = None) -> str | None:
        """Why the arena's hold'em cannot play this (valid) definition, in words naming the line
        (``at``, as for ``malformed``); None: it can."""
        n = self.num_players
        at = at or Where()
        if self.num_suits != 4 or self.num_ranks != 13:
            key = "num_suits" if self.num_suits != 4 else "num_ranks"
            return (f"{at(key)}: the arena's hold'em deals from a 52-card deck, numRanks = 13 and numSuits = 4 "
                    f"(this one has {self.num_ranks} rank{'s' * (self.num_ranks != 1)} and {self.num_suits} "
                    f"suit{'s' * (self.num_suits != 1)})")
        if self.num_hole_cards != 2:
            return f"{at('num_hole_cards')}: the arena's hold'em deals 2 hole cards (numHoleCards = 2)"
        if self.num_rounds != 4:
            return (f"{at('num_rounds')}: the arena's hold'em has 4 rounds, preflop, flop, turn and river "
                    f"(numRounds = 4)")
        if self.num_board_cards != (0, 3, 1, 1):
            return (f"{at('num_board_cards')}: the arena's hold'em deals the board as flop, turn and river "
                    f"(numBoardCards = 0 3 1 1)")
        if len(set(self.stack)) != 1:
            return (f"{at('stack')}: the arena plays equal stacks (every position starts each hand with the same "
                    f"chips); this definition has {' '.join(map(str, self.stack))}")
        layout = self._blinds_problem(at("blind"))
        if layout:
            return layout
        first = (2, 1, 1, 1) if n == 2 else (3, 1, 1, 1)
        if self.first_player != first:
            who = ("the button (position 2) first before the flop, position 1 first after it"
                   if n == 2 else "position 3 (the seat after the big blind) first before the flop, "
                   "position 1 (the small blind) first after it")
            return (f"{at('first_player')}: the arena plays hold'em's order, {who}: "
                    f"firstPlayer = {' '.join(map(str, first))}")
        if self.betting == "nolimit" and any(c != DEFAULT_MAX_RAISES for c in self.max_raises):
            return (f"{at('max_raises')}: the arena's no-limit hold'em has no cap on raises: leave maxRaises "
                    "out of a nolimit definition (a cap is for limit)")
        return None

    def _blinds_problem(self, at: str) -> str | None:
        blind = self.blind
        if len(blind) == 2:
            # Equal blinds are refused too: the arena would ask the big blind first before
            # the flop, where such a definition's firstPlayer names the button.
            if blind[0] < 1 or blind[1] >= blind[0]:
                return (f"{at}: heads-up the arena plays reverse blinds, as ACPC's *.2p.reverse_blinds.game: "
                        "position 1 (the big blind) posts the larger blind, at least 1 chip, and position 2 "
                        "(the button) the smaller, less than it: blind = BIG SMALL")
            return None
        if blind[1] < 1 or blind[0] > blind[1] or any(blind[2:]):
            return (f"{at}: the arena plays hold'em's blinds: position 1 posts the small blind, position 2 the "
                    "big blind (at least 1 chip, and at least the small blind), the others nothing: "
                    f"blind = SMALL BIG{' 0' * (len(blind) - 2)}")
        return None

    # -- what hold'em reads ------------------------------------------------------

    @property
    def limit(self) -> bool:
        return self.betting == "limit"

    @property
    def small_blind(self) -> int:
        return self.blind[1] if self.num_players == 2 else self.blind[0]

    @property
    def big_blind(self) -> int:
        return self.blind[0] if self.num_players == 2 else self.blind[1]

    def most_put_in(self) -> int:
        """Limit: the most chips one seat can put in a hand (the largest blind, then every
        round's cap of raises at its size), whatever its stack."""
        return max(self.blind) + sum(c * s for c, s in zip(self.max_raises, self.raise_size))

    # -- written back ------------------------------------------------------------

    def to_acpc(self) -> str:
        """The definition as an ACPC game file (the dealer's and its agents' ``GAMEDEF`` text), in
        the layout the ACPC dealer prints one in (its defaults left out)."""

        def line(field: str, values: tuple[int, ...]) -> str:
            return f"{SPELLING[field]} = {' '.join(map(str, values))}\n"

        text = f"GAMEDEF\n{self.betting}\nnumPlayers = {self.num_players}\nnumRounds = {self.num_rounds}\n"
        if any(s != DEFAULT_STACK for s in self.stack):
            text += line("stack", self.stack)
        text += line("blind", self.blind)
        if self.raise_size:
            text += line("raise_size", self.raise_size)
        if any(f != 1 for f in self.first_player):
            text += line("first_player", self.first_player)
        if any(c != DEFAULT_MAX_RAISES for c in self.max_raises):
            text += line("max_raises", self.max_raises)
        text += (f"numSuits = {self.num_suits}\nnumRanks = {self.num_ranks}\nnumHoleCards = {self.num_hole_cards}\n"
                 + line("num_board_cards", self.num_board_cards) + "END GAMEDEF\n")
        return text


_NUMBER = re.compile(r"[+-]?[0-9]+")


def parse_gamedef(text: str, source: str = SOURCE, *, playable: bool = True) -> GameDef:
    """A game definition's text, read and checked as a definition and (``playable``) as a game the
    arena plays; ``GameDefError`` in words naming ``source`` and the line otherwise."""
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        shown = f"{source} line {number} ({line if len(line) <= 60 else line[:57] + '...'})"
        word = re.match(r"[A-Za-z]*", line).group(0).lower()  # type: ignore[union-attr]
        rest = line[len(word):]
        if word == "end" and rest.strip().lower() == "gamedef":
            break  # what follows is not read (nor is it by the ACPC dealer)
        if word == "gamedef" and not rest.strip():
            continue
        if word in ("limit", "nolimit"):
            field = "betting"
            if rest.strip():
                raise GameDefError(f"{shown}: {word} is a line of its own")
            value: Any = word
        elif word in KEYS:
            field = KEYS[word]
            items = rest.replace("=", " ").split()
            bad = next((x for x in items if not _NUMBER.fullmatch(x)), None)
            if bad is not None:
                raise GameDefError(f"{shown}: {bad!r} is not a whole number")
            if not items:
                raise GameDefError(f"{shown}: {SPELLING[field]} has no value")
            if rest.count("=") > 1:
                raise GameDefError(f"{shown}: one '=' a line")
            numbers = tuple(int(x) for x in items)
            if field in SINGLE:
                if len(numbers) != 1:
                    raise GameDefError(f"{shown}: {SPELLING[field]} is one number")
                value = numbers[0]
            else:
                value = numbers
        else:
            raise GameDefError(f"{shown}: not a line of a game definition (its keys: limit, nolimit, "
                               f"{', '.join(SPELLING[f] for f in KEYS.values())})")
        if field in values:
            first = "limit or nolimit" if field == "betting" else SPELLING[field]
            raise GameDefError(f"{shown}: {first} was given already, on line {lines[field]}")
        values[field], where[field], lines[field] = value, shown, number
    for field in ("num_players", "num_rounds", "blind", "num_suits", "num_ranks", "num_hole_cards",
                  "num_board_cards"):
        if field not in values:
            raise GameDefError(f"{source}: no {SPELLING[field]} line; a game definition must give it")
    values.setdefault("betting", "limit")  # ACPC's default
    if values["betting"] == "limit" and "raise_size" not in values:
        raise GameDefError(f"{source}: no raiseSize line; a limit game gives its raise size for every round")
    n, rounds = values["num_players"], values["num_rounds"]
    if isinstance(n, int) and 0 <= n <= MAX_PLAYERS:
        values.setdefault("stack", (DEFAULT_STACK,) * n)
    if isinstance(rounds, int) and 0 <= rounds <= MAX_ROUNDS:
        values.setdefault("first_player", (1,) * rounds)
        values.setdefault("max_raises", (DEFAULT_MAX_RAISES,) * rounds)
    values.setdefault("raise_size", ())
    values.setdefault("stack", ())
    values.setdefault("first_player", ())
    values.setdefault("max_raises", ())
    try:
        gamedef = GameDef.model_validate(values, context={"where": where, "source": source})
    except ValueError as exc:  # pydantic's ValidationError is one: the sentence of the first problem
        errors = getattr(exc, "errors", None)
        message = str(errors()[0]["msg"]).removeprefix("Value error, ") if callable(errors) else str(exc)
        raise GameDefError(message) from None
    problem = gamedef.unplayable(Where(where, source)) if playable else None
    if problem:
        raise GameDefError(problem)
    return gamedef


def read_gamedef(path: str | Path) -> GameDef:
    """The game definition in the file ``path``, read, checked as a definition and as a game the arena
    plays; ``GameDefError`` in words naming the file and the line otherwise."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise GameDefError(f"{path}: not a game definition (not text)") from None
    except OSError as exc:
        raise GameDefError(f"no game definition file {str(path)!r}: {exc.strerror or exc}") from None
    return parse_gamedef(text, str(path))
