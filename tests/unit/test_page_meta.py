"""What a page states about itself (evidence/page_meta.py): the site's name and its publication date,
recorded by `fetch` and read again from a page's WARC for a snapshot made before fetch recorded them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from page_server import PageServer
from web_research.cli import main
from web_research.evidence.page_meta import MAX_VALUE_CHARS, PageMeta, page_metadata
from web_research.evidence.snapshots import SnapshotIndex, find_snapshot
from web_research.exitcodes import EXIT_OK
from web_research.report.export import stated_metadata
from example_run import copy_example_to

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "observability-pricing"


def _head(*tags: str) -> str:
    return f"<!doctype html><html><head><title>Pricing</title>{''.join(tags)}</head><body><p>Text.</p></body></html>"


@pytest.mark.parametrize("markup, expected", [
    (_head('<meta property="og:site_name" content="Acme Cloud">',
           '<meta property="article:published_time" content="2026-03-02T10:00:00Z">'),
     PageMeta("Acme Cloud", "2026-03-02T10:00:00Z")),
    (_head('<meta name="application-name" content="Lumen  Logs">', '<meta name="citation_publication_date" content="2025-11">'),
     PageMeta("Lumen Logs", "2025-11")),
    (_head('<script type="application/ld+json">{"@graph": [{"@type": "WebSite", "name": "Northwind Docs"},'
           ' {"@type": "Article", "datePublished": "2024-07-09", "dateModified": "2026-01-01",'
           ' "publisher": {"@type": "Organization", "name": "Northwind Inc."}}]}</script>'),
     PageMeta("Northwind Docs", "2024-07-09")),
    (_head('<script type="application/ld+json">[{"@type": ["NewsArticle"], "publisher": {"name": "The Daily"}}]</script>'),
     PageMeta("The Daily", "")),
    ('<html><body><time itemprop="datePublished" datetime="2023-05-01">May 1</time></body></html>', PageMeta("", "2023-05-01")),
    # A modification date is no publication date; a date that is no ISO date is not taken.
    (_head('<meta property="article:modified_time" content="2026-01-01">', '<meta name="date" content="last Tuesday">'),
     PageMeta("", "")),
    # Broken or hostile markup: nothing, or the value bounded, on one line, without controls.
    (_head('<script type="application/ld+json">{"@type": "WebSite", "name": </script>'), PageMeta("", "")),
    (_head(f'<meta property="og:site_name" content="A\x1b[31m\nB {"x" * 500}">'), PageMeta(("A[31m B " + "x" * 500)[:MAX_VALUE_CHARS], "")),
    ("<html><head><meta property=og:site_name content=", PageMeta("", "")),
])
def test_the_site_name_and_publication_date_a_page_states(markup: str, expected: PageMeta) -> None:
    assert page_metadata(markup) == expected


PAGE = _head('<meta property="og:site_name" content="Acme Cloud Storage">',
             '<meta property="article:published_time" content="2026-03-02T10:00:00+00:00">').replace(
    "<p>Text.</p>", "<article><h1>Storage pricing</h1>" + "<p>Storage is billed per GB and month for every class.</p>" * 5
    + "</article>")


def test_fetch_records_them_and_an_older_snapshot_reads_them_from_its_warc(tmp_path: Path, capsys) -> None:
    pytest.importorskip("trafilatura")
    run = tmp_path / "run"
    copy_example_to(run)
    with PageServer() as server:
        url = server.serve("/storage", PAGE, content_type="text/html; charset=utf-8")
        assert main(["fetch", url, "--run", str(run), "--allow-loopback"]) == EXIT_OK, capsys.readouterr().err
    snap = find_snapshot(run, url)
    assert (snap.site_name, snap.published) == ("Acme Cloud Storage", "2026-03-02T10:00:00+00:00")
    assert stated_metadata(snap) == PageMeta("Acme Cloud Storage", "2026-03-02T10:00:00+00:00")
    # A record written before fetch kept them: read from the page as archived.
    record = json.loads(snap.meta_path.read_text(encoding="utf-8"))
    del record["site_name"], record["published"]
    snap.meta_path.write_text(json.dumps(record), encoding="utf-8")
    older = SnapshotIndex.build(run).find(url)
    assert older.site_name is None and older.archive is not None
    assert stated_metadata(older) == PageMeta("Acme Cloud Storage", "2026-03-02T10:00:00+00:00")
    # Neither recorded nor archived: nothing stated (export falls back to the domain).
    del record["archive"]
    snap.meta_path.write_text(json.dumps(record), encoding="utf-8")
    assert stated_metadata(SnapshotIndex.build(run).find(url)) == PageMeta()
