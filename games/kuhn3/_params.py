"""Validated parameters of 3-player Kuhn poker, with the seed's defaults."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Amounts go to bots as integers: keep them far inside any 32-bit int.
Chips = Annotated[int, Field(ge=0, le=1_000_000)]
Count = Annotated[int, Field(ge=0, le=1_000_000_000)]


class Kuhn3Params(BaseModel):
    """Parameters of a kuhn3 round.

    ``end_prob`` is the chance a/b that the round ends after each hand; the
    original dealer used 1/1000. ``hands`` replaces that random end with a fixed
    number of hands.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    antes: tuple[Chips, Chips, Chips] = Field(default=(1, 1, 1), description="each seat's ante, in seat order (like 1,1,1; each 0..1000000)")
    end_prob: tuple[Count, Count] = Field(
        default=(1, 1000), description="chance A/B that the round ends after each hand (A/B, or [A, B])")
    max_bet: int = Field(default=2, ge=1, le=1_000_000, description="what a bet takes a seat to in front")
    hands: int | None = Field(default=None, ge=1, le=1_000_000_000,
                              description="play exactly this many hands instead of ending by chance")

    @field_validator("end_prob", mode="before")
    @classmethod
    def _end_prob_text(cls, value: object) -> object:
        # "1/1000" (as the command line writes it) or "1,1000" (as bots are told)
        if isinstance(value, str):
            for sep in ("/", ","):
                a, found, b = value.partition(sep)
                if found and a.strip().isdigit() and b.strip().isdigit():
                    return (int(a), int(b))
            raise ValueError("takes A/B with whole numbers, like 1/1000")
        return value

    @field_validator("antes", mode="before")
    @classmethod
    def _antes_text(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",")]
            if all(p.isdigit() for p in parts):
                return tuple(int(p) for p in parts)
            raise ValueError("takes whole numbers separated by commas, like 1,1,1")
        return value

    @model_validator(mode="after")
    def _check(self) -> "Kuhn3Params":
        if any(a < 0 for a in self.antes):
            raise ValueError(f"antes must be >= 0, got {self.antes}")
        if self.max_bet <= max(self.antes):
            raise ValueError(
                f"max_bet ({self.max_bet}) must be above every one of the antes {self.antes}, "
                "or nobody could ever bet"
            )
        a, b = self.end_prob
        if self.hands is None and not 0 < a <= b:
            raise ValueError(f"end probability a/b needs 0 < a <= b, got {a}/{b}")
        return self

    def announced_end_prob(self) -> tuple[int, int]:
        """What ``EndProb:`` tells the bots.

        With a fixed number of hands N the round does not end by chance; bots
        are told 1,N so that b/a is still the expected length of the round.
        """
        if self.hands is not None:
            return (1, self.hands)
        return self.end_prob
