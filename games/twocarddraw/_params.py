"""Validated parameters of TwoCardDraw, with the seed's defaults."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: stakes when neither the command line nor a strategy file gives them:
#: inside the seed's ranges (bet1 1..5, bet1 <= bet2 <= 3*bet1)
DEFAULT_BET1 = 2
DEFAULT_BET2 = 4


class TwoCardDrawParams(BaseModel):
    """Parameters of one match.

    With ``strategy`` (a path to a strategy file) one bot plays the built-in
    opponent, and the stakes come from the file (``bet1``/``bet2``, if given,
    must agree with it). Without it two bots play each other.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    hands: int = Field(default=10000, ge=1, le=100_000_000, description="hands in a match")
    bet1: int | None = Field(default=None, ge=1, le=5,
                             description="bet size in the first round (if not given: the strategy file's, else 2)")
    bet2: int | None = Field(default=None, ge=1, le=15,
                             description="bet size in the second round, bet1..3*bet1 (if not given: the "
                                         "strategy file's, else 2*bet1 when bet1 is given, else 4)")
    strategy: str | None = Field(default=None, description="a strategy file for the built-in opponent (one bot)")

    @model_validator(mode="after")
    def _check(self) -> "TwoCardDrawParams":
        if self.strategy is None or (self.bet1 is not None and self.bet2 is not None):
            bet1, bet2 = self.stakes()
            if not bet1 <= bet2 <= 3 * bet1:
                raise ValueError(f"bet2 must be between bet1 and 3*bet1 ({bet1}..{3 * bet1}), got {bet2}")
        return self

    def stakes(self) -> tuple[int, int]:
        """(bet1, bet2) without a strategy file: given values or the defaults."""
        bet1 = self.bet1 if self.bet1 is not None else DEFAULT_BET1
        if self.bet2 is not None:
            return bet1, self.bet2
        # a bet1 alone keeps the default ratio, clipped into range
        return bet1, (DEFAULT_BET2 if self.bet1 is None else 2 * bet1)
