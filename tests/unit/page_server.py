"""A local web server with the pages the fetch tests (and end-to-end tests) need.

Standard library only. Serves the fixtures under tests/fixtures/pages/ plus
generated cases: redirect chains and loops, redirects to private addresses,
huge, slow and stalled pages, HTTP errors, a gzip body sent despite
`Accept-Encoding: identity` (also chunked), a tiny PDF, `/host` which echoes the Host
header (to prove a pinned connection still sends the right name), and any page
a test puts at a path with `serve` (the live web a recheck meets).

Use as a context manager:

    with PageServer() as server:            # http://127.0.0.1:<port>
        server.url("/article")
    with PageServer(tls=True) as server:    # https, certificate for 127.0.0.1,
        ...                                 # localhost, pages.test, public.example

`TLS_CA` is the CA certificate to trust (also usable as NODE_EXTRA_CA_CERTS).
Run standalone for manual checks: `python tests/unit/page_server.py [--tls] [--port N]`.
"""
from __future__ import annotations

import argparse
import gzip
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
TLS_DIR = PAGES_DIR / "tls"
TLS_CA = TLS_DIR / "ca.pem"
TLS_CERT = TLS_DIR / "server.pem"
TLS_KEY = TLS_DIR / "server.key"

HUGE_BYTES = 11 * 1024 * 1024
PDF_TITLE = "Quarterly Infrastructure Report"
PDF_LINES = (
    "Quarterly Infrastructure Report",
    "Median page load time fell to 840 milliseconds in the third quarter.",
    "The storage cluster reached 92 percent utilisation in September.",
)


