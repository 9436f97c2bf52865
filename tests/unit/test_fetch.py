"""The safe fetcher and text extraction, against the local page server."""
from __future__ import annotations

import ssl
from typing import Callable
from urllib.parse import quote

import pytest

from page_server import PDF_LINES, PDF_TITLE, PageServer, client_ssl_context
from web_research.evidence.extraction import ExtractLimits, extract_page
from web_research.evidence.transport import (
    FetchedPage,
    FetchError,
    FetchLimits,
    RefusedURL,
    address_problem,
    fetch_page,
    parse_content_type,
    resolve_target,
)


def fake_resolver(table: dict[str, list[str]], calls: list[str] | None = None) -> Callable[[str, int], list[str]]:
    def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append(host)
        if host not in table:
            raise FetchError(f"cannot resolve host {host!r}")
        return list(table[host])
    return resolve


# --- Address policy ----------------------------------------------------------

@pytest.mark.parametrize("address, words", [
    ("127.0.0.1", "loopback"),
    ("127.8.9.10", "loopback"),
    ("::1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("fd00:ec2::254", "private"),               # AWS metadata over IPv6 (unique local)
    ("169.254.169.254", "link-local"),          # cloud metadata service
    ("fe80::1", "link-local"),
    ("100.100.100.200", "not a public address"),  # Alibaba metadata, shared address space
    ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"),
    ("::ffff:127.0.0.1", "loopback"),           # IPv4-mapped IPv6
    ("::ffff:10.0.0.1", "private"),
    ("2002:a00:1::", "private"),                # 6to4 wrapping 10.0.0.1
    ("240.0.0.1", "address"),                   # reserved (Python calls it private)
])
def test_non_public_addresses_are_refused(address: str, words: str) -> None:
    problem = address_problem(address)
    assert problem is not None and words in problem


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(address) is None


def test_loopback_only_with_the_explicit_option() -> None:
    assert address_problem("127.0.0.1", allow_loopback=True) is None
    assert address_problem("::1", allow_loopback=True) is None
    # The test-only option never opens private or metadata ranges.
    assert address_problem("10.0.0.1", allow_loopback=True) is not None
    assert address_problem("169.254.169.254", allow_loopback=True) is not None


@pytest.mark.parametrize("url, words", [
    ("file:///etc/passwd", "only http and https"),
    ("ftp://files.example/x", "only http and https"),
    ("gopher://files.example/x", "only http and https"),
    ("http:///nohost", "no host"),
    ("http://user:secret@public.example/", "credentials"),
    ("http://public.example:99999/", "not a valid URL"),
])
def test_unsupported_urls_are_refused(url: str, words: str) -> None:
    with pytest.raises(RefusedURL, match=words):
        resolve_target(url, fake_resolver({"public.example": ["93.184.215.14"]}))


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://[::1]/", "http://10.0.0.8/admin", "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/", "http://0.0.0.0:8080/",
])
def test_literal_private_addresses_are_refused(url: str) -> None:
    with pytest.raises(RefusedURL, match="refused"):
        resolve_target(url, fake_resolver({}))


@pytest.mark.parametrize("host, addresses", [
    ("intranet.example", ["10.20.30.40"]),
    ("metadata.google.internal", ["169.254.169.254"]),
    ("localhost", ["127.0.0.1", "::1"]),
    ("split.example", ["93.184.215.14", "192.168.0.10"]),  # one private answer is enough
])
def test_host_names_resolving_to_private_ranges_are_refused(host: str, addresses: list[str]) -> None:
    with pytest.raises(RefusedURL, match=f"{host} resolves to"):
        resolve_target(f"https://{host}/page", fake_resolver({host: addresses}))


def test_localhost_is_refused_with_the_real_resolver() -> None:
    with pytest.raises(RefusedURL, match="localhost resolves to .*loopback"):
        fetch_page("http://localhost:9/")


# --- Fetching ------------------------------------------------------------------

