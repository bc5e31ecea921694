"""The JSON-lines framing shared by the JSON games (sans-I/O).

One JSON object per line in each direction, UTF-8, no newline inside (the
arena writes compact JSON). Every object has a ``"type"``. A message from the
arena is either a *request*, answered by exactly one reply line, or a
*notification*, answered by nothing. Each message and reply is a pydantic
model; replies are validated strictly (unknown fields are an error, so a
typo in a field name is caught rather than ignored).

Every match begins with a ``match_start`` request (answered ``{"type":
"ready"}``) that tells the bot its seat, its role and who it plays, and ends
with a ``match_end`` notification, so one bot process can serve several
matches in a row.

The hot path skips pydantic where it pays: ``encode_fields`` writes a
request from a plain dict with orjson (a test checks the bytes are the
model's own encoding), and ``reply_fields`` takes a reply whose parsed JSON
has exactly the model's ``fast_shape`` without validating it again; any
other line goes through pydantic, which says in words what is wrong.

Inside a dialogue generator::

    replies = yield from ask_all([(0, msg0), (1, msg1)], SomeReply, "what a good reply is")
    yield from tell([(seat, SomeNotification(...))])
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Generator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import orjson
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from ._contract import Exchange, MatchIndex

from ._errors import ProtocolError

R = TypeVar("R", bound=BaseModel)


class Message(BaseModel):
    """Base of everything the arena sends."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Reply(BaseModel):
    """Base of everything a bot sends back: strict, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The commonest valid replies, for ``reply_fields``: every field's exact
    #: type once parsed (a string is the value itself, as for ``type``). A
    #: reply of exactly this shape is one the model accepts as it is; empty
    #: means every reply is validated by pydantic. A model sets it (and
    #: ``fast_shapes``) without an annotation: the type is declared here, and
    #: in a model with a ``type`` field an annotation would read ``type`` as it.
    fast_shape: ClassVar[dict[str, type | str]] = {}
    #: More such shapes, for a model whose common replies take several (any
    #: one matching is enough; hold'em's ``fold``, ``call``, ``raise`` with
    #: ``to``); ``fast_shape``, when set, is tried first.
    fast_shapes: ClassVar[tuple[dict[str, type | str], ...]] = ()


class MatchStart(Message):
    type: Literal["match_start"] = "match_start"
    game: str
    game_version: int
    match: int = Field(description="index of this match among those this process plays, from 0")
    seat: int = Field(description="this bot's seat, from 0")
    role: str | None = Field(default=None, description="the bot's role when the game has roles")
    players: list[str] = Field(description="every seat's bot name, in seat order")
    params: dict[str, Any] = Field(description="the game's parameters for this match")


class Ready(Reply):
    type: Literal["ready"]

    fast_shape = {"type": "ready"}


class MatchEnd(Message):
    type: Literal["match_end"] = "match_end"
    match: int
    scores: list[float] = Field(description="every seat's score, in seat order")
    completed: bool = True


def encode(message: BaseModel) -> bytes:
    return message.model_dump_json().encode() + b"\n"


def encode_fields(fields: dict[str, Any]) -> bytes:
    """A request from its fields, in its model's field order, without building
    the model: the same bytes as ``encode`` when every value already has its
    field's type (a float field holds a float), at a sixth of the cost."""
    return orjson.dumps(fields) + b"\n"


def reply_fields(seat: int, line: str, model: type[Reply], expected: str) -> dict[str, Any]:
    """``decode``, as the reply's fields: a line whose JSON has exactly
    ``model.fast_shape`` is taken as parsed; any other goes through ``decode``
    (orjson refuses what ``json`` might take, such as NaN or a huge integer,
    and those lines are judged there as before)."""
    data = fast_reply(line, model)
    return data if data is not None else dict(decode(seat, line, model, expected))


def fast_reply(line: str, model: type[Reply]) -> dict[str, Any] | None:
    """The reply's fields if its JSON has exactly ``model.fast_shape`` (or
    one of ``model.fast_shapes``), else None."""
    shapes = model.fast_shapes
    if model.fast_shape:
        shapes = (model.fast_shape, *shapes)
    if not shapes:
        return None
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(data) is not dict:
        return None
    for shape in shapes:
        if _has_shape(data, shape):
            if len(data) < len(model.model_fields):  # a field left out: its default, as pydantic gives
                data = {**_defaults(model), **data}
            return data
    return None


@functools.cache
def _defaults(model: type[Reply]) -> dict[str, Any]:
    return {name: f.default for name, f in model.model_fields.items() if not f.is_required()}


def _has_shape(data: dict[str, Any], shape: dict[str, type | str]) -> bool:
    if data.keys() != shape.keys():
        return False
    for key, want in shape.items():  # a loop: all() over a generator costs twice as much here
        value = data[key]
        if (value != want) if type(want) is str else (type(value) is not want):
            return False
    return True


