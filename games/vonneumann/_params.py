"""Validated parameters of von Neumann poker, with the seed's defaults."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class VonNeumannParams(BaseModel):
    """Parameters of one vonneumann match (all amounts in whole dollars).

    ``sessions`` is not fixed by the seed (its host chose n per tournament).
    The default is 1000: a session's points have a standard deviation of about
    21 (measured between reference bots), so a match score's is about 660,
    against edges of 1 to 3 points a session between the sample bots; that is
    30,000 to 50,000 games, a few seconds between compiled bots.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ante: int = Field(default=10, ge=1, le=1_000_000, description="each player's ante per game")
    max_bet: int = Field(default=50, ge=1, le=1_000_000, description="the largest bet A may make")
    stack: int = Field(default=100, ge=1, le=1_000_000_000,
                       description="each player's money at the start of a session")
    games_per_session: int = Field(default=50, ge=1, le=1_000_000, description="a session ends after this many games")
    sessions: int = Field(default=1000, ge=1, le=10_000_000, description="sessions in a match")

    @model_validator(mode="after")
    def _check(self) -> "VonNeumannParams":
        if self.stack < self.ante:
            raise ValueError(
                f"stack ({self.stack}) must be at least the ante ({self.ante}), "
                "or no session could start"
            )
        return self
