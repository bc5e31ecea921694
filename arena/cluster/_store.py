"""The coordinator's store of bot artifacts, from which workers fetch what they lack.

Each bot goes to the cluster as an artifact (``_artifacts``): a gzipped tar
of up to ``ARTIFACT_MAX`` bytes. Kept in the Dask scheduler's memory, every
bot of a tournament would stay there for its whole length, and a league's
worth of them would crowd out the scheduler's own work. Instead the
coordinator writes each artifact once, to a folder of files named by their
SHA-256, and serves that folder over HTTPS; a worker that lacks an artifact
asks for it by its hash and keeps its own copy (``_artifacts`` unpacks it).

Being content-addressed, the bytes vouch for themselves: a worker hashes
what it received and refuses anything but the hash it asked for, so a file
changed in the folder, or a connection cut short, cannot slip a different
bot onto a worker. The connection is still mutual TLS with the cluster's
certificates (``_security``), both ways: the store answers a worker's
certificate only (a bot's files are the user's code, not for every member
of the cluster), and a worker takes artifacts from the coordinator's
certificate only. As in Dask, the chain is checked and host names are not:
the certificates name roles, not machines.

Only ``GET /artifacts/<sha256>`` exists. Each connection has its own daemon
thread, with a timeout on every read and write, so a peer that connects and
says nothing holds one thread for ``PEER_TIMEOUT`` at most and stops no one
else; whatever a peer does, it costs its own connection, and the server
says so in one debug line of the log, never a traceback.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import re
import shutil
import socket
import socketserver
import ssl
import stat
import sys
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .._checks import UsageError
from ._artifacts import ARTIFACT_MAX, ArtifactError
from ._security import ROLE_URI, role_files

#: How long the store waits on any one read or write of a peer before dropping it.
PEER_TIMEOUT = 30.0
#: The only path there is.
_PATH = re.compile(r"/artifacts/([0-9a-f]{64})")
_SHA = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20
log = logging.getLogger(__name__)


def _context(ca: Path, own: Path, server_side: bool) -> ssl.SSLContext:
    """TLS 1.2 or later; the peer shows a certificate that ``ca`` signed, whatever host it is on."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server_side else ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False  # certificates name roles, not hosts (as Dask's do)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cafile=str(ca))
    ctx.load_cert_chain(str(own))
    return ctx


def _role(cert: dict[str, Any] | None) -> str | None:
    """The arena role a verified peer certificate names (None: none, or more than one)."""
    uris = [v for k, v in (cert or {}).get("subjectAltName", ()) if k == "URI" and v.startswith(ROLE_URI)]
    return uris[0][len(ROLE_URI):] if len(uris) == 1 else None


