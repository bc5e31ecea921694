"""What a process of the cluster unpickles, and from whom.

Dask's wire format lets a peer put a pickle anywhere in a message (a
``__Pickled__`` frame, the "pickle" and "dask" serializer families, a
result's type, an error), and Dask unpickles it while reading, before any
handler sees the message: unpickling can run any code. A certificate is not
enough to stop that, since every role holds one, so each process installs
this policy (``install``): a pickle is unpickled in full only from a peer
whose certificate names a role this process trusts (``_security.peer_role``),
and everything else goes through ``_PlainUnpickler``, which builds plain data
and a short list of exception classes and refuses every other name.

    scheduler    trusts the client (the coordinator sends its task graphs pickled)
    worker       trusts the scheduler (which passes on the client's tasks)
    coordinator  trusts no one: results come as msgpack, errors as plain exceptions

Whose data is being read is a context variable: set for each read of a
comm (``TCP.read``) and, on a server, for the whole handling of an incoming
comm (``Server._handle_comm``), so that a handler that unpickles (the
scheduler's ``update_graph``) sees who sent it.
"""

from __future__ import annotations

import builtins
import contextvars
import io
import pickle
import types
from collections.abc import Iterable
from typing import Any

from ._security import peer_role

#: The role of the peer whose data this task is reading or handling (None: unknown, plain TCP, no role).
PEER: contextvars.ContextVar[str | None] = contextvars.ContextVar("arena_cluster_peer", default=None)
#: Roles whose pickles this process unpickles in full.
_TRUSTED: set[str] = set()
_ORIGINAL: dict[str, Any] = {}

_PLAIN_TYPES = {"bytes", "bytearray", "str", "int", "float", "complex", "bool", "dict", "list", "tuple", "set",
                "frozenset", "slice", "range"}
#: Exception classes of Dask and the arena that a worker's or the scheduler's error may name.
_EXCEPTIONS = {("distributed.scheduler", "KilledWorker"), ("arena.cluster._guard", "TaskRefused"),
               ("arena.cluster._remote", "MatchRefused"), ("arena.cluster._remote", "WorkerUnfit")}


class PickleRefused(TypeError):
    """A pickle that names something other than plain data or a listed exception: not unpickled.

    A TypeError, since that is what Dask's ``clean_exception`` expects of a
    traceback it cannot read (it then drops it)."""


class _Opaque:
    """Stands for a part of an error that is not needed (a tblib frame, a scheduler's
    record of a worker): built from nothing, holding what the pickle sets on it, calling nothing."""

    def __new__(cls, *args: Any, **kwargs: Any) -> _Opaque:
        return object.__new__(cls)

    def __setstate__(self, state: Any) -> None:
        pass


def _exception(func: Any, args: Any, cause: Any = None, tb: Any = None, context: Any = None,
               suppress_context: bool = False, notes: Any = None) -> BaseException:
    """tblib's ``unpickle_exception``, keeping the exception and its cause only (``func`` was
    found by ``_PlainUnpickler``, so it is a listed exception class)."""
    if not (isinstance(func, type) and issubclass(func, BaseException)) or not isinstance(args, tuple):
        raise PickleRefused("an error arrived whose class is not an exception: not unpickled")
    made = func(*args)
    if isinstance(cause, BaseException):
        made.__cause__ = cause
    return made


def _exception_with_attrs(func: Any, attrs: Any, *rest: Any) -> BaseException:
    """tblib's ``unpickle_exception_with_attrs``: the exception with its ``args`` only."""
    args = attrs.get("args", ()) if isinstance(attrs, dict) else ()
    return _exception(func, tuple(args) if isinstance(args, (tuple, list)) else (), *rest[:1])


def _no_traceback(*_: Any) -> None:
    return None


_STAND_INS: dict[tuple[str, str], Any] = {
    ("tblib.pickling_support", "unpickle_exception"): _exception,
    ("tblib.pickling_support", "unpickle_exception_with_attrs"): _exception_with_attrs,
    ("tblib.pickling_support", "unpickle_traceback"): _no_traceback,
    ("tblib", "Frame"): _Opaque, ("tblib", "Traceback"): _Opaque, ("tblib", "Code"): _Opaque,
    ("distributed.scheduler", "WorkerState"): _Opaque,
}


