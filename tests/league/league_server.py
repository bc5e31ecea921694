"""A real league server for the tests: ``arena serve`` as a child process on 127.0.0.1."""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

from arena.league._server import tar_gz

from ..conftest import PY, ROOT, clean_env, sigint_default

K = ROOT / "sample_bots" / "kuhn3"


def env() -> dict[str, str]:
    e = clean_env()
    # The league runs submissions in the real sandbox (its default level).
    e.pop("ARENA_SANDBOX", None)
    return e


def new_user(db: Path, name: str, admin: bool = False) -> str:
    """A user made in this process (the same code `arena users add` runs), for
    tests that need many: a process each would cost more than the test."""
    from arena.league._db import League as Tables
    from arena.results._store import open_store

    store = open_store(db)
    try:
        return Tables(store).add_user(name, admin)
    finally:
        store.close()


def add_user(db: Path, name: str, admin: bool = False) -> str:
    out = subprocess.run([PY, "-m", "arena", "users", "add", name, "--db", str(db), *(["--admin"] if admin else [])],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60, check=True)
    return out.stdout.strip()


class League:
    """``arena serve`` started on a free port; ``url`` once it serves."""

    proc: subprocess.Popen | None

    @classmethod
    def attach(cls, url: str, db: Path) -> "League":
        """A client of a league another process started."""
        self = cls.__new__(cls)
        self.db, self.log, self.url, self.proc = db, db.with_suffix(".stderr.log"), url, None
        self.http = _client(url)
        return self

    def __init__(self, db: Path, *args: str, cwd: Path = ROOT, extra_env: dict[str, str] | None = None,
                 log: Path | None = None) -> None:
        self.db = cwd / db
        self.log = log or self.db.with_suffix(".stderr.log")  # the server's stderr: the organiser's log
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [PY, "-m", "arena", "serve", "--db", str(db), "--port", "0", *args],
                stdout=subprocess.PIPE, stderr=log, text=True, env={**env(), **(extra_env or {})}, cwd=cwd,
                preexec_fn=sigint_default, start_new_session=True)
        line = self.proc.stdout.readline()
        m = re.search(r"League serving at (http://\S+)", line)
        assert m, f"no URL line from arena serve: {line!r}; stderr: {self.stderr()}"
        self.url = m[1]
        self.http = _client(self.url)

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self, sig: int = signal.SIGINT) -> int:
        """Send ``sig`` to the server's process group, as a terminal's Ctrl-C
        does (its tournament workers get it too); the exit code. What it
        wrote after the signal is kept in ``said_on_stop``."""
        self.http.close()
        self.said_on_stop = ""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            if os.environ.get("ARENA_TEST_CPU"):
                import psutil
                t = psutil.Process(self.proc.pid).cpu_times()
                with open(os.environ["ARENA_TEST_CPU"], "a") as f:
                    f.write(json.dumps({"server": str(self.db), "cpu": round(sum(t[:4]), 2)}) + "\n")
            before = self.log.stat().st_size
            os.killpg(self.proc.pid, sig)  # its own session (start_new_session): the group is the server's
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            with open(self.log, "rb") as log:
                log.seek(before)
                self.said_on_stop = log.read().decode(errors="replace")
        self.proc.stdout.close()
        return self.proc.returncode

    def submit(self, token: str, filename: str, data: bytes, game: str = "kuhn3", name: str = "") -> httpx.Response:
        return self.http.post("/api/bots", headers={"Authorization": f"Bearer {token}"},
                              data={"game": game, "name": name}, files={"file": (filename, data)})

    def wait(self, what: str, check: Any, timeout: float = 120) -> Any:
        """Poll ``check()`` until it returns something true; fail with ``what`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            got = check()
            if got:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; server stderr:\n{self.stderr()}")
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the server exited ({self.proc.returncode}) while waiting for {what}:\n"
                                     f"{self.stderr()}")
            time.sleep(0.2)  # polling interval, not synchronisation: the check decides

    def version(self, bot: int) -> dict[str, Any]:
        return self.http.get(f"/api/bots/{bot}").json()["versions"][0]

    def settled(self, bot: int, timeout: float = 120) -> dict[str, Any]:
        """The bot's newest version once the pipeline is done with it."""
        return self.wait(f"bot {bot} to leave the pipeline",
                         lambda: (v := self.version(bot))["state"] in ("active", "rejected", "retired") and v,
                         timeout)


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return buf.getvalue()


