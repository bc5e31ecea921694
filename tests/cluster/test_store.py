"""The coordinator's store of artifacts (``arena.cluster._store``): a worker
fetches what was put, by its SHA-256; every other certificate, path or peer
is refused, and no peer stops the store serving the others.

Real sockets on loopback and real certificates (``init_certs``), two
authorities: the cluster's, and another one's.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import http.client
import logging
import os
import socket
import ssl
import stat
import threading
from pathlib import Path

import pytest

from arena.cluster import _store
from arena.cluster._artifacts import ArtifactError
from arena.cluster._security import init_certs
from arena.cluster._store import StoreServer, fetch_artifact, open_store

DATA = b"\x1f\x8b" + bytes(range(256)) * 400  # any bytes will do: the store does not unpack them


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    init_certs(folder)
    return folder


@pytest.fixture(scope="module")
def other(tmp_path_factory) -> Path:
    """Another authority's certificates, every role."""
    folder = tmp_path_factory.mktemp("other-certs")
    init_certs(folder)
    return folder


@pytest.fixture
def store(tmp_path, certs):
    before = set(threading.enumerate())
    server = open_store(tmp_path / "store", certs)
    yield server
    # Every connection is closed by now, so its thread ends: wait for them, so that no
    # thread of this test outlives it (a later test in this process counts threads).
    server._server.block_on_close = True
    server.close()
    assert set(threading.enumerate()) <= before