def test_fetches_an_article_over_http(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/article"), allow_loopback=True)
    assert (page.status, page.content_type, page.charset) == (200, "text/html", "utf-8")
    assert page.final_url == page.requested_url == http_server.url("/article")
    assert b"Enterprise plans start" in page.body


def test_without_the_option_even_the_test_server_is_refused(http_server: PageServer) -> None:
    before = len(http_server.requests)
    with pytest.raises(RefusedURL, match="127.0.0.1 is a loopback address"):
        fetch_page(http_server.url("/article"))
    assert len(http_server.requests) == before  # refused before connecting


def test_follows_a_redirect_chain(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/redirect/3"), allow_loopback=True)
    assert page.final_url == http_server.url("/article")
    assert page.redirects == tuple(http_server.url(p) for p in ("/redirect/2", "/redirect/1", "/redirect/0", "/article"))


def test_follows_a_relative_redirect(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/relative-redirect"), allow_loopback=True)
    assert page.final_url == http_server.url("/article")


def test_redirects_are_bounded(http_server: PageServer) -> None:
    with pytest.raises(FetchError, match="more than 5 redirects"):
        fetch_page(http_server.url("/loop"), allow_loopback=True)
    with pytest.raises(FetchError, match="more than 2 redirects"):
        fetch_page(http_server.url("/redirect/3"), allow_loopback=True, limits=FetchLimits(max_redirects=2))


@pytest.mark.parametrize("target, words", [
    ("http://10.0.0.1/secret", "10.0.0.1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://0.0.0.0:{port}/article", "unspecified"),
    ("http://intranet.example:{port}/", "intranet.example resolves to 10.9.8.7"),
    ("file:///etc/passwd", "only http and https"),
])
def test_a_redirect_to_a_private_address_is_refused_even_from_a_public_looking_start(
        http_server: PageServer, target: str, words: str) -> None:
    # public.example "resolves" to the test server; only loopback is allowed, as in every test.
    target = target.format(port=http_server.port)
    resolver = fake_resolver({"public.example": ["127.0.0.1"], "intranet.example": ["10.9.8.7"]})
    start = http_server.url(f"/redirect-to?url={quote(target, safe='')}", host="public.example")
    with pytest.raises(RefusedURL) as refused:
        fetch_page(start, resolver=resolver, allow_loopback=True)
    assert words in str(refused.value)
    assert f"reached by a redirect from {start}" in str(refused.value)


def test_dns_is_resolved_once_per_hop_and_the_checked_address_is_dialled(http_server: PageServer) -> None:
    """DNS rebinding: a second lookup would answer with a private address; there is none."""
    answers = [["127.0.0.1"], ["10.0.0.1"]]
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return answers[min(len(calls), len(answers)) - 1]

    page = fetch_page(http_server.url("/host", host="public.example"), resolver=rebinding, allow_loopback=True)
    assert calls == ["public.example"]
    # The connection went to 127.0.0.1 while the Host header kept the name.
    assert f"arrived for host public.example:{http_server.port}" in page.body.decode()


def test_https_keeps_sni_and_certificate_checks_on_the_host_name(https_server: PageServer) -> None:
    resolver = fake_resolver({"pages.test": ["127.0.0.1"], "unlisted.test": ["127.0.0.1"]})
    context = client_ssl_context()
    page = fetch_page(https_server.url("/host", host="pages.test"), resolver=resolver,
                      allow_loopback=True, ssl_context=context)
    assert f"arrived for host pages.test:{https_server.port}" in page.body.decode()
    # Same address, a name the certificate does not carry: the check uses the name, not the IP.
    with pytest.raises(FetchError, match="certificate"):
        fetch_page(https_server.url("/host", host="unlisted.test"), resolver=resolver,
                   allow_loopback=True, ssl_context=context)


def test_https_with_an_untrusted_certificate_fails_cleanly(https_server: PageServer) -> None:
    with pytest.raises(FetchError, match="certificate"):
        fetch_page(https_server.url("/article"), allow_loopback=True, ssl_context=ssl.create_default_context())


@pytest.mark.parametrize("path", ["/huge", "/huge-stream"])
def test_pages_over_the_size_bound_are_refused(http_server: PageServer, path: str) -> None:
    with pytest.raises(FetchError, match="larger than the 10485760-byte limit"):
        fetch_page(http_server.url(path), allow_loopback=True)


def test_a_trickling_page_hits_the_overall_time_bound(http_server: PageServer) -> None:
    import time

    start = time.monotonic()
    with pytest.raises(FetchError, match="timed out after 1 s"):
        fetch_page(http_server.url("/slow"), allow_loopback=True, limits=FetchLimits(timeout_s=1))
    assert time.monotonic() - start < 3


def test_a_stalled_server_hits_the_time_bound(http_server: PageServer) -> None:
    with pytest.raises(FetchError, match="timed out"):
        fetch_page(http_server.url("/stall?seconds=3"), allow_loopback=True, limits=FetchLimits(timeout_s=0.5))


def test_http_errors_are_fetch_errors(http_server: PageServer) -> None:
    with pytest.raises(FetchError, match="answered HTTP 404"):
        fetch_page(http_server.url("/status/404"), allow_loopback=True)
    with pytest.raises(FetchError, match="without a Location header"):
        fetch_page(http_server.url("/no-location"), allow_loopback=True)


def test_connection_refused_is_a_fetch_error() -> None:
    import socket

    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError, match="cannot connect"):
        fetch_page(f"http://127.0.0.1:{port}/", allow_loopback=True)


def test_gzip_sent_anyway_is_decoded(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/gzip"), allow_loopback=True)
    assert b"Enterprise plans start" in page.body


# --- Extraction -------------------------------------------------------------------

def test_html_main_text_without_boilerplate(http_server: PageServer) -> None:
    content = extract_page(fetch_page(http_server.url("/article"), allow_loopback=True))
    assert content.title == "Enterprise Pricing \u2014 Acme Docs"
    assert "Enterprise Pricing" in content.other_titles
    assert "Enterprise plans start at $20,000 per year" in content.text
    assert "quarterly architecture reviews" in content.text
    assert "BOILERPLATE" not in content.text
    assert content.extractor.startswith("trafilatura ")


def test_plain_text_pages(http_server: PageServer) -> None:
    content = extract_page(fetch_page(http_server.url("/plain.txt"), allow_loopback=True))
    assert content.title == "Release notes for version 4.2"
    assert "retries failed jobs up to three times" in content.text
    assert content.extractor == "text/plain"


def test_pdf_pages(https_server: PageServer) -> None:
    page = fetch_page(https_server.url("/doc.pdf"), allow_loopback=True, ssl_context=client_ssl_context())
    content = extract_page(page)
    assert content.title == PDF_TITLE
    for line in PDF_LINES:
        assert line in content.text
    assert content.extractor.startswith("pypdf ")


def test_control_characters_never_reach_the_text(http_server: PageServer) -> None:
    content = extract_page(fetch_page(http_server.url("/injection"), allow_loopback=True))
    assert "\x1b" not in content.text
    assert "Terminal escape: [31mred[0m text" in content.text
    assert "removes the legacy export API" in content.text


@pytest.mark.parametrize("path, words", [
    ("/image.png", "cannot extract text from content type 'image/png'"),
    ("/empty", "no text could be extracted"),
])
def test_pages_without_text_are_fetch_errors(http_server: PageServer, path: str, words: str) -> None:
    with pytest.raises(FetchError, match=words):
        extract_page(fetch_page(http_server.url(path), allow_loopback=True))


def test_a_damaged_pdf_is_a_fetch_error() -> None:
    page = FetchedPage("https://x.example/a.pdf", "https://x.example/a.pdf", 200, "application/pdf", None,
                       b"%PDF-1.4\nthis is not really a pdf")
    with pytest.raises(FetchError, match="cannot read the PDF|no text could be extracted"):
        extract_page(page)


def test_html_charset_from_a_meta_tag() -> None:
    body = ('<html><head><meta charset="windows-1252"><title>Caf\u00e9 prices</title></head><body><article>'
            '<p>The caf\u00e9 serves cr\u00e8me br\u00fbl\u00e9e for four euros every weekday afternoon.</p>'
            '</article></body></html>').encode("cp1252")
    content = extract_page(FetchedPage("https://x.example/", "https://x.example/", 200, "text/html", None, body))
    assert content.title == "Caf\u00e9 prices"
    assert "cr\u00e8me br\u00fbl\u00e9e" in content.text


def test_international_names_and_odd_paths_are_encoded_not_sent_raw(http_server: PageServer) -> None:
    calls: list[str] = []
    target = resolve_target("https://b\u00fccher.example/\u00fcber uns?q=\u00e4 b&x=%20",
                            fake_resolver({"xn--bcher-kva.example": ["93.184.215.14"]}, calls))
    assert calls == ["xn--bcher-kva.example"]
    assert target.host == "xn--bcher-kva.example"
    assert target.path == "/%C3%BCber%20uns?q=%C3%A4%20b&x=%20"
    page = fetch_page(http_server.url("/host", host="b\u00fccher.example"), allow_loopback=True,
                      resolver=fake_resolver({"xn--bcher-kva.example": ["127.0.0.1"]}))
    assert f"arrived for host xn--bcher-kva.example:{http_server.port}" in page.body.decode()


def test_a_url_cannot_inject_request_headers(http_server: PageServer) -> None:
    fetch_page(http_server.url("/host?x=a\r\nInjected: 1"), allow_loopback=True)
    path, _ = http_server.requests[-1]
    # The line break is stripped or escaped: it never ends the request line.
    assert "\r" not in path and "\n" not in path and path.startswith("/host?x=a")


@pytest.mark.parametrize("tls", [False, True])
def test_trickled_headers_hit_the_overall_deadline(tls: bool) -> None:
    """Each header byte arrives well within a socket timeout; only the one
    deadline over connection, status line, headers and body stops the fetch."""
    import time

    with PageServer(tls=tls) as server:
        start = time.monotonic()
        with pytest.raises(FetchError, match="timed out after 1 s"):
            fetch_page(server.url("/trickle-headers"), allow_loopback=True, limits=FetchLimits(timeout_s=1),
                       ssl_context=client_ssl_context() if tls else None)
        assert time.monotonic() - start < 3


# --- Bounds on extraction -----------------------------------------------------------

def test_a_pathological_page_fails_within_the_extraction_time_limit(http_server: PageServer) -> None:
    """200,000 elements (under 4 MB) keep trafilatura busy for minutes unbounded."""
    import time

    page = fetch_page(http_server.url("/many-elements?count=200000"), allow_loopback=True)
    start = time.monotonic()
    with pytest.raises(FetchError, match="took longer than 3 s .*too large or too complex"):
        extract_page(page, ExtractLimits(timeout_s=3))
    assert time.monotonic() - start < 8


def test_a_pathological_page_fails_at_the_extraction_memory_limit(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/many-elements?count=200000"), allow_loopback=True)
    with pytest.raises(FetchError, match="more than 150 MB of memory"):
        extract_page(page, ExtractLimits(timeout_s=60, memory_bytes=150 * 1024 * 1024))


def test_html_text_is_capped_and_says_so(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/article"), allow_loopback=True)
    whole = extract_page(page)
    assert not whole.truncated
    cut = extract_page(page, ExtractLimits(max_chars=100))
    assert cut.truncated and cut.text == whole.text[:100]
    assert cut.title == whole.title


def test_plain_text_is_capped_and_says_so(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/plain.txt"), allow_loopback=True)
    cut = extract_page(page, ExtractLimits(max_chars=40))
    assert cut.truncated and len(cut.text) == 40


def test_pdf_text_is_capped_by_pages_and_by_characters(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/long.pdf?pages=40"), allow_loopback=True)
    whole = extract_page(page)
    assert not whole.truncated and whole.text.count(PDF_LINES[1]) == 40
    by_pages = extract_page(page, ExtractLimits(max_pdf_pages=3))
    assert by_pages.truncated and by_pages.text.count(PDF_LINES[1]) == 3
    by_chars = extract_page(page, ExtractLimits(max_chars=500))
    assert by_chars.truncated and len(by_chars.text) <= 500 and by_chars.text.count(PDF_LINES[1]) < 40


def test_the_default_text_cap_is_the_snapshot_cap() -> None:
    from web_research.evidence.snapshots import MAX_TEXT_CHARS

    assert ExtractLimits().max_chars == MAX_TEXT_CHARS == 2_000_000


def test_a_slow_name_lookup_counts_against_the_deadline() -> None:
    import time

    def slow_resolver(host: str, port: int) -> list[str]:
        time.sleep(5)
        return ["93.184.216.34"]

    start = time.monotonic()
    with pytest.raises(FetchError, match="timed out after 1 s"):
        fetch_page("http://slow-dns.example/", limits=FetchLimits(timeout_s=1), resolver=slow_resolver)
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("header, expected", [
    ("text/html; charset=utf-8", ("text/html", "utf-8")),
    ('Text/HTML; Charset="ISO-8859-1"', ("text/html", "ISO-8859-1")),
    ("text/html; foo=\"a;b\"; charset=koi8-r", ("text/html", "koi8-r")),  # a quoted ';' is not a separator
    ("application/pdf", ("application/pdf", None)),
    ("text/plain; charset*=utf-8''utf-8", ("text/plain", "utf-8")),  # RFC 2231
    ("", ("", None)),
    ("nonsense", ("nonsense", None)),  # kept as sent so the error can name it
])
def test_content_type_header_parsing(header: str, expected: tuple[str, str | None]) -> None:
    assert parse_content_type(header) == expected
