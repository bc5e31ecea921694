"""Seeds: one root seed per run, per-match seeds derived from it."""

from __future__ import annotations

import hashlib


def derive_seed(root: int, *labels: object) -> int:
    """A 32-bit seed for ``labels`` under ``root``; stable across processes and versions.

    Uses a hash of the text (never ``hash()``, which is salted per process).
    """
    text = ":".join(str(x) for x in (root, *labels)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")
