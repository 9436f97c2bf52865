"""Independent sites: how many different sites a claim's excerpts come from.

A site is a URL's registrable domain (the public suffix plus one label:
`docs.acme.example` and `www.acme.example` are both `acme.example`; `news.bbc.co.uk`
is `bbc.co.uk`; `alice.github.io` and `bob.github.io` are two sites). Public suffixes
come from the Public Suffix List as the `publicsuffixlist` package ships it: no
download at run time, and a release follows each change of the list. So a vendor's
pages about its own product count as one site however many of them a claim cites.

An IP address is a site of its own; a host with no registrable domain (`localhost`,
a bare suffix such as `github.io`) is its own site. A URL without a host is no site.
"""
from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Iterable

from publicsuffixlist import PublicSuffixList
from urllib.parse import urlsplit


@lru_cache(maxsize=1)
def _suffixes() -> "PublicSuffixList":
    # Hosts are looked up in Unicode (`host` decodes punycode), so the list need not be
    # encoded as well: that halves the cost of loading it.
    return PublicSuffixList(accept_encoded_idn=False)


def host(url: str) -> str | None:
    """The URL's host: lowercase, without a trailing dot, punycode decoded."""
    try:
        name = urlsplit(url.strip()).hostname
    except ValueError:  # a malformed IPv6 literal or port
        return None
    name = (name or "").rstrip(".")
    if not name:
        return None
    if "xn--" in name:
        try:
            name = name.encode("ascii").decode("idna")
        except (UnicodeError, ValueError):
            pass  # not valid punycode: keep it as written
    return name


@lru_cache(maxsize=4096)
def site_of(url: str) -> str | None:
    """The site a URL belongs to (its registrable domain), or None without a host."""
    name = host(url)
    if name is None:
        return None
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    return _suffixes().privatesuffix(name) or name


def independent_sites(urls: Iterable[str | None]) -> list[str]:
    """The distinct sites of `urls`, in order of first appearance (URLs without a host skipped)."""
    out: list[str] = []
    for url in urls:
        site = site_of(url) if url else None
        if site is not None and site not in out:
            out.append(site)
    return out
