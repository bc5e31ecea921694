"""A real league server for the tests: ``arena serve`` as a child process on 127.0.0.1."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

from .conftest import PY, ROOT, clean_env, sigint_default

K = ROOT / "sample_bots" / "kuhn3"


def env() -> dict[str, str]:
    e = clean_env()
    # The league runs submissions in the real sandbox (its default level).
    e.pop("ARENA_SANDBOX", None)
    return e


def add_user(db: Path, name: str, admin: bool = False) -> str:
    out = subprocess.run([PY, "-m", "arena", "users", "add", name, "--db", str(db), *(["--admin"] if admin else [])],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60, check=True)
    return out.stdout.strip()


class League:
    """``arena serve`` started on a free port; ``url`` once it serves."""

    def __init__(self, db: Path, *args: str) -> None:
        self.db = db
        self.log = db.with_suffix(".stderr.log")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [PY, "-m", "arena", "serve", "--db", str(db), "--port", "0", *args],
                stdout=subprocess.PIPE, stderr=log, text=True, env=env(), cwd=ROOT,
                preexec_fn=sigint_default, start_new_session=True)
        line = self.proc.stdout.readline()
        m = re.search(r"League serving at (http://\S+)", line)
        assert m, f"no URL line from arena serve: {line!r}; stderr: {self.stderr()}"
        self.url = m[1]
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self, sig: int = signal.SIGINT) -> int:
        self.http.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
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
            if self.proc.poll() is not None:
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


def tar_gz(files: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = (modes or {}).get(path, 0o644)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


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


__all__ = ["League", "add_user", "tar_gz", "zip_bytes", "sample", "files_under", "os"]