def _who(role: str | None) -> str:
    return f"a {role}'s certificate" if role else "a certificate that names no arena role"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "arena-store"
    sys_version = ""

    def parse_request(self) -> bool:
        # Whatever the method or path: a worker's certificate, or nothing but this sentence.
        if not super().parse_request():
            return False
        role = _role(self.request.getpeercert())
        if role != "worker":
            self._refuse(403, f"This store serves bot artifacts to the cluster's workers only, and this peer "
                              f"showed {_who(role)}; it takes a certificate that names the role 'worker'.")
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        m = _PATH.fullmatch(self.path)
        if not m:
            self._refuse(404, f"This store serves GET /artifacts/SHA256 only (64 lowercase hex digits), "
                              f"not {self.path[:100]!r}.")
            return
        sha = m[1]
        try:
            fd = os.open(self.server.folder / sha, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            self._refuse(404, f"no artifact {sha[:12]} in this store")
            return
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                self._refuse(404, f"no artifact {sha[:12]} in this store")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/gzip")
            self.send_header("Content-Length", str(st.st_size))
            self.end_headers()
            # In chunks: an artifact may be 256 MiB, and several workers may ask at once.
            shutil.copyfileobj(f, self.wfile, _CHUNK)

    def _refuse(self, code: int, text: str) -> None:
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        log.debug("artifact store, peer %s: %s", self.client_address[0], format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # close() does not wait for a silent peer's timeout

    def __init__(self, address: tuple[str, int], folder: Path, context: ssl.SSLContext) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.folder, self.context = folder, context
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer's looks the host's name up in the DNS, which can take seconds; no name is needed.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    def finish_request(self, request: Any, client_address: Any) -> None:
        # The handshake happens here, in the connection's own thread, not in the
        # loop that accepts: a peer that never finishes it delays no one else.
        request.settimeout(PEER_TIMEOUT)
        with self.context.wrap_socket(request, server_side=True) as tls:
            _Handler(tls, client_address, self)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A failed handshake, a peer gone mid-answer, a timeout: that connection's end, not the server's.
        exc = sys.exc_info()[1]
        log.debug("artifact store, peer %s: connection dropped: %r", client_address[0], exc)


class StoreServer:
    """A folder of artifacts named by their SHA-256, served at ``url`` until ``close``."""

    def __init__(self, folder: Path, context: ssl.SSLContext, host: str = "127.0.0.1", port: int = 0) -> None:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.folder = folder
        self._server = _Server((host.strip("[]"), port), folder, context)
        bound = self._server.server_name  # the address bound, as server_bind keeps it
        shown = f"[{bound}]" if ":" in bound else bound
        self.url = f"https://{shown}:{self._server.server_port}"
        self._lock = threading.Lock()
        self._closed = False
        #: Whether ``close`` removes the folder (a session's, made for it alone)
        self.owns_folder = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"arena artifact store {self.url}", daemon=True)
        self._thread.start()

    def put(self, data: bytes) -> str:
        """Store ``data`` (once: a file already there of the same size is kept); its SHA-256 in hex."""
        sha = hashlib.sha256(data).hexdigest()
        path = self.folder / sha
        try:
            if path.stat().st_size == len(data):
                return sha
        except FileNotFoundError:
            pass
        # A private temporary file then a rename: a worker never reads half a file, and
        # threads storing the same bytes at once each rename a whole copy over the other.
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".put-")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return sha

    def close(self) -> None:
        """Stop serving (connections under way end on their own); again: nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        if self.owns_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> StoreServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(folder: Path, certs: Path, host: str = "127.0.0.1", port: int = 0) -> StoreServer:
    """Serve folder's artifacts at https://host:port (port 0: any free one) in a daemon thread,
    presenting the coordinator's certificate (certs/client.pem, role 'client') and requiring every
    peer to show a certificate signed by certs/ca.pem that names the role 'worker'."""
    ca, own = role_files(certs, "client")
    return StoreServer(folder, _context(ca, own, server_side=True), host, port)


#: Where a coordinator's store listens (``HOST:PORT``; default: the address this machine
#: reaches the scheduler from, any free port).
STORE_LISTEN_ENV = "ARENA_STORE_LISTEN"
#: Where a coordinator's store folder is made (default ~/.cache/arena).
STORE_DIR_ENV = "ARENA_STORE_DIR"


def open_session_store(certs: Path, scheduler_host: str) -> StoreServer:
    """This coordinator's store of artifacts, in a private folder of its own under
    ``ARENA_STORE_DIR`` or ~/.cache/arena (removed by ``close``), listening where the
    workers can reach it: ``ARENA_STORE_LISTEN``, else the address this machine
    reaches the scheduler from, on any free port."""
    given = os.environ.get(STORE_LISTEN_ENV)
    if given:
        host, sep, port = given.rpartition(":")
        if not (sep and host and port.isdigit()):
            raise UsageError(f"{STORE_LISTEN_ENV}={given!r}: expected HOST:PORT (PORT 0: any free port)")
        where = (host.strip("[]"), int(port))
    else:
        where = (_local_address(scheduler_host.strip("[]")), 0)
    # On disk, not in /tmp (often memory): a league's bots can be gigabytes.
    base = Path(os.environ.get(STORE_DIR_ENV) or Path.home() / ".cache" / "arena")
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    _sweep_stores(base)
    folder = Path(tempfile.mkdtemp(prefix=f"store-{os.getpid()}-", dir=base))
    try:
        store = open_store(folder, certs, *where)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise UsageError(f"the store of bots' files cannot listen on {where[0]}:{where[1]} ({exc}); "
                         f"set {STORE_LISTEN_ENV}=HOST:PORT to an address of this machine the workers reach") from None
    store.owns_folder = True
    return store


def _sweep_stores(base: Path) -> None:
    """Remove the store folders of coordinators that died without removing theirs (their
    pid is in the name and no longer runs); a pid in use again keeps its folder."""
    for folder in base.glob("store-*-*"):
        pid = folder.name.split("-")[1]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass  # another user's process: alive


def _local_address(host: str) -> str:
    """The address of this machine that packets to ``host`` leave from (nothing is sent)."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((host, 9))
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"


