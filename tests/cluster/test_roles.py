"""Each role of a cluster does its own job and nothing else (issue 49, Build item 1).

A real scheduler and worker on 127.0.0.1 (``arena cluster scheduler``,
``arena worker``), attacked with a worker's certificate, a client's, and a
rogue worker's results. Whatever is sent pickled would write
``MARKERS/<pid of the process that unpickled it>``: each test checks that no
such file appears for the scheduler, the workers or the coordinator, and
that the attack reached its target (the refusal says so in words, or an
unguarded process on the same path ran the payload).
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.cli._cluster import ENCRYPTED
from arena.cluster._build import build
from arena.cluster._remote import RESOURCE, build_resource, play_batch
from arena.cluster._security import tls_arguments

from ..conftest import PY, ROOT, clean_env, run_arena
from .test_cluster import ARGS, CPUS, coordinator, secured_scheduler, start_scheduler, start_worker, stored, wait_for

pytestmark = pytest.mark.slow

ROGUE = Path(__file__).with_name("rogue_worker.py")


class Payload:
    """Unpickled, runs a shell command that leaves ``folder/<pid of the unpickler>``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __reduce__(self):
        return (os.system, (f"touch {self.folder}/$PPID",))


def payload_works(folder: Path) -> None:
    """The payload does run when unpickled (in a process of its own): the tests' marker can appear."""
    proc = subprocess.Popen([PY, "-c", "import pickle, sys; pickle.loads(bytes.fromhex(sys.argv[1]))",
                             pickle.dumps(Payload(folder)).hex()])
    assert proc.wait(60) == 0
    made = folder / str(proc.pid)
    assert made.exists(), list(folder.iterdir())
    made.unlink()


def security(certs: Path, role: str):
    from distributed.security import Security

    own = str(certs / f"{role}.pem")
    return Security(tls_ca_file=str(certs / "ca.pem"), tls_client_cert=own, tls_client_key=own,
                    require_encryption=True)


def ask(address: str, certs: Path, role: str, msg: dict) -> dict:
    """One message to ``address`` over a comm made with ``role``'s certificate; the reply."""
    from distributed.comm import connect

    async def go() -> dict:
        comm = await connect(address, timeout="20s", **security(certs, role).get_connection_args("client"))
        try:
            await comm.write({**msg, "reply": True})
            return await comm.read()
        finally:
            comm.abort()
    return asyncio.run(go())


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A scheduler and one worker (G), with this module's certificates."""
    folder = tmp_path_factory.mktemp("roles")
    certs, scheduler, address = secured_scheduler(folder)
    worker = None
    try:
        worker = start_worker(address, "G", CPUS[-1], folder, certs)
        yield {"address": address, "certs": certs, "folder": folder, "scheduler": scheduler, "worker": worker}
    finally:
        if worker is not None:
            worker.stop()
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()


def worker_address(guarded) -> str:
    import distributed

    with distributed.Client(guarded["address"], timeout="20s", security=security(guarded["certs"], "client"),
                            set_as_default=False) as client:
        (found,) = client.scheduler_info(n_workers=-1)["workers"]
        return found


def test_a_workers_certificate_submits_nothing_and_a_pickle_from_it_runs_nothing(guarded, tmp_path):
    import distributed
    from dask._task_spec import Task
    from distributed.protocol.serialize import ToPickle

    address, certs = guarded["address"], guarded["certs"]
    markers = tmp_path / "markers"
    markers.mkdir()
    # As a client: refused when it registers, so no task of its own reaches the scheduler.
    with pytest.raises(ImportError, match="refuses to register a client with a worker's certificate: only "
                                          "the coordinator's client.pem submits tasks"):
        distributed.Client(address, timeout="20s", security=security(certs, "worker"), set_as_default=False)
    # A play_batch task with a pickled argument, sent with a worker's certificate, to the
    # scheduler and straight to a worker: refused while the message is read.
    task = ToPickle(Task("arena-x", play_batch, Payload(markers), [], {}, "build"))
    for where, op in ((address, "update-graph"), (worker_address(guarded), "compute-task")):
        reply = ask(where, certs, "worker", {"op": op, "run_spec": task, "expr_ser": task})
        assert reply["status"] == "uncaught-error", reply
        assert "refused to unpickle" in reply["exception_text"] and "sent by a worker" in reply["exception_text"]
    # Calls that run code on the scheduler or a worker: refused to a worker's certificate.
    function = pickle.dumps(Payload(markers))
    for where, op, said in (
        (address, "run_function", "the arena's scheduler refuses 'run_function' from a worker's certificate"),
        (address, "register_worker_plugin", "the arena's scheduler refuses 'register_worker_plugin'"),
        (worker_address(guarded), "run", "worker G refuses 'run' from a worker's certificate"),
    ):
        reply = ask(where, certs, "worker", {"op": op, "function": function, "plugin": function, "name": "x"})
        assert said in reply["exception_text"], reply
    assert list(markers.iterdir()) == []
    payload_works(markers)