def decode(seat: int, line: str, model: type[R], expected: str) -> R:
    """Parse one reply line into ``model`` or raise a ProtocolError saying why."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError is a ValueError; so is an integer of over 4300 digits.
        reason = getattr(exc, "msg", None) or (
            "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        )
        raise ProtocolError(seat, "malformed_reply", line, expected, f"not JSON: {reason}") from None
    if not isinstance(data, dict):
        raise ProtocolError(
            seat, "malformed_reply", line, expected,
            f"a reply is a JSON object, got {type(data).__name__}",
        )
    literal: Any = model.model_fields["type"].annotation  # Literal["the type"]
    want = literal.__args__[0]
    if data.get("type") != want:
        raise ProtocolError(
            seat, "malformed_reply", line, expected,
            f"expected a reply of type {want!r}, got type {data.get('type')!r}",
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise ProtocolError(seat, "malformed_reply", line, expected, problems) from None


def ask_all(
    messages: Sequence[tuple[int, BaseModel]], model: type[R], expected: str
) -> Generator[Exchange, list[str], list[R]]:
    """Send every message, then read every reply (in the same order)."""
    lines = yield Exchange([(seat, encode(m)) for seat, m in messages], expected)
    return [decode(seat, line, model, expected) for (seat, _), line in zip(messages, lines)]


def tell(messages: Sequence[tuple[int, BaseModel]]) -> Generator[Exchange, list[str], None]:
    yield Exchange([(seat, encode(m)) for seat, m in messages], reply=False)



def match_number(match: MatchIndex, seat: int) -> int:
    """Seat ``seat``'s ``match`` field: ``match`` is one number for every seat
    (a series played by the same processes), or one per seat (a tournament
    that keeps a process per entrant: each has played its own number of
    matches before this one)."""
    return match if isinstance(match, int) else match[seat]


def series_position(match: MatchIndex) -> int:
    """Where the match sits in a series of the same processes (roles alternate
    on it); 0 when the processes come from a tournament's pool."""
    return match if isinstance(match, int) else 0


def start_match(
    game: str,
    game_version: int,
    match: MatchIndex,
    names: list[str],
    params: BaseModel,
    roles: Sequence[str | None] | None = None,
) -> Generator[Exchange, list[str], None]:
    """The opening handshake: every seat gets ``match_start`` and says ready."""
    roles = roles or [None] * len(names)
    dumped = wire_params(params)
    yield from ask_all(
        [
            (seat, MatchStart(game=game, game_version=game_version, match=match_number(match, seat), seat=seat,
                              role=roles[seat], players=list(names), params=dumped))
            for seat in range(len(names))
        ],
        Ready,
        '{"type": "ready"}',
    )


def wire_params(params: BaseModel) -> dict[str, Any]:
    """A match's parameters as ``match_start`` says them: each under its name
    and, for a renamed one (an ``AliasChoices`` of the new name and the old),
    under its old name too, so that a bot written before the rename still
    finds it (docs/vocabulary.md: hold'em's ``format``, until 0.2)."""
    dumped = params.model_dump(mode="json")
    for name, field in type(params).model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            for old in alias.choices:
                if isinstance(old, str) and old != name:
                    dumped.setdefault(old, dumped[name])
    return dumped


def end_match(match: MatchIndex, scores: list[float], seats: int,
              skip: Collection[int] = ()) -> Generator[Exchange, list[str], None]:
    """Every seat's ``match_end`` (but those of ``skip``: seats that left the match)."""
    yield from tell([(seat, MatchEnd(match=match_number(match, seat), scores=scores))
                     for seat in range(seats) if seat not in skip])


def abandoned(match: MatchIndex, scores: list[float], seats: int) -> list[tuple[int, bytes]]:
    """What every seat is told when the match was cancelled (another seat's
    fault): its ``match_end``, ``completed`` false, so that a bot that plays
    on in the same process starts the next match in step."""
    return [(seat, encode(MatchEnd(match=match_number(match, seat), scores=scores, completed=False)))
            for seat in range(seats)]


def export_schemas(models: Sequence[type[BaseModel]], folder: Path, prefix: str) -> list[Path]:
    """Write one JSON Schema file per message model; return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for model in models:
        literal: Any = model.model_fields["type"].annotation  # Literal["the type"]
        type_name = literal.__args__[0]
        kind = "reply" if issubclass(model, Reply) else "message"
        path = folder / f"{prefix}.{kind}.{type_name}.schema.json"
        schema = model.model_json_schema()
        path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
        written.append(path)
    return written


#: The framing's own messages, exported with every game's schemas.
FRAMING_MODELS: list[type[BaseModel]] = [MatchStart, Ready, MatchEnd]
