"""The openspiel JSON-lines protocol: any OpenSpiel game, as a sans-I/O dialogue.

At every state of the game before its end, a seat that chooses now gets
``act`` (a request); a seat that does not gets ``observe`` (a notification)
only when what it may know has changed since its last message (its
observation, its information state, or the tensors it asked for): a seat is
never told that a state passed which OpenSpiel does not show it (a phantom
game's failed attempt, another seat's private card). ``move`` counts the
seat's own messages, not the match's decisions, for the same reason. A
simultaneous step asks every acting seat in one exchange. At the end every
seat gets a last ``observe`` (``final`` true), then ``match_end`` with the
game's returns::

    match_start -> ready (tensors: true or false)            (every seat)
    per state:   observe       (the seats that do not choose now, if their view changed)
                 act -> action          (the seat, or seats, that choose)
    at the end:  observe (final)        (every seat)
    match_end                                                (every seat)

OpenSpiel's own competition referee (HIGC) sends each seat a message per
state; a relay can still speak its protocol to an unchanged HIGC bot
(``higc:CMD``, protocols/higc/relay.py): a seat whose ``ready`` asks for
them gets its public and private observation tensors, as that referee
compresses them, in each message (they are large for some games, chess's
five megabytes a match, so nobody gets them unasked).
Chance outcomes are drawn from the match's stream, never by the bots.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, Field, create_model

import games.openspiel
from games import GameSpec, IllegalAction
from games.openspiel import OpenSpielMatch, OpenSpielParams, load, pick, players, utility

from ._builtin import GOLDEN, SAMPLE_BOTS, BuiltinGame
from ._contract import DemoBot, Exchange, MatchOutcome
from ._errors import ProtocolError
from .seatview import Choice, SeatView, Turn, word_for
from .jsonlines import (MatchEnd, MatchStart, Message, Reply, abandoned, decode, encode, encode_fields, end_match,
                        fast_reply, match_number)

GAME = "openspiel"
#: 2: a waiting seat is told only what changed for it, and ``move`` counts its own messages
VERSION = 2
#: the most seats a game string may ask for (OpenSpiel's own games go up to 15)
MAX_SEATS = 16
#: the golden playthroughs of the variants the project plays (openspiel:liars_dice, ...), one file
#: per game string; any string makes a variant, so the others have none
VARIANT_GOLDEN = GOLDEN / GAME


class Ready(Reply):
    """The answer to ``match_start``: the framing's, with one option."""

    type: Literal["ready"]
    tensors: bool = Field(default=False, description="true: every act and observe of this match carries "
                                                      "public_tensor and private_tensor (they are null otherwise)")

    fast_shape = {"type": "ready"}


class LegalAction(BaseModel):
    action: int = Field(description="the action's id: what to answer")
    name: str = Field(description="OpenSpiel's name for it (action_to_string)")


class _Seen(Message):
    type: str  # each message's own Literal; declared first so that it leads the line
    move: int = Field(description="this seat's messages (act and observe) before this one since the match "
                                  "started, from 0: never the other seats' decisions, which a game may hide")
    observation: str | None = Field(
        description="OpenSpiel's observation string for this seat (null when the game has none)")
    information_state: str | None = Field(
        description="OpenSpiel's information-state string for this seat (null when the game has none)")
    public_tensor: str | None = Field(
        default=None, description="base64 of the compressed public observation tensor, as OpenSpiel's "
                                  "competition referee (HIGC) sends it (null when the game has none)")
    private_tensor: str | None = Field(
        default=None, description="base64 of the compressed private observation tensor of this seat, as "
                                  "HIGC sends it (null when the game has none)")


class Act(_Seen):
    """This seat chooses now: answer one of ``legal``."""

    type: Literal["act"] = "act"
    legal: list[LegalAction] = Field(description="every legal action of this seat now")


class Observe(_Seen):
    """What this seat may observe now; nothing is answered."""

    type: Literal["observe"] = "observe"
    final: bool = Field(default=False, description="true once, at the end of the game, before match_end")


class Action(Reply):
    type: Literal["action"]
    action: int = Field(description="the id of one of the legal actions")

    fast_shape = {"type": "action", "action": int}


MODELS: list[type[BaseModel]] = [Ready, Act, Observe, Action]

_EXPECT = '{"type": "action", "action": ID}, ID one of the legal actions'
_EXPECT_READY = '{"type": "ready"}, or {"type": "ready", "tensors": true} for the observation tensors'


