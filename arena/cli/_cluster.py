"""``arena worker`` (a Dask worker that plays arena matches, one per CPU it is
given), ``arena cluster scheduler`` and ``arena cluster init-certs``."""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._checks import UsageError
from ..cluster._artifacts import CACHE_LIMIT_ENV, CACHE_MB_DEFAULT, cache_limit
from ..cluster._build import build
from ..cluster._remote import ALLOW_NONE_ENV, CERTS_ENV, CPUS_ENV, RESOURCE, SILENCE, SILENCE_ENV, build_resource
from ..cluster._security import certs_folder, check_secured, init_certs, is_loopback, split_address, tls_arguments


#: Dask's periodic work made rarer (a worker or scheduler here has a few
#: coarse tasks a second, not thousands): the sampling profiler off (it
#: wakes every 10 ms), the event-loop check every second instead of every
#: 20 ms, the system monitor every 5 s. About half the CPU an idle worker
#: used, measured; `arena cluster scheduler` uses the same, and work stealing every second.
QUIET = {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
}
#: Dask refuses any connection that is not TLS.
ENCRYPTED = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True"}
#: The HTTP port of a worker, and of a scheduler without --dashboard, answers /health
#: only: Dask's other pages show worker addresses, tasks, logs and call stacks to anyone.
HEALTH_ONLY = '["distributed.http.health"]'
#: How often a worker whose scheduler went away looks for it again.
REJOIN_POLL = 1.0


def _fail(text: str) -> typer.Exit:
    typer.echo(f"arena: error: {text}", err=True)
    return typer.Exit(2)


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


def check_listen(listen: str, certs: Path | None, scheme: str) -> None:
    """A host to bind: with TLS only, loopback included (any local user could connect)."""
    if certs is None or scheme != "tls":
        where = "this machine's loopback, where any local user" if is_loopback(listen) else \
            "an address where anyone on that network"
        raise UsageError(f"--listen {listen} is {where} could reach it: a worker or scheduler must speak TLS "
                         "(a tls:// address and --certs DIR, made by `arena cluster init-certs DIR`)")


def worker_argv(address: str, slots: int, name: str | None, nanny: bool, listen: str = "127.0.0.1",
                certs: Path | None = None) -> list[str]:
    """The ``dask worker`` command for ``slots`` matches at once, bound to ``listen`` only."""
    host = f"[{listen}]" if ":" in listen and not listen.startswith("[") else listen
    return [sys.executable, "-m", "dask", "worker", address,
            "--nworkers", "1", "--nthreads", str(slots),
            # A slot per CPU, and as many of this arena's build: a match asks for one of each.
            "--resources", f"{RESOURCE}={slots},{build_resource(build())}={slots}",
            # Dask's HTTP server (health, metrics) would listen on every interface unless told.
            "--host", listen, "--no-dashboard", "--dashboard-address", f"{host}:0",
            "--preload", "arena.cluster._preload", *(["--preload-nanny", "arena.cluster._preload"] if nanny else []),
            *(tls_arguments(certs, "worker") if certs is not None else []),
            *(["--name", name] if name else []), *([] if nanny else ["--no-nanny"])]


def _reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host.strip("[]"), port), timeout=2).close()
        return True
    except OSError:
        return False


#: prctl(2): the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _die_with_parent(prctl: Any, parent: int) -> None:
    """In the Dask worker, before exec: SIGKILL it when ``arena worker`` dies, even by SIGKILL,
    which no handler of ours sees. Its arena worker processes then read end-of-file and end
    their bots, and the scheduler gives its matches to other workers. (``prctl`` is looked
    up before the fork: the child runs as little as it can before exec.)"""
    if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        os.write(2, b"arena worker: cannot tie the Dask worker's life to this process (prctl failed)\n")
    if os.getppid() != parent:  # the supervisor died before the prctl took hold
        os._exit(1)


def _supervise(argv: list[str], env: dict[str, str], host: str, port: int, address: str, rejoin: bool) -> int:
    """Run the Dask worker; when it ends by itself (its scheduler went away), start it
    again once the scheduler answers. A SIGTERM or SIGINT here ends both for good."""
    stopping: list[int] = []
    child: list[subprocess.Popen] = []

    def stop(signum: int, _frame: object) -> None:
        stopping.append(signum)
        if child and child[0].poll() is None:
            child[0].send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    tie = functools.partial(_die_with_parent, ctypes.CDLL(None, use_errno=True).prctl, os.getpid())
    while True:
        child[:] = [subprocess.Popen(argv, env=env, preexec_fn=tie)]
        code = child[0].wait()
        if stopping or not rejoin:
            return code
        typer.echo(f"arena worker: the Dask worker ended (exit {code}); rejoining the scheduler at {address} "
                   "when it answers", err=True)
        # Dask workers do not reconnect by themselves. Wait for the port, and at
        # least a poll interval, so that a worker that cannot start does not spin.
        time.sleep(REJOIN_POLL)
        while not stopping and not _reachable(host, port):
            time.sleep(REJOIN_POLL)
        if stopping:
            return code


