"""Seeds and chance: one root seed per run, a seed per match derived from it,
and every chance event of a match drawn from a stream keyed by its seed.

A seed is a short printable token (``7``, ``league-week-3``) so that it can be
printed, stored and typed back. What a person types is guessable: a bot that
searched ``0..10**6`` and a word list against the first dozen cards it saw
found ``--seed 4711`` and ``--seed league-week-3`` and then knew every card
to come. So a run is keyed by the seed *and* a secret of 128 random bits
drawn for that run (``run_seed``): the key is ``SEED:SECRET``, the seed alone
is what the run shows while it plays, and the whole key is printed and
stored when it ends, so that typing it back replays the run card for card.

Neither the seeds nor the chance stream can be worked out from what a bot
sees:

* a match's seed is a keyed hash (BLAKE2b, 128 bits) of the root seed and the
  match's position, so knowing one match's seed says nothing of the others';
* a match's chance is SHAKE-256 over the match seed and a block counter, a
  stream no number of outputs reveals the rest of (Python's own generator,
  Mersenne Twister, is linear: about 1,200 cards of 24 bits give away its
  whole state and every card to come).

The same seed always gives the same stream, on every machine and version of
Python; changing the algorithm changes every deal, so it carries a version.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import secrets
from typing import Any

from ._checks import UsageError

#: What a seed may be: letters, digits and ``._-``, starting with a letter or a
#: digit; then, in a run's whole key, a colon and the run's secret (32 hex digits).
SEED_PATTERN = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,63}(:[0-9a-f]{32})?")
#: The bits of a run's secret.
SECRET_BITS = 128
_STREAM_TAG = b"arena-chance-v1\0"
_SEED_TAG = b"arena-seed-v1"
_BLOCK = 4096


def seed_text(seed: int | str, option: str = "--seed") -> str:
    """``seed`` in its printable form; raises ``UsageError`` in words when it cannot be one."""
    if isinstance(seed, bool):
        raise UsageError(f"{option} is a number or a word, not {seed!r}")
    if isinstance(seed, int):
        if seed < 0:
            raise UsageError(f"{option} must not be negative, got {seed}")
        return str(seed)
    if isinstance(seed, str) and SEED_PATTERN.fullmatch(seed):
        return seed
    raise UsageError(
        f"{option} is 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit), "
        f"optionally followed by ':' and a run's 32-digit secret as printed when it ended, got {seed!r}"
    )


def new_seed() -> str:
    """A fresh random seed of 128 bits (32 hex digits): one that keys a run
    by itself, for what no person types (a league's friendly match)."""
    return secrets.token_hex(SECRET_BITS // 8)


#: A key by itself: 128 bits as 32 hex digits, what ``derive_seed`` and ``new_seed`` give.
_KEY = re.compile(r"[0-9a-f]{32}")


def run_seed(seed: int | str | None, option: str = "--seed") -> str:
    """The key of one run: ``SEED:SECRET``.

    ``seed`` as typed (or, when none is, a short random label) and a secret
    drawn now, so that a typed seed alone predicts no card. A key is kept as
    it is (a replay): a seed that carries its secret (printed when a run
    ended), or 128 bits as 32 hex digits (a tournament match's own seed, as
    a replay command gives it).
    """
    if seed is None:
        return f"{secrets.token_hex(4)}:{secrets.token_hex(SECRET_BITS // 8)}"
    text = seed_text(seed, option)
    if ":" in text or _KEY.fullmatch(text):
        return text
    return f"{text}:{secrets.token_hex(SECRET_BITS // 8)}"


def public_seed(seed: str) -> str:
    """What a run shows of its key while it plays: the seed without its secret."""
    return seed.split(":", 1)[0]


def derive_seed(root: int | str, *labels: object) -> str:
    """The seed for ``labels`` (a match's position) under ``root``: 128 bits of
    BLAKE2b keyed by the root, as 32 hex digits."""
    key = hashlib.blake2b(seed_text(root).encode(), digest_size=32, person=_SEED_TAG).digest()
    text = json.dumps([str(x) for x in labels], separators=(",", ":")).encode()
    return hashlib.blake2b(text, key=key, digest_size=16).hexdigest()


def pseudonyms(seed: int | str, seats: int) -> list[str]:
    """The names the bots of one match are told, seat by seat: drawn from the
    match's seed, so they say nothing of who plays (a league's quarantine and
    its tournaments look alike to a bot), and a resumed match tells the same."""
    return [f"player-{derive_seed(seed, 'name', seat)[:8]}" for seat in range(seats)]


class ChanceStream(random.Random):
    """``random.Random``'s methods (``randrange``, ``sample``, ``shuffle``, ...)
    over a SHAKE-256 keystream keyed by a seed, instead of Mersenne Twister.

    Every method of ``random.Random`` draws through ``getrandbits`` (and
    ``random``), so a game written against ``random.Random`` gets the keyed
    stream unchanged.
    """

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:  # noqa: ARG002 (random.Random's signature)
        self._key = (hashlib.blake2b(seed_text(a).encode(), digest_size=32).digest() if a is not None
                     else secrets.token_bytes(32))
        self._block = -1
        self._buf = b""
        self._pos = 0
        self.gauss_next = None
        self._refill()

    def _refill(self) -> None:
        self._block += 1
        self._buf = hashlib.shake_256(_STREAM_TAG + self._key + self._block.to_bytes(8, "little")).digest(_BLOCK)
        self._pos = 0

    def _bytes(self, n: int) -> bytes:
        pos = self._pos
        end = pos + n
        if end <= _BLOCK:
            self._pos = end
            return self._buf[pos:end]
        parts = [self._buf[pos:]]
        n -= _BLOCK - pos
        while True:
            self._refill()
            take = min(n, _BLOCK)
            parts.append(self._buf[:take])
            self._pos = take
            n -= take
            if n == 0:
                return b"".join(parts)

    def getrandbits(self, k: int) -> int:
        if k <= 0:
            if k == 0:
                return 0
            raise ValueError("number of bits must be non-negative")
        pos = self._pos
        end = pos + ((k + 7) >> 3)
        if end <= _BLOCK:  # the common case, inline: a game draws a few bits at a time
            self._pos = end
            return int.from_bytes(self._buf[pos:end], "little") & ((1 << k) - 1)
        return int.from_bytes(self._bytes((k + 7) >> 3), "little") & ((1 << k) - 1)

    def random(self) -> float:
        return self.getrandbits(53) * 1.1102230246251565e-16  # 2**-53

    def sample(self, population: Any, k: int, *, counts: Any = None) -> list:
        """``random.Random.sample``, the same draws: a deal (a short sequence,
        no counts) is drawn inline over the keystream, as the base class draws
        it (its pool method, each index by ``_randbelow``'s rejection over
        ``getrandbits`` of a byte or less), at a fifth of the cost; anything
        else is the base class's."""
        n = len(population) if type(population) in (tuple, list, range) else -1
        pool_method = 0 <= k <= n and n <= 21 + (4 ** math.ceil(math.log(k * 3, 4)) if k > 5 else 0)  # as the base's
        if counts is not None or not pool_method or n > 255:
            return super().sample(population, k, counts=counts)
        pool = list(population)
        result = pool[:k]
        buf, pos = self._buf, self._pos
        for i in range(k):
            m = n - i
            mask = (1 << m.bit_length()) - 1
            while True:
                if pos >= _BLOCK:
                    self._refill()
                    buf, pos = self._buf, 0
                r = buf[pos] & mask
                pos += 1
                if r < m:
                    break
            result[i] = pool[r]
            pool[r] = pool[m - 1]
        self._pos = pos
        return result

    def getstate(self) -> tuple:
        return ("arena-chance-v1", self._key, self._block, self._pos)

    def setstate(self, state: tuple) -> None:
        _, self._key, block, pos = state
        self._block = block - 1
        self._refill()
        self._pos = pos


def chance_stream(seed: int | str) -> ChanceStream:
    """The chance of the match with ``seed``."""
    return ChanceStream(seed)
