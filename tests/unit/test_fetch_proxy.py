"""fetch behind a proxy: HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured, and the address policy
still holds: our resolver checks the target, and the proxy is only ever asked for a tunnel to the
address that passed (so neither the proxy's own DNS nor a rebinding answer can reach elsewhere)."""
from __future__ import annotations

import pytest

from page_server import PageServer, client_ssl_context
from proxy_server import TunnelProxy
from web_research.evidence.transport import FetchError, RefusedURL, fetch_page, proxy_for


def _resolver(table: dict[str, list[str]], calls: list[str]):
    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return list(table[host])
    return resolve


@pytest.fixture(scope="module")
def http_server():
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def https_server():
    with PageServer(tls=True) as server:
        yield server


def test_https_goes_through_the_proxy_to_the_checked_address(https_server: PageServer):
    calls: list[str] = []
    with TunnelProxy() as proxy:
        page = fetch_page(https_server.url("/host", host="pages.test"), allow_loopback=True,
                          resolver=_resolver({"pages.test": ["127.0.0.1"]}, calls), ssl_context=client_ssl_context(),
                          proxy_env={"HTTPS_PROXY": proxy.url})
    assert calls == ["pages.test"]  # our policy resolved and checked the name
    assert proxy.requests == [f"CONNECT 127.0.0.1:{https_server.port} HTTP/1.1"]  # the checked address, not the name
    # SNI, the certificate check and the Host header kept the name through the tunnel.
    assert f"arrived for host pages.test:{https_server.port}" in page.body.decode()


def test_plain_http_goes_through_a_tunnel_too(http_server: PageServer):
    with TunnelProxy() as proxy:
        page = fetch_page(http_server.url("/host", host="public.example"), allow_loopback=True,
                          resolver=_resolver({"public.example": ["127.0.0.1"]}, []),
                          proxy_env={"http_proxy": proxy.url})
    assert proxy.requests == [f"CONNECT 127.0.0.1:{http_server.port} HTTP/1.1"]
    assert f"arrived for host public.example:{http_server.port}" in page.body.decode()


@pytest.mark.parametrize("table, url", [
    ({"intranet.example": ["10.0.0.7"]}, "https://intranet.example/"),
    ({"meta.example": ["169.254.169.254"]}, "http://meta.example/latest/meta-data/"),
    ({}, "http://192.168.1.1/admin"),
])
def test_the_policy_refuses_before_the_proxy_is_asked(table, url):
    """A proxy must not become a way around the policy: a private target is refused by us, and
    the proxy never hears of it."""
    with TunnelProxy() as proxy:
        with pytest.raises(RefusedURL):
            fetch_page(url, resolver=_resolver(table, []),
                       proxy_env={"HTTPS_PROXY": proxy.url, "HTTP_PROXY": proxy.url})
    assert proxy.requests == []


def test_a_redirect_through_the_proxy_is_checked_at_every_hop(http_server: PageServer):
    with TunnelProxy() as proxy:
        with pytest.raises(RefusedURL, match="private"):
            fetch_page(http_server.url("/redirect-to?url=http://10.0.0.5/"), allow_loopback=True,
                       proxy_env={"HTTP_PROXY": proxy.url})
    assert len(proxy.requests) == 1  # the first hop only


def test_no_proxy_connects_directly(http_server: PageServer):
    with TunnelProxy() as proxy:
        page = fetch_page(http_server.url("/article"), allow_loopback=True,
                          proxy_env={"HTTP_PROXY": proxy.url, "NO_PROXY": "example.org, 127.0.0.1"})
    assert page.status == 200 and proxy.requests == []


def test_proxy_credentials_are_sent_to_the_proxy(http_server: PageServer):
    with TunnelProxy(credentials="alice:s%40cret") as proxy:
        fetch_page(http_server.url("/article"), allow_loopback=True, proxy_env={"HTTP_PROXY": proxy.url})
    assert proxy.authorizations == ["Basic YWxpY2U6c0BjcmV0"]  # alice:s@cret


def test_a_refusing_proxy_is_named(http_server: PageServer):
    with TunnelProxy(refuse=True) as proxy:
        with pytest.raises(FetchError) as refused:
            fetch_page(http_server.url("/article"), allow_loopback=True, proxy_env={"HTTP_PROXY": proxy.url})
    assert f"proxy 127.0.0.1:{proxy.port}" in str(refused.value) and "HTTP 403" in str(refused.value)


def test_an_unreachable_proxy_is_named(http_server: PageServer):
    with pytest.raises(FetchError, match="cannot connect to the proxy 127.0.0.1:9"):
        fetch_page(http_server.url("/article"), allow_loopback=True, proxy_env={"HTTP_PROXY": "http://127.0.0.1:9"})


@pytest.mark.parametrize("env, scheme, host, expected", [
    ({}, "https", "a.example", None),
    ({"HTTPS_PROXY": "http://p:3128"}, "https", "a.example", ("p", 3128)),
    ({"https_proxy": "p2:8080", "HTTPS_PROXY": "http://p:3128"}, "https", "a.example", ("p2", 8080)),
    ({"HTTPS_PROXY": "http://p:3128"}, "http", "a.example", None),  # http uses HTTP_PROXY
    ({"HTTP_PROXY": "http://p"}, "http", "a.example", ("p", 80)),
    ({"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "*"}, "https", "a.example", None),
    ({"HTTPS_PROXY": "http://p:3128", "no_proxy": ".example"}, "https", "a.example", None),
    ({"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "example"}, "https", "a.example", None),
    ({"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "b.example"}, "https", "a.example", ("p", 3128)),
    ({"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "notexample"}, "https", "a.example", ("p", 3128)),
    ({"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "10.0.0.0/8"}, "https", "10.1.2.3", None),
])
def test_proxy_settings_are_read_as_curl_and_pip_read_them(env, scheme, host, expected):
    found = proxy_for(scheme, host, env)
    assert (found and (found.host, found.port)) == expected or (found is None and expected is None)


@pytest.mark.parametrize("value", ["socks5://p:1080", "https://p:3128", "http://p:notaport"])
def test_a_proxy_we_cannot_use_is_an_error_not_a_silent_direct_connection(value):
    with pytest.raises(FetchError, match="HTTPS_PROXY"):
        proxy_for("https", "a.example", {"HTTPS_PROXY": value})
