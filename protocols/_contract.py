"""The game contract: what a game plugin gives the arena, and the dialogue it runs.

A game is one object registered in the ``arena.games`` entry-point group, an
instance of a ``GamePlugin`` subclass. Three things are required: ``spec``,
``Params`` and ``open_dialogue``. Every other hook has a default here, so a
game overrides only what it needs. Everything in this module is pure: no I/O,
no clock, no global random; the arena does the rest.

A dialogue is a generator that yields ``Exchange`` objects (what to write to
which seat), is sent back the reply lines (decoded, without the line ending)
and returns a ``MatchOutcome``. It raises ``protocols.ProtocolError`` when a
reply is wrong.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel

from games import GameSpec

if TYPE_CHECKING:
    from .exploit import ExploitModel

#: A match's place in a series (``GamePlugin.open_dialogue``): one number, or one per seat.
MatchIndex = int | Sequence[int]


@dataclass(slots=True)
class Exchange:
    """One step of a dialogue: send to some seats, then read one reply from each.

    ``sends`` is a list of ``(seat, payload)`` in the order the messages must be
    written; the replies come back in the same order. ``expect`` says in words
    what a correct reply looks like, for error reports about silence or EOF.
    """

    sends: list[tuple[int, bytes]]
    #: words for a correct reply, or a function giving them (called only
    #: when a report needs them, to keep the hot path free of formatting);
    #: second, as every dialogue passes it: ``Exchange(sends, "READY")``
    expect: str | Callable[[], str] = "a reply"
    #: False for notifications: the messages are written and nothing is read
    #: (the dialogue is sent back an empty list)
    reply: bool = True
    #: a dialogue that plays on without a faulting seat (``seat_gone``) reports
    #: a reply it refused here, instead of raising: the arena records the
    #: fault, stops that bot and sends back an empty list
    fault: Any = None


@dataclass(slots=True)
class MatchOutcome:
    """What a dialogue returns when the match ran to its end."""

    payoffs: list[int] | list[float]
    hands: int
    extra: dict[str, Any] = field(default_factory=dict)


Dialogue = Generator[Exchange, list[str], MatchOutcome]


@functools.cache
def _offsets(layout: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int, int], ...]:
    """(name, offset, length) of every field of a compiled dialogue's state."""
    out, at = [], 0
    for name, n in layout:
        out.append((name, at, n))
        at += n
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CompiledDialogue:
    """A dialogue's compiled twin: C source, beside the protocol, that plays
    the dialogue's regular exchanges over the bots' pipes (optional; a game
    is complete without one).

    The state it starts from and hands back is a flat tuple of integers whose
    layout is declared here, once: ``layout`` lists the fields in order with
    their lengths; the arena generates the C struct ``struct`` from it (a
    ``long long`` or an array of them per field, in a header
    ``dialogue_state.h`` with ``<STRUCT>_INTS``, the number of integers) and
    the dialogue packs and unpacks by name (``pack``, ``unpack``).

    The source includes ``arena_exchange.h`` (the arena's pipe I/O for one
    exchange) and ends with ``ARENA_MODULE_INIT(methods)``; ``function`` is
    the entry point the arena calls (see ``arena.play._exchange.CompiledLoop``
    for its arguments and results).

    A dialogue that has one (``DialogueRun.compiled``) also provides:
    ``step`` (where it stands; the loop plays only ``steps``),
    ``native_state() -> dict`` and ``load_native_state(dict)`` (its state by
    field name), ``native_params() -> tuple[int, ...]``, ``native_chance()``
    (the chance draws the loop calls, or None to stay in Python) and
    ``resume() -> Dialogue`` (the dialogue picked up wherever ``step`` stands).
    """

    source: Path
    function: str
    struct: str
    layout: tuple[tuple[str, int], ...]
    steps: frozenset[int]
    #: other files the source includes (hold'em's: its engine), part of what a build is keyed by
    includes: tuple[Path, ...] = ()
    #: the loop takes each seat's held notices (``BotProcess.held``) as they
    #: are and gives back what it still holds, instead of their being written
    #: before it starts (one write less per seat and turn)
    takes_held: bool = False
    #: the loop takes a trailing tuple of each seat's codec (None, or an
    #: ACPC agent's: arena_exchange.h ``ArenaCodec``) and speaks through it
    takes_codecs: bool = False

    @property
    def size(self) -> int:
        name, at, n = _offsets(self.layout)[-1]
        return at + n

    def pack(self, fields: dict[str, Any]) -> tuple[int, ...]:
        """The state as integers, field by field in layout order."""
        out: list[int] = []
        for name, n in self.layout:
            if n == 1:
                out.append(fields[name])
            else:
                out.extend(fields[name])
        if len(out) != self.size:
            raise ValueError(f"the state has {len(out)} integers, the layout {self.size}: "
                             + ", ".join(f"{name} {len(fields[name]) if n > 1 else 1}/{n}"
                                         for name, n in self.layout if n > 1))
        return tuple(out)

    def unpack(self, values: Sequence[int]) -> dict[str, Any]:
        """The inverse of ``pack``: one int, or a tuple for an array field."""
        if len(values) != self.size:
            raise ValueError(f"the state has {len(values)} integers, the layout {self.size}")
        return {name: values[at] if n == 1 else tuple(values[at:at + n]) for name, at, n in _offsets(self.layout)}

    def header(self) -> str:
        """The C declaration of the state (``dialogue_state.h``)."""
        lines = [f"/* generated by the arena from the layout of {self.function}: do not edit */",
                 "typedef struct {"]
        lines += [f"    long long {name};" if n == 1 else f"    long long {name}[{n}];" for name, n in self.layout]
        lines += [f"}} {self.struct};", f"#define {self.struct.upper()}_INTS {self.size}", ""]
        return "\n".join(lines)


