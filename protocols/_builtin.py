"""Where the built-in games keep what ships with them in this repository."""

from pathlib import Path

#: golden playthrough transcripts, one per built-in game
GOLDEN = Path(__file__).resolve().parent / "golden"
#: reference bots and quarantine manifests: sample_bots/<game>/ of the checkout
SAMPLE_BOTS = Path(__file__).resolve().parents[1] / "sample_bots"
