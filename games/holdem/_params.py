"""Validated parameters of a Hold'em match."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator


#: the parameters that only one mode reads: the others are read by both
MODE_OF = {"hands": "cash", "tournaments": "freezeout", "level_hands": "freezeout"}


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
    stack: int = Field(default=400, ge=2, le=10**9, description="chips each seat starts a hand (cash) or a tournament with")
    small_blind: int = Field(default=1, ge=0, le=10**8, description="the small blind (at the first level in freezeout)")
    big_blind: int = Field(default=2, ge=1, le=10**8, description="the big blind, also the smallest bet")
    ante: int = Field(default=0, ge=0, le=10**8, description="paid by every seat before the blinds")
    level_hands: int = Field(default=10, ge=1, le=10**6,
                             description="freezeout: the blinds and ante double every this many hands")

    @model_validator(mode="after")
    def _check(self) -> "HoldemParams":
        if self.small_blind > self.big_blind:
            raise ValueError(f"small_blind ({self.small_blind}) is more than big_blind ({self.big_blind})")
        return self

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