@functools.lru_cache(maxsize=512)
def _observers(game_string: str) -> tuple[Any, Any] | None:
    """The public and private observations of HIGC's referee for this game
    (public information only; this seat's private information only), or
    None when the game does not provide them."""
    import pyspiel

    game = load(game_string)
    try:
        public = game.make_observer(pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE), {})
        private = game.make_observer(pyspiel.IIGObservationType(
            perfect_recall=False, public_info=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER), {})
        if public is None or private is None:
            return None
        return pyspiel._Observation(game, public), pyspiel._Observation(game, private)
    except pyspiel.SpielError:
        return None


def _tensor(observation: Any, state: Any, seat: int) -> str | None:
    """base64 of the compressed tensor, or None where the game does not fill it."""
    import pyspiel

    try:
        observation.set_from(state, seat)
    except pyspiel.SpielError:
        return None
    return base64.b64encode(observation.compress()).decode()


def told_by_pyspiel(game_string: str, history: Sequence[tuple[int, int]], tensors: Sequence[bool]
                    ) -> list[list[tuple]]:
    """What each seat is to be told over a match, from pyspiel alone: the
    match replayed from its ``full_history`` ``(player, action)``; at every
    state an ``act`` to each seat that chooses, an ``observe`` to any other
    whose view (observation, information state, the tensors it asked for)
    differs from the one it was last sent; a final ``observe`` to every seat.
    Each message as ``(type, observation, information state, public tensor,
    private tensor, legal ids and names or None)``."""
    import pyspiel

    game = pyspiel.load_game(game_string)
    kind, n = game.get_type(), game.num_players()
    observers = _observers(game_string) if any(tensors) else None

    def view(state: Any, seat: int) -> tuple:
        got = [state.observation_string(seat) if kind.provides_observation_string else None,
               state.information_state_string(seat) if kind.provides_information_state_string else None]
        got += ([_tensor(observers[0], state, seat), _tensor(observers[1], state, seat)]
                if observers is not None and tensors[seat] else [None, None])
        return tuple(got)

    state, at = game.new_initial_state(), 0
    told: list[list[tuple]] = [[] for _ in range(n)]
    last: list[tuple | None] = [None] * n
    while not state.is_terminal():
        if state.is_chance_node():
            acting: list[int] = []
        elif state.is_simultaneous_node():
            acting = [p for p in range(n) if state.legal_actions(p)]
        else:
            acting = [state.current_player()]
        for seat in range(n):
            seen = view(state, seat)
            if seat in acting:
                legal = tuple((a, state.action_to_string(seat, a)) for a in state.legal_actions(seat))
                told[seat].append(("act", *seen, legal))
            elif seen != last[seat]:
                told[seat].append(("observe", *seen, None))
            else:
                continue
            last[seat] = seen
        if state.is_simultaneous_node():
            step = {p: a for p, a in history[at:at + n] if p >= 0}
            at += sum(1 for p, _ in history[at:at + n] if p >= 0)
            state.apply_actions([step.get(p, pyspiel.INVALID_ACTION) for p in range(n)])
        else:
            state.apply_action(history[at][1])
            at += 1
    for seat in range(n):
        told[seat].append(("observe", *view(state, seat), None))
    return told