class _PlainUnpickler(pickle.Unpickler):
    """Plain data (bytes, str, numbers, containers) and listed exception classes; any other
    name refused before it is looked up, so nothing of the sender's choosing is called."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins":
            value = getattr(builtins, name, None)
            if name in _PLAIN_TYPES or (isinstance(value, type) and issubclass(value, BaseException)):
                return value
        elif (module, name) in _STAND_INS:
            return _STAND_INS[module, name]
        elif (module, name) in _EXCEPTIONS:
            return super().find_class(module, name)
        who = PEER.get()
        raise PickleRefused(f"refused to unpickle {module}.{name} sent by "
                            f"{'a ' + who if who else 'a peer without an arena role'}: this process takes "
                            "plain data only from it (nothing was run)")

    def persistent_load(self, pid: Any) -> Any:
        raise PickleRefused("refused a pickle with a persistent reference: not unpickled")


def loads(data: Any, *, buffers: Iterable[Any] = ()) -> Any:
    """Dask's ``protocol.pickle.loads`` under this process's policy."""
    if PEER.get() in _TRUSTED:
        return _ORIGINAL["loads"](data, buffers=buffers)
    try:
        return _PlainUnpickler(io.BytesIO(data), buffers=buffers).load()
    except PickleRefused:
        raise
    except Exception as exc:  # garbled bytes, a stand-in given wrong arguments
        raise PickleRefused(f"refused a pickle that is not plain data ({type(exc).__name__}: {exc})") from None


def _stdlib_loads(data: Any, /, *, fix_imports: bool = True, encoding: str = "ASCII", errors: str = "strict",
                  buffers: Iterable[Any] = ()) -> Any:
    return loads(data, buffers=buffers)


#: Stands for the ``pickle`` module in Dask modules that call ``pickle.loads`` themselves.
_PICKLE = types.ModuleType("pickle", "the standard pickle module, its loads under the arena's policy")
_PICKLE.__dict__.update({k: v for k, v in vars(pickle).items() if not k.startswith("__")})
_PICKLE.loads = _stdlib_loads  # type: ignore[attr-defined]
_PICKLE.load = None  # type: ignore[attr-defined]  # Dask never reads a pickle from a file
_PICKLE.Unpickler = None  # type: ignore[attr-defined]

#: Dask modules holding the standard ``pickle`` module, or ``protocol.pickle.loads`` under its own name.
_HOLDERS_OF_PICKLE = ("distributed.client", "distributed.scheduler", "distributed.shuffle._core",
                      "distributed.shuffle._pickle")
_HOLDERS_OF_LOADS = ("distributed.client", "distributed.scheduler")


def trust(roles: Iterable[str]) -> None:
    """The roles whose pickles this process unpickles in full (none, unless said)."""
    _TRUSTED.clear()
    _TRUSTED.update(roles)


def install(trusted: Iterable[str] = (), servers: bool = False) -> None:
    """Put the policy on every place Dask unpickles in this process; trust ``trusted`` roles.

    ``servers``: this process runs a Dask scheduler, worker or nanny, which
    handles no incoming comm until its guard is on (``_guard``). Idempotent;
    imports the Dask modules it patches, so that none is loaded after."""
    import importlib

    trust(trusted)
    if servers and "handle_comm" not in _ORIGINAL:
        from distributed.core import Server

        _ORIGINAL["handle_comm"] = Server._handle_comm
        Server._handle_comm = _handle_comm  # type: ignore[method-assign]
    if "loads" in _ORIGINAL:
        return
    from distributed.comm.tcp import TCP
    from distributed.protocol import pickle as dask_pickle

    _ORIGINAL["loads"] = dask_pickle.loads
    _ORIGINAL["read"] = TCP.read
    dask_pickle.loads = loads
    for name in _HOLDERS_OF_PICKLE:
        module = importlib.import_module(name)
        assert module.pickle is pickle, f"{name} no longer holds the pickle module: look again at _wire"
        module.pickle = _PICKLE  # type: ignore[attr-defined]
    for name in _HOLDERS_OF_LOADS:
        module = importlib.import_module(name)
        assert module.loads is _ORIGINAL["loads"], f"{name}.loads is no longer Dask's: look again at _wire"
        module.loads = loads  # type: ignore[attr-defined]
    TCP.read = _read  # type: ignore[method-assign]


async def _read(self: Any, deserializers: Any = None) -> Any:
    """``TCP.read`` (and TLS's), with whose data it is known while it is unpacked."""
    token = PEER.set(peer_role(self))
    try:
        return await _ORIGINAL["read"](self, deserializers)
    finally:
        PEER.reset(token)


#: Set on a Dask server by its guard (``_guard``): it handles incoming comms from then on.
GUARDED = "_arena_guarded"


async def _handle_comm(self: Any, comm: Any) -> None:
    """``Server._handle_comm``: the peer's role known to every handler of this comm; a
    comm that arrives before the server's guard is on (it listens first) is dropped."""
    if not getattr(self, GUARDED, False):
        comm.abort()
        return
    PEER.set(peer_role(comm))  # this comm's own task: its handlers and the tasks they start
    await _ORIGINAL["handle_comm"](self, comm)


# -- a task's arguments and result: one msgpack blob each ---------------------------------
# A batch travels as bytes, not as nested lists and dicts: Dask then walks no
# structure looking for futures when the task is submitted (a fifth of the
# coordinator's CPU per match went to that walk), and moves one frame each way.
# What a peer sent unpacks to plain data only: msgpack's extension types, the
# one way to name anything else, are refused.


class NotPlain(ValueError):
    """Bytes that are not a msgpack document of plain data."""


def _extension(code: int) -> NotPlain:
    return NotPlain(f"a msgpack extension type ({code}), which plain data does not use")


def _no_extension(code: int, data: bytes) -> Any:
    raise _extension(code)


def pack_plain(value: Any) -> bytes:
    """``value`` (None, bool, int, float, str, bytes, lists and str-keyed dicts) as msgpack."""
    import msgpack

    return msgpack.packb(value, use_bin_type=True)


def unpack_plain(data: Any) -> Any:
    """What ``pack_plain`` made: plain data (NotPlain when ``data`` is anything else)."""
    import msgpack

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise NotPlain(f"a {type(data).__name__}, not bytes")
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, ext_hook=_no_extension)
    except NotPlain:
        raise
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise NotPlain(f"not msgpack ({exc})") from None
    # msgpack decodes its timestamp extension itself, without asking ext_hook; bytes keys pass
    # strict_map_key: walked, to be sure.
    _check_plain(value, 0)
    return value


def _check_plain(value: Any, depth: int) -> None:
    if depth > 30:
        raise NotPlain("nested too deep")
    if value is None or type(value) in (bool, int, float, str, bytes):
        return
    if type(value) is list:
        for v in value:
            _check_plain(v, depth + 1)
        return
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise NotPlain(f"a map with a {type(k).__name__} key, not text")
            _check_plain(v, depth + 1)
        return
    import msgpack

    if isinstance(value, (msgpack.ExtType, msgpack.Timestamp)):
        raise _extension(getattr(value, "code", -1))  # (-1: the timestamp's code)
    raise NotPlain(f"holds a {type(value).__name__}, not plain data")