def _worker_env(chosen: set[int], cache: Path | None, cache_mb: int | None, certs: Path,
                allow_no_sandbox: bool) -> dict[str, str]:
    """The Dask worker's environment: what its tasks read (CPUs, cache, certificates, sandbox)."""
    env = dict(os.environ)
    # Only the matches are pinned (each arena worker process to one of these
    # CPUs, its bots with it); Dask's own threads float, so that its
    # housekeeping does not preempt a match; and that housekeeping is made rarer.
    env[CPUS_ENV] = ",".join(map(str, sorted(chosen)))
    for key, value in QUIET.items():
        env.setdefault(key, value)
    env.update(ENCRYPTED)
    env["DASK_DISTRIBUTED__WORKER__HTTP__ROUTES"] = HEALTH_ONLY
    if cache is not None:
        env["ARENA_CACHE"] = str(cache.resolve())
    if cache_mb is not None:
        env[CACHE_LIMIT_ENV] = str(cache_mb)
    # The worker's tasks fetch the bots' artifacts from the coordinator's store with these.
    env[CERTS_ENV] = str(certs.resolve())
    env[ALLOW_NONE_ENV] = "1" if allow_no_sandbox else "0"
    return env


def worker_cmd(
    address: Annotated[str, typer.Argument(help="The Dask scheduler, like tls://HOST:8786.")],
    cpus: Annotated[Optional[str], typer.Option(
        help="CPUs for matches, like 0-3 or 1,3: one match at a time on each (default: every CPU it may use).")] = None,
    cache: Annotated[Optional[Path], typer.Option(
        help="Folder for the bots' artifacts (default: $ARENA_CACHE or ~/.cache/arena/artifacts).")] = None,
    cache_mb: Annotated[Optional[int], typer.Option(
        "--cache-mb", min=0,
        help="Evict the least recently used bots' files once the cache is over this many MB (0: never); "
             f"default ${CACHE_LIMIT_ENV} or {CACHE_MB_DEFAULT}.")] = None,
    name: Annotated[Optional[str], typer.Option(help="This worker's name in results and logs.")] = None,
    listen: Annotated[str, typer.Option(
        help="The address to bind (every port of the worker, its nanny and its HTTP server); anything but "
             "loopback needs TLS.")] = "127.0.0.1",
    certs: Annotated[Optional[Path], typer.Option(
        help="The cluster's certificates, made by `arena cluster init-certs DIR` (default: $ARENA_CERTS).")] = None,
    nanny: Annotated[bool, typer.Option(help="Run under Dask's nanny, which restarts a worker that dies.")] = True,
    rejoin: Annotated[bool, typer.Option(
        help="When the scheduler goes away, wait for it and join again (else: stop).")] = True,
    allow_no_sandbox: Annotated[bool, typer.Option(
        "--allow-no-sandbox", help="Also play tournaments run with --sandbox none (trusted bots only: "
        "such a bot can reach the scheduler).")] = False,
) -> None:
    """Join a Dask cluster as a worker for `arena tournament --cluster` and `arena serve --cluster`."""
    try:
        certs = certs_folder(certs)
        parts = split_address(address)
        if parts is None:
            raise UsageError(f"arena worker takes a Dask scheduler's address like tls://HOST:8786, not {address!r}")
        scheme, host, port = parts
        check_secured("arena worker", address, scheme, host, certs)
        check_listen(listen, certs, scheme)
        chosen = parse_cpus(cpus) if cpus else os.sched_getaffinity(0)
        assert certs is not None  # (check_secured)
        tls_arguments(certs, "worker")  # the files are there, naming the worker's role
        if cache_mb is None:
            cache_limit()  # $ARENA_CACHE_MB, if set, is a number (said now, not at the first match)
    except UsageError as exc:
        raise _fail(str(exc)) from None
    # Looked up, not imported: this process only supervises the Dask worker,
    # and importing Dask would cost it more CPU (0.6 s) than all else it does.
    if importlib.util.find_spec("distributed") is None:
        raise _fail("arena worker needs Dask: pip install 'arena-cardgames[cluster]'")
    env = _worker_env(chosen, cache, cache_mb, certs, allow_no_sandbox)
    argv = worker_argv(address, len(chosen), name, nanny, listen, certs)
    typer.echo(f"arena worker: {len(chosen)} slot(s) on CPUs {sorted(chosen)}, arena {build()}, listening on "
               f"{listen}, joining {address}", err=True)
    raise typer.Exit(_supervise(argv, env, host, port, address, rejoin))


