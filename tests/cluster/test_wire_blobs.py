"""A batch and its results cross Dask as one msgpack document each
(``arena.cluster._wire.pack_plain``): what comes back is plain data or is
refused in words, by the worker (a batch) and by the coordinator (a result),
before anything is played or stored. No Dask needed: the codec and the
checks on either side."""

from __future__ import annotations

import functools

import msgpack
import pytest

from arena.cluster._remote import MatchRefused, _batch
from arena.cluster._session import ClusterError, ClusterSession, _Batch
from arena.cluster._wire import NotPlain, pack_plain, unpack_plain
from arena.play._jobs import JobBot, MatchJob


def test_plain_data_goes_through_unchanged():
    value = {"results": [{"label": "r0-m1", "record": {"hands": 3, "payoffs": [1.5, -1.5], "faults": []},
                          "transcript": b"\x1f\x8b\x00binary", "logs": {"seat0.stderr.log": b""}}],
             "unfit": None, "flags": [True, False], "big": 2**62}
    assert unpack_plain(pack_plain(value)) == value


@pytest.mark.parametrize(("data", "said"), [
    ({"results": []}, "a dict, not bytes"),
    (msgpack.packb(msgpack.ExtType(5, b"os.system")), "a msgpack extension type (5)"),
    (msgpack.packb({"when": msgpack.Timestamp(1)}), "a msgpack extension type (-1)"),
    (msgpack.packb({b"key": 1}), "a map with a bytes key"),
    (msgpack.packb(functools.reduce(lambda inner, _: [inner], range(40), 1)), "nested too deep"),
    (msgpack.packb({1: "a key that is not text"}), "not msgpack"),
    (b"\xc1", "not msgpack"),
    (msgpack.packb([1]) + b"\x00", "not msgpack"),
])
def test_anything_else_is_refused_in_words(data, said):
    with pytest.raises(NotPlain, match=said.replace("(", r"\(").replace(")", r"\)")):
        unpack_plain(data)


def _job(label: str) -> MatchJob:
    return MatchJob(key=(0, int(label[-1])), game="kuhn3", params={}, seed=1,
                    bots=(JobBot("a", "./a"), JobBot("b", "./b"), JobBot("c", "./c")), label=label)


def test_a_worker_refuses_a_batch_that_is_not_one():
    for bad, said in [(b"\x00\x01", "a batch that is not msgpack"),
                      (pack_plain({"jobs": [_job("r0-m1").to_json()], "bots": []}), "does not list matches"),
                      (pack_plain([1, 2]), "does not list matches")]:
        with pytest.raises(MatchRefused, match=said):
            _batch(bad, "W")
    jobs, bots = _batch(pack_plain({"jobs": [_job("r0-m1").to_json()], "bots": [[{"sha256": None}]]}), "W")
    assert jobs == [_job("r0-m1")] and bots == [[{"sha256": None}]]


def test_the_coordinator_refuses_a_result_that_is_not_plain_before_storing_anything():
    batch = _Batch([("item", _job("r0-m1"), [])], future=None)
    record = {"label": "r0-m1", "record": {}, "transcript": None, "logs": {}}
    for reply, said in [({"results": [record], "unfit": None}, "is a dict, not bytes"),
                        (msgpack.packb(msgpack.ExtType(1, b"x")), "extension type"),
                        (pack_plain({"results": [{**record, "label": "r0-m2"}], "unfit": None}),
                         "does not list its matches in the order they were sent")]:
        with pytest.raises(ClusterError, match=f"the result of the batch from match r0-m1 .*{said}"):
            ClusterSession._results(batch, reply)
    results, unfit = ClusterSession._results(batch, pack_plain({"results": [record], "unfit": None}))
    assert results == [record] and unfit is None
