"""digest.sha256_hex is SHA-256, whichever implementation the interpreter offers, and
loads no OpenSSL (hashlib) where the interpreter has its own SHA-256."""
from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys

import pytest

from hook_harness import REPO
from web_research.digest import sha256_hex

SAMPLES = [b"", b"abc", "/tmp/runs/2026-01-01-logs-pricing".encode(), bytes(range(256)) * 300, "é ✓".encode()]


@pytest.mark.parametrize("data", SAMPLES, ids=lambda d: f"{len(d)} bytes")
def test_it_is_sha256(data: bytes):
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_without_the_interpreters_own_module_it_uses_hashlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "_sha2", None)  # None in sys.modules: the import raises ImportError
    monkeypatch.setitem(sys.modules, "_sha256", None)
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()


def test_it_does_not_load_openssl_where_the_interpreter_has_its_own_sha256():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from web_research import ledger, brief_prompt\n"
            "ledger.run_key('/tmp/x'); brief_prompt.brief_hash(b'brief')\n"
            "print('hashlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(REPO / "scripts")], capture_output=True, text=True,
                         check=True).stdout.strip()
    has_own = any(importlib.util.find_spec(name) is not None for name in ("_sha2", "_sha256"))
    assert out == ("False" if has_own else "True")
