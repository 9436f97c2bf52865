"""Fetching a page safely: the transport half of `web-research fetch` (extraction: `extraction.py`).

The URL comes from web content or from a model, so it is untrusted: it may
point at this machine, the local network or a cloud metadata service, directly
or through a redirect, or through a host name whose DNS answer changes between
our check and our connection (DNS rebinding). So every hop is resolved once,
every address is checked, and the connection goes to the checked address while
the Host header and TLS SNI/certificate check keep the host name. Only the
standard library's http.client is used for the transfer; redirects, time and
size are bounded, and every failure is a `FetchError` with a one-line message.

Behind a proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, read as curl and pip read them)
the policy is the same: we still resolve and check the target, and the proxy is
only asked for a CONNECT tunnel to the checked address (for http too), so it never
resolves a name for us and cannot be steered elsewhere. The proxy itself is what the
person configured and is not held to the policy (it is often on the local network).

Why not urllib3 (in the lock through trafilatura): its timeouts bound each socket
operation, not their sum, so one deadline over connecting, a trickled status line
and headers, and the body (test_fetch.py::test_trickled_headers_hit_the_overall_deadline,
test_a_trickling_page_hits_the_overall_time_bound) would still need the watchdog below
on its sockets, and dialling a checked address with SNI and certificate checks on the
name would still need its connection classes subclassed: it would add a dependency
to `fetch` without removing any of this code.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
import zlib
import base64
import functools
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from email.utils import collapse_rfc2231_value
from typing import Callable, Mapping
from urllib.parse import quote, unquote, urljoin, urlsplit

try:
    import certifi  # a trust store for systems that have none (default_ssl_context)
except ImportError:  # optional: the system's store serves without it
    certifi = None

ALLOWED_SCHEMES = ("http", "https")
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
USER_AGENT = "web-research/0.1 (+page snapshot for citation checking)"

_PATH_SAFE = "/%:@!$&'()*+,;=-._~?"

Resolver = Callable[[str, int], "list[str]"]


class FetchError(Exception):
    """The page could not be fetched or read; `str()` is one line for the user."""


class RefusedURL(FetchError):
    """The URL, or a redirect on the way, points somewhere we do not fetch from."""


class HTTPStatusError(FetchError):
    """The page answered with an HTTP error status (`status`, 400 or more) at `url`."""

    def __init__(self, message: str, status: int, url: str) -> None:
        super().__init__(message)
        self.status = status
        self.url = url


class NameNotResolved(FetchError):
    """The host name gave no address here: no answer (offline, EAI_AGAIN) or no such name. Either
    way it says nothing about the site itself (recheck: unreachable, never gone)."""


class HostNotFound(NameNotResolved):
    """The resolver says the host name does not exist (EAI_NONAME): offline resolvers say it too."""


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
    # The last hop's HTTP exchange as it went over the wire, for the page's WARC (archive.py);
    # None for a page that was not fetched by `fetch_page` (a test's, the extraction child's).
    exchange: "Exchange | None" = None
    # The redirects' exchanges before it, in order: (the URL asked, the exchange).
    redirect_exchanges: "tuple[tuple[str, Exchange], ...]" = ()


@dataclass(frozen=True)
class Exchange:
    """The bytes of one HTTP request and its response, as sent and as received: the request
    line and headers; the status line, headers and body with any chunked framing and content
    encoding still on it (what a WARC's request and response records hold). `address`: the
    checked address the connection went to."""

    request: bytes
    response: bytes
    address: str
    # When the response arrived (its status line and headers read): the hop's capture time, its
    # WARC-Date (archive.py). None for an exchange not taken from the wire (a test's).
    received_at: datetime | None = None


# What a response may add to its body on the wire (status line, headers, chunked framing) before
# the recording refuses it: the bytes read stay within the body's limit plus this.
MAX_WIRE_OVERHEAD = 1024 * 1024


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


# getaddrinfo's answers that mean "no such name" (as opposed to "could not ask", EAI_AGAIN).
_NO_SUCH_HOST = tuple(getattr(socket, name) for name in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, name))


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the system's order, without duplicates."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        if isinstance(exc, socket.gaierror) and exc.errno in _NO_SUCH_HOST:
            raise HostNotFound(f"cannot resolve host {host!r}: {exc}") from exc
        raise NameNotResolved(f"cannot resolve host {host!r}: {exc}") from exc
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
        raise NameNotResolved(f"cannot resolve host {host!r}")
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


# --- Proxies -----------------------------------------------------------------------

@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy the person configured, and the Proxy-Authorization its URL's credentials give."""

    host: str
    port: int
    authorization: str | None = None

    def __str__(self) -> str:  # for messages: never the credentials
        return f"{self.host}:{self.port}"


def proxy_for(scheme: str, host: str, env: Mapping[str, str]) -> Proxy | None:
    """The proxy for a request to `host` over `scheme` (http or https), or None to connect directly.

    As curl, pip and requests read the environment: `https_proxy`/`HTTPS_PROXY` for https,
    `http_proxy`/`HTTP_PROXY` for http (the lower-case name first), and `no_proxy`/`NO_PROXY`:
    comma-separated host names (each also matching its subdomains, a leading dot optional),
    addresses or networks (`10.0.0.0/8`), or `*` for every host. Only http:// proxies are
    spoken to; another kind is a `FetchError`, never a silent direct connection."""
    name = f"{scheme}_proxy"
    raw = (env.get(name) or env.get(name.upper()) or "").strip()
    if not raw or _bypassed(host, env.get("no_proxy") or env.get("NO_PROXY") or ""):
        return None
    shown = f"{name.upper()}={raw.split('@')[-1]}"
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    if parts.scheme.lower() != "http":
        raise FetchError(f"{shown}: only http:// proxies are supported (a CONNECT tunnel carries the TLS)")
    try:
        port = parts.port or 80
    except ValueError:
        raise FetchError(f"{shown}: not a valid proxy URL (expected http://host:port)") from None
    if not parts.hostname:
        raise FetchError(f"{shown}: not a valid proxy URL (expected http://host:port)")
    authorization = None
    if parts.username is not None:
        user_pass = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(user_pass.encode("utf-8")).decode("ascii")
    return Proxy(parts.hostname, port, authorization)


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether NO_PROXY lists `host` (a name, a parent domain, an address or a network)."""
    host = host.lower().rstrip(".")
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    for entry in (item.strip().lower() for item in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        if address is not None:
            try:
                if address in ipaddress.ip_network(entry.strip("[]"), strict=False):
                    return True
            except ValueError:
                pass
            continue
        entry = entry.lstrip(".").rstrip(".")
        if host == entry or host.endswith("." + entry):
            return True
    return False


_MAX_PROXY_LINE = 8192
_MAX_PROXY_HEADERS = 100


def _open_tunnel(proxy: Proxy, address: str, port: int, timeout: float, watchdog: "_Watchdog") -> socket.socket:
    """A socket to the proxy, tunnelled (CONNECT) to the checked `address`: the proxy is given an
    address, never a name, so what it connects to is what our policy checked."""
    try:
        sock = socket.create_connection((proxy.host, proxy.port), timeout)
    except OSError as exc:
        raise FetchError(f"cannot connect to the proxy {proxy} ({exc.strerror or exc})") from exc
    watchdog.watch(sock)
    try:
        authority = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}", f"User-Agent: {USER_AGENT}"]
        if proxy.authorization:
            lines.append(f"Proxy-Authorization: {proxy.authorization}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        # Unbuffered, so that nothing past the proxy's answer is read from the tunnel.
        with sock.makefile("rb", buffering=0) as reader:
            status = reader.readline(_MAX_PROXY_LINE).decode("latin-1").split(None, 2)
            for _ in range(_MAX_PROXY_HEADERS):
                if reader.readline(_MAX_PROXY_LINE) in (b"\r\n", b"\n", b""):
                    break
            else:
                raise FetchError(f"the proxy {proxy} answered with too many header lines")
        if len(status) < 2 or not status[0].startswith("HTTP/"):
            raise FetchError(f"the proxy {proxy} did not answer the tunnel request as HTTP")
        if status[1] != "200":
            raise FetchError(f"the proxy {proxy} refused a tunnel to {authority} (HTTP {status[1]})")
        return sock
    except BaseException:
        sock.close()
        raise


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


# --- Recording the exchange ----------------------------------------------------------

class _Recorder:
    """The bytes one connection sent and received, the received ones bounded by `limit`."""

    def __init__(self, limit: int, url: str) -> None:
        self.sent = bytearray()
        self.received = bytearray()
        self.limit = limit
        self.url = url

    def take(self, data: bytes | bytearray | memoryview) -> None:
        self.received += data
        if len(self.received) > self.limit:
            raise FetchError(f"{self.url} sent more than {self.limit} bytes (body, headers and framing)")


class _TeeReader:
    """The response's buffered socket file, recording every byte http.client consumes from it
    (a peek consumes nothing, so records nothing: the later read does)."""

    def __init__(self, raw, recorder: _Recorder) -> None:
        self._raw = raw
        self._recorder = recorder

    def read(self, *args):
        data = self._raw.read(*args)
        self._recorder.take(data)
        return data

    def read1(self, *args):
        data = self._raw.read1(*args)
        self._recorder.take(data)
        return data

    def readline(self, *args):
        data = self._raw.readline(*args)
        self._recorder.take(data)
        return data

    def readinto(self, buffer):
        count = self._raw.readinto(buffer)
        if count:
            self._recorder.take(memoryview(buffer)[:count])
        return count

    def peek(self, *args):
        return self._raw.peek(*args)

    def __getattr__(self, name: str):  # close, flush, fileno, closed
        return getattr(self._raw, name)


class _RecordingResponse(http.client.HTTPResponse):
    def __init__(self, sock, *args, recorder: _Recorder, **kwargs) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = _TeeReader(self.fp, recorder)  # type: ignore[assignment]


class _Recording:
    """Mixin of the pinned connections: keeps what was sent and received in `recorder`."""

    recorder: _Recorder

    def _start_recording(self, limit: int, url: str) -> None:
        self.recorder = _Recorder(limit, url)
        self.response_class = functools.partial(_RecordingResponse, recorder=self.recorder)  # type: ignore

    def send(self, data) -> None:  # every byte of the request goes through here
        if isinstance(data, (bytes, bytearray)):
            self.recorder.sent += data
        super().send(data)  # type: ignore[misc]


# --- Connections pinned to a checked address ----------------------------------

def _dial(address: str, port: int, timeout: float, watchdog: _Watchdog, proxy: Proxy | None) -> socket.socket:
    """A connection to the checked `address`: direct, or through a tunnel of `proxy`."""
    if proxy is not None:
        return _open_tunnel(proxy, address, port, timeout, watchdog)
    sock = socket.create_connection((address, port), timeout)
    watchdog.watch(sock)
    return sock


class _PinnedHTTPConnection(_Recording, http.client.HTTPConnection):
    """HTTP connection to a fixed address; `host` stays the name for the Host header."""

    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog,
                 proxy: Proxy | None = None, limit: int = 0, url: str = "") -> None:
        super().__init__(host, port, timeout=timeout)
        self._start_recording(limit, url)
        self._address = address
        self._watchdog = watchdog
        self._proxy = proxy

    def connect(self) -> None:
        self.sock = _dial(self._address, self.port, self.timeout, self._watchdog, self._proxy)


class _PinnedHTTPSConnection(_Recording, http.client.HTTPSConnection):
    """HTTPS to a fixed address; SNI and certificate checks use the host name."""

    def __init__(self, host: str, port: int, address: str, timeout: float, context: ssl.SSLContext,
                 watchdog: _Watchdog, proxy: Proxy | None = None, limit: int = 0, url: str = "") -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._start_recording(limit, url)
        self._address = address
        self._pinned_context = context
        self._watchdog = watchdog
        self._proxy = proxy

    def connect(self) -> None:
        raw = _dial(self._address, self.port, self.timeout, self._watchdog, self._proxy)
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
            if certifi is not None:
                context.load_verify_locations(certifi.where())
        except OSError:
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
    proxy_env: Mapping[str, str] | None = None,
) -> FetchedPage:
    """GET `url`, following at most `limits.max_redirects` redirects, each hop checked.

    Raises `RefusedURL` for a URL or redirect we will not follow and
    `FetchError` for everything else (timeouts, size, HTTP errors).
    `limits.timeout_s` bounds the whole: every hop's connection, status line,
    headers and body together. `proxy_env`: where the proxy settings are read
    (`proxy_for`), by default the process's environment.
    """
    deadline = time.monotonic() + limits.timeout_s
    context = ssl_context or default_ssl_context()
    with _Watchdog(limits.timeout_s) as watchdog:
        return _fetch_hops(url, deadline, limits, allow_loopback, resolver, context, watchdog,
                           os.environ if proxy_env is None else proxy_env)


def _fetch_hops(url: str, deadline: float, limits: FetchLimits, allow_loopback: bool, resolver: Resolver,
                context: ssl.SSLContext, watchdog: _Watchdog, proxy_env: Mapping[str, str]) -> FetchedPage:
    current, redirects = url, []
    hops: list[tuple[str, Exchange]] = []
    resolver = _within_deadline(resolver, deadline, url, limits)
    while True:
        try:
            target = resolve_target(current, resolver, allow_loopback)
        except RefusedURL as exc:
            if redirects:  # say where the planted URL came from
                raise RefusedURL(f"{exc} (reached by a redirect from {url})") from exc
            raise
        proxy = proxy_for(target.scheme, target.host, proxy_env)  # after the policy passed the target
        status, headers, body, exchange = _request(target, current, deadline, limits, context, watchdog, proxy)
        if status in REDIRECT_STATUSES:
            hops.append((current, exchange))
            location = headers.get("location")
            if not location:
                raise FetchError(f"{current} answered HTTP {status} without a Location header")
            if len(redirects) >= limits.max_redirects:
                raise FetchError(f"{url}: more than {limits.max_redirects} redirects")
            current = urljoin(current, location.strip())
            redirects.append(current)
            continue
        if status >= 400:
            raise HTTPStatusError(f"{current} answered HTTP {status}", status, current)
        media_type, charset = parse_content_type(headers.get("content-type", ""))
        body = _decode_transfer(body, headers.get("content-encoding", ""), limits.max_bytes, current)
        return FetchedPage(url, current, status, media_type, charset, body, tuple(redirects), exchange, tuple(hops))


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
             watchdog: _Watchdog, proxy: Proxy | None = None):
    """One GET to the first reachable checked address (through `proxy`'s tunnel when one is
    configured); returns (status, headers, body, the exchange as it went over the wire)."""
    last_error: Exception | None = None
    for address in target.addresses:
        remaining = _remaining(deadline, url, limits)
        wire_limit = limits.max_bytes + MAX_WIRE_OVERHEAD
        conn: _PinnedHTTPConnection | _PinnedHTTPSConnection
        if target.scheme == "https":
            conn = _PinnedHTTPSConnection(target.host, target.port, address, remaining, context, watchdog, proxy,
                                          wire_limit, url)
        else:
            conn = _PinnedHTTPConnection(target.host, target.port, address, remaining, watchdog, proxy,
                                         wire_limit, url)
        try:
            try:
                conn.connect()
            except FetchError:
                if watchdog.expired:
                    raise _timed_out(url, limits) from None
                raise
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
                received_at = datetime.now(timezone.utc)
                headers = {k.lower(): v for k, v in response.getheaders()}
                # A redirect's body too (within the same bounds): the archive keeps each hop as received;
                # but not one that runs to the connection's close, which a server may hold open.
                if response.status in REDIRECT_STATUSES and response.length is None and not response.chunked:
                    body = b""
                else:
                    body = _read_body(conn, response, deadline, url, limits)
                if watchdog.expired:  # the shutdown looks like the end of the body
                    raise _timed_out(url, limits)
                exchange = Exchange(bytes(conn.recorder.sent), bytes(conn.recorder.received), address, received_at)
                if response.status in REDIRECT_STATUSES:
                    return response.status, headers, b"", exchange
                return response.status, headers, body, exchange
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