def test_a_clients_certificate_submits_tasks_but_runs_no_function_and_cannot_join_as_a_worker(guarded, tmp_path):
    import distributed

    address, certs = guarded["address"], guarded["certs"]
    with distributed.Client(address, timeout="20s", security=security(certs, "client"),
                            set_as_default=False) as client:
        with pytest.raises(Exception, match="the arena's scheduler refuses 'run_function': it runs no code"):
            client.run_on_scheduler(os.getpid)
        with pytest.raises(Exception, match="the arena's scheduler refuses 'broadcast'"):
            client.run(os.getpid)
        with pytest.raises(Exception, match="the arena's scheduler refuses 'register_scheduler_plugin'"):
            client.register_plugin(distributed.diagnostics.plugin.SchedulerPlugin())
    # A client's certificate given to a Dask worker: not registered, in words.
    log = tmp_path / "impostor.log"
    with open(log, "wb") as out:
        impostor = subprocess.Popen(
            [PY, "-m", "dask", "worker", address, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
             "--no-dashboard", "--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / "client.pem"),
             "--tls-key", str(certs / "client.pem")],
            stdout=out, stderr=out, env={**clean_env(), **ENCRYPTED}, cwd=ROOT, start_new_session=True)
    try:
        wait_for("the impostor's refusal", lambda: "refuses 'register-worker' from a client's certificate"
                 in log.read_text() or impostor.poll() is not None)
        assert "refuses 'register-worker' from a client's certificate" in log.read_text(), log.read_text()[-3000:]
    finally:
        os.killpg(impostor.pid, signal.SIGKILL)
        impostor.wait()
    # arena worker itself refuses a certificate of another role, before it starts.
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    for name in ("ca.pem", "client.pem"):
        (swapped / name).write_bytes((certs / name).read_bytes())
    (swapped / "worker.pem").write_bytes((certs / "client.pem").read_bytes())
    proc = run_arena("worker", address, "--certs", str(swapped), process=True)  # (it would start a worker)
    assert proc.returncode == 2 and "worker.pem names the role 'client', not 'worker'" in proc.stderr, proc.stderr


def test_a_rogue_workers_pickled_results_and_errors_run_nothing_on_the_coordinator(guarded, tmp_path):
    import distributed

    certs = guarded["certs"]
    markers = tmp_path / "markers"
    markers.mkdir()
    scheduler, address = start_scheduler(tmp_path, certs)
    log = tmp_path / "rogue.log"
    with open(log, "wb") as out:
        rogue = subprocess.Popen(
            [PY, "-m", "dask", "worker", address, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
             "--no-dashboard", "--name", "R", "--resources", f"{RESOURCE}=1,{build_resource(build())}=1",
             "--preload", str(ROGUE), *tls_arguments(certs, "worker")],
            stdout=out, stderr=out, cwd=ROOT, start_new_session=True,
            env={**clean_env(), **ENCRYPTED, "ARENA_TEST_MARKERS": str(markers),
                 "ARENA_CACHE": str(tmp_path / "cache"), "ARENA_WORKER_CERTS": str(certs)})
    try:
        wait_for("the rogue to join", lambda: "Registered to" in log.read_text() or rogue.poll() is not None)
        db, said = tmp_path / "t.db", tmp_path / "coordinator.log"
        # One match per task, so that the rogue's third task is the third match.
        run = coordinator(*ARGS, "--db", str(db), "--cluster", address, "--certs", str(certs), log=said,
                          env={"ARENA_BATCH_MAX": "1"})
        run.communicate(timeout=180)
        text = said.read_text()
        # Two matches came back (their type a pickle, refused), the third's error a pickle (refused).
        assert run.returncode == 3, text[-3000:]
        assert "failed on the cluster with an error that came pickled as more than plain data: not " \
               "unpickled, nothing run" in text, text[-3000:]
        assert len(stored(db)) == 2
        # The same results, fetched by an unguarded Dask client in this process: its
        # type is unpickled, and the payload runs here.
        with distributed.Client(address, timeout="20s", security=security(certs, "client"),
                                set_as_default=False) as client:
            assert client.submit(int, "7", pure=False, resources={RESOURCE: 1}).result(timeout=60) == 7
            wait_for("the payload in this process", lambda: (markers / str(os.getpid())).exists())
        assert {p.name for p in markers.iterdir()} == {str(os.getpid())}  # not the coordinator's or scheduler's
    finally:
        os.killpg(rogue.pid, signal.SIGKILL)
        rogue.wait()
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()


