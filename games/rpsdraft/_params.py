"""Validated parameters of the RPS card draft, with the seed's numbers as defaults."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

DECK_SIZE = 30


class RpsDraftParams(BaseModel):
    """Parameters of one rpsdraft match.

    Each draft round uses four cards of the 30 and gives each seat two, so a
    seat's deck has ``2 * draft_rounds`` cards and ``30 - 4 * draft_rounds``
    cards remain for the bases (one per turn).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    draft_rounds: int = Field(default=5, ge=1, le=7, description="rounds of the draft (two cards offered to each seat per round)")
    hand_size: int = Field(default=3, ge=1, le=2 * 7, description="cards each seat draws before the first turn")
    # at most min(2 d, 30 - 4 d) for d draft rounds: 10, at d = 5
    turns: int = Field(default=10, ge=1, le=10, description="turns of the main phase, one base card each")

    @model_validator(mode="after")
    def _check(self) -> "RpsDraftParams":
        deck = 2 * self.draft_rounds
        if self.hand_size > deck:
            raise ValueError(
                f"hand_size ({self.hand_size}) is more than the {deck} cards of a deck "
                f"(draft_rounds {self.draft_rounds})"
            )
        if self.turns > deck:
            raise ValueError(
                f"turns ({self.turns}) is more than the {deck} cards each seat can play "
                f"(draft_rounds {self.draft_rounds})"
            )
        rest = DECK_SIZE - 4 * self.draft_rounds
        if self.turns > rest:
            raise ValueError(
                f"turns ({self.turns}) needs that many base cards, only {rest} remain after a draft "
                f"of draft_rounds {self.draft_rounds}"
            )
        return self
