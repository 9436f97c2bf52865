"""Corroboration: a claim's independent sites (sites.py), in `claims --json` and in verify."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from example_run import EXAMPLE_DIR, copy_example_to
from web_research import formats
from web_research.evidence import sites
from web_research.checks.checklist import run_checklist
from web_research.evidence.sites import independent_sites, site_of


@pytest.mark.parametrize("url,site", [
    ("https://docs.acme.example/logs/pricing", "acme.example"),  # an unlisted TLD is a suffix of one label
    ("https://www.bbc.co.uk/news", "bbc.co.uk"),  # a suffix of two labels
    ("https://news.bbc.co.uk/x", "bbc.co.uk"),
    ("https://www.foo.kawasaki.jp/", "www.foo.kawasaki.jp"),  # a wildcard rule: *.kawasaki.jp
    ("https://a.b.city.kawasaki.jp/", "city.kawasaki.jp"),  # and its exception, !city.kawasaki.jp
    ("https://alice.github.io/post", "alice.github.io"),  # a private suffix: each user is a site
    ("https://WWW.Example.COM./Pricing", "example.com"),  # case and the root dot
    ("https://user:pw@shop.example.com:8443/p", "example.com"),
    ("https://xn--bcher-kva.example.de/", "example.de"),
    ("http://192.168.1.7/page", "192.168.1.7"),
    ("http://[2001:db8::1]/page", "2001:db8::1"),
    ("http://localhost:8000/x", "localhost"),
    ("/relative/path", None),
    ("not a url", None),
])
def test_site_of(url: str, site: str | None) -> None:
    assert site_of(url) == site


def test_a_vendors_own_pages_count_once_and_other_sites_each_once() -> None:
    urls = ["https://docs.acme.example/logs/pricing", "https://www.acme.example/blog/logs",
            "https://acme.example/pricing", "https://www.bbc.co.uk/a", "https://bbc.co.uk/b",
            "https://alice.github.io/", "https://bob.github.io/", None, ""]
    assert independent_sites(urls) == ["acme.example", "bbc.co.uk", "alice.github.io", "bob.github.io"]


def test_punycode_and_unicode_hosts_are_one_site() -> None:
    assert independent_sites(["https://xn--bcher-kva.de/a", "https://www.bücher.de/b"]) == ["bücher.de"]


def test_the_list_ships_with_the_package_and_nothing_is_downloaded(monkeypatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("sites.py must not open a connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    sites._suffixes.cache_clear()
    site_of.cache_clear()
    try:
        assert site_of("https://www.bbc.co.uk/") == "bbc.co.uk"
    finally:
        sites._suffixes.cache_clear()
        site_of.cache_clear()


# --- claims --json and verify ------------------------------------------------------------------

def _claims(run: Path) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "web_research", "claims", "--json", str(run)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["claims"]


def test_claims_json_carries_each_claims_sites() -> None:
    claims = {(c["file"].rsplit("/", 1)[-1], c["line"]): c for c in _claims(EXAMPLE_DIR)}
    first = claims[("report.md", 5)]  # [^1] Acme docs, [^2] Lumen, [^3] Northwind
    assert first["sites"] == 3 and first["site_domains"] == ["acme.example", "lumenlogs.example",
                                                             "northwind.example"]
    retention = claims[("report.md", 6)]  # [^4] Acme docs, [^5] a blog
    assert retention["sites"] == 2 and retention["site_domains"] == ["acme.example", "obsnotes.example"]


def test_two_pages_of_one_vendor_are_one_site_in_claims_json(run: Path) -> None:
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    # [^2] lumenlogs.example/pricing and [^7] help.lumenlogs.example: Lumen's own pages.
    claim = "Lumen Logs bills per GB\ningested and includes indexing in every plan[^2]."
    assert claim in text
    report.write_text(text.replace(claim, claim[:-1] + "[^7]."), encoding="utf-8")
    [lumen] = [c for c in _claims(run) if c["file"].endswith("report.md") and c["footnotes"] == [2, 7]]
    assert lumen["sites"] == 1 and lumen["site_domains"] == ["lumenlogs.example"]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    copy_example_to(folder)
    return folder


def _tldr_sites(run: Path):
    return next(c for c in run_checklist(run) if c.id == "report.tldr.sites")


def test_verify_warns_about_a_tldr_bullet_resting_on_one_site(run: Path) -> None:
    assert _tldr_sites(run).ok
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    # The commitments bullet cites Acme [^6], Lumen [^7] and Northwind [^8]; citing Lumen's
    # pricing page [^2] (lumenlogs.example) and help centre [^7] (help.lumenlogs.example) is one site.
    bullet = "on demand (Acme)[^6], trued up quarterly at the contracted rate (Lumen)[^7], or throttled (Northwind)[^8]."
    assert bullet in text
    report.write_text(text.replace(bullet, bullet.replace("[^6]", "[^2]").replace("[^8]", "[^7]")), encoding="utf-8")
    check = _tldr_sites(run)
    assert not check.ok and check.severity == "warning" and check.line == 7
    assert "1 TL;DR bullet(s) rest on a single site (line 7: lumenlogs.example)" in check.message
    assert not [c for c in run_checklist(run) if not c.ok and c.severity == "error"]
    # One page, or pages of one host, name the host (the suffix list need not be loaded).
    retention = "while archives cost far less but cannot be queried in place[^5]."
    report.write_text(report.read_text(encoding="utf-8").replace(retention, "while archives cost far less[^1]."),
                      encoding="utf-8")
    check = _tldr_sites(run)
    assert "2 TL;DR bullet(s) rest on a single site (line 6: docs.acme.example; line 7: lumenlogs.example)" \
        in check.message and check.line == 6


def test_a_run_whose_sources_are_all_on_one_site_is_not_warned_bullet_by_bullet(run: Path) -> None:
    """No bullet can cite a second site when the run has none: the check passes and says why."""
    for path in [run / formats.REPORT_FILE, *sorted((run / formats.FINDINGS_DIR).glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for old in ("docs.acme.example", "lumenlogs.example", "help.lumenlogs.example", "www.northwind.example",
                    "docs.northwind.example", "blog.obsnotes.example", "forum.sreguild.example"):
            text = text.replace(f"https://{old}/", f"https://{old.replace('.', '-')}.acme.example/")
        path.write_text(text, encoding="utf-8")
    check = _tldr_sites(run)
    assert check.ok and "every source the run cites is on one site" in check.message


def test_a_page_reached_by_a_redirect_from_another_site_is_one_site(run: Path) -> None:
    """Issue 43: a citation kept the URL asked for after a redirect to another site, so one page
    counted as two independent sites. A site is counted where the fetch ended."""
    from web_research.evidence.snapshots import find_snapshot  # noqa: PLC0415

    assert _tldr_sites(run).ok  # line 6 cites Acme's retention page [^4] and a blog [^5]: two sites
    blog = find_snapshot(run, "https://blog.obsnotes.example/2026/03/log-archive-tiers")
    record = json.loads(blog.meta_path.read_text(encoding="utf-8"))
    record["final_url"] = "https://docs.acme.example/logs/archive-tiers"  # the blog's link led to Acme's docs
    blog.meta_path.write_text(json.dumps(record), encoding="utf-8")
    check = _tldr_sites(run)
    assert not check.ok and "line 6: acme.example" in check.message, check.message
    bad = {c.id for c in run_checklist(run) if not c.ok and c.severity == "error"}
    assert "report.citations.final_url" in bad  # and the citation itself must name where it ended
    [retention] = [c for c in _claims(run) if c["file"].endswith("report.md") and c["line"] == 6]
    assert retention["sites"] == 1 and retention["site_domains"] == ["acme.example"]  # claims --json agrees
