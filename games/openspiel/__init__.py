"""Any game of DeepMind's OpenSpiel (``openspiel``), refereed by its own engine.

Rules
=====

The rules are OpenSpiel's: ``game`` is any string ``pyspiel.load_game``
accepts (``liars_dice``, ``leduc_poker``, ``kuhn_poker(players=3)``,
``goofspiel(num_cards=4)``), and the engine is that library's, unchanged.
What the arena adds:

=============  ==========================================================
seats          the game's number of players (``kuhn_poker(players=3)``: 3)
chance         every chance outcome is drawn from the match seed (OpenSpiel's
               explicit chance outcomes and their probabilities), so the same
               seed deals the same chance at every seating (``--duplicate``)
score          the game's returns at the end of the match
fault          the faulting seat scores the game's minimum utility (or its
               returns so far, if lower); the others keep their returns so far
refused        games whose chance is sampled inside the game (not from the
               seed), mean-field games, games that give a player neither an
               observation string nor an information-state string, and games
               that need parameters to load (``arena games openspiel --list``)
=============  ==========================================================

Messages
========

JSON lines, one object per line. Each match opens with ``match_start``
(``params`` holds the ``game`` string, ``seat`` your seat from 0, ``players``
one name per seat) and closes with ``match_end`` (no reply; ``scores`` are
the game's returns, in seat order). Answer ``match_start`` with
``{"type": "ready"}``, or ``{"type": "ready", "tensors": true}`` to be sent
the observation tensors (``tensors`` is false when left out).

At every state before the end, chance states included, a seat that chooses
now gets ``act``; a seat that does not gets ``observe`` (no reply) only when
what it may know changed since its last message (its observation, its
information state, or its tensors): no seat learns that a state passed which
OpenSpiel does not show it (a phantom game's failed attempt, a card dealt to
another seat). At a simultaneous step every seat with a legal move gets its
``act`` before any reply is read. Both carry what the seat may know now:

* ``move``: this seat's messages (``act`` and ``observe``) before this one
  since the match started, from 0; not the match's decisions, which some
  games hide;
* ``observation``: OpenSpiel's observation string for this seat, null when
  the game gives none;
* ``information_state``: OpenSpiel's information-state string for this seat,
  null when the game gives none;
* ``public_tensor`` and ``private_tensor``: base64 of the compressed public
  observation tensor and of this seat's private one, as OpenSpiel's
  competition referee (HIGC) sends them; null unless your ``ready`` asked
  for ``tensors``, or where the game does not provide them.

``act`` adds ``legal``: every legal action of this seat now, each an object
with ``action``, the action's id, and ``name``, OpenSpiel's name for it
(``action_to_string``). Answer ``{"type": "action", "action": ID}`` with
``action`` one of those ids; any other id is an ``illegal_action``, a line
that is not such an object a ``malformed_reply``. ``observe`` adds
``final``: true on the one message every seat gets after the last move,
before ``match_end``.

Everything here is rules: loading and checking a game string, and one
match's state with chance as an explicit step (the caller draws the outcome).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .._base import IllegalAction

#: the game ``arena check-game openspiel`` and a bare ``arena play openspiel`` play
DEFAULT_GAME = "kuhn_poker"


class OpenSpielParams(BaseModel):
    """Parameters of one OpenSpiel match: the game string."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str = Field(default=DEFAULT_GAME, min_length=1, max_length=1000,
                      description="an OpenSpiel game string: NAME or NAME(key=value,...), "
                                  "as pyspiel.load_game takes it (arena games openspiel --list)")

    @field_validator("game", mode="before")
    @classmethod
    def _a_number_is_its_name(cls, value: Any) -> Any:
        # `-p game=2048` arrives as the number 2048 (a value is read as JSON first): the game of that name
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _pyspiel():
    try:
        import pyspiel  # the C++ library: imported when a game is first loaded
    except ImportError:
        raise ValueError("the openspiel game needs DeepMind's OpenSpiel, which is not installed: "
                         "pip install 'arena-cardgames[openspiel]' (or make install)") from None
    return pyspiel