class DialogueRun(Protocol):
    """A running match (a "dealer"): the generator plus live state for reports.

    Optional methods the arena uses when present:

    * ``tournament_scores() -> list[float]``: each seat's score for a
      tournament (default: ``scores()``); kuhn3 ranks by chips won.
    * ``abandon() -> list[tuple[int, bytes]]``: what each seat is told when
      the match is cancelled by another seat's fault (JSON games send
      ``match_end`` with ``completed`` false), so a reused process stays in step.
    * ``forfeit(seat) -> list[float]``: the scores when ``seat`` has faulted,
      by the game's fault rule. The faulting seat must never score better
      than the worst outcome it could have had by playing on legally (its
      score so far minus the most the rest of the match could cost it;
      ``arena check-game`` checks it); the others keep theirs. Default: the
      faulting seat scores no better than the lowest score of the match.
    * ``revealed(seat) -> bool``: whether the private chance ``seat`` has had
      so far (``private_chance``) is now shown to the other seats (True from
      the message that shows it on). ``arena check-game`` compares what each
      seat is told while another seat's private chance is unrevealed; without
      this method, it must never be revealed at all.
    * ``known(seat) -> object``: what ``seat`` may know now (required by
      ``arena check-game``): its own private chance, everything public and
      everything it was shown, as a value that compares equal exactly when
      the seat cannot tell two matches apart (a tuple, or a string such as
      OpenSpiel's information state). Every message to the seat must follow
      from it: check-game plays many matches and fails a game that tells a
      seat two different things where ``known`` was the same, or whose
      ``known`` changes with another seat's unrevealed private chance.
    * ``seat_gone(seat) -> bool``: ``seat`` faulted (timed out, crashed, or
      sent a reply the dialogue reported in ``Exchange.fault``); True if the
      game plays on without it for the rest of the match (the dialogue never
      writes to it again; any reply it owed in the current exchange comes
      back as None), False to end the match (fail-fast, the default when
      the method is missing). Only for games whose requests that expect a
      reply go to one seat at a time.
    """

    def run(self) -> Dialogue: ...

    def context(self) -> dict[str, Any]:
        """Where the match is now (e.g. ``{"hand": 12}``), for fault reports."""
        ...

    def standings(self) -> tuple[int, list[int] | list[float]]:
        """Hands (or games) completed so far and each seat's running payoff."""
        ...

    def scores(self) -> list[float]:
        """Each seat's score by the game's own rule (so far, if cut short)."""
        ...


