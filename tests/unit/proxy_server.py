"""A local HTTP proxy that only tunnels (CONNECT), for the fetch tests: it records every
request line it gets, relays bytes between the client and the address asked for, and can
be told to refuse tunnels. Standard library only; loopback only."""
from __future__ import annotations

import base64
import select
import socket
import threading
from socketserver import StreamRequestHandler, ThreadingTCPServer


class _Handler(StreamRequestHandler):
    server: "_Server"

    def handle(self) -> None:
        line = self.rfile.readline(4096).decode("latin-1").rstrip("\r\n")
        headers = {}
        while True:
            header = self.rfile.readline(4096).decode("latin-1").rstrip("\r\n")
            if not header:
                break
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.server.owner.requests.append(line)
        self.server.owner.authorizations.append(headers.get("proxy-authorization"))
        method, _, rest = line.partition(" ")
        authority = rest.split(" ", 1)[0]
        if method != "CONNECT" or self.server.owner.refuse:
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        host, _, port = authority.rpartition(":")
        host = host.strip("[]")
        if host not in ("127.0.0.1", "::1"):  # never reach beyond this machine
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        try:
            upstream = socket.create_connection((host, int(port)), timeout=5)
        except OSError:
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        client = self.connection
        with upstream:
            for _ in range(10_000):  # bounded relay
                ready, _, _ = select.select([client, upstream], [], [], 5)
                if not ready:
                    return
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (upstream if sock is client else client).sendall(data)


class _Server(ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "TunnelProxy"


class TunnelProxy:
    """`with TunnelProxy() as proxy:` a CONNECT proxy on 127.0.0.1:`proxy.port`."""

    def __init__(self, refuse: bool = False, credentials: str | None = None) -> None:
        self.refuse = refuse
        self.credentials = credentials
        self.requests: list[str] = []
        self.authorizations: list[str | None] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        auth = f"{self.credentials}@" if self.credentials else ""
        return f"http://{auth}127.0.0.1:{self.port}"

    def expected_authorization(self) -> str | None:
        if not self.credentials:
            return None
        return "Basic " + base64.b64encode(self.credentials.encode()).decode()

    def __enter__(self) -> "TunnelProxy":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
