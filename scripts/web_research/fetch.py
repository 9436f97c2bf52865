"""Fetching a page safely, and turning it into the text a researcher quotes.

The URL comes from web content or from a model, so it is untrusted: it may
point at this machine, the local network or a cloud metadata service, directly
or through a redirect, or through a host name whose DNS answer changes between
our check and our connection (DNS rebinding). So every hop is resolved once,
every address is checked, and the connection goes to the checked address while
the Host header and TLS SNI/certificate check keep the host name. Only the
standard library's http.client is used for the transfer; redirects, time and
size are bounded, and every failure is a `FetchError` with a one-line message.

Extraction (`extract_page`) imports trafilatura or pypdf lazily: nothing else
in the package pays for them. HTML and PDF are extracted in a child process
with a wall-clock limit and an address-space limit, because a page under the
download bound can still be built to make a parser run for minutes or take
gigabytes; and the text kept is capped (`ExtractLimits`), which the snapshot
record states as `truncated`.
"""
from __future__ import annotations

import html
import http.client
import ipaddress
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Callable
from urllib.parse import quote, urljoin, urlsplit

from .snapshots import MAX_TEXT_CHARS

ALLOWED_SCHEMES = ("http", "https")
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
USER_AGENT = "web-research/0.1 (+page snapshot for citation checking)"

_PATH_SAFE = "/%:@!$&'()*+,;=-._~?"

Resolver = Callable[[str, int], "list[str]"]


class FetchError(Exception):
    """The page could not be fetched or read; `str()` is one line for the user."""


class RefusedURL(FetchError):
    """The URL, or a redirect on the way, points somewhere we do not fetch from."""


@dataclass(frozen=True)
class FetchLimits:
    """Bounds on one fetch: redirects followed, seconds in total, bytes of body."""

    max_redirects: int = 5
    timeout_s: float = 20.0
    max_bytes: int = 10 * 1024 * 1024


@dataclass(frozen=True)
class FetchedPage:
    requested_url: str
    final_url: str
    status: int
    content_type: str  # media type, lower-case, without parameters
    charset: str | None
    body: bytes
    redirects: tuple[str, ...] = ()


@dataclass(frozen=True)
class PageText:
    title: str
    other_titles: tuple[str, ...]
    text: str
    extractor: str
    truncated: bool = False  # the page had more text (or PDF pages) than ExtractLimits keeps


@dataclass(frozen=True)
class ExtractLimits:
    """Bounds on turning a page into text: characters kept, PDF pages read, and the
    child process that parses HTML and PDF (seconds of wall-clock time, bytes of
    address space)."""

    max_chars: int = MAX_TEXT_CHARS
    max_pdf_pages: int = 500
    timeout_s: float = 20.0
    memory_bytes: int = 1024 * 1024 * 1024


# --- Address policy ----------------------------------------------------------