def type_refusal(game_type: Any) -> str | None:
    """Why the arena cannot referee a game of this type, or None."""
    ps = _pyspiel()
    if game_type.dynamics not in (ps.GameType.Dynamics.SEQUENTIAL, ps.GameType.Dynamics.SIMULTANEOUS):
        return f"its dynamics are {game_type.dynamics.name.lower()} (mean-field games have no seats to play)"
    if game_type.chance_mode == ps.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        return "its chance is sampled inside the game, not drawn from the match seed"
    if not (game_type.provides_observation_string or game_type.provides_information_state_string):
        return "it gives a player neither an observation string nor an information-state string"
    return None


@dataclass(frozen=True, slots=True)
class Listed:
    """One registered game as ``arena games openspiel --list`` shows it."""

    name: str
    min_players: int
    max_players: int
    refusal: str | None
    #: what a playable row needs said (a wrapper: the game to wrap)
    note: str | None = None


def catalogue() -> list[Listed]:
    """Every game OpenSpiel registers, with its player counts and, for the
    ones the arena cannot referee, the reason.

    A wrapper (a game with a ``game`` parameter: misere, zerosum, start_at...)
    is registered with a stand-in type; the loaded game has the type of what
    it wraps, and ``load`` checks that. Only a wrapper with its own ``seed``
    (add_noise) draws chance of its own, which the match seed cannot key."""
    out = []
    for gt in sorted(_pyspiel().registered_games(), key=lambda t: t.short_name):
        spec = gt.parameter_specification
        note = None
        if "game" in spec:
            why = _wrapper_refusal(gt)
            note = None if why else f"around a game: {gt.short_name}(game=GAME(...)); what it wraps is checked as it loads"
        else:
            why = type_refusal(gt)
            if why is None and not gt.default_loadable:
                why = "it needs parameters to load (a file, a game string...)"
        out.append(Listed(gt.short_name, gt.min_num_players, gt.max_num_players, why, note))
    return out


def _wrapper_refusal(game_type: Any) -> str | None:
    """Why a wrapper cannot be refereed whatever it wraps, or None: one with a
    ``seed`` of its own (add_noise) draws chance inside, out of the match seed's reach."""
    if "seed" in game_type.parameter_specification:
        return "it draws chance of its own from its seed parameter, not from the match seed"
    return None


@functools.lru_cache(maxsize=512)
def load(game_string: str) -> Any:
    """The loaded game, or ValueError with a sentence naming the string."""
    ps = _pyspiel()
    try:
        game = ps.load_game(game_string)
    except ps.SpielError as exc:
        # an unknown name is answered with every registered name, a line each
        reason = str(exc).splitlines()[0].replace(" Available games are:", "")
        raise ValueError(f"OpenSpiel cannot load game {game_string!r}: {reason} "
                         "(arena games openspiel --list names every game)") from None
    top = next((t for t in ps.registered_games() if t.short_name == game_string.split("(", 1)[0].strip()), None)
    wrapper = top is not None and "game" in top.parameter_specification
    why = (_wrapper_refusal(top) if wrapper else None) or type_refusal(game.get_type()) or _first_decision_refusal(game)
    if why is not None:
        raise ValueError(f"the arena cannot referee {game_string!r}: {why}")
    return game


def _first_decision_refusal(game: Any) -> str | None:
    """Why the first players' decision cannot be offered as a list of legal
    actions (a few games take only action structs), or None. Chance is
    walked through with its first outcomes."""
    ps = _pyspiel()
    state = game.new_initial_state()
    for _ in range(10_000):
        if not state.is_chance_node():
            break
        state.apply_action(state.chance_outcomes()[0][0])
    if state.is_terminal():
        return None
    try:
        for seat in range(game.num_players()):
            state.legal_actions(seat)
    except ps.SpielError as exc:
        return f"its moves are not a list of legal actions ({exc})"
    return None


def players(game_string: str) -> int:
    return load(game_string).num_players()


def utility(game_string: str) -> str:
    """How the game's returns at the end add up, as its type declares it:
    ``zero_sum``, ``constant_sum``, ``general_sum`` or ``identical`` (every
    player gets the same)."""
    return load(game_string).get_type().utility.name.lower()