def minimal_pdf(lines: tuple[str, ...] = PDF_LINES, title: str = PDF_TITLE, pages: int = 1) -> bytes:
    """A valid PDF of `pages` pages, each showing `lines` in Helvetica, with `title` in its Info dictionary."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
    for line in lines:
        ops.append(f"({escape(line)}) Tj T*")
    ops.append("ET")
    stream = "\n".join(ops).encode("latin-1")
    # Objects: 1 catalog, 2 page tree, 3 content stream, 4 font, 5 info, then one object per page.
    kids = " ".join(f"{6 + n} 0 R" for n in range(pages)).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (" + escape(title).encode("latin-1") + b") >>",
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R"
                b" /Resources << /Font << /F1 4 0 R >> >> >>"] * pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


class _Handler(BaseHTTPRequestHandler):
    server_version = "PageServer/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature of the base class
        pass

    def do_GET(self) -> None:  # noqa: N802 - name required by BaseHTTPRequestHandler
        self.server.requests.append((self.path, self.headers.get("Host", "")))  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        try:
            self._route(path, query)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 302) -> None:
        self._send(status, b"", headers={"Location": location})

    def _route(self, path: str, query: dict[str, list[str]]) -> None:
        served = self.server.served.get(path)  # type: ignore[attr-defined]
        if served is not None:  # a page a test put there (PageServer.serve)
            status, body, content_type, headers = served
            if isinstance(body, float):  # a stall: answer only after that many seconds
                time.sleep(body)
                body = b""
            self._send(status, body, content_type, headers)
        elif path == "/article":
            self._send(200, (PAGES_DIR / "article.html").read_bytes())
        elif path == "/injection":
            self._send(200, (PAGES_DIR / "injection.html").read_bytes())
        elif path == "/plain.txt":
            self._send(200, (PAGES_DIR / "plain.txt").read_bytes(), "text/plain; charset=utf-8")
        elif path == "/doc.pdf":
            self._send(200, minimal_pdf(), "application/pdf")
        elif path == "/long.pdf":
            self._send(200, minimal_pdf(pages=int(query.get("pages", ["40"])[0])), "application/pdf")
        elif path == "/many-elements":  # a few MB that take an HTML extractor minutes
            count = int(query.get("count", ["200000"])[0])
            self._send(200, b"<html><body>" + b"<div><p>x</p></div>" * count + b"</body></html>")
        elif path == "/" or path == "/index.html":
            self._send(200, b"<html><head><title>Acme</title></head><body><p>Welcome to Acme. We build"
                            b" observability tools for engineering teams of every size.</p></body></html>")
        elif path.startswith("/redirect/"):
            remaining = int(path.rsplit("/", 1)[1])
            self._redirect(f"/redirect/{remaining - 1}" if remaining > 0 else "/article")
        elif path == "/relative-redirect":
            self._redirect("article", 301)
        elif path == "/loop":
            self._redirect("/loop")
        elif path == "/redirect-to":
            self._redirect(query["url"][0], int(query.get("status", ["302"])[0]))
        elif path == "/redirect-held-open":  # no length: its body runs to a close that comes 5 s later
            self.send_response(302)
            self.send_header("Location", "/article")
            self.end_headers()
            self.wfile.flush()
            time.sleep(5)
            self.close_connection = True
        elif path == "/no-location":
            self._send(302, b"")
        elif path.startswith("/status/"):
            self._send(int(path.rsplit("/", 1)[1]), b"<html><body>error page</body></html>")
        elif path == "/image.png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png")
        elif path == "/gzip":
            self._send(200, gzip.compress((PAGES_DIR / "article.html").read_bytes()),
                       headers={"Content-Encoding": "gzip"})
        elif path == "/chunked-gzip":  # HTTP/1.1 chunked framing over a gzip body: the wire is not the page
            self._chunked(gzip.compress((PAGES_DIR / "article.html").read_bytes()), {"Content-Encoding": "gzip"})
        elif path == "/host":
            host = self.headers.get("Host", "")
            self._send(200, f"<html><head><title>Host echo</title></head><body><article><p>The request"
                            f" arrived for host {host} and was answered by the page server.</p>"
                            f"</article></body></html>".encode())
        elif path == "/empty":
            self._send(200, b"<html><head><title>Empty</title></head><body></body></html>")
        elif path == "/huge":
            self._stream(HUGE_BYTES, declare_length=True)
        elif path == "/huge-stream":
            self._stream(HUGE_BYTES, declare_length=False)
        elif path == "/slow":
            self._drip()
        elif path == "/trickle-headers":
            self._trickle_headers()
        elif path == "/stall":
            time.sleep(float(query.get("seconds", ["5"])[0]))
            self._send(200, b"<html><body><p>late</p></body></html>")
        else:
            self._send(404, b"<html><body>not found</body></html>")

    def _stream(self, size: int, declare_length: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if declare_length:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        block = b"all work and no play makes a very large page\n" * 1024
        sent = 0
        while sent < size:
            piece = block[: size - sent]
            self.wfile.write(piece)
            sent += len(piece)

    def _chunked(self, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        for start in range(0, len(body), 700):
            piece = body[start:start + 700]
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def _drip(self) -> None:
        """Headers at once, then one byte every 0.2 s for 20 s (each read is quick, the whole is not)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        for _ in range(100):
            self.wfile.write(b"x")
            self.wfile.flush()
            time.sleep(0.2)


    def _trickle_headers(self) -> None:
        """The status line and headers one byte every 0.2 s (about 20 s in all):
        every read is quick, so only an overall deadline stops the client."""
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Padding: " + b"p" * 60 + b"\r\n\r\n"
        self.close_connection = True
        for byte in head:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.2)
        self.wfile.write(b"done")


class PageServer:
    """The fixture server on 127.0.0.1 in a background thread; `requests` lists (path, Host)."""

    def __init__(self, tls: bool = False, port: int = 0) -> None:
        self.tls = tls
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.requests = []  # type: ignore[attr-defined]
        self._httpd.served = {}  # type: ignore[attr-defined]
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(TLS_CERT, TLS_KEY)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def requests(self) -> list[tuple[str, str]]:
        return self._httpd.requests  # type: ignore[attr-defined]

    def serve(self, path: str, body: bytes | str | float, status: int = 200,
              content_type: str = "text/plain; charset=utf-8", headers: dict[str, str] | None = None) -> str:
        """Answer GET `path` with `body` from now on (a float: stall that many seconds first);
        returns the page's URL. A later call for the same path replaces the page: the web changed."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self._httpd.served[path] = (status, data, content_type, headers or {})  # type: ignore[attr-defined]
        return self.url(path)

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def __enter__(self) -> "PageServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def client_ssl_context() -> ssl.SSLContext:
    """A client context that trusts the test CA (and nothing else)."""
    return ssl.create_default_context(cafile=str(TLS_CA))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", action="store_true")
    args = parser.parse_args()
    with PageServer(tls=args.tls, port=args.port) as server:
        print(server.url("/article"), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