def scheduler_cmd(
    listen: Annotated[str, typer.Option(
        help="HOST:PORT to bind (PORT 0: any free port); anything but loopback needs --certs.")] = "127.0.0.1:8786",
    certs: Annotated[Optional[Path], typer.Option(
        help="The cluster's certificates, made by `arena cluster init-certs DIR`: the scheduler speaks TLS "
             "only and admits only holders of a certificate of that authority (default: $ARENA_CERTS).")] = None,
    dashboard: Annotated[Optional[str], typer.Option(
        metavar="HOST:PORT", help="Serve Dask's dashboard and all its pages there, on loopback only (default: "
                                  "none, and the HTTP port answers /health only; the pages show, and can "
                                  "change, what the cluster does).")] = None,
    scheduler_file: Annotated[Optional[Path], typer.Option(
        "--scheduler-file", help="Write the scheduler's address there (useful with port 0).")] = None,
    worker_silence: Annotated[float, typer.Option(
        "--worker-silence", metavar="SECONDS", help="Give up a worker not heard from for this long (at least "
        "ten heartbeats: 5 s up to 10 workers); its matches go to other workers.")] = SILENCE,
) -> None:
    """Start the Dask scheduler of an arena cluster, bound where told, TLS only, guarded."""
    host, _, port = listen.rpartition(":")
    try:
        if not 0 < worker_silence < float("inf"):
            raise UsageError(f"--worker-silence takes a number of seconds above 0, not {worker_silence:g}")
        certs = certs_folder(certs)
        if not host or not port.isdigit():
            raise UsageError(f"--listen takes HOST:PORT like 127.0.0.1:8786, not {listen!r}")
        check_listen(host, certs, "tls")
        assert certs is not None  # (check_listen)
        tls = tls_arguments(certs, "scheduler")
        if dashboard is not None and not is_loopback(dashboard.rpartition(":")[0] or "?"):
            raise UsageError(f"--dashboard {dashboard} is not on this machine's loopback: Dask's pages show, "
                             "and can change, what the cluster does, to anyone who reaches them; give "
                             "127.0.0.1:PORT (and an SSH tunnel to look from elsewhere)")
    except UsageError as exc:
        raise _fail(str(exc)) from None
    env = dict(os.environ)
    for key, value in {**QUIET, "DASK_DISTRIBUTED__SCHEDULER__WORK_STEALING_INTERVAL": "1s"}.items():
        env.setdefault(key, value)
    env.update(ENCRYPTED)
    env[SILENCE_ENV] = f"{worker_silence:g}"
    if dashboard is None:
        env["DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES"] = HEALTH_ONLY
    argv = [sys.executable, "-m", "dask", "scheduler", "--host", host.strip("[]"), "--port", port,
            "--protocol", "tls", *tls, "--preload", "arena.cluster._preload",
            *(["--dashboard", "--dashboard-address", dashboard] if dashboard
              else ["--no-dashboard", "--dashboard-address", f"{host}:0"]),
            *(["--scheduler-file", str(scheduler_file)] if scheduler_file else [])]
    os.execve(argv[0], argv, env)


def init_certs_cmd(
    folder: Annotated[Path, typer.Argument(help="An empty (or new) folder for the certificates.")],
) -> None:
    """Make a certificate authority and certificates for the scheduler, the workers and the coordinator."""
    try:
        written = init_certs(folder)
    except UsageError as exc:
        raise _fail(str(exc)) from None
    for path in written:
        typer.echo(str(path))
    typer.echo(f"Copy ca.pem with scheduler.pem, worker.pem or client.pem to each machine; keep "
               f"{folder / 'ca-key.pem'} off the cluster (it makes more certificates).", err=True)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_cmd)
    cluster = typer.Typer(help="Set up a Dask cluster for --cluster: certificates and the scheduler "
                               "(docs/cluster.md).", no_args_is_help=True)
    cluster.command("init-certs")(init_certs_cmd)
    cluster.command("scheduler")(scheduler_cmd)
    app.add_typer(cluster, name="cluster")
