"""A throwaway certificate authority, made at test time with the `openssl` CLI.

WebFetch only speaks HTTPS, so the fake web needs a server certificate the CLI
trusts. The CA lives in the test's temporary folder and reaches the CLI (and
our own `fetch` subcommand) through NODE_EXTRA_CA_CERTS / SSL_CERT_FILE only;
nothing is installed system-wide and no key is ever committed.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TlsFiles:
    ca_cert: Path
    cert: Path
    key: Path
    bundle: Path  # the CA appended to the system bundle, for Python's SSL_CERT_FILE


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_tls(folder: Path, hostnames: list[str], addresses: list[str] = ()) -> TlsFiles:
    """Create a CA and one server certificate for `hostnames` and `addresses`."""
    folder.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=web-research e2e throwaway CA",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             "-keyout", "ca.key", "-out", "ca.pem", cwd=folder)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={hostnames[0]}",
             "-keyout", "server.key", "-out", "server.csr", cwd=folder)
    alt_names = ",".join([f"DNS:{h}" for h in hostnames] + [f"IP:{a}" for a in addresses])
    (folder / "server.ext").write_text(
        f"subjectAltName={alt_names}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.pem",
             cwd=folder)
    bundle = folder / "bundle.pem"
    system = _system_bundle()
    bundle.write_text((system.read_text() if system else "") + (folder / "ca.pem").read_text())
    return TlsFiles(folder / "ca.pem", folder / "server.pem", folder / "server.key", bundle)


def _system_bundle() -> Path | None:
    import ssl

    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile, "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None
