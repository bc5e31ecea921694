"""A scheduler, worker and nanny that do the arena's work and nothing else.

Dask lets any member of a cluster run a function anywhere: as a task,
through ``run``/``run_function``, as a plugin, by uploading a file. The
certificates (``_security``) keep strangers off the cluster and name each
member's role; this guard keeps each role to its job:

- every call that runs code a peer sent, or changes what a server runs
  (``REFUSED_CALLS``, ``REFUSED_ON_SCHEDULER``), is refused to everyone;
- on the scheduler, only a worker's certificate joins as a worker and only a
  client's submits tasks (``SCHEDULER_WORKER_OPS``, ``_scheduler_allows``);
- on a worker, only the scheduler gives orders; another worker, and the
  coordinator's client (which gathers its results straight from the worker,
  the scheduler out of the path), may fetch data, nothing else
  (``_worker_allows``);
- a worker runs the arena's one task function only (``play_batch``): any
  other task fails with a ``TaskRefused`` that says so.

What a peer sends is unpickled only as ``_wire`` allows, before any of
these handlers sees it.
"""

from __future__ import annotations

import functools
import inspect
import os
import time
from collections.abc import Callable
from typing import Any

from ._remote import SILENCE, SILENCE_ENV, SILENT_STIMULUS, play_batch
from ._wire import GUARDED, PEER

#: Worker and nanny calls that run code a peer sent, or change what the worker runs.
REFUSED_CALLS = frozenset({
    "run", "run_coroutine", "upload_file", "plugin-add", "plugin-remove", "plugin_add", "plugin_remove",
    "actor_execute", "actor_attribute", "update_data", "start_ipython",
})
_OURS = (play_batch,)


#: Scheduler calls that run code a peer sent, write files, or reach every worker: refused to every role.
REFUSED_ON_SCHEDULER = frozenset({
    "run_function", "feed", "register_scheduler_plugin", "unregister_scheduler_plugin", "register_worker_plugin",
    "unregister_worker_plugin", "register_nanny_plugin", "unregister_nanny_plugin", "workers_to_close",
    "dump_cluster_state_to_url", "broadcast", "proxy", "benchmark_hardware",
})
#: What only a worker (or its nanny, which holds the worker's certificate) asks of the scheduler.
SCHEDULER_WORKER_OPS = frozenset({
    "register-worker", "register_nanny", "unregister", "heartbeat_worker", "add_keys",
    # the worker's stream
    "task-finished", "task-erred", "release-worker-data", "add-keys", "long-running", "reschedule", "keep-alive",
    "log-event", "worker-status-change", "request-refresh-who-has", "steal-response",
})
#: What a worker may also ask of the scheduler (a client may too).
_SCHEDULER_SHARED_OPS = frozenset({"identity", "who_has", "log_event", "set_resources", "retire_workers",
                                   "versions"})
#: What a peer other than the scheduler may ask of a worker or nanny, by its role.
_PEER_OPS = {"worker": frozenset({"identity", "get_data", "close_gracefully"}),
             "client": frozenset({"identity", "get_data"})}


class TaskRefused(PermissionError):
    """A task or call this server does not run: not one of the arena's own, or not for that role."""


def _who(role: str | None) -> str:
    return f"a {role}'s certificate" if role else "a peer whose certificate names no arena role"


def _scheduler_allows(op: str, role: str | None) -> bool:
    if role == "client":
        return op not in SCHEDULER_WORKER_OPS
    if role == "worker":
        return op in SCHEDULER_WORKER_OPS or op in _SCHEDULER_SHARED_OPS
    return op == "identity"


def _worker_allows(op: str, role: str | None) -> bool:
    return role == "scheduler" or op in _PEER_OPS.get(role or "", ())


def _checked(handler: Callable[..., Any], check: Callable[[], None]) -> Callable[..., Any]:
    """``handler``, calling ``check`` first; as a coroutine function if it is one, with its
    signature (Dask looks at both)."""
    if inspect.iscoroutinefunction(handler):
        @functools.wraps(handler)
        async def checked_async(*args: Any, **kwargs: Any) -> Any:
            check()
            return await handler(*args, **kwargs)
        return checked_async

    @functools.wraps(handler)
    def checked(*args: Any, **kwargs: Any) -> Any:
        check()
        return handler(*args, **kwargs)
    return checked


def _by_role(handlers: dict[str, Any], who: str, allows: Callable[[str, str | None], bool]) -> None:
    """Every handler in ``handlers`` refuses, in words, a peer whose role ``allows`` refuses."""
    for op, handler in list(handlers.items()):
        def check(op: str = op) -> None:
            role = PEER.get()
            if not allows(op, role):
                raise TaskRefused(f"{who} refuses '{op}' from {_who(role)}: each role of an arena "
                                  "cluster does its own job only")
        handlers[op] = _checked(handler, check)


