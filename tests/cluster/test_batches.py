"""How a cluster run cuts its matches into batches (``arena.cluster._session.batch_size``):
no Dask needed, the rule alone."""

from __future__ import annotations

import pytest

from arena.cluster._session import BATCH_MAX, batch_size


def batches(total: int, slots: int, most: int = BATCH_MAX) -> list[int]:
    out, left = [], total
    while left:
        out.append(batch_size(left, slots, most))
        left -= out[-1]
    return out


@pytest.mark.parametrize(("total", "slots"), [(1, 1), (24, 2), (144, 1), (240, 16), (10_000, 1600), (5, 64)])
def test_batches_cover_every_match_and_shrink_towards_the_end(total, slots):
    sizes = batches(total, slots)
    assert sum(sizes) == total
    assert all(1 <= n <= BATCH_MAX for n in sizes)
    assert sizes == sorted(sizes, reverse=True)  # guided: the last ones are the smallest
    assert sizes[-1] == 1


def test_a_batch_is_a_third_of_what_is_left_per_slot_within_its_bounds():
    assert batches(24, 2)[:5] == [4, 3, 2, 2, 2]
    assert batch_size(10_000, 1, BATCH_MAX) == BATCH_MAX
    assert batch_size(10_000, 1, 1) == 1  # ARENA_BATCH_MAX=1: one match per task
    assert batch_size(5, 64, BATCH_MAX) == 1  # more slots than matches: one each
    # a whole league-length run on one slot pays for about a tenth as many tasks as matches
    assert len(batches(240, 1)) <= 240 // 10
