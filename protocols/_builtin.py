"""Where the built-in games keep what ships with them in this repository."""

from pathlib import Path

from ._contract import GamePlugin, P

#: golden playthrough transcripts, one per built-in game
GOLDEN = Path(__file__).resolve().parent / "golden"
#: reference bots and quarantine manifests: sample_bots/<game>/ of the checkout
SAMPLE_BOTS = Path(__file__).resolve().parents[1] / "sample_bots"


class BuiltinGame(GamePlugin[P]):
    """A game of this repository: its files are found by its id (generic over
    its parameter model, as ``GamePlugin`` is)."""

    def reference_opponents(self) -> Path:
        return SAMPLE_BOTS / self.spec.id / "opponents.json"

    def playthrough_file(self) -> Path | None:  # a game's variants may have none (openspiel)
        return GOLDEN / f"{self.spec.id}.playthrough"
