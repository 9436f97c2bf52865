"""Fetching a page safely: the transport half of `web-research fetch` (extraction: `extraction.py`).

The URL comes from web content or from a model, so it is untrusted: it may
point at this machine, the local network or a cloud metadata service, directly
or through a redirect, or through a host name whose DNS answer changes between
our check and our connection (DNS rebinding). So every hop is resolved once,
every address is checked, and the connection goes to the checked address while
the Host header and TLS SNI/certificate check keep the host name. Only the
standard library's http.client is used for the transfer; redirects, time and
size are bounded, and every failure is a `FetchError` with a one-line message.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
import zlib
from dataclasses import dataclass
from email.message import Message
from email.utils import collapse_rfc2231_value
from typing import Callable
from urllib.parse import quote, urljoin, urlsplit

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
        media_type, charset = parse_content_type(headers.get("content-type", ""))
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


def parse_content_type(value: str) -> tuple[str, str | None]:
    """(media type, lower-case; charset or None) of a Content-Type header value.

    The standard library's MIME parser reads the parameters (quoted strings,
    RFC 2231 continuations); the media type is kept as sent, even when it is not
    a valid `type/subtype`, so that an error can name what the server said.
    """
    message = Message()
    message["content-type"] = value
    params = message.get_params(header="content-type") or [("", "")]
    media_type = params[0][0].strip().lower()
    charset = message.get_param("charset", header="content-type")
    if isinstance(charset, tuple):  # RFC 2231: (charset, language, value)
        charset = collapse_rfc2231_value(charset)
    charset = str(charset).strip().strip("\"'") if charset else None
    return media_type, charset or None


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
