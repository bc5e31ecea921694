"""How a cluster run cuts its matches into batches (``arena.cluster._session.batch_size``):
no Dask needed, the rule alone."""

from __future__ import annotations

import pytest

from arena.cluster._session import BATCH_MAX, BATCH_SECONDS, TASKS_PER_SECOND, batch_size


def batches(total: int, slots: int, seconds_each: float, most: int = BATCH_MAX) -> list[int]:
    out, left = [batch_size(total, slots, most, None)], total
    left -= out[0]
    while left:
        out.append(batch_size(left, slots, most, seconds_each))
        left -= out[-1]
    return out


@pytest.mark.parametrize(("total", "slots", "each"), [(1, 1, 0.01), (24, 2, 1.3), (240, 1, 0.015),
                                                      (240, 16, 0.2), (100_000, 1600, 0.26), (5, 64, 0.01)])
def test_batches_cover_every_match_and_shrink_towards_the_end(total, slots, each):
    sizes = batches(total, slots, each)
    assert sum(sizes) == total
    assert all(1 <= n <= BATCH_MAX for n in sizes)
    assert sizes[1:] == sorted(sizes[1:], reverse=True)  # guided: the last ones are the smallest
    assert sizes[0] == sizes[-1] == 1  # the first, before any duration is known, and the last


def test_a_batch_lasts_about_a_second_and_longer_on_a_large_cluster():
    assert batch_size(10_000, 1, BATCH_MAX, 0.015) == int(BATCH_SECONDS / 0.015)  # 1-hand matches
    assert batch_size(10_000, 2, BATCH_MAX, 1.3) == 1  # matches longer than a batch: one each
    assert batch_size(1_000_000, 1600, BATCH_MAX, 0.26) == int(1600 / TASKS_PER_SECOND / 0.26)
    assert batch_size(100_000, 1600, BATCH_MAX, 0.26) == 100_000 // (3 * 1600)  # a third per slot at most
    assert batch_size(10_000, 1, 1, 0.001) == 1  # ARENA_BATCH_MAX=1: one match per task
    assert batch_size(5, 64, BATCH_MAX, 0.001) == 1  # more slots than matches: one each
    # a thousand 1-hand matches on one slot pay for about a thirtieth as many tasks
    assert len(batches(1000, 1, 0.015)) <= 1000 // 30


def test_the_window_grows_as_workers_join_and_never_shrinks():
    import trio

    from arena.cluster._session import _Run

    async def main() -> list[int]:
        run = _Run(None, [], lambda item: None, 1)  # type: ignore[arg-type]  # (no session: nothing is sent)
        seen = [run.window]
        for slots in (6, 2, 7):  # five slots join; four leave; one joins
            run.grow(slots)
            seen.append(run.window)
        return seen

    assert trio.run(main) == [4, 14, 14, 16]
