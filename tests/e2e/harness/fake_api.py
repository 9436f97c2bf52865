"""The fake Anthropic Messages API and the fake web, on loopback.

`ApiServer` answers `POST /v1/messages` by asking the scenario for a reply and
streaming it as SSE; every request body is appended to a JSONL log so tests
can assert on exactly what the CLI sent (skill body, tool lists, briefs).

`PageServer` serves the scenario's pages over HTTPS: WebFetch upgrades http to
https and refuses hosts without a dot, so the fake web has to look real enough,
with a certificate signed by the throwaway CA from `tls.py`.
"""
from __future__ import annotations

import hashlib
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .request_view import RequestView
from .scenario import Scenario
from .sse import encode


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # client hang-ups are not test failures
        pass


class ApiServer:
    def __init__(self, scenario: Scenario, log_path: Path, host: str = "127.0.0.1"):
        self.scenario = scenario
        self.log_path = log_path
        self._seq = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.startswith("/v1/messages"):
                    self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                     "message": self.path}})
                    return
                if self.path.startswith("/v1/messages/count_tokens"):
                    self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})
                    return
                body = json.loads(raw or b"{}")
                input_tokens = max(1, len(raw) // 4)
                req = server._log(body, dict(self.headers.items()), input_tokens)
                reply = server.scenario.respond(req)
                server._log_reply(req, reply)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in encode(reply, input_tokens=input_tokens):
                    self.wfile.write(event)
                self.wfile.flush()
                self.close_connection = True

            def do_GET(self):
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                 "message": self.path}})

            def _send_json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _QuietServer((host, 0), Handler)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def _log(self, body: dict, headers: dict, input_tokens: int = 0) -> RequestView:
        """Log the request with the input_tokens its reply will report (tests compare metrics to it)."""
        with self._lock:
            self._seq += 1
            req = RequestView(body, headers, self._seq)
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({**json.loads(req.to_json()), "input_tokens": input_tokens}) + "\n")
        return req

    def _log_reply(self, req: RequestView, reply: Any) -> None:
        """Log what the scripted model answered (`replies.jsonl`): a subagent's last reply reaches
        the CLI's stream only as the Agent call's result, reworded by the client."""
        with self._lock:
            with self.log_path.with_name("replies.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"seq": req.seq, "blocks": getattr(reply, "blocks", [])}) + "\n")

    def start(self) -> "ApiServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()


class PageServer:
    """HTTPS server for the scenario's pages; unknown paths are 404 and logged."""

    def __init__(self, scenario: Scenario, cert: Path, key: Path, log_path: Path,
                 host: str = "127.0.0.1", port: int = 0):
        pages = scenario.pages
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = self.path.split("?", 1)[0]
                page = pages.get(path)
                data = page.html().encode() if page is not None else b""
                with lock, log_path.open("a", encoding="utf-8") as fh:  # sha256: the body sent, for the WARC test
                    fh.write(json.dumps({"path": self.path, "found": page is not None,
                                         "user_agent": self.headers.get("User-Agent"),
                                         "sha256": hashlib.sha256(data).hexdigest()}) + "\n")
                if page is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_HEAD = do_GET

        self.httpd = _QuietServer((host, port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def start(self) -> "PageServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
