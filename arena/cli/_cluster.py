"""``arena worker``: a Dask worker that plays arena matches, one per CPU it is given."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .._checks import UsageError
from ..cluster._remote import ALLOW_NONE_ENV, CPUS_ENV, RESOURCE


#: Dask's periodic work made rarer (a worker or scheduler here has a few
#: coarse tasks a second, not thousands): the sampling profiler off (it
#: wakes every 10 ms), the event-loop check every second instead of every
#: 20 ms, the system monitor every 5 s. About half the CPU an idle worker
#: used, measured; docs/cluster.md gives the same settings for the scheduler.
QUIET = {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
}


def parse_cpus(text: str) -> set[int]:
    """``0-3``, ``1,3``, ``0-1,4`` -> a set of CPU numbers this process may use."""
    allowed = os.sched_getaffinity(0)
    cpus: set[int] = set()
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            cpus.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise UsageError(f"--cpus takes CPU numbers like 0-3 or 1,3, not {text!r}") from None
    if not cpus or not cpus <= allowed:
        raise UsageError(f"--cpus {text}: this process may use CPUs {sorted(allowed)}")
    return cpus


def worker_argv(address: str, slots: int, name: str | None, nanny: bool) -> list[str]:
    """The ``dask worker`` command for ``slots`` matches at once."""
    return [sys.executable, "-m", "dask", "worker", address,
            "--nworkers", "1", "--nthreads", str(slots), "--resources", f"{RESOURCE}={slots}",
            "--no-dashboard", "--preload", "arena.cluster._preload",
            *(["--name", name] if name else []), *([] if nanny else ["--no-nanny"])]


def worker_cmd(
    address: Annotated[str, typer.Argument(help="The Dask scheduler, like tcp://HOST:8786.")],
    cpus: Annotated[Optional[str], typer.Option(
        help="CPUs for matches, like 0-3 or 1,3: one match at a time on each (default: every CPU it may use).")] = None,
    cache: Annotated[Optional[Path], typer.Option(
        help="Folder for the bots' artifacts (default: $ARENA_CACHE or ~/.cache/arena/artifacts).")] = None,
    name: Annotated[Optional[str], typer.Option(help="This worker's name in results and logs.")] = None,
    nanny: Annotated[bool, typer.Option(help="Run under Dask's nanny, which restarts a worker that dies.")] = True,
    allow_no_sandbox: Annotated[bool, typer.Option(
        "--allow-no-sandbox", help="Also play tournaments run with --sandbox none (trusted bots only: "
        "such a bot can reach the scheduler).")] = False,
) -> None:
    """Join a Dask cluster as a worker for `arena tournament --cluster` and `arena serve --cluster`."""
    from ..tournament._plan import check_cluster

    try:
        check_cluster(address, "match")
        chosen = parse_cpus(cpus) if cpus else os.sched_getaffinity(0)
    except UsageError as exc:
        typer.echo(f"arena: error: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        import distributed  # noqa: F401
    except ImportError:
        typer.echo("arena: error: arena worker needs Dask: pip install 'arena[cluster]'", err=True)
        raise typer.Exit(2) from None
    env = dict(os.environ)
    # Only the matches are pinned (each arena worker process to one of these
    # CPUs, its bots with it); Dask's own threads float, so that its
    # housekeeping does not preempt a match; and that housekeeping is made rarer.
    env[CPUS_ENV] = ",".join(map(str, sorted(chosen)))
    for key, value in QUIET.items():
        env.setdefault(key, value)
    if cache is not None:
        env["ARENA_CACHE"] = str(cache.resolve())
    env[ALLOW_NONE_ENV] = "1" if allow_no_sandbox else "0"
    argv = worker_argv(address, len(chosen), name, nanny)
    typer.echo(f"arena worker: {len(chosen)} slot(s) on CPUs {sorted(chosen)}, joining {address}", err=True)
    os.execve(argv[0], argv, env)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_cmd)