def sample(name: str) -> bytes:
    return (K / name).read_bytes()


def files_under(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


def blob_exists(db: Path, data: bytes) -> bool:
    sha = hashlib.sha256(data).hexdigest()
    return (db.with_name(db.stem + "-data") / "league" / "blobs" / sha[:2] / sha).exists()


# -- one league shared by every test worker -------------------------------------------

SHARED_ARGS = ("--game", "kuhn3", "-p", "kuhn3.hands=20", "--quarantine-matches", "3", "--every", "1h",
               "--placement-matches", "6")
_started: list[League] = []  # the server this process started (kept from the garbage collector)


def _shared_root(tmp_path_factory: Any) -> Path:
    base = tmp_path_factory.getbasetemp()
    # xdist workers have basetemp/popen-gwN; the run's root is shared by all.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_league(tmp_path_factory: Any) -> League:
    """The run's one league with a pool of three active bots, started by
    whichever worker asks first (under a file lock) and stopped by
    ``stop_shared_league`` when the whole run ends. Tests on it must not
    depend on what other tests do to it at the same time."""
    root = _shared_root(tmp_path_factory)
    state = root / "shared-league.json"
    with open(root / "shared-league.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if state.exists():
            info = json.loads(state.read_text())
            server = League.attach(info["url"], Path(info["db"]))
        else:
            folder = root / "shared-league"
            folder.mkdir()
            db = folder / "league.db"
            tokens = {"ada": add_user(db, "ada", admin=True), "bob": new_user(db, "bob"),
                      "eve": new_user(db, "eve")}
            server = League(db, *SHARED_ARGS)
            _started.append(server)
            # No table seats two bots of one user (but an admin's): bob's two meet eve's and ada's, apart.
            # Bob's second comes last, so that each arrival from the third on makes a placement.
            submitted = {}
            for script, name, owner in (("random_bot.py", "random", "bob"), ("equilibrium_bot.py", "equilibrium", "eve"),
                                        ("random_bot.py", "steady", "ada"), ("check_fold_bot.py", "checkfold", "bob")):
                r = server.submit(tokens[owner], script, sample(script), name=name)
                assert r.status_code == 201, r.text
                submitted[name] = r.json()["bot"]
                assert server.settled(submitted[name])["state"] == "active", server.version(submitted[name])
            pool = [submitted[n] for n in ("random", "checkfold", "equilibrium", "steady")]
            server.wait("the placements, every bot rated", lambda: {r["bot"] for r in server.http.get(
                "/api/games/kuhn3").json()["rows"] if r["matches"]} >= set(pool))
            info = {"url": server.url, "db": str(db), "pid": server.proc.pid, "tokens": tokens, "pool": pool}
            state.write_text(json.dumps(info))
    server.tokens, server.pool = info["tokens"], info["pool"]
    return server


def _client(url: str) -> httpx.Client:
    # A new connection per request: a kept-alive one that the server closes
    # (its keep-alive timeout) as the next request is sent ends that request
    # with "Server disconnected without sending a response", which a loaded
    # machine made happen once in the suite.
    return httpx.Client(base_url=url, timeout=30, limits=httpx.Limits(max_keepalive_connections=0))


def stop_shared_league(root: Path) -> None:
    """At the end of the run (the controller, or a run without workers)."""
    state = root / "shared-league.json"
    if not state.exists():
        return
    pid = json.loads(state.read_text())["pid"]
    state.unlink()
    try:
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            if _zombie_or_gone(pid):
                return
            time.sleep(0.1)  # waiting for another process's exit: no event to wait on
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


__all__ = ["League", "add_user", "new_user", "tar_gz", "zip_bytes", "sample", "files_under", "blob_exists", "shared_league",
           "stop_shared_league", "os"]