class OpenSpielDealer:
    """Runs one match of an OpenSpiel game over JSON lines; ``rng`` draws chance."""

    def __init__(self, params: OpenSpielParams, rng: random.Random, names: list[str] | None = None,
                 match_index: int | Sequence[int] = 0) -> None:
        self.params = params
        self.match = OpenSpielMatch(params.game)
        self.rng = rng
        self.names = list(names) if names is not None else [f"seat{s}" for s in range(self.match.players)]
        self.match_index = match_index
        self._tensors = _observers(params.game)
        #: the seats that asked for the tensors in their ready
        self._wants_tensors = [False] * self.match.players
        #: which message of the match's shape is being sent (for ``known``)
        self._stage = "match_start"
        #: each seat's messages in play so far (its ``move``), and the view it was last sent
        self._sent = [0] * self.match.players
        self._last_view: list[tuple | None] = [None] * self.match.players

    # --- reports and scores ---------------------------------------------------
    def context(self) -> dict[str, Any]:
        return {"hand": None, "move": self.match.moves}

    def standings(self) -> tuple[int, list[float]]:
        return (1 if self.match.terminal else 0), self.match.returns()

    def scores(self) -> list[float]:
        return self.match.returns()

    def forfeit(self, seat: int) -> list[float]:
        """The fault rule: the faulting seat scores the game's minimum utility
        (its returns so far, if lower); the others keep their returns so far."""
        scores = self.scores()
        scores[seat] = min(self.match.min_utility(), scores[seat])
        return scores

    def abandon(self) -> list[tuple[int, bytes]]:
        return abandoned(self.match_index, self.scores(), len(self.names))

    def known(self, seat: int) -> tuple:
        """What ``seat`` may know now: OpenSpiel's information state of the
        seat (its observation where the game gives no information state),
        and what the arena adds: the match (players, game, match number, the
        seat's own ``tensors`` choice), where the dialogue stands, the move
        counter, the seat's legal actions when it chooses now, and the
        returns once the game is over. The observation string, the tensors
        and the action names are left out: they must follow from these."""
        m = self.match
        info = m.information_state(seat)
        view = ("information_state", info) if info is not None else ("observation", m.observation(seat))
        legal = tuple(m.state.legal_actions(seat)) if seat in m.acting() else None
        returns = tuple(m.returns()) if m.terminal else None
        return (match_number(self.match_index, seat), seat, tuple(self.names), self.params.game,
                self._wants_tensors[seat], self._stage, self._sent[seat], view, legal, returns)

    # --- messages ---------------------------------------------------------------
    # The messages are written from plain dicts in their models' field order
    # (encode_fields: the models' own bytes, tests/protocols/test_openspiel.py
    # checks it); a pydantic model per legal action cost more than the game.
    def _view(self, seat: int) -> tuple:
        """What ``seat`` may see now: its observation and information state, and the tensors it asked for."""
        m = self.match
        tensors = ((_tensor(self._tensors[0], m.state, seat), _tensor(self._tensors[1], m.state, seat))
                   if self._tensors is not None and self._wants_tensors[seat] else (None, None))
        return (m.observation(seat), m.information_state(seat), *tensors)

    def _seen(self, kind: str, seat: int, view: tuple | None = None) -> dict[str, Any]:
        view = self._view(seat) if view is None else view
        self._last_view[seat] = view
        fields: dict[str, Any] = {"type": kind, "move": self._sent[seat], "observation": view[0],
                                  "information_state": view[1], "public_tensor": view[2], "private_tensor": view[3]}
        self._sent[seat] += 1
        return fields

    def _changed(self, seats: list[int]) -> list[tuple[int, tuple]]:
        """Of ``seats``, those whose view differs from the one they were last sent, with it."""
        views = [(s, self._view(s)) for s in seats]
        return [(s, v) for s, v in views if v != self._last_view[s]]

    def _observe(self, seat: int, final: bool = False, view: tuple | None = None) -> bytes:
        fields = self._seen("observe", seat, view)
        fields["final"] = final
        return encode_fields(fields)

    def _act(self, seat: int) -> bytes:
        fields = self._seen("act", seat)
        fields["legal"] = [{"action": a, "name": name} for a, name in self.match.legal(seat)]
        return encode_fields(fields)

    def run(self):  # -> Dialogue
        m = self.match
        n = m.players
        params = self.params.model_dump(mode="json")
        lines = yield Exchange([(s, encode(MatchStart(
            game=GAME, game_version=VERSION, match=match_number(self.match_index, s), seat=s, players=self.names,
            params=params))) for s in range(n)], _EXPECT_READY)
        for seat, line in enumerate(lines):
            ready = fast_reply(line, Ready) or dict(decode(seat, line, Ready, _EXPECT_READY))
            self._wants_tensors[seat] = ready.get("tensors", False)
        self._stage = "play"
        while not m.terminal:
            acting = m.acting()
            told = self._changed([s for s in range(n) if s not in acting])
            if told:
                yield Exchange([(s, self._observe(s, view=v)) for s, v in told], reply=False)
            if m.chance:
                m.apply_chance(pick(m.chance_outcomes(), self.rng.random()))
                continue
            lines = yield Exchange([(s, self._act(s)) for s in acting], _EXPECT)
            chosen = {}
            for seat, line in zip(acting, lines):
                data = fast_reply(line, Action)
                action = data["action"] if data is not None else decode(seat, line, Action, _EXPECT).action
                try:
                    m.check(seat, action)
                except IllegalAction as exc:
                    raise ProtocolError(seat, "illegal_action", line, _EXPECT, str(exc)) from None
                chosen[seat] = action
            m.act(chosen)
        self._stage = "final"
        yield Exchange([(s, self._observe(s, final=True)) for s in range(n)], reply=False)
        returns = m.returns()
        self._stage = "match_end"
        yield from end_match(self.match_index, returns, n)
        return MatchOutcome(payoffs=returns, hands=1, extra={"moves": m.moves})