def address_problem(address: str, allow_loopback: bool = False) -> str | None:
    """Why we refuse to connect to `address`, or None when it is a public address.

    Loopback is allowed only when the caller asks (tests); private, link-local
    (which holds the cloud metadata address 169.254.169.254), shared, reserved,
    multicast and unspecified addresses never are. IPv4 embedded in IPv6
    (mapped, 6to4, Teredo) is judged as the IPv4 address it carries.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address!r} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None:
            problem = address_problem(str(embedded), allow_loopback)
            return problem and f"{problem} (inside {ip})"
    if ip.is_loopback:
        return None if allow_loopback else f"{ip} is a loopback address"
    if ip.is_link_local:
        return f"{ip} is a link-local address (where cloud metadata services live)"
    if ip.is_unspecified:
        return f"{ip} is an unspecified address"
    if ip.is_multicast:
        return f"{ip} is a multicast address"
    if ip.is_private:
        return f"{ip} is a private address"
    if ip.is_reserved or not ip.is_global:
        return f"{ip} is not a public address"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the system's order, without duplicates."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(f"cannot resolve host {host!r}: {exc}") from exc
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in seen:
            seen.append(address)
    return seen


@dataclass(frozen=True)
class Target:
    """One hop's destination: the name to present, the checked address to dial."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def resolve_target(url: str, resolver: Resolver, allow_loopback: bool = False) -> Target:
    """Check `url`'s scheme and host and resolve it to addresses that pass the policy.

    Every address the name resolves to must pass: a name that answers with
    one public and one private address is refused, since we cannot know which
    one a later connection would pick.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RefusedURL(f"refused {url}: not a valid URL ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise RefusedURL(f"refused {url}: only http and https URLs are fetched")
    host = parts.hostname
    if not host:
        raise RefusedURL(f"refused {url}: the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise RefusedURL(f"refused {url}: URLs carrying credentials are not fetched")
    port = port or (443 if scheme == "https" else 80)
    try:  # an internationalized name travels as its ASCII (IDNA) form, in DNS and in Host/SNI
        host = host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise RefusedURL(f"refused {url}: {host!r} is not a valid host name") from exc
    try:
        literal = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        literal = None
    addresses = [str(literal)] if literal is not None else resolver(host, port)
    if not addresses:
        raise FetchError(f"cannot resolve host {host!r}")
    for address in addresses:
        problem = address_problem(address, allow_loopback)
        if problem:
            where = "" if literal is not None else f"{host} resolves to "
            raise RefusedURL(f"refused {url}: {where}{problem}")
    # Percent-encode what http.client would reject (spaces, non-ASCII); keep existing escapes.
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        path = f"{path}?{quote(parts.query, safe=_PATH_SAFE)}"
    return Target(scheme, host, port, path, tuple(addresses))


# --- One deadline for the whole fetch -------------------------------------------

class _Watchdog:
    """Shuts down every socket of a fetch when its overall deadline passes.

    A socket timeout bounds each read, not their sum: a server that trickles its
    status line and headers a byte a second never trips it, and http.client
    reads those with no hook for us. So a timer thread shuts the sockets down
    at the deadline, which ends any read in progress (TLS handshake included);
    `expired` then tells the caller that the failure was the deadline.
    """

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> "_Watchdog":
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def watch(self, sock: socket.socket) -> None:
        """Watch the connection of `sock` through a duplicate descriptor: TLS wrapping
        detaches the original, and shutting a connection down works from any of its
        descriptors without touching the TLS layer of the one being read."""
        duplicate = sock.dup()
        with self._lock:
            self._sockets.append(duplicate)
            if self.expired:
                _shutdown(duplicate)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


# --- Connections pinned to a checked address ----------------------------------

class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP connection to a fixed address; `host` stays the name for the Host header."""

    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self._watchdog = watchdog

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)
        self._watchdog.watch(self.sock)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a fixed address; SNI and certificate checks use the host name."""

    def __init__(self, host: str, port: int, address: str, timeout: float, context: ssl.SSLContext,
                 watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._address = address
        self._pinned_context = context
        self._watchdog = watchdog

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self._watchdog.watch(raw)
        try:
            self.sock = self._pinned_context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def default_ssl_context() -> ssl.SSLContext:
    """The system's trust store, or certifi's when the system has none."""
    context = ssl.create_default_context()
    if not context.cert_store_stats().get("x509_ca"):
        try:
            import certifi  # lazy: optional, and only for HTTPS

            context.load_verify_locations(certifi.where())
        except (ImportError, OSError):
            pass
    return context


# --- The fetch loop ---------------------------------------------------------------

def fetch_page(
    url: str,
    *,
    limits: FetchLimits = FetchLimits(),
    allow_loopback: bool = False,
    resolver: Resolver = system_resolver,
    ssl_context: ssl.SSLContext | None = None,
) -> FetchedPage:
    """GET `url`, following at most `limits.max_redirects` redirects, each hop checked.

    Raises `RefusedURL` for a URL or redirect we will not follow and
    `FetchError` for everything else (timeouts, size, HTTP errors).
    `limits.timeout_s` bounds the whole: every hop's connection, status line,
    headers and body together.
    """
    deadline = time.monotonic() + limits.timeout_s
    context = ssl_context or default_ssl_context()
    with _Watchdog(limits.timeout_s) as watchdog:
        return _fetch_hops(url, deadline, limits, allow_loopback, resolver, context, watchdog)


def _fetch_hops(url: str, deadline: float, limits: FetchLimits, allow_loopback: bool, resolver: Resolver,
                context: ssl.SSLContext, watchdog: _Watchdog) -> FetchedPage:
    current, redirects = url, []
    resolver = _within_deadline(resolver, deadline, url, limits)
    while True:
        try:
            target = resolve_target(current, resolver, allow_loopback)
        except RefusedURL as exc:
            if redirects:  # say where the planted URL came from
                raise RefusedURL(f"{exc} (reached by a redirect from {url})") from exc
            raise
        status, headers, body = _request(target, current, deadline, limits, context, watchdog)
        if status in REDIRECT_STATUSES:
            location = headers.get("location")
            if not location:
                raise FetchError(f"{current} answered HTTP {status} without a Location header")
            if len(redirects) >= limits.max_redirects:
                raise FetchError(f"{url}: more than {limits.max_redirects} redirects")
            current = urljoin(current, location.strip())
            redirects.append(current)
            continue
        if status >= 400:
            raise FetchError(f"{current} answered HTTP {status}")
        media_type, charset = _parse_content_type(headers.get("content-type", ""))
        body = _decode_transfer(body, headers.get("content-encoding", ""), limits.max_bytes, current)
        return FetchedPage(url, current, status, media_type, charset, body, tuple(redirects))


def _within_deadline(resolver: Resolver, deadline: float, url: str, limits: FetchLimits) -> Resolver:
    """`resolver`, given only the time left: a DNS lookup cannot be interrupted, so it
    runs in a daemon thread that is abandoned when the deadline passes."""
    def resolve(host: str, port: int) -> list[str]:
        outcome: dict[str, object] = {}

        def work() -> None:
            try:
                outcome["value"] = resolver(host, port)
            except BaseException as exc:  # handed to the caller below
                outcome["error"] = exc

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(_remaining(deadline, url, limits))
        if worker.is_alive():
            raise _timed_out(url, limits)
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["value"]  # type: ignore[return-value]
    return resolve


def _request(target: Target, url: str, deadline: float, limits: FetchLimits, context: ssl.SSLContext,
             watchdog: _Watchdog):
    """One GET to the first reachable checked address; returns (status, headers, body)."""
    last_error: Exception | None = None
    for address in target.addresses:
        remaining = _remaining(deadline, url, limits)
        if target.scheme == "https":
            conn: http.client.HTTPConnection = _PinnedHTTPSConnection(
                target.host, target.port, address, remaining, context, watchdog)
        else:
            conn = _PinnedHTTPConnection(target.host, target.port, address, remaining, watchdog)
        try:
            try:
                conn.connect()
            except (OSError, ssl.SSLError) as exc:
                if watchdog.expired:
                    raise _timed_out(url, limits) from exc
                if isinstance(exc, ssl.SSLError) or _is_timeout(exc):
                    raise _network_error(exc, url, limits) from exc
                last_error = exc
                continue
            try:
                conn.putrequest("GET", target.path, skip_accept_encoding=True)
                conn.putheader("User-Agent", USER_AGENT)
                conn.putheader("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5")
                conn.putheader("Accept-Encoding", "identity")
                conn.endheaders()
                response = conn.getresponse()
                headers = {k.lower(): v for k, v in response.getheaders()}
                if response.status in REDIRECT_STATUSES:
                    return response.status, headers, b""
                body = _read_body(conn, response, deadline, url, limits)
                if watchdog.expired:  # the shutdown looks like the end of the body
                    raise _timed_out(url, limits)
                return response.status, headers, body
            except (OSError, http.client.HTTPException) as exc:
                if watchdog.expired:
                    raise _timed_out(url, limits) from exc
                raise _network_error(exc, url, limits) from exc
        finally:
            conn.close()
    raise FetchError(f"cannot connect to {url}: {last_error}")


def _read_body(conn, response, deadline: float, url: str, limits: FetchLimits) -> bytes:
    """Read the body in pieces, enforcing the size bound and the overall deadline."""
    declared = response.getheader("content-length")
    if declared and declared.strip().isdigit() and int(declared) > limits.max_bytes:
        raise FetchError(f"{url} is larger than the {limits.max_bytes}-byte limit ({int(declared)} bytes)")
    chunks: list[bytes] = []
    total = 0
    while True:
        remaining = _remaining(deadline, url, limits)
        if conn.sock is not None:
            conn.sock.settimeout(remaining)
        chunk = response.read1(64 * 1024)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limits.max_bytes:
            raise FetchError(f"{url} is larger than the {limits.max_bytes}-byte limit")
        chunks.append(chunk)


def _remaining(deadline: float, url: str, limits: FetchLimits) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timed_out(url, limits)
    return remaining


def _timed_out(url: str, limits: FetchLimits) -> FetchError:
    return FetchError(f"{url}: timed out after {limits.timeout_s:g} s")


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, (socket.timeout, TimeoutError))


def _network_error(exc: BaseException, url: str, limits: FetchLimits) -> FetchError:
    if _is_timeout(exc):
        return FetchError(f"{url}: timed out after {limits.timeout_s:g} s")
    detail = str(exc) or type(exc).__name__
    return FetchError(f"cannot fetch {url}: {detail}")


def _parse_content_type(value: str) -> tuple[str, str | None]:
    media_type, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, val = param.partition("=")
        if name.strip().lower() == "charset" and val.strip():
            charset = val.strip().strip("\"'")
    return media_type.strip().lower(), charset


def _decode_transfer(body: bytes, encoding: str, max_bytes: int, url: str) -> bytes:
    """Undo gzip/deflate content encoding (sent by some servers despite `identity`), bounded."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise FetchError(f"{url}: unsupported content encoding {encoding!r}")
    try:
        inflater = zlib.decompressobj(47)  # gzip or zlib header, detected
        out = inflater.decompress(body, max_bytes + 1)
    except zlib.error:
        try:
            inflater = zlib.decompressobj(-15)  # raw deflate
            out = inflater.decompress(body, max_bytes + 1)
        except zlib.error as exc:
            raise FetchError(f"{url}: cannot decode {encoding} body: {exc}") from exc
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise FetchError(f"{url} is larger than the {max_bytes}-byte limit once decompressed")
    return out