class OpenSpielMatch:
    """One match's state. Chance is an explicit step: ``chance_outcomes()``
    lists the outcomes with their probabilities and ``apply_chance(action)``
    applies the one the caller drew; players' moves go through ``act``."""

    def __init__(self, game_string: str) -> None:
        self.game = load(game_string)
        gt = self.game.get_type()
        self.players = self.game.num_players()
        self.simultaneous = gt.dynamics == _pyspiel().GameType.Dynamics.SIMULTANEOUS
        self.has_observation = gt.provides_observation_string
        self.has_information_state = gt.provides_information_state_string
        self.state = self.game.new_initial_state()
        #: decisions taken so far (one per player move or simultaneous step)
        self.moves = 0

    # --- where the match stands -------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.state.is_terminal()

    @property
    def chance(self) -> bool:
        return self.state.is_chance_node()

    def acting(self) -> list[int]:
        """The seats that choose now (every seat with a legal move at a
        simultaneous step; the current player otherwise)."""
        s = self.state
        if s.is_terminal() or s.is_chance_node():
            return []
        if s.is_simultaneous_node():
            return [p for p in range(self.players) if s.legal_actions(p)]
        return [s.current_player()]

    def legal(self, seat: int) -> list[tuple[int, str]]:
        """``seat``'s legal actions with OpenSpiel's names for them."""
        s = self.state
        return [(a, s.action_to_string(seat, a)) for a in s.legal_actions(seat)]

    def observation(self, seat: int) -> str | None:
        """``seat``'s observation string; None where the game gives none."""
        return _or_none(self.state.observation_string, seat) if self.has_observation else None

    def information_state(self, seat: int) -> str | None:
        """``seat``'s information-state string; None where the game gives none."""
        return _or_none(self.state.information_state_string, seat) if self.has_information_state else None

    def returns(self) -> list[float]:
        return [float(r) for r in self.state.returns()]

    def min_utility(self) -> float:
        return float(self.game.min_utility())

    # --- moves ---------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(int(a), float(p)) for a, p in self.state.chance_outcomes()]

    def apply_chance(self, action: int) -> None:
        """Apply the chance outcome the caller drew (one of ``chance_outcomes()``;
        OpenSpiel itself refuses any other with an error)."""
        self.state.apply_action(action)

    def check(self, seat: int, action: int) -> None:
        """Raise IllegalAction, listing the legal names, if ``action`` is not
        one of ``seat``'s legal actions now."""
        legal = self.state.legal_actions(seat)
        if action not in legal:
            names = ", ".join(f"{a} ({self.state.action_to_string(seat, a)})" for a in legal)
            raise IllegalAction(f"action {action} is not legal for seat {seat}; the legal actions are {names}")

    def act(self, actions: dict[int, int]) -> None:
        """Apply the acting seats' checked actions (one seat, or every acting
        seat at a simultaneous step)."""
        for seat, action in actions.items():
            self.check(seat, action)
        if self.state.is_simultaneous_node():
            invalid = _pyspiel().INVALID_ACTION
            self.state.apply_actions([actions.get(p, invalid) for p in range(self.players)])
        else:
            (action,) = actions.values()
            self.state.apply_action(action)
        self.moves += 1


def _or_none(method: Any, *args: Any) -> Any:
    """What ``method`` says, or None where the game does not implement it
    (some games leave a view out at chance or terminal states)."""
    try:
        return method(*args)
    except _pyspiel().SpielError:
        return None


def pick(outcomes: list[tuple[int, float]], u: float) -> int:
    """The outcome a uniform draw ``u`` in [0, 1) lands on (inverse CDF)."""
    total = 0.0
    for action, p in outcomes:
        total += p
        if u < total:
            return action
    return outcomes[-1][0]  # rounding: the probabilities may sum to just under 1


__all__ = ["DEFAULT_GAME", "Listed", "OpenSpielMatch", "OpenSpielParams", "catalogue", "load", "pick",
           "players", "type_refusal", "utility"]