class OpenSpielPlugin(BuiltinGame[OpenSpielParams]):
    spec = GameSpec(
        id="openspiel",
        version=1,
        title="OpenSpiel",
        min_seats=1,
        max_seats=MAX_SEATS,
        description="Any game of DeepMind's OpenSpiel (-p game=liars_dice); seats = the game's players.",
    )
    Params = OpenSpielParams
    rules = games.openspiel.__doc__ or ""
    reusable_processes = True
    #: an action id in a small JSON object
    max_reply_bytes = 1024
    #: the framing's, but for openspiel's own ready
    message_models = (MatchStart, MatchEnd, *MODELS)
    payoff_label = "return"
    #: a game of four seats is four matches a round, not twenty-four
    seatings = "rotations"
    hand_label = "games"
    playthrough_matches = (
        ({"game": "kuhn_poker"}, 7),
        ({"game": "leduc_poker"}, 3),
        ({"game": "liars_dice"}, 5),
        ({"game": "goofspiel(num_cards=4)"}, 2),
        ({"game": "kuhn_poker(players=3)"}, 4),
    )

    def demo_bots(self) -> tuple[DemoBot, ...]:
        o = SAMPLE_BOTS / "openspiel"
        return (DemoBot("random", (o / "random_bot.py",)), DemoBot("first-js", (o / "first_bot.js",)))

    def higc_refusal(self, params: dict[str, Any]) -> str | None:
        # The referee sends the public and the private observation of each state; a game
        # without those observers gives a HIGC bot nothing to read.
        game = str(params.get("game", ""))
        try:
            if _observers(game) is not None:
                return None
        except Exception as exc:  # a game string pyspiel refuses is the parameters' error, said there
            return f"{game!r} does not load: {exc}"
        return (f"{game} has no public and private observations (pyspiel's IIG observers), which the referee's "
                "observation tensors are made of")

    def big_blind(self, params: OpenSpielParams | None = None) -> float | None:
        # OpenSpiel's two poker games of antes only: an ante of 1 each (universal_poker's
        # blinds live in its own game string, not read here)
        name = (params.game if params is not None else "").split("(", 1)[0]
        return 1.0 if name in ("kuhn_poker", "leduc_poker") else None

    def check_params(self, params: OpenSpielParams) -> None:
        load(params.game)  # ValueError with the reason when it cannot be played

    def check_seats(self, params: OpenSpielParams, seats: int) -> None:
        want = players(params.game)
        if seats != want:
            raise ValueError(f"openspiel game {params.game!r} is played by {want} bots, got {seats}")

    def fixed_seats(self, params: OpenSpielParams) -> int:
        return players(params.game)

    def invariants(self, params: OpenSpielParams) -> tuple[str, ...]:
        # the payoffs are OpenSpiel's returns, unchanged: what its type declares holds of them
        return {"zero_sum": ("zero_sum",), "constant_sum": ("constant_sum",)}.get(utility(params.game), ())

    def open_dialogue(self, params: OpenSpielParams, rng: random.Random, names: list[str],
                      match_index: int | Sequence[int] = 0) -> OpenSpielDealer:
        return OpenSpielDealer(params, rng, names, match_index)

    def legal_replies(self, run: OpenSpielDealer, seat: int, payload: bytes) -> list[str]:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return ['{"type": "ready"}', '{"type": "ready", "tensors": true}']
        return [json.dumps({"type": "action", "action": a["action"]}) for a in msg["legal"]]

    def random_reply(self, run: OpenSpielDealer, seat: int, payload: bytes, rng: random.Random) -> str:
        msg = json.loads(payload)
        if msg["type"] == "match_start":
            return rng.choice(self.legal_replies(run, seat, payload))
        if msg["type"] == "act":
            return json.dumps({"type": "action", "action": rng.choice(msg["legal"])["action"]})
        raise ValueError(f"openspiel asks nothing with {msg['type']!r}")

    def seat_view(self, params: OpenSpielParams, seat: int) -> "OpenSpielSeatView":
        return OpenSpielSeatView(seat, params.model_dump(mode="json"))

    def against_reference(self, run: OpenSpielDealer, sent: Sequence[tuple[int, str]]) -> str | None:
        """Every act and observe a seat was sent, against what pyspiel itself
        shows that seat at each state of the match replayed (``told_by_pyspiel``)."""
        got: list[list[tuple]] = [[] for _ in range(run.match.players)]
        for seat, line in sent:
            m = json.loads(line)
            if m["type"] in ("act", "observe"):
                legal = tuple((a["action"], a["name"]) for a in m["legal"]) if m["type"] == "act" else None
                got[seat].append((m["type"], m["observation"], m["information_state"], m["public_tensor"],
                                  m["private_tensor"], legal))
        history = [(pa.player, pa.action) for pa in run.match.state.full_history()]
        want = told_by_pyspiel(run.params.game, history, run._wants_tensors)
        for seat, (a, b) in enumerate(zip(got, want)):
            for k, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return f"seat {seat}'s message {k + 1} was {x[:3]}, pyspiel shows {y[:3]}"
            if len(a) != len(b):
                return f"seat {seat} was sent {len(a)} messages, pyspiel's states call for {len(b)}"
        return None

    # Variants (openspiel:NAME) keep the files of the game they come from.
    def reference_opponents(self) -> Path:
        return SAMPLE_BOTS / GAME / "opponents.json"

    def playthrough_file(self) -> Path | None:
        if self.spec.id == GAME:
            return GOLDEN / f"{GAME}.playthrough"
        path = VARIANT_GOLDEN / f"{quote(self.spec.id.removeprefix(GAME + ':'), safe='')}.playthrough"
        return path if path.is_file() else None

    def variant(self, name: str) -> OpenSpielPlugin:
        """``openspiel:NAME``: the game string NAME, fixed (``-p game=``
        accepts no other), with its own id, seats and parameters."""
        seats = players(name)  # ValueError with the reason when it cannot be played
        fixed: Any = Literal[name]  # a type made at run time, which no static type can name
        params = create_model(
            "OpenSpielVariantParams", __base__=OpenSpielParams,
            game=(fixed, Field(default=name, description=f"the OpenSpiel game string, fixed: {name}")))
        spec = dataclasses.replace(self.spec, id=f"{GAME}:{name}", title=f"OpenSpiel {name}", min_seats=seats,
                                   max_seats=seats, description=f"OpenSpiel's {name}, {seats} seats.")
        variant = type("OpenSpielVariant", (OpenSpielPlugin,), {"spec": spec, "Params": params,
                                                                "playthrough_matches": (({}, 7),)})
        return variant()

    def exploit(self, params: OpenSpielParams) -> Any:
        """``arena exploit`` for kuhn_poker and leduc_poker (protocols/openspiel_exploit.py); any
        other game string is refused there in words."""
        from .openspiel_exploit import exploit_model

        return exploit_model(params)

    def catalogue(self) -> list[tuple[str, str, str | None, str | None]]:
        """Every registered game: (name, player counts, why it is refused or None, a wrapper's note)."""
        return [(g.name, str(g.min_players) if g.min_players == g.max_players
                 else f"{g.min_players}-{g.max_players}", g.refusal, g.note) for g in games.openspiel.catalogue()]