# --- Extraction -------------------------------------------------------------------

HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf", "application/x-pdf")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BLANK_RUNS = re.compile(r"\n{3,}")
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def page_kind(page: FetchedPage) -> str | None:
    """"html", "text" or "pdf" from the media type, sniffing the body when it is vague."""
    media = page.content_type
    head = page.body[:1024].lstrip().lower()
    if media in PDF_TYPES or page.body.startswith(b"%PDF-"):
        return "pdf"
    if media in HTML_TYPES:
        return "html"
    if media.startswith("text/"):
        return "html" if head.startswith((b"<!doctype html", b"<html")) else "text"
    if media in ("", "application/octet-stream") and head.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def extract_page(page: FetchedPage, limits: ExtractLimits = ExtractLimits()) -> PageText:
    """The main text and title(s) of a fetched page; `FetchError` when there is none.

    Plain text is handled here; HTML and PDF go to a bounded child process.
    """
    kind = page_kind(page)
    if kind is None:
        raise FetchError(f"{page.final_url}: cannot extract text from content type {page.content_type or 'unknown'!r}")
    if kind == "text":
        return extract_in_process(page, limits)
    return _extract_in_child(page, limits)


def extract_in_process(page: FetchedPage, limits: ExtractLimits = ExtractLimits()) -> PageText:
    """`extract_page` without the child process (what the child runs)."""
    kind = page_kind(page)
    if kind is None:
        raise FetchError(f"{page.final_url}: cannot extract text from content type {page.content_type or 'unknown'!r}")
    if kind == "pdf":
        result = _extract_pdf(page, limits.max_pdf_pages, limits.max_chars)
    elif kind == "html":
        result = _extract_html(page)
    else:
        text = _decode(page.body, page.charset)
        result = PageText("", (), text, "text/plain")
    text = clean_text(result.text)
    if not text:
        raise FetchError(f"{page.final_url}: no text could be extracted from the page")
    truncated = result.truncated or len(text) > limits.max_chars
    text = text[: limits.max_chars]
    title = result.title
    if not title and kind != "html":
        title = _first_line(text)  # a PDF without metadata, a text file: its first line
    return PageText(title or page.final_url, result.other_titles, text, result.extractor, truncated)


