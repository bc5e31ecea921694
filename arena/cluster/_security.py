"""Who may talk to a cluster, and as what: mutual TLS with a role in each certificate.

``arena cluster init-certs DIR`` makes a certificate authority and one
certificate for each role, each file holding its key and certificate:

    DIR/ca.pem          the authority's certificate (every machine)
    DIR/ca-key.pem      its key: only to make more certificates; keep it off the cluster
    DIR/scheduler.pem   the scheduler's
    DIR/worker.pem      every worker's
    DIR/client.pem      the coordinator's (``arena tournament``/``arena serve``)

Every connection shows a certificate signed by that authority, both ways,
or is refused. Dask itself checks the chain only; each certificate also
names its role (a subject alternative name ``arena-role:ROLE``), and the
arena's guard on the scheduler and workers (``_guard``) lets each role do
its own job only: a worker's certificate cannot submit tasks, a client's
cannot join as a worker. TLS is required everywhere, loopback included:
on plain TCP any local user could join.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
from pathlib import Path
from typing import Any

from .._checks import UsageError

ROLES = ("scheduler", "worker", "client")
#: How a certificate names its role: a URI subject alternative name.
ROLE_URI = "arena-role:"
#: Where ``--certs`` is read from when not given.
CERTS_ENV = "ARENA_CERTS"
#: How long the certificates made by ``init-certs`` are valid.
VALID_DAYS = 5 * 365
_ADDRESS = re.compile(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d+)")


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def split_address(address: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of ``tcp://HOST:PORT`` or ``tls://HOST:PORT`` (no scheme: tcp); None if neither."""
    m = _ADDRESS.fullmatch(address)
    return (m[1] or "tcp", m[2], int(m[3])) if m else None


def certs_folder(given: Path | None) -> Path | None:
    """``--certs`` if given, else ``$ARENA_CERTS``, else None."""
    if given is not None:
        return given
    env = os.environ.get(CERTS_ENV)
    return Path(env) if env else None


def role_files(folder: Path, role: str) -> tuple[Path, Path]:
    """(the authority's certificate, this role's key and certificate) in ``folder``, both
    there, the certificate naming ``role``."""
    ca, own = folder / "ca.pem", folder / f"{role}.pem"
    for path in (ca, own):
        if not path.is_file():
            raise UsageError(f"--certs {folder}: no {path.name} there (make the files with "
                             f"`arena cluster init-certs {folder}`)")
    named = file_role(own)
    if named != role:
        said = f"names the role {named!r}" if named else "names no arena role (made by an older arena?)"
        raise UsageError(f"--certs {folder}: {own.name} {said}, not {role!r}: the cluster admits each role "
                         f"for its own job only; make new files with `arena cluster init-certs NEW_DIR`")
    return ca, own


def file_role(path: Path) -> str | None:
    """The role the certificate in ``path`` names (None: none, or unreadable)."""
    try:
        from cryptography import x509
    except ImportError:
        return None
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return None
    uris = [u for u in names.get_values_for_type(x509.UniformResourceIdentifier) if u.startswith(ROLE_URI)]
    return uris[0][len(ROLE_URI):] if len(uris) == 1 else None


def peer_role(comm: Any) -> str | None:
    """The role named by the certificate a Dask comm's peer showed (None: plain TCP, or no role).

    Python gives the peer's certificate only once it has been verified
    against the authority (Dask's TLS contexts require one)."""
    cert = (getattr(comm, "extra_info", None) or {}).get("peercert") or {}
    uris = [v for k, v in cert.get("subjectAltName", ()) if k == "URI" and v.startswith(ROLE_URI)]
    return uris[0][len(ROLE_URI):] if len(uris) == 1 else None


def check_secured(option: str, address: str, scheme: str, host: str, certs: Path | None) -> None:
    """Refuse, in words, plain TCP (loopback included) and TLS without certificates."""
    if scheme == "tcp":
        where = ("this machine's loopback, where any local user could connect to it" if is_loopback(host)
                 else f"{host}, where anyone on that network could connect to it")
        raise UsageError(
            f"{option} {address} is plain TCP to {where} and run code on the cluster. Use "
            "tls://HOST:PORT with --certs DIR (made by `arena cluster init-certs DIR`), on 127.0.0.1 too")
    if certs is None:
        raise UsageError(f"{option} {address} speaks TLS: give --certs DIR (or set {CERTS_ENV}), the folder "
                         "made by `arena cluster init-certs DIR`")


def client_security(certs: Path) -> Any:
    """Dask's ``Security`` for the coordinator's client, encryption required."""
    from distributed.security import Security

    ca, own = role_files(certs, "client")
    return Security(tls_ca_file=str(ca), tls_client_cert=str(own), tls_client_key=str(own),
                    require_encryption=True)


def tls_arguments(certs: Path, role: str) -> list[str]:
    """The ``dask scheduler``/``dask worker`` options that make it speak TLS only, as ``role``."""
    ca, own = role_files(certs, role)
    return ["--tls-ca-file", str(ca), "--tls-cert", str(own), "--tls-key", str(own)]


def init_certs(folder: Path) -> list[Path]:
    """A new authority and a certificate for each role, written to ``folder`` (private); the files."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise UsageError("init-certs needs the cryptography package: pip install 'arena-cardgames[cluster]'") from None

    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    existing = [p.name for p in (folder / "ca.pem", folder / "ca-key.pem") if p.exists()]
    if existing:
        raise UsageError(f"{folder} already holds {', '.join(existing)}: refusing to replace an authority "
                         "(certificates it signed would stop working); give an empty folder")
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=VALID_DAYS)

    def pem(key: Any) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    def write(path: Path, data: bytes) -> Path:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "arena cluster authority")])
    ca_cert = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    written = [write(folder / "ca-key.pem", pem(ca_key)),
               write(folder / "ca.pem", ca_cert.public_bytes(serialization.Encoding.PEM))]
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"arena {role}")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            # The role, which the guard on each listener checks (peer_role); no host
            # names: Dask checks the chain, not the host name, so one file serves every machine.
            .add_extension(x509.SubjectAlternativeName([x509.UniformResourceIdentifier(f"{ROLE_URI}{role}")]),
                           critical=False)
            # Every role both listens and connects (workers fetch from each other).
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        written.append(write(folder / f"{role}.pem", cert.public_bytes(serialization.Encoding.PEM) + pem(key)))
    return written