@dataclass(frozen=True, slots=True)
class DemoBot:
    """A bot of the game's own for a demo league: one script (``files`` of one,
    run as its kind says: .py, .js, ...), or files uploaded together with an
    ``arena.toml`` of ``run`` and ``build``."""

    name: str
    files: tuple[Path, ...]
    run: str | None = None
    build: str | None = None


#: the attribute of a chance stream that ``arena check-game`` sets to re-draw
#: some seats' private chance (seat -> a salt); games never touch it
REDRAW_ATTRIBUTE = "_arena_redraw_private"


def private_chance(rng: random.Random, seat: int) -> random.Random:
    """A new stream for chance that only ``seat`` may see (its hidden cards or
    dice), derived from the match's ``rng``. Draw every outcome private to a
    seat from one of these and everything public from ``rng`` itself: that is
    how a game says which chance is whose, and how ``arena check-game`` tells
    a leak (it re-draws one seat's private streams and checks that nothing
    the other seats are told changes until the game reveals it).

    Each call advances ``rng`` by the same amount whatever is re-drawn, so
    public chance stays the same when a seat's private chance is re-drawn."""
    bits = rng.getrandbits(128)
    redraw = getattr(rng, REDRAW_ATTRIBUTE, {}).get(seat)
    if redraw is None:
        return type(rng)(bits)
    # The checker's re-draw: a salt, or (salt, after) to keep the first
    # ``after`` draws and re-draw the rest (a hand alike but for its last cards).
    salt, after = redraw if isinstance(redraw, tuple) else (redraw, 0)
    other = type(rng)(bits ^ ((salt + 1) << 128))  # a different stream, same public draws
    return _Forked(type(rng)(bits), other, after) if after else other