def _foreign(node: Any, depth: int = 0) -> str | None:
    """What in a task's spec is not one of the arena's functions (None: all of it is)."""
    from dask._task_spec import Alias, DataNode, NestedContainer, Task, TaskRef

    if depth > 50:
        return "a task nested too deep"
    if isinstance(node, NestedContainer):
        parts = node.args
    elif isinstance(node, Task):
        if not any(node.func is f for f in _OURS):
            return f"function {getattr(node.func, '__module__', '?')}.{getattr(node.func, '__qualname__', node.func)!s}"
        parts = (*node.args, *node.kwargs.values())
    elif isinstance(node, (DataNode, Alias, TaskRef)):
        return None
    elif isinstance(node, (list, tuple, set, frozenset)):
        parts = tuple(node)
    elif isinstance(node, dict):
        parts = (*node.keys(), *node.values())
    elif callable(node) and not isinstance(node, type):
        return f"a callable argument {node!r}"
    else:
        return None
    for part in parts:
        found = _foreign(part, depth + 1)
        if found is not None:
            return found
    return None


def _refuse(text: str) -> None:
    raise TaskRefused(text)


def _refuser(text: str) -> Callable[..., None]:
    def refused(*_: Any, **__: Any) -> None:
        raise TaskRefused(text)
    return refused


def _registration(register: Callable[..., Any], role: str, answer: Callable[[str], Any],
                  text: str) -> Callable[..., Any]:
    """``register`` for ``role`` only; anyone else gets ``answer(text)`` and the comm is closed."""
    async def checked(comm: Any, *args: Any, **kwargs: Any) -> Any:
        if PEER.get() != role:
            await comm.write(answer(text.format(who=_who(PEER.get()))))
            comm.abort()
            return None
        return await register(comm, *args, **kwargs)
    return checked


def install_scheduler(server: Any) -> None:
    """Put the guard on a Dask scheduler."""
    who = "the arena's scheduler"
    # Dask's shuffle sends each worker a plugin, pickled, when the scheduler starts and as
    # each worker registers: a worker unpickles nothing but tasks, and matches need no shuffle.
    if "shuffle" in server.plugins:
        server.remove_plugin(name="shuffle")
    server.worker_plugins.clear()
    server.nanny_plugins.clear()
    for op in REFUSED_ON_SCHEDULER & set(server.handlers):
        server.handlers[op] = _refuser(f"{who} refuses '{op}': it runs no code a peer sends")
    _by_role(server.handlers, who, _scheduler_allows)
    _by_role(server.stream_handlers, who, _scheduler_allows)
    # The two registrations ask for no reply and wait for an answer of their own: a
    # refusal has to be that answer, or the peer waits without a word.
    server.handlers["register-client"] = _registration(
        server.handlers["register-client"].__wrapped__, "client", lambda text: [{"op": "stream-start", "error": text}],
        f"{who} refuses to register a client with {{who}}: only the coordinator's client.pem submits tasks")
    server.handlers["register-worker"] = _registration(
        server.handlers["register-worker"].__wrapped__, "worker",
        lambda text: {"status": "error", "message": text, "time": time.time()},
        f"{who} refuses 'register-worker' from {{who}}: only a worker's worker.pem joins as a worker")
    setattr(server, GUARDED, True)
    give_up_silent(server, float(os.environ.get(SILENCE_ENV) or SILENCE))


def give_up_silent(server: Any, limit: float) -> None:
    """Every second, the scheduler removes each worker it has not heard from for ``limit``
    seconds (at least ten of Dask's heartbeat intervals). Dask's own check (``worker-ttl``,
    5 minutes) asks a worker's nanny to restart it, and waits 30 s more for a nanny that
    is frozen with its worker; this removes the worker outright, so its matches go to
    another worker, and names the removal (``SILENT_STIMULUS``) for the coordinator to say."""
    from distributed.scheduler import heartbeat_interval
    from tornado.ioloop import PeriodicCallback

    async def check() -> None:
        now = time.time()
        ttl = max(limit, 10 * heartbeat_interval(len(server.workers)))
        for ws in [ws for ws in server.workers.values() if now - ws.last_seen > ttl]:
            await server.remove_worker(ws.address, stimulus_id=f"{SILENT_STIMULUS}-{ttl:g}s-{now}")

    callback = PeriodicCallback(check, 1000)
    server.periodic_callbacks["arena-silent-workers"] = callback
    callback.start()


def install(server: Any) -> None:
    """Put the guard on ``server`` (a Dask worker or nanny)."""
    from dask._task_spec import Task

    who = f"{type(server).__name__.lower()} {getattr(server, 'name', None) or server.address}"
    for op in REFUSED_CALLS & set(server.handlers):
        server.handlers[op] = _refuser(f"{who} refuses '{op}': an arena worker runs the arena's matches only")
    _by_role(server.handlers, who, _worker_allows)
    setattr(server, GUARDED, True)

    compute = server.stream_handlers.get("compute-task")
    if compute is None:
        return

    def checked(**msg: Any) -> Any:
        what = _foreign(msg.get("run_spec"))
        if what is not None:
            key = msg.get("key")
            msg["run_spec"] = Task(key, _refuse, f"{who} refused task {key!r} ({what}): an arena worker "
                                                 "runs the arena's matches only")
        return compute(**msg)

    server.stream_handlers["compute-task"] = checked
