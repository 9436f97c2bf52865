"""The page as the site sent it: fetch's WARC, read back with warcio, sealed, and extracted again."""
from __future__ import annotations

import gzip
import hashlib
from datetime import datetime, timezone
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from page_server import PAGES_DIR, PageServer, minimal_pdf
from web_research import formats
from web_research.cli import main
from web_research.evidence import ledger
from web_research.evidence.archive import ArchiveError, read_warc
from web_research.evidence.provenance import LEDGER, SealSource, provenance_checks
from web_research.evidence.reextract import NEVER_ARCHIVED, SAME, reextract_run
from web_research.evidence.snapshots import find_snapshot, load_snapshot, snapshot_id
from web_research.evidence.transport import FetchError, FetchLimits, fetch_page
from web_research.exitcodes import EXIT_CHECK_FAILED, EXIT_OK
from example_run import copy_example_to

warcio = pytest.importorskip("warcio")
from warcio.archiveiterator import ArchiveIterator  # noqa: E402 - after the skip

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "observability-pricing"


def fetch(run_dir: Path, url: str, capsys) -> str:
    assert main(["fetch", url, "--run", str(run_dir), "--allow-loopback"]) == EXIT_OK, capsys.readouterr().err
    return capsys.readouterr().out


def records(path: Path) -> list:
    """(type, WARC headers, HTTP headers, payload as decoded by warcio) of every record."""
    out = []
    with path.open("rb") as handle:
        for record in ArchiveIterator(handle, check_digests="raise"):
            out.append((record.rec_type, record.rec_headers, record.http_headers, record.content_stream().read()))
    return out


@pytest.mark.parametrize("path, expected", [
    ("/article", (PAGES_DIR / "article.html").read_bytes()),
    ("/chunked-gzip", (PAGES_DIR / "article.html").read_bytes()),  # chunked framing and gzip on the wire
    ("/doc.pdf", minimal_pdf()),
])
def test_the_warc_replays_the_bytes_the_site_sent(http_server: PageServer, run_dir: Path, capsys, path, expected):
    url = http_server.url(path)
    fetch(run_dir, url, capsys)
    snap = find_snapshot(run_dir, url)
    assert snap is not None and snap.archive is not None
    warc = snap.archive_path
    assert warc == run_dir / "sources" / f"{snapshot_id(url)}.warc.gz"
    raw = warc.read_bytes()
    assert snap.archive.sha256 == "sha256:" + hashlib.sha256(raw).hexdigest() and snap.archive.bytes == len(raw)
    kinds = [r[0] for r in records(warc)]
    assert kinds == ["warcinfo", "response", "request"]  # the response first, as crawlers write it
    _, response_headers, response_http, body = records(warc)[1]
    _, request_headers, request_http, _ = records(warc)[2]
    # The body warcio gives back is what the server sent, transfer and content encoding undone...
    assert hashlib.sha256(body).hexdigest() == hashlib.sha256(expected).hexdigest()
    assert snap.archive.body_sha256 == "sha256:" + hashlib.sha256(expected).hexdigest()
    # ... and the records say where and how it was asked for.
    assert response_headers.get_header("WARC-Target-URI") == url
    assert response_headers.get_header("WARC-IP-Address") == "127.0.0.1"
    assert request_headers.get_header("WARC-Concurrent-To") == response_headers.get_header("WARC-Record-ID")
    assert request_http.protocol == "GET" and request_http.get_header("Accept-Encoding") == "identity"
    assert response_http.get_statuscode() == "200"
    if path == "/chunked-gzip":
        assert response_http.get_header("Transfer-Encoding") == "chunked"
        assert response_http.get_header("Content-Encoding") == "gzip"


def test_the_wire_bytes_keep_the_chunked_framing(http_server: PageServer) -> None:
    page = fetch_page(http_server.url("/chunked-gzip"), allow_loopback=True)
    assert page.exchange is not None
    head, _, wire_body = page.exchange.response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Transfer-Encoding: chunked" in head
    assert wire_body.endswith(b"\r\n0\r\n\r\n")  # the last chunk and the end of the trailer
    assert gzip.decompress(b"".join(_dechunk(wire_body))) == page.body
    assert page.exchange.request.startswith(b"GET /chunked-gzip HTTP/1.1\r\nHost: 127.0.0.1:")


def _dechunk(data: bytes):
    stream = io.BytesIO(data)
    while True:
        size = int(stream.readline().strip(), 16)
        if size == 0:
            return
        yield stream.read(size)
        stream.readline()