class _Forked(random.Random):
    """Draws as ``first`` for its first ``after`` draws, then as ``then``
    (every method of ``random.Random`` draws through ``getrandbits``)."""

    def __init__(self, first: random.Random, then: random.Random, after: int) -> None:
        self._first, self._then, self._left = first, then, after
        super().__init__(0)

    def getrandbits(self, k: int) -> int:
        self._left -= 1
        return (self._first if self._left >= 0 else self._then).getrandbits(k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0 ** -53


#: a game's parameter model (its ``Params``), what every hook is handed as ``params``
P = TypeVar("P", bound=BaseModel)


class GamePlugin(Generic[P]):
    """Base class of every game plugin, built-in or third-party.

    Subclass it, set the three required members and override any hook whose
    default does not fit. ``arena check-game GAME`` checks the result.

    It is generic over the parameter model: ``class MyGame(GamePlugin[MyParams])``
    with ``Params = MyParams``, and every hook takes ``params: MyParams``. Code
    that holds any game at all types it ``GamePlugin[Any]``.
    """

    # --- required ---------------------------------------------------------
    #: id (the entry-point name and the ``arena <id>`` command), version, seats
    spec: ClassVar[GameSpec]
    #: the parameters: a pydantic model with a default, a description and
    #: bounds for every field (``arena games GAME`` and ``arena <id> -h`` show them).
    #: Set in the class body like the rest; declared without ClassVar only
    #: because a ClassVar cannot hold the type variable
    Params: type[P]

    def open_dialogue(
        self, params: P, rng: random.Random, names: list[str], match_index: MatchIndex = 0
    ) -> DialogueRun:
        """A new match. ``rng`` is the only source of chance: a ``random.Random``
        whose draws come from a keyed cryptographic stream (``arena._seeds``),
        so that no bot can work out cards to come from cards it has seen. Draw
        every chance event from it (never from the ``random`` module's own
        generator); a second stream, if the game needs one, is
        ``type(rng)(rng.getrandbits(128))``.

        ``match_index`` is the match's place in a series played by the same
        processes (one number), or, when a tournament keeps one process per
        entrant, how many matches each seat's process played before this one
        (one number per seat). JSON games send it as ``match``
        (``protocols.jsonlines.match_number``); roles that alternate along a
        series follow ``protocols.jsonlines.series_position``."""
        raise NotImplementedError(f"{type(self).__name__} must define open_dialogue")

    # --- parameters -------------------------------------------------------
    def check_params(self, params: P) -> None:
        """Checks a model cannot express (a file that must parse, say): raise
        ``ValueError`` with a sentence. Runs once per command, before any bot starts."""

    def check_seats(self, params: P, seats: int) -> None:
        """Raise ``ValueError`` if ``seats`` bots cannot play with ``params``."""
        low, high = self.spec.min_seats, self.spec.max_seats
        if not low <= seats <= high:
            want = low if low == high else f"{low} to {high}"
            raise ValueError(f"{self.spec.id} needs {want} bots, got {seats}")

    # --- the wire ---------------------------------------------------------
    #: the protocol marks where each match starts and ends, so one bot process
    #: may play many matches (``--lifetime tournament``)
    reusable_processes: ClassVar[bool] = False
    #: the longest reply line read, at least the longest valid reply; longer
    #: is ``malformed_reply`` (the arena never buffers more for a bot)
    max_reply_bytes: ClassVar[int] = 4096
    #: JSON protocols: the pydantic model of every message and reply (the
    #: framing's included); their JSON Schemas are what bots are promised,
    #: and ``arena check-game`` validates every line of a match against them
    message_models: ClassVar[tuple[type[BaseModel], ...]] = ()

    # --- scoring ----------------------------------------------------------
    def invariants(self, params: P) -> tuple[str, ...] | None:
        """What always holds of a match's payoffs with ``params`` (required:
        ``arena check-game`` fails a game that declares nothing, and checks
        what it declares at every step of many matches): ``("zero_sum",)``
        when the payoffs always add up to zero, ``("constant_sum",)`` when
        always to one total, ``()`` when neither holds. None: not declared."""
        return None

    def aggregate(self, per_match: Sequence[Sequence[float]]) -> list[float]:
        """One score per seat from a series of matches (default: the sum)."""
        return [float(sum(col)) for col in zip(*per_match)]

    #: the game's words (docs/vocabulary.md): the unit of a seat's payoff, what
    #: ``standings`` counts ("chips", "points", "turns won"); what a match is
    #: counted in ("hands", "rounds", "games"); the unit or rule of ``scores()``
    #: ("chips/√hands"); and of the scores a tournament ranks by (None: the
    #: same as ``score_label``)
    payoff_label: ClassVar[str] = "points"
    hand_label: ClassVar[str] = "hands"
    score_label: ClassVar[str] = "points"
    tournament_label: ClassVar[str | None] = None

    def units(self, params: P | None = None) -> dict[str, str]:
        """Those words for a match with ``params`` (a game whose unit depends on
        its format overrides this): keys ``payoff``, ``hands``, ``score``, ``tournament``."""
        return {"payoff": self.payoff_label, "hands": self.hand_label, "score": self.score_label,
                "tournament": self.tournament_label or self.score_label}

    def big_blind(self, params: P | None = None) -> float | None:
        """One big blind in the payoff's unit, for a poker game whose payoff is
        chips won over hands (``hand_label``): the rates poker papers and the
        ACPC report, mbb/g (thousandths of a big blind a hand) and bb/100, are
        counted from it. A game of antes only counts one ante (the largest) as
        its big blind. None (the default): the game has no such unit."""
        return None

    def luck_reader(self, params: P, seed: str) -> Any | None:
        """For ``--aivat``: a reader of the luck of each hand (protocols/luck.py):
        ``sent(seat, text)`` takes every line sent to a seat, ``take()`` gives
        the hands finished since (``HandLuck``); ``seed`` keys any sampling it
        does. None (the default): the game gives no such estimate."""
        return None

    # (the fault rule, ``forfeit``, lives on the dialogue run: see DialogueRun)

    # --- tournaments ------------------------------------------------------
    #: 'match' (fresh processes per match) or 'tournament' (one per entrant)
    default_lifetime: ClassVar[str] = "match"
    #: faults after which an entrant is disqualified (None: never)
    default_max_faults: ClassVar[int | None] = None
    #: what one round of a tournament is, in words (None: every seating)
    round_note: ClassVar[str | None] = None
    #: how a tournament seats each set of entrants at a table: "permutations"
    #: (every ordering) or "rotations" (each rotation once, so every entrant
    #: plays every seat; for tables where every ordering would be too many)
    seatings: ClassVar[str] = "permutations"

    def table_seats(self, entrants: int) -> int:
        """Bots per match in a tournament of ``entrants`` when ``--seats`` is not given."""
        return self.spec.max_seats

    def fixed_seats(self, params: P) -> int | None:
        """The one number of seats ``params`` allow, when the parameters fix
        it (an OpenSpiel game string names its players); None: the range in
        ``spec``. Tournaments, quarantines and leagues take it as the table
        size where none is given."""
        return None

    # --- what ships with the game -----------------------------------------
    #: the rules page, in words a bot author reads (``arena check-game`` wants one)
    rules: ClassVar[str] = ""

    def reference_opponents(self) -> Path | None:
        """The quarantine manifest (``opponents.json``) of the game's own
        reference bots; commands in it are relative to its folder. None: the
        game ships none, and quarantine needs ``--opponents``."""
        return None

    #: the golden playthroughs: each is one match, ``(params, seed)``, played
    #: with ``random_reply``; their transcript is ``playthrough_file``
    playthrough_matches: ClassVar[tuple[tuple[dict[str, Any], int], ...]] = (({}, 7),)

    def playthrough_file(self) -> Path | None:
        """The golden transcript checked by ``arena check-game`` (None: none yet)."""
        return None

    def against_reference(self, run: Any, sent: Sequence[tuple[int, str]]) -> str | None:
        """A game whose rules are a library's (OpenSpiel's) may check a played
        match against that library where it keeps no golden file: ``run`` is the
        finished dialogue run, ``sent`` every ``(seat, line)`` sent to a seat in
        play. None when every line agrees; else, in words, the first that does
        not. The default (``NotImplemented``): the game has no such reference."""
        return NotImplemented

    def random_reply(self, run: Any, seat: int, payload: bytes, rng: random.Random) -> str:
        """A legal reply chosen with ``rng`` to ``payload`` sent to ``seat``
        (``run`` is the match's dialogue run, for state the message lacks).
        Used for playthroughs and conformance checks."""
        raise NotImplementedError(f"{type(self).__name__} has no random_reply")

    def legal_replies(self, run: Any, seat: int, payload: bytes) -> Sequence[str] | None:
        """Every legal reply to ``payload`` sent to ``seat``, from the game's
        engine (its legal actions), as reply lines; None when the set is not
        given (then ``arena check-game`` cannot check legality). JSON games
        compare replies as their models parse them, so ``{"type": "ready"}``
        stands for every spelling of it. ``arena check-game`` sends replies
        made from the reply schema and checks the dialogue accepts exactly
        these, and blames the asked seat for any other."""
        return None

    # --- a person in a seat -----------------------------------------------
    def seat_view(self, params: P, seat: int) -> Any:
        """How ``seat``'s messages read to a person playing it (``human`` in
        place of a bot), and the legal choices by name at each decision: a
        ``protocols.seatview.SeatView``. Required: ``arena check-game`` holds
        the dialogue to the choices it names (each is accepted; any other
        reply is refused and charged to the seat that sent it) and fails a
        game that keeps the default, the plain view, which shows each line
        and takes a typed reply line."""
        from .seatview import SeatView

        return SeatView(seat, params.model_dump(mode="json"))

    def hands_of(self, lines: Sequence[tuple[int, str, str]]) -> list[dict[str, Any]] | None:
        """A stored match read as a person reads it, for the league's match
        page: ``lines`` are the transcript's ``(seat, "->" or "<-", text)``.
        Each hand a dict: ``number``; ``seats``, per seat ``{"seat",
        "cards", "profit"}`` (``profit``: what the hand won or lost it; a
        ``stack`` too where the game has stacks: the league's browser seat
        then draws the hand in play as a table, from that seat's lines alone);
        ``streets``, each ``{"name", "board", "actions"}`` with actions
        ``{"seat", "words"}``; ``pots``, each ``{"amount", "winners",
        "words"}``. None: the game draws no hands; the page then replays
        the dialogue from the match's seed and recorded replies, and charts
        ``standings()`` over the hands with a table of the steps in the
        words of ``seat_view``."""
        return None

    # --- the field's formats and agents -----------------------------------
    #: the hand-history formats the game writes (``hand_histories``):
    #: "phh" (PokerKit's, ``--hand-history``) and "acpc" (the ACPC dealer's
    #: log, ``--acpc-log``)
    hand_formats: ClassVar[frozenset[str]] = frozenset()

    def hand_histories(self, names: list[str]) -> Any:
        """A reader that keeps a match's hands from the lines the seats are
        sent (``sent(seat, text)``; ``received(seat, text)`` too if it needs
        the replies): ``done`` (the hands so far), ``dumps()`` for "phh" and
        ``acpc_log()`` for "acpc". Only asked of a game with ``hand_formats``."""
        raise NotImplementedError(f"{self.spec.id} writes no hand histories")

    def acpc_refusal(self, params: dict[str, Any]) -> str | None:
        """Why ACPC agents cannot play a match with these parameters (the
        parameters as JSON), in words; None: they can. Default: the game
        has no ACPC translation, so they never can."""
        return f"ACPC agents play only games that translate their wire to the ACPC dealer's, and {self.spec.id} does not"

    def higc_refusal(self, params: dict[str, Any]) -> str | None:
        """Why bots of OpenSpiel's competition referee (``higc:CMD``) cannot play a match with
        these parameters, in words; None: they can. Default: only an OpenSpiel game can."""
        return (f"HIGC bots read OpenSpiel's observation tensors, which only OpenSpiel games have, "
                f"and {self.spec.id} is not one")

    # --- what the game brings besides its rules ----------------------------
    def native_parts(self) -> Sequence[Any]:
        """What the game builds in C, so that ``make install`` (``python -m
        arena.native``) builds it ahead of time: its ``CompiledDialogue``s,
        and functions that build anything else and return its path (hold'em's
        engine). Default: nothing."""
        return ()

    def demo_bots(self) -> Sequence["DemoBot"]:
        """Bots a league started with ``--demo`` submits for this game (and its
        variants), so that a new league has tables at once. Default: none."""
        return ()

    # --- how exploitable a bot is -------------------------------------------
    def exploit(self, params: P) -> "ExploitModel | None":
        """What ``arena exploit`` needs to estimate a bot's strategy from
        play and solve a best response to it, for a game small enough to
        solve: a ``protocols.exploit.ExploitModel`` (how a seat's lines read
        as decisions, the opponents and matches to sample with, the solver).
        Raise ``ValueError`` with a sentence when the game supports it but
        not with these parameters. None (the default): the game does not,
        and the command refuses in words."""
        return None

    # --- variants -----------------------------------------------------------
    def variant(self, name: str) -> "GamePlugin[Any]":
        """The game ``ID:NAME`` (``openspiel:liars_dice``): this game with its
        parameters' variant ``name`` fixed, under its own id, so that a league
        or a results database can tell several variants apart. Raise
        ``ValueError`` with a sentence for a name it does not know (the
        default: the game has no variants)."""
        raise ValueError(f"{self.spec.id} has no variants")

    # --- the command line -------------------------------------------------
    def catalogue(self) -> list[tuple[str, str, str | None, str | None]] | None:
        """The variants a game's parameters can name, for ``arena games GAME
        --list``: (name, seats in words, why the arena refuses it or None,
        what a playable one needs said or None); None when the game has no such list."""
        return None

    #: extra command groups mounted under ``arena``: name -> ``"module:attribute"``
    #: of a ``typer.Typer`` (a name, not an import: this layer has no CLI).
    #: TwoCardDraw's ``arena strategy`` is one.
    commands: ClassVar[dict[str, str]] = {}
