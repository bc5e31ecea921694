"""Who may talk to a cluster: mutual TLS between coordinator, scheduler and workers.

``arena cluster init-certs DIR`` makes a certificate authority and one
certificate for each role, each file holding its key and certificate:

    DIR/ca.pem          the authority's certificate (every machine)
    DIR/ca-key.pem      its key: only to make more certificates; keep it off the cluster
    DIR/scheduler.pem   the scheduler's
    DIR/worker.pem      every worker's
    DIR/client.pem      the coordinator's (``arena tournament``/``arena serve``)

Every connection then shows a certificate signed by that authority, both
ways, or is refused: Dask checks the peer's chain, not its name or role, so
whoever holds any of these certificates is one of the cluster. TLS may be
left off on loopback only (one machine, no one else on the wire); an address
anywhere else needs it.
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
    """(the authority's certificate, this role's key and certificate) in ``folder``, both there."""
    ca, own = folder / "ca.pem", folder / f"{role}.pem"
    for path in (ca, own):
        if not path.is_file():
            raise UsageError(f"--certs {folder}: no {path.name} there (make the files with "
                             f"`arena cluster init-certs {folder}`)")
    return ca, own


def check_secured(option: str, address: str, scheme: str, host: str, certs: Path | None) -> None:
    """Refuse, in words, plain TCP off loopback and TLS without certificates."""
    if scheme == "tls" and certs is None:
        raise UsageError(f"{option} {address} speaks TLS: give --certs DIR (or set {CERTS_ENV}), the folder "
                         "made by `arena cluster init-certs DIR`")
    if scheme == "tcp" and not is_loopback(host):
        raise UsageError(
            f"{option} {address} is plain TCP to {host}, which is not this machine's loopback: anyone on that "
            "network could run code on the workers. Use tls://HOST:PORT with --certs DIR (made by "
            "`arena cluster init-certs DIR`); plain tcp:// is for 127.0.0.1 only")


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
            # Every role both listens and connects (workers fetch from each other). No
            # names: Dask checks the chain, not the host name, so one file serves every machine.
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        written.append(write(folder / f"{role}.pem", cert.public_bytes(serialization.Encoding.PEM) + pem(key)))
    return written