def test_plain_tcp_is_refused_on_loopback_too_and_the_dashboard_off_loopback(tmp_path, guarded):
    certs = guarded["certs"]
    for args, said in (
        (["cluster", "scheduler", "--listen", "127.0.0.1:0"], "--listen 127.0.0.1 is this machine's loopback, "
         "where any local user could reach it: a worker or scheduler must speak TLS"),
        (["worker", "tcp://127.0.0.1:9", "--certs", str(certs)], "arena worker tcp://127.0.0.1:9 is plain TCP to "
         "this machine's loopback, where any local user could connect to it and run code on the cluster"),
        (["tournament", *ARGS, "--db", str(tmp_path / "t.db"), "--cluster", "tcp://127.0.0.1:9"],
         "--cluster tcp://127.0.0.1:9 is plain TCP to this machine's loopback"),
        (["cluster", "scheduler", "--certs", str(certs), "--dashboard", "0.0.0.0:0"],
         "--dashboard 0.0.0.0:0 is not on this machine's loopback"),
    ):
        # In a process of its own: a scheduler not refused would replace this one (exec).
        proc = run_arena(*args, process=args[0] != "tournament")
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert not (tmp_path / "t.db").exists()


def test_the_http_ports_answer_health_only(guarded):
    import distributed

    info = json.loads((guarded["folder"] / "scheduler.json").read_text())
    ports = [info["services"]["dashboard"]]
    with distributed.Client(guarded["address"], timeout="20s", security=security(guarded["certs"], "client"),
                            set_as_default=False) as client:
        ports += [w["services"]["dashboard"] for w in client.scheduler_info(n_workers=-1)["workers"].values()]
    assert len(ports) == 2
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
            assert r.read() == b"ok"
        for page in ("info/main/workers.html", "json/identity.json", "metrics", "status", "individual-plots.json"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/{page}", timeout=10)
            refused.value.close()
            assert refused.value.code == 404, (port, page)


def test_every_place_dask_unpickles_is_under_the_policy():
    """Dask modules that hold ``pickle`` or its ``loads`` themselves: after the policy is
    installed, only those known not to read the network (a new one fails here)."""
    code = """if True:
        import importlib, pickle, sys
        for m in ("distributed.scheduler", "distributed.worker", "distributed.nanny", "distributed.client"):
            importlib.import_module(m)
        from arena.cluster import _wire
        _wire.install()
        original = _wire._ORIGINAL["loads"]
        print(sorted(f"{n}.{a}" for n, m in list(sys.modules.items()) if n.startswith(("distributed", "dask"))
                     and m is not None for a, v in vars(m).items()
                     if any(v is x for x in (pickle, pickle.loads, pickle.load, pickle.Unpickler, original))))
    """
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # tokenize pickles this process's own objects; the multiprocessing scheduler is not used;
    # protocol.pickle keeps the module for the policy's own full unpickling.
    assert proc.stdout.strip() == str(["dask.multiprocessing._loads", "dask.multiprocessing.pickle",
                                       "dask.tokenize.pickle", "distributed.protocol.pickle.pickle"]), proc.stdout
