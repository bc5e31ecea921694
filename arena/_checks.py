"""Checks of what a user typed: one sentence naming the option, the value and
the accepted range, raised as ``UsageError`` (the CLI exits 2 with it)."""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

    from protocols import GamePlugin

#: a game's parameter model (``GamePlugin.Params``)
ParamsT = TypeVar("ParamsT", bound="BaseModel")


class UsageError(ValueError):
    """Bad input from the user; nothing was started."""


def check_range(
    option: str, value: float | int | None, low: float, high: float, *,
    low_open: bool = False, optional: bool = False,
) -> None:
    """``value`` must be a finite number in [low, high] ((low, high] with ``low_open``)."""
    if value is None:
        if optional:
            return
        raise UsageError(f"{option} needs a value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{option} must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{option} must be a finite number, got {value}")
    below = value <= low if low_open else value < low
    if below or value > high:
        left = "above" if low_open else "at least"
        raise UsageError(f"{option} must be {left} {_num(low)} and at most {_num(high)}, got {_num(value)}")


def _num(value: float | int) -> str:
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e18:
        return str(int(value))
    return f"{value:g}"


def option_problems(exc: Any, fields: Any = (), keys: bool = False) -> str:
    """A pydantic ValidationError of game parameters, in the CLI's words.

    Each problem names the parameter as the user wrote it (``--max-bet``, or
    ``-p max_bet`` with ``keys``), what was wrong, and what was given; in a
    rule about several parameters, each of ``fields`` named in the sentence
    is written that way too.
    """
    def named(field: str) -> str:
        return f"-p {field}" if keys else "--" + field.replace("_", "-")

    parts = []
    for e in exc.errors():
        loc = e.get("loc") or ()
        msg = str(e["msg"]).removeprefix("Value error, ")
        if loc:
            name = named(str(loc[0]))
            if len(loc) > 1:
                name += " (item " + ", ".join(str(x) for x in loc[1:]) + ")"
            parts.append(f"{name}: {msg}, got {e.get('input')!r}")
        else:
            for field in sorted(fields, key=len, reverse=True):
                msg = re.sub(rf"(?<![-\w]){re.escape(field)}\b", named(field), msg)
            parts.append(msg)
    return "; ".join(parts)


def parse_param(text: str) -> tuple[str, Any]:
    """``-p KEY=VALUE``: the value as JSON when it parses, else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--param takes KEY=VALUE, got {text!r}")
    return key, parse_value(value)


def parse_value(text: str) -> Any:
    """A parameter's value as the user typed it: JSON when it parses, else text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def old_names(model: Any) -> dict[str, str]:
    """A parameter model's renamed parameters: old name -> name. A field lists
    its old names after its own in ``validation_alias=AliasChoices(name, old)``,
    so that stored parameters and old command lines still validate."""
    from pydantic import AliasChoices

    renamed = {}
    for name, field in model.model_fields.items():
        if isinstance(field.validation_alias, AliasChoices):
            renamed.update({old: name for old in field.validation_alias.choices
                            if isinstance(old, str) and old != name})
    return renamed


def current_names(model: Any, raw: dict[str, Any]) -> dict[str, Any]:
    """Parameters as stored or given, under their current names (``old_names``)."""
    renamed = old_names(model)
    return {renamed.get(k, k): v for k, v in raw.items()}


_said: set[tuple[str, str]] = set()


def game_params(plugin: GamePlugin[ParamsT], raw: dict[str, Any], *, keys: bool = False) -> ParamsT:
    """The game's validated parameters from what the user gave, or a UsageError.

    A parameter's old name is taken for the new one, with a warning on stderr
    (once a process); an unknown key is named with the game's parameters and
    their defaults; then the pydantic model, then the game's own
    ``check_params`` for what a model cannot say (a strategy file that must
    parse, say).
    """
    import sys

    from pydantic import ValidationError

    def named(field: str) -> str:
        return f"-p {field}" if keys else "--" + field.replace("_", "-")

    game = plugin.spec.id
    for old, new in old_names(plugin.Params).items():
        if old not in raw:
            continue
        if new in raw:
            raise UsageError(f"{named(old)} is the old name of {named(new)} ({game}): give {named(new)} only")
        raw = {(new if k == old else k): v for k, v in raw.items()}
        if (game, old) not in _said:
            _said.add((game, old))
            print(f"arena: warning: {game} {named(old)} is now {named(new)} (the old name works until 0.2)",
                  file=sys.stderr)
    fields = plugin.Params.model_fields
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        known = ", ".join(f"{k} (default {json.dumps(v.default)})" for k, v in fields.items())
        word = "parameter" if len(unknown) == 1 else "parameters"
        raise UsageError(f"unknown {plugin.spec.id} {word} {', '.join(map(repr, unknown))}; "
                         f"its parameters are: {known}")
    try:
        params = plugin.Params(**raw)
    except ValidationError as exc:
        problems = option_problems(exc, fields, keys=keys)
        raise UsageError(f"bad {plugin.spec.id} parameters: {problems}") from None
    try:
        plugin.check_params(params)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return params