def _connect(url: str, ca: Path, cert: Path | None) -> http.client.HTTPSConnection:
    """An HTTPS connection that checks the chain against ``ca`` and shows ``cert`` (None: none)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(ca)
    if cert is not None:
        ctx.load_cert_chain(cert)
    host, port = url.removeprefix("https://").rsplit(":", 1)
    return http.client.HTTPSConnection(host.strip("[]"), int(port), context=ctx, timeout=10)


def _get(url: str, ca: Path, cert: Path | None, path: str) -> tuple[int, bytes]:
    conn = _connect(url, ca, cert)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_a_worker_fetches_what_was_put(store, certs):
    sha = store.put(DATA)
    assert sha == hashlib.sha256(DATA).hexdigest()
    assert store.put(DATA) == sha  # again: the same name, nothing new
    assert fetch_artifact(store.url, sha, certs) == DATA
    assert store.url.startswith("https://127.0.0.1:")
    assert os.listdir(store.folder) == [sha]
    assert stat.S_IMODE(os.stat(store.folder / sha).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.folder).st_mode) == 0o700


def test_the_answer_says_its_length(store, certs):
    sha = store.put(DATA)
    conn = _connect(store.url, certs / "ca.pem", certs / "worker.pem")
    try:
        conn.request("GET", f"/artifacts/{sha}")
        resp = conn.getresponse()
        assert (resp.status, resp.getheader("Content-Length")) == (200, str(len(DATA)))
        assert resp.read() == DATA
    finally:
        conn.close()


def test_puts_from_several_threads(store):
    blobs = [bytes([i]) * (50_000 + i) for i in range(4)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        shas = list(pool.map(store.put, blobs * 6))
    assert shas == [hashlib.sha256(b).hexdigest() for b in blobs] * 6
    assert sorted(os.listdir(store.folder)) == sorted(set(shas))  # no temporary file left
    for blob, sha in zip(blobs, shas):
        assert (store.folder / sha).read_bytes() == blob


def test_an_unknown_artifact_is_named(store, certs):
    sha = hashlib.sha256(b"never stored").hexdigest()
    with pytest.raises(ArtifactError, match=f"404 .*no artifact {sha[:12]} in this store"):
        fetch_artifact(store.url, sha, certs)


@pytest.mark.parametrize("role", ["client", "scheduler"])
def test_another_role_is_refused(store, certs, role):
    sha = store.put(DATA)
    assert _get(store.url, certs / "ca.pem", certs / "worker.pem", f"/artifacts/{sha}") == (200, DATA)
    status, body = _get(store.url, certs / "ca.pem", certs / f"{role}.pem", f"/artifacts/{sha}")
    assert status == 403
    assert f"showed a {role}'s certificate" in body.decode() and "'worker'" in body.decode()


def test_a_peer_without_a_certificate_fails_the_handshake(store, certs):
    sha = store.put(DATA)
    # TLS 1.3: the client's half of the handshake ends first; the refusal comes on the first read.
    with pytest.raises(OSError):
        _get(store.url, certs / "ca.pem", None, f"/artifacts/{sha}")


def test_another_authority_is_refused_both_ways(store, certs, other, tmp_path):
    sha = store.put(DATA)
    # A worker of another cluster: it does not trust this store, and the store does not trust it.
    with pytest.raises(ArtifactError, match="does not vouch for"):
        fetch_artifact(store.url, sha, other)
    with pytest.raises(OSError):
        _get(store.url, certs / "ca.pem", other / "worker.pem", f"/artifacts/{sha}")
    # The same, through fetch_artifact: a worker that trusts this cluster, with another's certificate.
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "ca.pem").write_bytes((certs / "ca.pem").read_bytes())
    (mixed / "worker.pem").write_bytes((other / "worker.pem").read_bytes())
    # (a TLS alert, or a reset should the store hang up on the request unread)
    with pytest.raises(ArtifactError, match=r"(the TLS connection to|could not fetch artifact \w+ from) the "
                                            "coordinator's store"):
        fetch_artifact(store.url, sha, mixed)
    # A store of another cluster, holding the very artifact asked for.
    with open_store(tmp_path / "theirs", other) as theirs:
        theirs.put(DATA)
        with pytest.raises(ArtifactError, match="not this cluster's coordinator"):
            fetch_artifact(theirs.url, sha, certs)
        assert fetch_artifact(theirs.url, sha, other) == DATA


def test_a_server_that_is_not_the_coordinator_is_refused(certs, tmp_path):
    context = _store._context(certs / "ca.pem", certs / "scheduler.pem", server_side=True)
    with StoreServer(tmp_path / "store", context) as fake:
        sha = fake.put(DATA)
        with pytest.raises(ArtifactError, match="showed a scheduler's certificate, not the coordinator's"):
            fetch_artifact(fake.url, sha, certs)


def test_a_file_changed_in_the_store_is_refused(store, certs):
    sha = store.put(DATA)
    (store.folder / sha).write_bytes(DATA[:-1] + b"!")
    with pytest.raises(ArtifactError, match=f"for artifact {sha[:12]} whose SHA-256 is [0-9a-f]{{12}}"):
        fetch_artifact(store.url, sha, certs)


def test_an_artifact_over_the_limit_is_not_read(store, certs):
    sha = store.put(DATA)
    with pytest.raises(ArtifactError, match=f"of {len(DATA)} bytes, more than the {len(DATA) - 1}"):
        fetch_artifact(store.url, sha, certs, limit=len(DATA) - 1)
    assert fetch_artifact(store.url, sha, certs, limit=len(DATA)) == DATA


@pytest.mark.parametrize("path", [
    "/artifacts/../secret", "/artifacts/%2e%2e/secret", "/artifacts/SHA_UPPER", "/artifacts/SHA/",
    "/artifacts/SHA?x=1", "/artifacts/SHA/../SHA", "/secret", "/", "/artifacts",
])
def test_other_paths_are_refused(store, certs, tmp_path, path):
    sha = store.put(DATA)
    (tmp_path / "secret").write_bytes(b"not an artifact")
    path = path.replace("SHA_UPPER", sha.upper()).replace("SHA", sha)
    status, body = _get(store.url, certs / "ca.pem", certs / "worker.pem", path)
    assert status in (400, 404)
    assert b"not an artifact" not in body and DATA not in body
    assert body.decode().startswith("This store serves GET /artifacts/SHA256 only")


def test_a_bad_name_or_address_is_refused_before_connecting(store, certs):
    sha = store.put(DATA)
    with pytest.raises(ArtifactError, match="64 lowercase hex digits"):
        fetch_artifact(store.url, sha.upper(), certs)
    for url in (store.url.replace("https", "http"), store.url + "/artifacts", "https://127.0.0.1"):
        with pytest.raises(ArtifactError, match="the coordinator's store is at https://HOST:PORT"):
            fetch_artifact(url, sha, certs)


def test_a_silent_peer_does_not_stop_a_fetch(store, certs):
    sha = store.put(DATA)
    host, port = store.url.removeprefix("https://").rsplit(":", 1)
    # Connected first, so accepted first; it never says a word.
    with socket.create_connection((host, int(port))), socket.create_connection((host, int(port))) as half:
        half.sendall(b"\x16\x03\x01\x02\x00")  # the start of a ClientHello, and no more
        assert fetch_artifact(store.url, sha, certs, timeout=10) == DATA


def test_a_silent_peer_is_cut_off(store, monkeypatch):
    monkeypatch.setattr(_store, "PEER_TIMEOUT", 0.2)
    host, port = store.url.removeprefix("https://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as silent:
        assert silent.recv(1) == b""  # the store hung up (a recv that timed out would raise)


def test_misbehaving_peers_leave_no_trace(store, certs, capfd, caplog):
    caplog.set_level(logging.DEBUG, logger=_store.__name__)
    big = bytes(32 << 20)  # more than loopback's buffers: the store is still writing when the peer goes
    sha, big_sha = store.put(DATA), store.put(big)
    store._server.block_on_close = True  # so that close() below waits for every connection's thread
    host, port = store.url.removeprefix("https://").rsplit(":", 1)
    with socket.create_connection((host, int(port))) as plain:  # plain HTTP to a TLS port
        plain.sendall(b"GET /artifacts/" + sha.encode() + b" HTTP/1.0\r\n\r\n")
        try:
            assert plain.recv(1024) == b""  # not a byte of the artifact
        except ConnectionResetError:
            pass  # hung up on with the request unread
    with socket.create_connection((host, int(port))) as noise:
        noise.sendall(os.urandom(4096))
    with pytest.raises(OSError):
        _get(store.url, certs / "ca.pem", None, "/")
    gone = _connect(store.url, certs / "ca.pem", certs / "worker.pem")
    gone.request("GET", f"/artifacts/{big_sha}")
    assert gone.getresponse().read(10) == bytes(10)
    gone.close()  # in the middle of the answer
    assert _get(store.url, certs / "ca.pem", certs / "worker.pem", "/artifacts/x")[0] == 404
    assert fetch_artifact(store.url, sha, certs) == DATA
    store.close()
    assert capfd.readouterr().err == ""
    dropped = [r.getMessage() for r in caplog.records if "connection dropped" in r.getMessage()]
    assert len(dropped) >= 4 and all("\n" not in m for m in dropped), dropped


def test_closed_store(store, certs):
    sha = store.put(DATA)
    store.close()
    with pytest.raises(ArtifactError, match=f"could not fetch artifact {sha[:12]} from the coordinator's store"):
        fetch_artifact(store.url, sha, certs, timeout=10)
    store.close()


def test_ipv6(tmp_path, certs):
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with open_store(tmp_path / "store", certs, host="::1") as six:
        assert six.url.startswith("https://[::1]:")
        assert fetch_artifact(six.url, six.put(DATA), certs) == DATA
