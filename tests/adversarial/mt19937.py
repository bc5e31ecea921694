"""An attacker's tool: recover Mersenne Twister's state from truncated outputs.

Python's ``random.getrandbits(24)`` returns the top 24 bits of one tempered
32-bit MT19937 word. The generator is linear over GF(2): each word is
``x[n] = x[n-227] ^ twist(x[n-624], x[n-623])`` and tempering is an invertible
linear map. Each observed word leaves 8 unknown bits; given the three older
words, the recurrence fixes the 8 bits of the newer one and adds 9 equations
on older unknowns. So the 8 x 624 unknown bits of the first 624 words are
carried forward symbolically, about 1,200 outputs give enough equations,
one Gaussian elimination over GF(2) (Python integers as bit rows) finds them,
and every later output follows. Used by tests/sandbox/test_secret_deal.py, which
shows that the arena's chance stream gives this nothing.
"""

from __future__ import annotations

WORDS = 624
UPPER, LOWER, MATRIX_A = 0x80000000, 0x7FFFFFFF, 0x9908B0DF
#: outputs needed before ``solve`` can succeed (624 words + the equations for their unknown bits)
ENOUGH = 1400


def temper(y: int) -> int:
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return (y ^ (y >> 18)) & 0xFFFFFFFF


def twist(a: int, b: int) -> int:
    y = (a & UPPER) | (b & LOWER)
    return (y >> 1) ^ (MATRIX_A if y & 1 else 0)


def _apply(columns: list[int], v: int) -> int:
    """The XOR of the items of ``columns`` that the bits of ``v`` select (a GF(2) map)."""
    out, i = 0, 0
    while v:
        if v & 1:
            out ^= columns[i]
        v >>= 1
        i += 1
    return out


def _inverse(columns: list[int]) -> list[int]:
    """The inverse of an invertible 32x32 GF(2) map given by its columns."""
    basis: dict[int, tuple[int, int]] = {}
    for i, image in enumerate(columns):
        pre = 1 << i
        while image:
            top = image.bit_length() - 1
            if top not in basis:
                basis[top] = (image, pre)
                break
            image ^= basis[top][0]
            pre ^= basis[top][1]
    inverse = []
    for i in range(32):
        image, pre = 1 << i, 0
        while image:
            b_image, b_pre = basis[image.bit_length() - 1]
            image ^= b_image
            pre ^= b_pre
        inverse.append(pre)
    return inverse


UNTEMPER = _inverse([temper(1 << i) for i in range(32)])
#: how each unknown low bit of an output moves the untempered word
LOW_BIT = [_apply(UNTEMPER, 1 << b) for b in range(8)]


def _split_equations() -> tuple[dict[int, int], list[int]]:
    """Combinations of the 32 recurrence bits: 8 that give the newest word's
    unknown bits, and the rest, which must vanish (equations on older words)."""
    rows = [(sum(((LOW_BIT[b] >> bit) & 1) << b for b in range(8)), 1 << bit) for bit in range(32)]
    used: list[int] = []
    solve: dict[int, int] = {}
    for col in range(8):
        p = next(i for i, (r, _) in enumerate(rows) if (r >> col) & 1 and i not in used)
        used.append(p)
        for i in range(32):
            if i != p and (rows[i][0] >> col) & 1:
                rows[i] = (rows[i][0] ^ rows[p][0], rows[i][1] ^ rows[p][1])
    for col in range(8):
        solve[col] = rows[used[col]][1]
    return solve, [rows[i][1] for i in range(32) if i not in used]


SOLVE, CONSTRAINTS = _split_equations()


def solve(outputs: list[int]) -> list[int] | None:
    """The untempered words behind ``outputs`` (each the top 24 bits of a
    tempered word, consecutive), or None when there are too few."""
    n_out = len(outputs)
    if n_out < ENOUGH:
        return None
    n_vars = WORDS * 8
    one = 1 << n_vars  # the constant term of an affine expression
    known = [_apply(UNTEMPER, k << 8) for k in outputs]
    unknown = [[1 << (j * 8 + b) for b in range(8)] for j in range(WORDS)]
    bits_cache: dict[int, list[int]] = {}

    def word_bits(j: int) -> list[int]:
        if j not in bits_cache:
            e, k = unknown[j], known[j]
            out = []
            for bit in range(32):
                v = one if (k >> bit) & 1 else 0
                for b in range(8):
                    if (LOW_BIT[b] >> bit) & 1:
                        v ^= e[b]
                out.append(v)
            bits_cache[j] = out
        return bits_cache[j]

    basis: dict[int, int] = {}
    for n in range(WORDS, n_out):
        older, first, second = word_bits(n - 227), word_bits(n - 624), word_bits(n - 623)
        y = second[:31] + [first[31]]
        twisted = y[1:] + [0]
        for i in range(32):
            if (MATRIX_A >> i) & 1:
                twisted[i] ^= y[0]
        rhs = [older[i] ^ twisted[i] ^ (one if (known[n] >> i) & 1 else 0) for i in range(32)]
        unknown.append([_apply(rhs, SOLVE[b]) for b in range(8)])
        for mask in CONSTRAINTS:
            eq = _apply(rhs, mask)
            while eq & (one - 1):
                top = (eq & (one - 1)).bit_length() - 1
                if top not in basis:
                    basis[top] = eq
                    break
                eq ^= basis[top]
    values = 0
    for top in sorted(basis):
        eq = basis[top]
        if ((eq >> n_vars) & 1) ^ (bin(eq & ((1 << top) - 1) & values).count("1") & 1):
            values |= 1 << top

    def word(j: int) -> int:
        low = 0
        for b in range(8):
            e = unknown[j][b]
            low |= (((e >> n_vars) & 1) ^ (bin(e & values & (one - 1)).count("1") & 1)) << b
        return known[j] ^ _apply(UNTEMPER, low)

    return [word(j) for j in range(n_out)]


def predict(words: list[int], count: int) -> list[int]:
    """The next ``count`` outputs (top 24 bits) after ``words``; extends ``words``."""
    out = []
    for _ in range(count):
        n = len(words)
        words.append(words[n - 227] ^ twist(words[n - 624], words[n - 623]))
        out.append(temper(words[-1]) >> 8)
    return out
