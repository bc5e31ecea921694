"""hold'em's engine (``_engine.c``, the one copy of its rules), built into the
arena's private cache the first time it is needed (``games._cbuild``)."""

from __future__ import annotations

from pathlib import Path

from .._cbuild import GameEngine

ENGINE = GameEngine(Path(__file__).with_name("_engine.c"), "holdem")
