"""An unprivileged user of the scheduler's machine runs no code on the cluster
(issue 49): as uid 65534, with the system's Python and its standard library
only, it tries the certificates (each file its owner's alone, even in a folder
it may enter), plain TCP to the scheduler's loopback port with a pickle that
would leave a marker, and TLS without a certificate. None gets in; nothing is
unpickled; the scheduler goes on serving its own."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
from pathlib import Path

import pytest

from arena.cluster._security import init_certs

from .test_cluster import start_scheduler
from .test_roles import Payload, payload_works

pytestmark = pytest.mark.slow

NOBODY = 65534
#: what the local user runs: the system's Python, no arena, no Dask
ATTACK = r"""
import json, os, socket, ssl, struct, sys
host, port, certs, payload = sys.argv[1], int(sys.argv[2]), sys.argv[3], bytes.fromhex(sys.argv[4])
said = {}
for name in ("ca-key.pem", "client.pem", "worker.pem", "scheduler.pem"):
    try:
        open(os.path.join(certs, name), "rb").read()
        said[name] = "read"
    except OSError as exc:
        said[name] = type(exc).__name__
# Dask's framing (a count of frames, their lengths, the frames) around the pickle
frame = struct.pack("<Q", 1) + struct.pack("<Q", len(payload)) + payload
try:
    with socket.create_connection((host, port), timeout=20) as plain:
        plain.sendall(frame)
        plain.settimeout(20)
        got = plain.recv(4096)
        said["plain"] = "answered %r" % got[:40] if got else "closed"
except OSError as exc:
    said["plain"] = type(exc).__name__
context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
try:
    with context.wrap_socket(socket.create_connection((host, port), timeout=20)) as tls:
        tls.sendall(frame)
        tls.settimeout(20)
        got = tls.recv(4096)
        said["tls"] = "answered %r" % got[:40] if got else "closed"
except (OSError, ssl.SSLError) as exc:
    said["tls"] = type(exc).__name__ + ": " + str(exc)[:80]
print(json.dumps(said))
"""


def test_a_local_user_without_the_certificates_runs_nothing_on_the_scheduler(tmp_path):
    if os.getuid() != 0:
        pytest.fail("this test starts the attacker as another uid: it needs root (make test runs as root)")
    folder = tmp_path / "cluster"
    folder.mkdir()
    certs = folder / "certs"
    init_certs(certs)
    certs.chmod(0o755)  # a folder others may enter: each file must still be its owner's alone
    markers = Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-markers-{os.getpid()}"
    markers.mkdir(mode=0o777)
    markers.chmod(0o777)
    scheduler, address = start_scheduler(folder, certs)
    try:
        host, port = address.removeprefix("tls://").rsplit(":", 1)
        payload = pickle.dumps(Payload(markers))
        out = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "/usr/bin/python3", "-I",
             "-c", ATTACK, host, port, str(certs), payload.hex()],
            capture_output=True, text=True, timeout=120, cwd="/")
        assert out.returncode == 0, out.stderr
        said = json.loads(out.stdout)
        assert all(said[name] == "PermissionError" for name in ("ca-key.pem", "client.pem", "worker.pem",
                                                               "scheduler.pem")), said
        # TLS only: the bytes are never read as a message (closed, reset, or a TLS alert record, 0x15)
        assert said["plain"].startswith(("closed", "ConnectionResetError", "BrokenPipeError", "answered b'\\x15")), \
            said["plain"]
        assert said["tls"].startswith(("SSL", "closed", "ConnectionResetError", "BrokenPipeError")), \
            said["tls"]  # no certificate: refused in the handshake, or the connection closed
        assert scheduler.poll() is None
        assert list(markers.iterdir()) == []
        payload_works(markers)  # the same bytes, unpickled, do leave a marker
    finally:
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait()
        for leftover in markers.iterdir():
            leftover.unlink()
        markers.rmdir()