class OpenSpielSeatView(SeatView):
    """One seat of any OpenSpiel game for a person: what the seat may know in
    OpenSpiel's own words (its information state, else its observation), shown
    when it changes, and the legal actions by OpenSpiel's names for them."""

    def __init__(self, seat: int, params: dict) -> None:
        super().__init__(seat, params)
        self._known: str | None = None
        self._actions: dict[str, int] = {}  # the open decision: word -> action id

    def _seen(self, m: dict) -> list[str]:
        known = m.get("information_state") or m.get("observation")
        if known is None or known == self._known:
            return []
        self._known = known
        return [f"You know: {line}" if n == 0 else f"           {line}" for n, line in enumerate(known.splitlines())]

    def feed(self, line: str) -> Turn | None:
        m = json.loads(line)
        kind = m.get("type")
        if kind == "match_start":
            return Turn([f"{m['params'].get('game', self.params.get('game'))}: you are player {m['seat']}"],
                        auto='{"type": "ready"}')
        if kind == "observe":
            shown = self._seen(m)
            return Turn(shown + (["The game is over."] if m.get("final") else []))
        if kind == "act":
            taken: set[str] = set()
            self._actions = {word_for(a["name"], taken): a["action"] for a in m["legal"]}
            return Turn(self._seen(m), [Choice(w) for w in self._actions])
        return super().feed(line)

    def reply(self, choice: Choice, amount: int | None) -> str:
        return json.dumps({"type": "action", "action": self._actions[choice.word]})


PLUGIN = OpenSpielPlugin()

__all__ = ["MODELS", "OpenSpielDealer", "PLUGIN"]
