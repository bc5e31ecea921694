"""Shared helpers: run the real arena as a child process, find leftovers."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import json
import os
import signal
import shutil
import tempfile
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_BOTS = ROOT / "tests" / "bots"
SAMPLE_BOTS = ROOT / "sample_bots" / "kuhn3"
PY = sys.executable
#: the bots the tests run are programs, never test modules (OpenSpiel's HIGC test bots are
#: named test_*.py, and collecting one would read its stdin)
collect_ignore_glob = ["bots/*"]

# Bots that start as `#!/usr/bin/env python3` find this interpreter first. A
# version manager's shim in front of python3 (pyenv's is a shell script, as on
# these machines) costs ~0.1 s of CPU per bot start, a quarter of the CPU of
# the quarantine tests; the bots need the standard library only, which is the same.
os.environ["PATH"] = os.pathsep.join([str(Path(PY).parent), os.environ.get("PATH", "")])


# pytest rewrites each test module (for its assertion messages) and keeps the
# result only where Python may write bytecode. With PYTHONDONTWRITEBYTECODE set,
# as on these machines, every worker of every run rewrote every module again:
# about 4 CPU-s a worker before its first test. This process writes them (next
# to the modules, in __pycache__); the processes it starts keep the setting.
sys.dont_write_bytecode = False

# Arena runs keep the stderr logs of faulted matches in a temporary folder;
# give the ones started by the tests a folder of their own, removed at exit.
_SCRATCH = tempfile.mkdtemp(prefix="arena-tests-")
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)


def clean_env() -> dict[str, str]:
    env = dict(os.environ)
    # This machine sets it; it hides bots that forget to flush.
    env.pop("PYTHONUNBUFFERED", None)
    env["TMPDIR"] = _SCRATCH
    # These tests check the arena's own I/O semantics (EOF, exit codes, signals),
    # which a sandbox wrapper changes; the sandbox levels have their own corpus
    # (tests/sandbox/test_adversarial.py, tests/sandbox/test_sandbox.py) that sets levels itself.
    env.setdefault("ARENA_SANDBOX", "none")
    return env


def sigint_default() -> None:
    """A ``preexec_fn``: the child starts with SIGINT at its default action.

    A shell starts background jobs ignoring SIGINT (and nohup-style runners
    do too), and an ignored signal stays ignored across exec; Python then
    never installs its Ctrl-C handler. A test that sends SIGINT must not
    depend on how ``make test`` was launched.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_arena(*args: str, timeout: float = 60, process: bool = False) -> subprocess.CompletedProcess:
    """``arena ARGS`` as a user types it, with the test environment.

    By default the CLI runs inside this test process (``arena.cli.main``, the
    entry point of the ``arena`` command, with this call's arguments, stdout
    and stderr captured, the environment and folder of a child): the bots are
    still child processes on real pipes. A Python start with the arena's
    imports costs ~0.35 s of CPU, and the suite ran the CLI ~450 times, a
    third of its CPU on CI's two cores. ``process=True`` starts a real child,
    for tests whose subject is the arena's own process (its exit on a signal,
    its stdin, its pid); ``timeout`` applies there only (in-process runs have
    pytest-timeout's limit).
    """
    if process:
        return subprocess.run(
            [PY, "-m", "arena", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=clean_env(),
            cwd=ROOT,
        )
    return run_in_process(list(args))


def run_in_process(args: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None
                   ) -> subprocess.CompletedProcess:
    """``arena ARGS`` through the command's entry point, in this process (see ``run_arena``)."""
    from arena.cli import main

    saved = dict(os.environ), os.getcwd(), sys.argv, sys.stdin, tempfile.tempdir
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    env = clean_env() if env is None else env
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    tempfile.tempdir = None  # read TMPDIR again, as a new process would
    sys.argv = ["arena", *args]
    sys.stdin = io.StringIO()  # as if from /dev/null: nothing here types at the arena
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as stop:
                code = stop.code
                if isinstance(code, str):  # sys.exit("words"): printed, status 1
                    print(code, file=sys.stderr)
                    code = 1
    finally:
        before, cwd, sys.argv, sys.stdin, tempfile.tempdir = saved
        os.environ.clear()
        os.environ.update(before)
        os.chdir(cwd)
    return subprocess.CompletedProcess(["arena", *args], code or 0, out.getvalue(), err.getvalue())


def run_json(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, dict]:
    proc = run_arena(*args, "--json", timeout=timeout)
    assert proc.stdout.strip(), f"no JSON on stdout; stderr was:\n{proc.stderr}"
    return proc, json.loads(proc.stdout)


def processes_with(tag: str) -> list[tuple[int, str]]:
    """Live processes whose command line contains ``tag`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if tag in cmdline and int(entry.name) != os.getpid():
            found.append((int(entry.name), cmdline))
    return found


def assert_completed(result) -> None:
    """Fail with every fault of an unfinished match in full (pytest shortens a
    long assertion message, and the tail of a fault is the useful part)."""
    if not result.completed:
        pytest.fail("the match did not complete:\n" + "\n".join(f.describe() for f in result.faults), pytrace=False)


def replay_key(seed: int | str) -> str:
    """A run's whole key (``SEED:SECRET``) with a secret fixed by the seed: what
    a test types to play the same cards as an in-process match keyed the same
    (a seed alone gets a fresh secret each run, arena._seeds.run_seed)."""
    return f"{seed}:{hashlib.blake2b(str(seed).encode(), digest_size=16).hexdigest()}"


@pytest.fixture
def tag() -> str:
    """A unique marker to put on every process a test starts."""
    return f"arena-test-{uuid.uuid4().hex}"


def python_bot(script: str, *args: str) -> str:
    """A bot command line running one of the test bots with this Python."""
    return " ".join([PY, str(TEST_BOTS / script), *args])


def pytest_sessionfinish(session):
    """Stop the league server the run's tests shared (tests/league/league_server.py),
    once every worker is done: in the controller, or in a run without workers."""
    if hasattr(session.config, "workerinput"):
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    from .league.league_server import stop_shared_league

    stop_shared_league(factory.getbasetemp())


# -- the ACPC server package (../shared/acpc beside the checkout), compiled once
# per session into pytest's cache: its example player and dealer (docs/acpc.md)

ACPC = Path(os.environ.get("ARENA_ACPC_DIR", ROOT.parent / "shared" / "acpc"))
PROGRAMS = {"example_player": "example_player.c", "dealer": "dealer.c"}
COMMON = ("game.c", "rng.c", "net.c")


@pytest.fixture(scope="session")
def acpc(request) -> dict[str, Path]:
    if not (ACPC / "dealer.c").exists():
        pytest.fail(f"the ACPC server package is not at {ACPC} (CI has shared/ beside the checkout)")
    if shutil.which("gcc") is None:
        pytest.fail("gcc is not installed")
    sources = sorted(ACPC.glob("*.[ch]"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    cache = Path(request.config.cache.mkdir(f"acpc-{digest}"))
    built = {}
    for name, main in PROGRAMS.items():
        out = cache / name
        if not out.exists():
            # Built beside, then renamed: xdist workers may race to build it.
            tmp = cache / f"{name}.{os.getpid()}"
            proc = subprocess.run(["gcc", "-O2", "-o", str(tmp), main, *COMMON, "-lm"], cwd=ACPC,
                                  capture_output=True, text=True, check=False)
            assert proc.returncode == 0, proc.stderr
            os.replace(tmp, out)
        built[name] = out
    built["games"] = ACPC
    return built


# -- what each test costs in CPU: ARENA_TEST_CPU=path appends one JSON line per
# test (wall seconds, this process's CPU, its reaped children's CPU). The suite's
# budget on CI's two cores is CPU, not wall time; this says where it goes.

_CPU_LOG = os.environ.get("ARENA_TEST_CPU")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _CPU_LOG:
        yield
        return
    import resource
    import time

    def sample() -> tuple[float, float, float]:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.monotonic(), me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime

    before = sample()
    yield
    after = sample()
    wall, me, kids = (a - b for a, b in zip(after, before))
    with open(_CPU_LOG, "a") as out:
        out.write(json.dumps({"test": item.nodeid, "wall": round(wall, 2), "self": round(me, 2),
                              "children": round(kids, 2)}) + "\n")


# -- the tests that mostly wait start first ------------------------------------------------
# pytest-xdist's worksteal hands each of the W workers a contiguous W-th of the
# collection. A test that lasts 20-40 s of wall time at little CPU (a league
# server, a browser, a bot slow on purpose) that lands at the end of a chunk
# keeps a worker, and the run, going after the others are done (the last
# minute of `make test` was such tests). Each chunk starts with its share of them,
# and of the long CPU-bound ones (the type check: mypy on the whole tree, without
# a cache on a fresh clone).

WAITERS = (
    "tests/league/test_pressure.py::test_stuck_and_slow",
    "tests/league/test_self_healing.py::test_a_tournament_stopped",
    "tests/cli/test_exploit.py::test_a_fixed_leduc",
    "tests/league/test_server_lifecycle.py::test_a_server_killed",
    "tests/league/test_server_browser.py::test_a_person_plays",
    "tests/sandbox/test_duplicate_memory.py::test_a_duplicate_tournament_leaves_no_mark",
    "tests/league/test_charts_browser.py",
    "tests/cli/test_exploit.py::test_a_mixed_kuhn3",
    "tests/cluster/test_heal.py",
    "tests/cluster/test_cluster.py::test_a_tournament_survives",
    "tests/league/test_server_browser.py::test_play_a_holdem",
    "tests/league/test_server_lifecycle.py::test_the_demo_league",
    "tests/league/test_server_browser.py::test_log_in",
    "tests/sandbox/test_sandbox.py::test_levels_that_do_not_work",
    "tests/play/test_openspiel_every_game.py",
    "tests/tournament/test_resume.py::test_resume_restores_every_option",
    "tests/project/test_types.py",
)


def pytest_collection_modifyitems(config, items):
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2 or os.environ.get("PYTEST_XDIST_WORKER") is None:
        return
    rank = {prefix: n for n, prefix in enumerate(WAITERS)}

    def waiter(item) -> int | None:
        return next((n for prefix, n in rank.items() if item.nodeid.startswith(prefix)), None)

    first = sorted((i for i in items if waiter(i) is not None), key=waiter)
    rest = [i for i in items if waiter(i) is None]
    heads: list[list] = [[] for _ in range(workers)]
    for n, item in enumerate(first):
        heads[n % workers].append(item)
    ordered, taken, total = [], 0, len(items)
    for k in range(workers):
        size = (k + 1) * total // workers - k * total // workers  # worksteal's k-th chunk
        room = max(0, size - len(heads[k]))
        ordered += heads[k] + rest[taken:taken + room]
        taken += room
    ordered += rest[taken:]
    items[:] = ordered