def test_the_wire_is_bounded_with_the_body(http_server: PageServer, monkeypatch) -> None:
    """The archive holds no more than fetch accepts: the body's limit, and the bytes on the wire
    (headers and framing) at most MAX_WIRE_OVERHEAD beyond it."""
    from web_research.evidence import transport

    with pytest.raises(FetchError, match="larger than the 1000-byte limit"):
        fetch_page(http_server.url("/chunked-gzip"), allow_loopback=True, limits=FetchLimits(max_bytes=1000))
    body = len((PAGES_DIR / "article.html").read_bytes())
    limits = FetchLimits(max_bytes=body + 10)
    assert fetch_page(http_server.url("/article"), allow_loopback=True, limits=limits).body  # within both
    monkeypatch.setattr(transport, "MAX_WIRE_OVERHEAD", 50)  # the status line and headers alone pass 60 bytes
    with pytest.raises(FetchError, match=f"sent more than {body + 60} bytes"):
        fetch_page(http_server.url("/article"), allow_loopback=True, limits=limits)


def test_the_hook_seals_the_warc_with_the_text(http_server: PageServer, run_dir: Path, capsys, tmp_path) -> None:
    from web_research.guard.effects import seals

    url = http_server.url("/article")
    out = fetch(run_dir, url, capsys)
    env = {"WEB_RESEARCH_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)}
    seals.after_fetch(env, str(run_dir), url, 0, out, "agent-1", "slug")
    folded = ledger.seals(seals.ledger_entries(env, str(run_dir)))
    rel = f"sources/{snapshot_id(url)}.warc.gz"
    assert folded[rel].artifact == ledger.ARCHIVE
    source = SealSource(folded, LEDGER, required=True)
    assert all(c.ok for c in provenance_checks(run_dir, source))
    (run_dir / rel).write_bytes((run_dir / rel).read_bytes() + b"\n")  # one byte more: an edited archive
    failing = [c for c in provenance_checks(run_dir, source) if not c.ok]
    assert any(rel in c.message and "page archive (WARC) changed" in c.message for c in failing)


def test_verify_deep_extracts_every_page_again(http_server: PageServer, run_dir: Path, capsys) -> None:
    for path in ("/article", "/chunked-gzip", "/doc.pdf", "/plain.txt"):
        fetch(run_dir, http_server.url(path), capsys)
    results, problems = reextract_run(run_dir)
    assert problems == [] and [r.state for r in results] == [SAME] * 4, [r.detail for r in results]
    # A stored text changed by hand (its record recomputed to match) no longer comes out of its page.
    snap = find_snapshot(run_dir, http_server.url("/article"))
    text = snap.text().replace("Enterprise plans start at $20,000", "Enterprise plans start at $2,000")
    snap.text_path.write_text(text, encoding="utf-8")
    meta = json.loads(snap.meta_path.read_text(encoding="utf-8"))
    meta["sha256"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    meta["chars"] = len(text)
    snap.meta_path.write_text(json.dumps(meta), encoding="utf-8")
    main(["verify", str(run_dir), "--deep", "--json"])
    checks = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["id"] == "archive.reextracted"]
    assert checks[0]["ok"] and "3 of 4 page(s) extracted again from their WARC give their stored text" \
        in checks[0]["message"]
    [failing] = [c for c in checks if not c["ok"]]
    assert failing["severity"] == "error" and f"{snap.text_path.name} at character" in failing["message"]
    assert "start at $2,000" in failing["message"] and "start at $20,000" in failing["message"]
    assert main(["verify", str(run_dir), "--deep"]) == EXIT_CHECK_FAILED


def test_a_damaged_warc_is_named(http_server: PageServer, run_dir: Path, capsys) -> None:
    url = http_server.url("/article")
    fetch(run_dir, url, capsys)
    snap = find_snapshot(run_dir, url)
    raw = gzip.decompress(snap.archive_path.read_bytes()).replace(b"Enterprise plans", b"Enterprise plant")
    snap.archive_path.write_bytes(raw)  # a WARC may be stored uncompressed: warcio reads it, and checks it
    with pytest.raises(ArchiveError, match="not a readable WARC .*[Dd]igest"):
        read_warc(snap.archive_path, run_dir)
    results, _ = reextract_run(run_dir)
    assert results[0].state == "broken" and snap.archive_path.name in results[0].detail


def unarchived_example(folder: Path) -> Path:
    """A copy of the example as a run from before fetch kept WARCs: no WARC, no `archive` in its records."""
    copy_example_to(folder)
    for meta_path in (folder / "sources").glob("*.json"):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        (folder / "sources" / meta.pop("archive")["file"]).unlink()
        meta_path.write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return folder


def test_the_examples_reconstructed_warcs_say_so_and_give_its_stored_texts(capsys) -> None:
    """The example's sites are fictional: each WARC says it is a reconstruction, and extracting
    every page again from them gives the stored texts (tests/example_evidence.py made them)."""
    results, problems = reextract_run(EXAMPLE)
    assert problems == [] and len(results) == 9 and {r.state for r in results} == {SAME}
    for snap in (r.snapshot for r in results):
        info = records(snap.archive_path)[0]
        assert info[0] == "warcinfo" and b"a reconstruction: the bundled example's sites are fictional" in info[3]
    assert main(["verify", str(EXAMPLE), "--deep"]) == EXIT_OK, capsys.readouterr().out


def test_a_run_from_before_archiving_says_never_archived_and_passes(tmp_path: Path, capsys) -> None:
    run = unarchived_example(tmp_path / "example")
    results, problems = reextract_run(run)
    assert problems == [] and results and {r.state for r in results} == {NEVER_ARCHIVED}
    assert main(["verify", str(run), "--deep", "--verbose"]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"{len(results)} page(s) never archived" in out and "nothing fails for it" in out


def test_a_record_naming_a_warc_elsewhere_is_refused(run_dir: Path) -> None:
    from web_research.evidence.snapshots import SnapshotError

    sources = run_dir / "sources"
    sources.mkdir()
    (sources / "a.txt").write_text("x", encoding="utf-8")
    meta = {"requested_url": "https://a.example/", "final_url": "https://a.example/", "title": "", "status": 200,
            "content_type": "text/html", "retrieved_at": "", "sha256": "", "chars": 1, "extractor": "",
            "text_file": "a.txt", "archive": {"file": "../x.warc.gz", "sha256": "", "bytes": 0,
                                                "body_sha256": "", "ms": 0}}
    (sources / "a.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(SnapshotError, match="archive.file"):
        load_snapshot(sources / "a.json")


def test_recheck_compares_the_live_bytes_with_the_archived_ones(http_server: PageServer, run_dir: Path,
                                                                capsys) -> None:
    from web_research.evidence.extraction import ExtractLimits
    from web_research.recheck.live import Transport
    from web_research.recheck.record import BYTES_CHANGED, BYTES_SAME
    from web_research.recheck.session import recheck_run

    quote = "Enterprise customers commit to a monthly volume for each product."
    kept = http_server.serve("/kept", f"Commitments\n\n{quote}\n")
    edited = http_server.serve("/edited", f"Commitments\n\n{quote}\n")
    for url in (kept, edited):
        fetch(run_dir, url, capsys)
    (run_dir / formats.REPORT_FILE).write_text(
        "# Research: q\n\n## Sources\n\n" + "".join(
            f"[^{n}]: **Title**: Page\n      **URL**: {url}\n      **Excerpt**: \"{quote}\"\n\n"
            for n, url in ((1, kept), (2, edited))), encoding="utf-8")
    http_server.serve("/edited", f"Commitments\n\n{quote}\n\nA line added since.\n")
    transport = Transport(FetchLimits(timeout_s=5), ExtractLimits(timeout_s=20), allow_loopback=True)
    record = recheck_run(run_dir, transport).record
    assert {p.url: p.bytes for p in record.pages} == {kept: BYTES_SAME, edited: BYTES_CHANGED}
    from web_research.commands.recheck_cmd import bytes_lines

    assert bytes_lines(record) == [f"Bytes: 1 of 2 archived page(s) send the same body as their WARC; changed: {edited}"]


def test_recheck_of_a_run_from_before_archiving_says_never_archived(tmp_path: Path) -> None:
    from recheck_example import example_output

    text, _ = example_output(unarchived_example(tmp_path / "example"))
    assert "Bytes: 7 page(s) never archived (fetched before fetch kept a WARC), so no bytes to compare" in text


def test_the_runs_archive_figures_reach_the_page_and_the_closing_note(http_server: PageServer, run_dir: Path,
                                                                        capsys) -> None:
    from web_research.guard.effects.ending import summary
    from web_research.evidence.snapshots import SnapshotIndex
    from web_research.view.data import archive_figures

    for path in ("/article", "/doc.pdf"):
        fetch(run_dir, http_server.url(path), capsys)
    figures = archive_figures(SnapshotIndex.build(run_dir))
    sizes = sum(p.stat().st_size for p in (run_dir / "sources").glob("*.warc.gz"))
    assert (figures["pages"], figures["archived"], figures["bytes"]) == (2, 2, sizes)
    assert figures["text"].startswith(f"2 of 2 page(s) archived as fetched (WARC, {sizes / 1024:.1f} KB in all); "
                                      "archiving added ")
    note = summary({"archive": figures}, str(run_dir), None, [], "web-research")
    assert f"Pages: {figures['text']}" in note
    old = unarchived_example(run_dir.parent / "example")
    never = archive_figures(SnapshotIndex.build(old))
    assert never["archived"] == 0 and "none of the 9 page(s) was archived" in never["text"]
    assert "Pages:" not in summary({"archive": never}, str(old), None, [], "web-research")


def test_the_panel_names_each_pages_warc_or_says_it_was_never_archived(http_server: PageServer, run_dir: Path,
                                                                         capsys) -> None:
    from web_research.view.data import archive_line, gather

    url = http_server.url("/article")
    fetch(run_dir, url, capsys)
    snap = find_snapshot(run_dir, url)
    assert archive_line(snap) == (f"sources/{snap.archive.file} (WARC, {snap.archive.bytes / 1024:.1f} KB: the page as "
                                  "the site sent it)")
    notes = gather(unarchived_example(run_dir.parent / "example"))["footnotes"]
    assert notes and {n["snapshot"]["archive"] for n in notes if n["snapshot"]} == {
        "never archived (fetched before fetch kept the page's WARC)"}


def test_each_redirect_is_archived_before_the_page(http_server: PageServer, run_dir: Path, capsys) -> None:
    url = http_server.url("/redirect/2")
    fetch(run_dir, url, capsys)
    snap = find_snapshot(run_dir, url)
    got = [(kind, headers.get_header("WARC-Target-URI"), http.get_statuscode() if kind == "response" else None)
           for kind, headers, http, _ in records(snap.archive_path)]
    hops = [http_server.url(p) for p in ("/redirect/2", "/redirect/1", "/redirect/0", "/article")]
    assert got == [("warcinfo", None, None)] + [item for hop, status in zip(hops, ("302", "302", "302", "200"))
                                                for item in (("response", hop, status), ("request", hop, None))]
    assert read_warc(snap.archive_path, run_dir).page.final_url == hops[-1]  # the page is the last response
    results, _ = reextract_run(run_dir)
    assert [r.state for r in results] == [SAME]


def test_a_redirect_whose_body_runs_to_a_held_close_is_not_waited_for(http_server: PageServer) -> None:
    import time

    started = time.monotonic()
    page = fetch_page(http_server.url("/redirect-held-open"), allow_loopback=True, limits=FetchLimits(timeout_s=4))
    assert page.final_url == http_server.url("/article") and time.monotonic() - started < 3
    [(hop, exchange)] = page.redirect_exchanges
    assert hop == http_server.url("/redirect-held-open") and exchange.response.startswith(b"HTTP/1.1 302")


def test_an_independent_reader_accepts_the_warc_and_meets_each_response_before_its_request(
        http_server: PageServer, run_dir: Path, capsys) -> None:
    """Issue 45: warcat refused request-before-response ("Concurrent Record ID ... not seen yet").
    FastWARC (Resiliparse, written apart from warcio) reads every record, and its `fastwarc check`
    verifies every block and payload digest;
    each request's WARC-Concurrent-To names a response already read, and every hop has its own
    capture time, taken when its response arrived (before extraction)."""
    fastwarc = pytest.importorskip("fastwarc.warc")
    url = http_server.url("/redirect/2")
    began = datetime.now(timezone.utc)
    out = fetch(run_dir, url, capsys)
    snap = find_snapshot(run_dir, url)
    seen: set[str] = set()
    dates: dict[str, str] = {}
    kinds = []
    with snap.archive_path.open("rb") as stream:
        for record in fastwarc.ArchiveIterator(stream, parse_http=False):
            headers = dict(record.headers)
            kinds.append(headers["WARC-Type"])
            if headers["WARC-Type"] == "request":
                assert headers["WARC-Concurrent-To"] in seen, headers
                assert headers["WARC-Date"] == dates[headers["WARC-Concurrent-To"]]
            if headers["WARC-Type"] == "response":
                dates[record.record_id] = headers["WARC-Date"]
            seen.add(record.record_id)
    assert kinds == ["warcinfo"] + ["response", "request"] * 4
    checked = subprocess.run([str(Path(sys.executable).parent / "fastwarc"), "check", "--verify-payloads", "--quiet",
                              str(snap.archive_path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr  # every block and payload digest
    times = [datetime.fromisoformat(d.replace("Z", "+00:00")) for d in dates.values()]
    assert len(set(times)) == 4 and times == sorted(times) and began <= times[0]
    retrieved = datetime.fromisoformat(snap.retrieved_at)
    assert retrieved == times[-1].replace(microsecond=0)  # the page's arrival, not the end of extraction
    assert f"retrieved {snap.retrieved_at}" in out
