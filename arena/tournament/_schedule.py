"""The schedule: every seating of the entrants, round by round, each match
at a fixed position (round, index) with a seed derived from the tournament's
seed and that position, so the results do not depend on how many matches run
at once or in which order they finish. With ``duplicate`` every seating of
the same set of entrants in a round shares one seed: the same cards go to the
same seats, and each entrant in turn plays every seat's cards (ACPC's
duplicate matches)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from .._seeds import chance_stream, derive_seed


@dataclass(frozen=True, slots=True)
class Pairing:
    round: int
    idx: int
    seats: tuple[int, ...]  # entrant indices, in seat order
    seed: str


def schedule(
    entrants: int, seats: int, rounds: int, seed: int | str, *, duplicate: bool = False,
    gauntlet: int | None = None, first_round: int = 0, rotations: bool = False,
    apart: tuple[int, ...] | None = None,
) -> list[Pairing]:
    """Every ordered choice of ``seats`` distinct entrants (every seating), per round.

    ``rotations``: each set of ``seats`` entrants in its ``seats`` rotations
    only (every entrant in every seat once, the others in the same order);
    for tables of many seats, where every ordering would be too many.
    ``gauntlet``: only the seatings that include that entrant. ``duplicate``:
    the seatings of one set of entrants share the round's seed for that set.
    ``apart``: a group per entrant (a league's owners); no table seats two
    entrants of one group, who could otherwise pass each other cards through
    what the machine lets seats share (docs/sandbox.md).
    """
    if entrants < seats:
        raise ValueError(f"a tournament of a {seats}-seat game needs at least {seats} bots, got {entrants}")
    chosen: Iterable[tuple[int, ...]]
    if rotations:
        chosen = (c[r:] + c[:r] for c in itertools.combinations(range(entrants), seats) for r in range(seats))
    else:
        chosen = itertools.permutations(range(entrants), seats)
    lineups = [lu for lu in chosen if (gauntlet is None or gauntlet in lu)
               and (apart is None or len({apart[e] for e in lu}) == len(lu))]
    pairings = []
    for r in range(first_round, first_round + rounds):
        for i, lineup in enumerate(lineups):
            if duplicate:
                seed_i = derive_seed(seed, "round", r, "deal", *sorted(lineup))
            else:
                seed_i = derive_seed(seed, "round", r, "match", i)
            pairings.append(Pairing(r, i, lineup, seed_i))
    return pairings


def sample_sets(pairings: list[Pairing], most: int, seed: int | str) -> list[Pairing]:
    """At most ``most`` pairings a round: whole sets of entrants (every seating
    of the set, so each of them still plays every seat, and a duplicate deal
    stays whole), the sets taken in an order drawn from ``seed``, at least one.

    For a big pool, where every seating is too many (a gauntlet of one bot
    against 49 others at a 3-seat table is 7,056 matches): the league's
    placement matches.
    """
    out = []
    for r in sorted({p.round for p in pairings}):
        sets: dict[tuple[int, ...], list[Pairing]] = {}
        for p in pairings:
            if p.round == r:
                sets.setdefault(tuple(sorted(p.seats)), []).append(p)
        keys = sorted(sets)
        chance_stream(derive_seed(seed, "sample", r)).shuffle(keys)
        taken = 0
        for key in keys:
            if taken and taken + len(sets[key]) > most:
                break
            out += sets[key]
            taken += len(sets[key])
    return sorted(out, key=lambda p: (p.round, p.idx))
