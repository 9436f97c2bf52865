"""Fixtures shared by the unit tests. Plain helpers live in modules of their own
(`cli_support`, `example_run`, `hook_harness`, `page_server`)."""
from __future__ import annotations

from typing import Iterator

import pytest

from page_server import PageServer


@pytest.fixture(scope="module")
def http_server() -> Iterator[PageServer]:
    """A loopback web server with the test pages (see page_server.py), one per test module."""
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def https_server() -> Iterator[PageServer]:
    """The same pages over TLS, with a certificate of a private test CA."""
    with PageServer(tls=True) as server:
        yield server