def _store_address(url: str, short: str) -> tuple[str, int]:
    """(host, port) of the store's ``https://HOST:PORT``; an ArtifactError for anything else."""
    parts = urllib.parse.urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if parts.scheme != "https" or not host or port is None or parts.path not in ("", "/"):
        raise ArtifactError(f"cannot fetch artifact {short} from {url!r}: the coordinator's store is at "
                            "https://HOST:PORT")
    return host, port


def _connect_to_coordinator(conn: http.client.HTTPSConnection, url: str, ca: Path, short: str) -> None:
    """Connect, and make sure the server is the coordinator (its certificate names the role 'client')."""
    try:
        conn.connect()
    except ssl.SSLCertVerificationError as exc:
        raise ArtifactError(
            f"the server at {url} showed a certificate that {ca} does not vouch for "
            f"({exc.verify_message}): it is not this cluster's coordinator, so artifact {short} "
            "was not asked of it") from exc
    assert isinstance(conn.sock, ssl.SSLSocket)
    role = _role(conn.sock.getpeercert())
    if role != "client":
        raise ArtifactError(f"the server at {url} showed {_who(role)}, not the coordinator's (role "
                            f"'client'): artifact {short} is fetched from the coordinator only")


def _download(conn: http.client.HTTPSConnection, url: str, sha256: str, limit: int) -> bytes:
    """The artifact's bytes as the store sends them (at most ``limit``, the size said first)."""
    short = sha256[:12]
    conn.request("GET", f"/artifacts/{sha256}")
    resp = conn.getresponse()
    if resp.status != 200:
        said = resp.read(4096).decode("utf-8", "replace").strip()
        raise ArtifactError(f"the store at {url} answered {resp.status} {resp.reason} for artifact "
                            f"{short}: {said or '(no reason given)'}")
    if resp.length is None:
        raise ArtifactError(f"the store at {url} sent artifact {short} without a Content-Length; "
                            "a worker takes an artifact whose size is said first")
    if resp.length > limit:
        raise ArtifactError(f"the store at {url} offered artifact {short} of {resp.length} bytes, "
                            f"more than the {limit} a worker takes: refused, not read")
    return resp.read(resp.length)  # one buffer of the announced size, at most ``limit``


def fetch_artifact(url: str, sha256: str, certs: Path, limit: int = ARTIFACT_MAX, timeout: float = 60.0) -> bytes:
    """Worker side (certs/worker.pem as its client certificate, certs/ca.pem to check the server, and
    the server's certificate must name the role 'client'): the artifact's bytes, whose SHA-256 is
    checked; raises ArtifactError in words for anything else (unreachable, refused, not found, too
    large, wrong hash, a server that is not the coordinator).

    ``timeout`` bounds each connect, read and write (not the whole transfer)."""
    if not isinstance(sha256, str) or not _SHA.fullmatch(sha256):
        raise ArtifactError(f"cannot fetch artifact {sha256!r}: an artifact is named by its SHA-256, "
                            "64 lowercase hex digits")
    short = sha256[:12]
    host, port = _store_address(url, short)
    try:
        ca, own = role_files(certs, "worker")
        ctx = _context(ca, own, server_side=False)
    except (UsageError, OSError, ssl.SSLError) as exc:
        raise ArtifactError(f"cannot fetch artifact {short}: this worker's certificates are not usable: "
                            f"{exc}") from exc
    conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
    try:
        _connect_to_coordinator(conn, url, ca, short)
        data = _download(conn, url, sha256, limit)
    except ArtifactError:
        raise
    except http.client.IncompleteRead as exc:
        part = len(exc.partial)
        raise ArtifactError(f"the store at {url} broke off artifact {short} after {part} bytes of "
                            f"{part + (exc.expected or 0)}") from exc
    except ssl.SSLError as exc:
        # Under TLS 1.3 the store's refusal of this worker's certificate arrives on the first read.
        raise ArtifactError(f"the TLS connection to the coordinator's store at {url} failed while fetching "
                            f"artifact {short}: {exc.reason or exc} (the store takes a worker's certificate "
                            f"that its authority signed: is {own} of this cluster?)") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise ArtifactError(f"could not fetch artifact {short} from the coordinator's store at {url}: "
                            f"{exc!r}") from exc
    finally:
        conn.close()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ArtifactError(f"the store at {url} sent {len(data)} bytes for artifact {short} whose SHA-256 "
                            f"is {got[:12]}: not the artifact asked for (its file in the coordinator's "
                            "store changed?); refused")
    return data
