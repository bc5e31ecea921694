"""Validated parameters of a Hold'em match."""

from __future__ import annotations

from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)
from typing import Literal

from ._gamedef import GameDef, GameDefError, read_gamedef

#: the parameters that only one mode reads: the others are read by both
MODE_OF = {"hands": "cash", "tournaments": "freezeout", "level_hands": "freezeout"}
#: the parameters a game definition sets (``HoldemParams.gamedef``)
SET_BY_GAMEDEF = ("stack", "small_blind", "big_blind", "ante")


def _from_gamedef(gamedef: GameDef) -> dict[str, int]:
    """The values of SET_BY_GAMEDEF that ``gamedef`` gives."""
    return {"stack": gamedef.stack[0], "small_blind": gamedef.small_blind, "big_blind": gamedef.big_blind,
            "ante": 0}


class HoldemParams(BaseModel):
    """One match: ``hands`` cash hands, or ``tournaments`` freezeouts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # "format" until 0.2, a word that --format (an output's format) also used
    mode: Literal["cash", "freezeout"] = Field(
        default="cash", validation_alias=AliasChoices("mode", "format"),
        description="cash: every hand from equal stacks; freezeout: play until one seat has every chip")
    hands: int = Field(default=1000, ge=1, le=10_000_000, description="hands in a cash match")
    tournaments: int = Field(default=1000, ge=1, le=1_000_000,
                             description="freezeout tournaments in a match (the CodeProject challenge planned about 1000)")
    # up to ACPC's largest stack (an int32), which a limit game definition without stacks gives
    stack: int = Field(default=400, ge=2, le=2**31 - 1,
                       description="chips each seat starts a hand (cash) or a tournament with")
    small_blind: int = Field(default=1, ge=0, le=10**8, description="the small blind (at the first level in freezeout)")
    big_blind: int = Field(default=2, ge=1, le=10**8, description="the big blind, also the smallest bet")
    ante: int = Field(default=0, ge=0, le=10**8, description="paid by every seat before the blinds")
    level_hands: int = Field(default=10, ge=1, le=10**6,
                             description="freezeout: the blinds and ante double every this many hands")
    gamedef: GameDef | None = Field(
        default=None,
        description="an ACPC game definition file (e.g. holdem.limit.2p.reverse_blinds.game) to play: limit or "
                    "no-limit, its blinds, stacks, raise sizes and caps (cash; it sets stack and the blinds)")

    @model_validator(mode="before")
    @classmethod
    def _gamedef_values(cls, data: Any) -> Any:
        """A game definition given as a file is read here, and fills in the stack and the blinds
        not given (those given must agree with it: checked after). One that does not read is left
        to the field, which says why."""
        if not isinstance(data, dict) or data.get("gamedef") is None:
            return data
        gamedef = data["gamedef"]
        try:
            if isinstance(gamedef, str):
                gamedef = read_gamedef(gamedef)
            elif isinstance(gamedef, dict):
                gamedef = GameDef.model_validate(gamedef)
        except ValueError:
            return data
        if not isinstance(gamedef, GameDef):
            return data
        return {**_from_gamedef(gamedef), **data, "gamedef": gamedef}

    @field_validator("gamedef", mode="before")
    @classmethod
    def _read(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return read_gamedef(value)
            except GameDefError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("gamedef")
    @classmethod
    def _playable(cls, value: GameDef | None) -> GameDef | None:
        # a definition given as values (a stored match's) is checked as a file is
        problem = value.unplayable() if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _check(self) -> "HoldemParams":
        if self.small_blind > self.big_blind:
            raise ValueError(f"small_blind ({self.small_blind}) is more than big_blind ({self.big_blind})")
        if self.gamedef is not None:
            if self.mode != "cash":
                raise ValueError("mode freezeout: a gamedef fixes the blinds and the stacks for good, as the ACPC "
                                 "dealer plays it, which is cash play: give mode cash with gamedef")
            for name, value in _from_gamedef(self.gamedef).items():
                if getattr(self, name) != value:
                    raise ValueError(f"{name} {getattr(self, name)}: the gamedef sets it to {value}; leave {name} "
                                     "out with gamedef")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # without a game definition, the parameters are written as they were before there was one
        # (every match_start of a no-limit match is the same bytes)
        data = handler(self)
        if isinstance(data, dict) and data.get("gamedef") is None:
            data.pop("gamedef", None)
        return data

    def check_mode(self) -> None:
        """Refuse a parameter of the other mode set away from its default: it
        would change nothing. Called by ``check_params`` on what a person
        gave, not a model validator, so that code may still build one model
        with both modes' values (tests/games/test_holdem.py does)."""
        for name, mode in MODE_OF.items():
            if self.mode != mode and getattr(self, name) != type(self).model_fields[name].default:
                # named both ways: check_params cannot tell an option (arena holdem) from a -p key
                option = "--" + name.replace("_", "-")
                raise ValueError(f"{option} (-p {name}) is a parameter of {mode} matches and this one is "
                                 f"{self.mode}, where it would change nothing: give mode {mode} with it, "
                                 "or leave it out")

    def blinds(self, hand_in_tournament: int) -> tuple[int, int, int]:
        """(small blind, big blind, ante) for a hand: fixed in cash; in
        freezeout doubled every ``level_hands`` hands of the tournament."""
        if self.mode == "cash":
            return self.small_blind, self.big_blind, self.ante
        factor = 1 << min(hand_in_tournament // self.level_hands, 40)
        return self.small_blind * factor, self.big_blind * factor, self.ante * factor

    def limit(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """Limit betting's (raise size, cap on bets and raises) per round, for ``HoldemHand``'s
        ``limit``; None in no-limit."""
        g = self.gamedef
        return (g.raise_size, g.max_raises) if g is not None and g.limit else None

    def most_lost(self) -> int:
        """The most chips a seat can lose in one hand: its stack, or in limit what the caps let it
        put in, if that is less (a cash hand's worst, for the fault rule)."""
        g = self.gamedef
        return min(self.stack, g.most_put_in()) if g is not None and g.limit else self.stack
