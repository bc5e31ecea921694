"""Building the ACPC relay (``relay.c``, a program the arena runs in the
bot's sandbox in place of an ACPC agent) into the arena's private cache, as
the arena's other C is built (``games._cbuild``).

The relay gets a folder of its own in the cache, readable by anyone: the
sandbox binds that folder, and only it, read-only into the bot's view (as
the runtime of the agent's command), so a bot under a uid of its own can run
it and sees nothing else of the cache.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from games._cbuild import build, cache_dir, compiler

SOURCE = Path(__file__).with_name("relay.c")
#: what the relay and the codec share (C text, repr, JSON)
TEXT_HEADER = Path(__file__).with_name("acpc_text.h")
#: the hold'em codec, built by arena.native (it is an extension of the arena's)
CODEC_SOURCE = Path(__file__).with_name("codec.c")
#: the first word the relay sends with the agent's connection (relay.c): the
#: game whose codec (codec.c) speaks to the agent from then on
HANDOVER = b"holdem"


@cache
def relay_path() -> str:
    """The built relay program; built now if missing (BuildError: no compiler, or it failed)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + b"\0" + TEXT_HEADER.read_bytes()).hexdigest()[:16]
    folder = cache_dir() / f"acpc-relay-{digest}"
    target = folder / "acpc-relay"
    if target.is_file() and os.access(target, os.X_OK):
        return str(target)
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)
    cc = compiler("ACPC relay", SOURCE)
    # Static when the C library allows it: nothing to look up inside a sandbox at each start.
    build(target, "ACPC relay", [[cc, "-O2", "-Wall", *extra, "-o", "{out}", str(SOURCE)]
                                 for extra in (["-static"], [])])
    return str(target)
