"""SHA-256 of short byte strings for the hooks: a run's ledger key, a brief's hash.

Importing hashlib loads OpenSSL's libcrypto, about 5 ms of every hook that keys the
ledger or matches a brief. The interpreter's own SHA-256 module (the one hashlib falls
back to without OpenSSL) loads in under one and gives the same digest
(tests/unit/test_digest.py). Files (snapshots, findings) are still hashed with hashlib,
whose OpenSSL code is the faster one on megabytes.
"""
from __future__ import annotations


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of `data`, in hex."""
    try:
        from _sha2 import sha256  # lazy: CPython 3.12 and later (a module of its own, not API)
    except ImportError:
        try:
            from _sha256 import sha256  # lazy: CPython 3.11 and earlier
        except ImportError:
            from hashlib import sha256  # lazy: any other interpreter
    return sha256(data).hexdigest()
