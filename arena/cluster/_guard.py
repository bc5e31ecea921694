"""A worker (and its nanny) that does the arena's work and nothing else.

Dask lets any client of a cluster run a function on a worker: as a task,
through the worker's ``run`` call, as a plugin, by uploading a file. The
certificates (``_security``) keep strangers off the cluster; this guard keeps
its own members to the arena's two task functions (``play_match`` and
``hold_artifact``): any other task fails with a ``TaskRefused`` that says so,
and the calls that run code are refused outright.

It does not make a certificate holder harmless: Dask unpickles what a peer
sends before any handler sees it, and unpickling can run code. The
certificates are what keep code out; this guard stops the ordinary ways of
asking a worker for something else.
"""

from __future__ import annotations

from typing import Any

from ._remote import hold_artifact, play_match

#: Worker and nanny calls that run code a peer sent, or change what the worker runs.
REFUSED_CALLS = frozenset({
    "run", "run_coroutine", "upload_file", "plugin-add", "plugin-remove", "plugin_add", "plugin_remove",
    "actor_execute", "actor_attribute", "update_data", "start_ipython",
})
_OURS = (play_match, hold_artifact)


class TaskRefused(PermissionError):
    """A task or call this worker does not run: not one of the arena's own."""


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


def install(server: Any) -> None:
    """Put the guard on ``server`` (a Dask worker or nanny)."""
    from dask._task_spec import Task

    who = f"{type(server).__name__.lower()} {getattr(server, 'name', None) or server.address}"

    def refuser(op: str):
        def refused(**_: Any) -> None:
            raise TaskRefused(f"{who} refuses '{op}': an arena worker runs the arena's matches only")
        refused.__name__ = f"refused_{op}"
        return refused

    for op in REFUSED_CALLS & set(server.handlers):
        server.handlers[op] = refuser(op)

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