# --- The extraction child ---------------------------------------------------------------

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _extract_in_child(page: FetchedPage, limits: ExtractLimits) -> PageText:
    """Run `extract_in_process` in `python -m web_research.fetch`, bounded; the page
    goes in on stdin (a JSON header line, then the body), the result comes back as JSON."""
    header = {
        "page": {"requested_url": page.requested_url, "final_url": page.final_url, "status": page.status,
                 "content_type": page.content_type, "charset": page.charset},
        "limits": {"max_chars": limits.max_chars, "max_pdf_pages": limits.max_pdf_pages,
                   "timeout_s": limits.timeout_s, "memory_bytes": limits.memory_bytes},
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run([sys.executable, "-m", "web_research.fetch"],
                              input=json.dumps(header).encode("utf-8") + b"\n" + page.body,
                              capture_output=True, timeout=limits.timeout_s, env=env)
    except subprocess.TimeoutExpired:
        raise FetchError(f"{page.final_url}: extracting the page's text took longer than {limits.timeout_s:g} s "
                         "(the page is too large or too complex to snapshot)") from None
    except OSError as exc:
        raise FetchError(f"{page.final_url}: cannot start the text extractor: {exc}") from exc
    try:
        result = json.loads(done.stdout.decode("utf-8"))
    except ValueError:
        result = None
    if not isinstance(result, dict):
        megabytes = limits.memory_bytes // (1024 * 1024)
        raise FetchError(f"{page.final_url}: extracting the page's text failed (exit {done.returncode}); it may "
                         f"need more than {megabytes} MB of memory (the page is too large or too complex "
                         "to snapshot)")
    if "error" in result:
        raise FetchError(str(result["error"]))
    return PageText(str(result["title"]), tuple(result["other_titles"]), str(result["text"]),
                    str(result["extractor"]), bool(result["truncated"]))


def _child_main() -> int:
    """The child's side of `_extract_in_child`: limit ourselves, then extract."""
    import resource  # lazy: start-up

    header = json.loads(sys.stdin.buffer.readline())
    limits = ExtractLimits(**header["limits"])
    memory = int(limits.memory_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.timeout_s) + 1  # a second line of defence behind the parent's wall-clock limit
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    page = FetchedPage(body=sys.stdin.buffer.read(), **header["page"])
    try:
        content = extract_in_process(page, limits)
        out: dict = {"title": content.title, "other_titles": list(content.other_titles), "text": content.text,
                     "extractor": content.extractor, "truncated": content.truncated}
    except FetchError as exc:
        out = {"error": str(exc)}
    except MemoryError:
        out = {"error": f"{page.final_url}: extracting the page's text needed more than "
                        f"{memory // (1024 * 1024)} MB of memory (the page is too large or too complex to snapshot)"}
    except RecursionError:
        out = {"error": f"{page.final_url}: the page is nested too deeply to extract its text"}
    except Exception as exc:  # an extraction library failing on odd input: one line, not a traceback
        out = {"error": f"{page.final_url}: cannot extract the page's text ({type(exc).__name__}: {exc})"}
    sys.stdout.buffer.write(json.dumps(out).encode("ascii"))
    sys.stdout.flush()
    return 0


def clean_text(text: str) -> str:
    """Drop control characters (terminal escapes included), trailing spaces and long blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _decode(body: bytes, charset: str | None) -> str:
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return body.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("cp1252", errors="replace")


def _html_title(markup: str) -> str:
    found = _TITLE.search(markup)
    return " ".join(html.unescape(found.group(1)).split()) if found else ""


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.strip()[:200]
    return ""


def _extract_html(page: FetchedPage) -> PageText:
    import logging  # lazy: start-up

    import trafilatura  # lazy: the fetch extra, imported by `fetch` only

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    charset = page.charset
    if not charset:
        declared = _META_CHARSET.search(page.body[:4096])
        charset = declared.group(1).decode("ascii") if declared else None
    markup = _decode(page.body, charset)
    title = _html_title(markup)
    text = trafilatura.extract(
        markup,
        url=page.final_url,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        favor_recall=True,
        deduplicate=False,
        with_metadata=False,
    )
    extractor = f"trafilatura {trafilatura.__version__}"
    if not text:
        text = trafilatura.html2txt(markup)
        extractor += " (whole page)"
    other: tuple[str, ...] = ()
    metadata = trafilatura.extract_metadata(markup, default_url=page.final_url)
    if metadata is not None and metadata.title and metadata.title != title:
        other = (metadata.title,)
    if not title and other:
        title, other = other[0], ()
    return PageText(title, other, text or "", extractor)


def _extract_pdf(page: FetchedPage, max_pages: int, max_chars: int) -> PageText:
    import io  # lazy: start-up
    import logging  # lazy: start-up

    import pypdf  # lazy: the fetch extra, imported by `fetch` only

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    try:
        reader = pypdf.PdfReader(io.BytesIO(page.body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FetchError(f"{page.final_url}: the PDF is encrypted")
        parts: list[str] = []
        total, truncated = 0, False
        for index, pdf_page in enumerate(reader.pages):
            if index >= max_pages or total > max_chars:
                truncated = True
                break
            part = pdf_page.extract_text() or ""
            parts.append(part)
            total += len(part) + 2
        text = "\n\n".join(parts)
        info = reader.metadata
        title = str(info.title).strip() if info is not None and info.title else ""
    except FetchError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files
        raise FetchError(f"{page.final_url}: cannot read the PDF: {exc}") from exc
    return PageText(title, (), text, f"pypdf {pypdf.__version__}", truncated)


if __name__ == "__main__":  # the extraction child: see _extract_in_child
    sys.exit(_child_main())
