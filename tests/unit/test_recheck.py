"""`web-research recheck` against a local page server: each state a citation can be in, the
limits and the address policy it shares with `fetch`, and the run's evidence left byte for byte."""
from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from page_server import PageServer
from web_research import formats
from web_research.cli import main
from web_research.evidence.extraction import ExtractLimits
from web_research.evidence.snapshots import store_snapshot
from web_research.evidence.transport import FetchLimits, HostNotFound, system_resolver
from web_research.exitcodes import EXIT_CHECK_FAILED, EXIT_NO_VERDICT, EXIT_OK, EXIT_USAGE
from web_research.recheck.live import LivePage, Transport, fetch_each
from web_research.recheck.record import (CHANGED, GONE, MOVED, UNCHANGED, UNREACHABLE, Change, latest_recheck,
                                         record_files)
from web_research.recheck.session import RecheckInputError, recheck_run

RETENTION = ("Indexed retention defaults to 15 days. The 30-day and 90-day options are billed at 1.6x and 3x "
             "the 15-day rate.")
COMMITMENT = "Enterprise customers commit to a monthly volume for each product."
TRUE_UP = "Overage is reconciled quarterly and invoiced at your contracted per-GB rate, not the list price."
PAGE_BEFORE = "Retention periods and archives\n\n{quote}\n\nArchives are kept in object storage for a year.\n"
LOOPBACK = Transport(FetchLimits(timeout_s=5), ExtractLimits(timeout_s=20), allow_loopback=True)


def _report(entries: list[tuple[int, str, str]]) -> str:
    lines = ["# Research: how are logs priced?", "", "## TL;DR", "", "- Retention costs more [^1].", "",
             "## Sources", ""]
    for number, url, excerpt in entries:
        lines += [f"[^{number}]: **Title**: Page {number}", f"      **URL**: {url}",
                  f"      **Excerpt**: \"{excerpt}\"", "      **Source type**: official-docs", ""]
    return "\n".join(lines)


def _run(tmp_path: Path, entries: list[tuple[int, str, str]], snapshots: dict[str, str] | None = None) -> Path:
    """A finished run folder citing `entries` (number, URL, excerpt), with a sealed-style snapshot
    of each URL in `snapshots` (URL -> the page text on the day of the run)."""
    run = tmp_path / "run"
    (run / formats.FINDINGS_DIR).mkdir(parents=True)
    (run / formats.PLAN_FILE).write_text("# Research plan\n", encoding="utf-8")
    (run / formats.REPORT_FILE).write_text(_report(entries), encoding="utf-8")
    (run / formats.FINDINGS_DIR / "retention.md").write_text("---\nstatus: ok\n---\n", encoding="utf-8")
    for url, text in (snapshots or {}).items():
        store_snapshot(run, requested_url=url, final_url=url, title="Page", status=200,
                       content_type="text/plain", retrieved_at="2026-04-18T09:00:00+00:00", text=text,
                       extractor="text/plain")
    return run


def _evidence(run: Path) -> dict[str, str]:
    """Every file of the run outside what a recheck writes, by path, with its SHA-256."""
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(run.rglob("*"))
            if p.is_file() and p.relative_to(run).parts[0] != formats.RECHECKS_DIR
            and not p.name.startswith(formats.RECHECK_FILE_PREFIX)}


@pytest.fixture
def server():
    with PageServer() as page_server:
        yield page_server


def test_each_state_with_its_evidence_and_the_run_untouched(server: PageServer, tmp_path: Path) -> None:
    same = server.serve("/same", PAGE_BEFORE.format(quote=COMMITMENT))
    figure = server.serve("/retention", PAGE_BEFORE.format(quote=RETENTION.replace("1.6x", "1.8x")))
    server.serve("/true-up-2026", f"True-up billing\n\n{TRUE_UP}\n")
    moved = server.serve("/true-up", b"", status=301, headers={"Location": "/true-up-2026"})
    gone = server.serve("/retired", "<html><body>not here</body></html>", status=404)
    run = _run(tmp_path, [(1, same, COMMITMENT), (2, figure, RETENTION), (3, moved, TRUE_UP), (4, gone, COMMITMENT)],
               snapshots={same: PAGE_BEFORE.format(quote=COMMITMENT), figure: PAGE_BEFORE.format(quote=RETENTION),
                          moved: TRUE_UP, gone: COMMITMENT})
    before = _evidence(run)

    result = recheck_run(run, LOOPBACK)
    states = {c.number: c for c in result.record.citations}
    assert {n: c.state for n, c in states.items()} == {1: UNCHANGED, 2: CHANGED, 3: MOVED, 4: GONE}

    assert states[1].excerpt_found is True and states[1].status == 200 and states[1].in_snapshot is True
    changed = states[2]
    assert changed.figures == (Change("1.6x", "1.8x"),)
    assert Change("1.6x", "1.8x") in changed.differences
    assert "billed at 1.8x and 3x the 15-day rate" in (changed.closest or "")
    assert "figure changed: 1.6x -> 1.8x" in changed.note and changed.in_snapshot is True
    assert states[3].moved_to == server.url("/true-up-2026") and states[3].excerpt_found is True
    assert states[3].status == 200 and states[3].url == moved
    assert states[4].status == 404 and "404" in states[4].note and states[4].excerpt_found is None

    assert _evidence(run) == before  # report, findings, snapshots: byte for byte
    live = run / result.record.live_dir
    stored = sorted(p.name for p in live.iterdir())
    assert len(stored) == 3  # the three pages that answered; the gone one has no text
    page = next(p for p in result.record.pages if p.url == figure)
    assert "1.8x" in (run / page.live_text).read_text(encoding="utf-8")
    assert latest_recheck(run) == result.record


def test_a_page_that_stalls_past_the_deadline_is_unreachable_and_no_verdict(server: PageServer, tmp_path) -> None:
    stall = server.serve("/stall-here", 6.0)
    run = _run(tmp_path, [(1, stall, COMMITMENT)], snapshots={stall: COMMITMENT})
    began = time.monotonic()
    result = recheck_run(run, Transport(FetchLimits(timeout_s=0.5), allow_loopback=True))
    assert time.monotonic() - began < 5  # the deadline ended it, not the page
    (citation,) = result.record.citations
    assert citation.state == UNREACHABLE and citation.status is None
    assert citation.note.startswith("no verdict: ") and "timed out after 0.5 s" in citation.note


def test_a_page_grown_past_the_size_limit_is_unreachable(server: PageServer, tmp_path: Path) -> None:
    grown = server.serve("/grown", (COMMITMENT + "\n") * 4000)  # ~270 KB
    run = _run(tmp_path, [(1, grown, COMMITMENT)], snapshots={grown: COMMITMENT})
    result = recheck_run(run, Transport(FetchLimits(timeout_s=5, max_bytes=100_000), allow_loopback=True))
    (citation,) = result.record.citations
    assert citation.state == UNREACHABLE
    assert "larger than the 100000-byte limit" in citation.note
    assert result.record.pages[0].live_text is None


def test_text_kept_short_of_the_excerpt_is_no_verdict(server: PageServer, tmp_path: Path) -> None:
    """The page still downloads, but its text has grown past what extraction keeps, and the
    excerpt lies beyond: it may still be there, so no verdict."""
    grown = server.serve("/long", "Preamble. " * 300 + COMMITMENT)
    run = _run(tmp_path, [(1, grown, COMMITMENT)])
    result = recheck_run(run, Transport(FetchLimits(timeout_s=5), ExtractLimits(max_chars=1000),
                                        allow_loopback=True))
    (citation,) = result.record.citations
    assert citation.state == UNREACHABLE and "longer than the text kept" in citation.note
    assert result.record.pages[0].truncated is True


def test_a_host_that_now_resolves_to_a_private_address_is_refused_as_fetch_refuses_it(server, tmp_path) -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["10.20.30.40"] if host == "docs.acme.example" else ["127.0.0.1"]

    redirect = server.serve("/to-private", b"", status=302, headers={"Location": "http://192.168.1.10/admin"})
    run = _run(tmp_path, [(1, "http://docs.acme.example/logs/retention", RETENTION), (2, redirect, COMMITMENT)])
    result = recheck_run(run, Transport(FetchLimits(timeout_s=5), allow_loopback=True, resolver=resolver))
    states = {c.number: c for c in result.record.citations}
    assert states[1].state == UNREACHABLE
    assert "refused http://docs.acme.example/logs/retention: docs.acme.example resolves to 10.20.30.40 is a " \
           "private address" in states[1].note
    assert states[2].state == UNREACHABLE and "192.168.1.10 is a private address" in states[2].note
    assert [path for path, _ in server.requests] == ["/to-private"]  # nothing went to the private addresses

    loopback = _run(tmp_path / "second", [(1, server.url("/same"), COMMITMENT)])
    (citation,) = recheck_run(loopback, Transport(FetchLimits(timeout_s=5))).record.citations
    assert citation.state == UNREACHABLE and "127.0.0.1 is a loopback address" in citation.note


def test_a_name_that_does_not_resolve_is_unreachable_never_gone(server: PageServer, tmp_path: Path) -> None:
    """Issue 45: a failed lookup says nothing about the site (offline, a resolver that does not
    know the name): no verdict. Gone is an answer from the site itself."""
    def resolver(host: str, port: int) -> list[str]:
        if host == "retired.example":
            raise HostNotFound(f"cannot resolve host {host!r}: [Errno -2] Name or service not known")
        return ["127.0.0.1"]

    run = _run(tmp_path, [(1, "https://retired.example/pricing", COMMITMENT)])
    (citation,) = recheck_run(run, Transport(allow_loopback=True, resolver=resolver)).record.citations
    assert citation.state == UNREACHABLE and "the name retired.example does not resolve here" in citation.note
    assert "cannot tell that the site is gone" in citation.note


@pytest.mark.parametrize("errno", ["EAI_NONAME", "EAI_AGAIN"])
def test_offline_every_source_of_the_example_is_unreachable_and_nothing_is_written_into_it(
        tmp_path: Path, capsys, monkeypatch, errno) -> None:
    """With no resolver to ask (no such name, or no answer), the bundled example's recheck gives
    each source "unreachable" and exit 3; with --out it writes nothing into the example."""
    from recheck_example import EXAMPLE

    def getaddrinfo(*args, **kwargs):
        raise socket.gaierror(getattr(socket, errno), "offline")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    before = {p: p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()}
    code, out, _ = _recheck(capsys, str(EXAMPLE), "--out", str(tmp_path / "recheck"))
    assert code == EXIT_NO_VERDICT, out
    states = [line.split()[1] for line in out.splitlines() if line.startswith("  [^")]
    assert len(states) == 9 and set(states) == {UNREACHABLE}, out
    assert "Summary: 9 citations: 0 unchanged, 0 changed, 0 moved, 0 gone, 9 unreachable" in out
    assert out.count("does not resolve here") == 9, out
    assert {p: p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()} == before
    assert f"Record: {tmp_path / 'recheck'}/checks/recheck-" in out and len(record_files(tmp_path / "recheck")) == 1


def test_dns_no_such_name_and_a_failed_lookup_are_told_apart(monkeypatch) -> None:
    def answer(errno: int):
        def getaddrinfo(*args, **kwargs):
            raise socket.gaierror(errno, "lookup")
        return getaddrinfo

    monkeypatch.setattr(socket, "getaddrinfo", answer(socket.EAI_NONAME))
    with pytest.raises(HostNotFound):
        system_resolver("retired.example", 443)
    monkeypatch.setattr(socket, "getaddrinfo", answer(socket.EAI_AGAIN))
    with pytest.raises(Exception) as raised:
        system_resolver("retired.example", 443)
    assert not isinstance(raised.value, HostNotFound)  # could not ask: unreachable, not gone


def test_a_folder_whose_snapshots_are_missing_is_still_rechecked(server: PageServer, tmp_path: Path) -> None:
    same = server.serve("/same", PAGE_BEFORE.format(quote=COMMITMENT))
    figure = server.serve("/retention", PAGE_BEFORE.format(quote=RETENTION.replace("1.6x", "1.8x")))
    run = _run(tmp_path, [(1, same, COMMITMENT), (2, figure, RETENTION)])
    assert not (run / formats.SOURCES_DIR).exists()
    states = {c.number: c for c in recheck_run(run, LOOPBACK).record.citations}
    assert states[1].state == UNCHANGED and states[1].snapshot is None and states[1].in_snapshot is None
    assert states[2].state == CHANGED and states[2].figures == (Change("1.6x", "1.8x"),)
    assert "keeps no snapshot of the page" in states[2].note


def test_a_url_cited_twice_is_fetched_once(server: PageServer, tmp_path: Path) -> None:
    page = server.serve("/same", PAGE_BEFORE.format(quote=COMMITMENT) + RETENTION)
    run = _run(tmp_path, [(1, page, COMMITMENT), (2, page + "#retention", RETENTION)])
    result = recheck_run(run, LOOPBACK)
    assert [c.state for c in result.record.citations] == [UNCHANGED, UNCHANGED]
    assert [path for path, _ in server.requests] == ["/same"] and len(result.record.pages) == 1


def test_the_pool_fetches_a_few_pages_at_a_time_and_reports_progress() -> None:
    lock, running, peak = threading.Lock(), [0], [0]

    def fake(url: str, transport: Transport) -> LivePage:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return LivePage(url, "answered", 200, url, "text", False, None, "2026-05-02T10:15:00Z", 0.05)

    seen: list[tuple[int, int]] = []
    urls = [f"https://site.example/{n}" for n in range(12)]
    pages = list(fetch_each(urls + urls[:3], Transport(), workers=3, progress=lambda d, t: seen.append((d, t)),
                            fetch=fake))
    assert sorted(p.url for p in pages) == sorted(urls)
    assert peak[0] == 3
    assert seen == [(n, 12) for n in range(1, 13)]


def test_two_rechecks_keep_two_records(server: PageServer, tmp_path: Path) -> None:
    page = server.serve("/same", COMMITMENT)
    run = _run(tmp_path, [(1, page, COMMITMENT)])
    first = recheck_run(run, LOOPBACK)
    server.serve("/same", "The page was rewritten entirely and says something else now.")
    second = recheck_run(run, LOOPBACK)
    assert first.path != second.path and [p.name for p in record_files(run)] == [first.path.name, second.path.name]
    assert json.loads(first.path.read_text(encoding="utf-8"))["citations"][0]["state"] == UNCHANGED
    latest = latest_recheck(run)
    assert latest is not None and latest.citations[0].state == CHANGED
    assert "the page has no similar passage" in latest.citations[0].note
    assert len(list((run / formats.RECHECKS_DIR).iterdir())) == 2


# --- the command ----------------------------------------------------------------------

def _recheck(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["recheck", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_each_footnote_and_exits_by_the_worst_state(server: PageServer, tmp_path: Path,
                                                                       capsys) -> None:
    same = server.serve("/same", PAGE_BEFORE.format(quote=COMMITMENT))
    figure = server.serve("/retention", PAGE_BEFORE.format(quote=RETENTION.replace("1.6x", "1.8x")))
    run = _run(tmp_path, [(1, same, COMMITMENT), (2, figure, RETENTION)])

    code, out, err = _recheck(capsys, str(run), "--allow-loopback")
    assert code == EXIT_CHECK_FAILED
    assert "web-research recheck: 2 of 2 pages" in err
    assert f"  [^1] unchanged    {same}" in out and f"  [^2] changed      {figure}" in out
    assert "figure changed: 1.6x -> 1.8x" in out
    assert 'closest live passage: "Indexed retention defaults to 15 days.' in out
    assert "Summary: 2 citations: 1 unchanged, 1 changed, 0 moved, 0 gone, 0 unreachable" in out

    code, out, _ = _recheck(capsys, str(run), "--allow-loopback", "--only", "1")
    assert code == EXIT_OK and "[^2]" not in out

    code, out, _ = _recheck(capsys, str(run), "--allow-loopback", "--only", "2", "--json")
    data = json.loads(out)
    assert code == EXIT_CHECK_FAILED and data["only"] == [2] and data["citations"][0]["figures"] == [
        {"was": "1.6x", "now": "1.8x"}]
    assert Path(data["record"]).is_file()


def test_live_page_text_reaches_the_terminal_without_control_characters(server: PageServer, tmp_path: Path,
                                                                          capsys) -> None:
    """The live page is hostile: a bidi override that shows 15 as 51, an escape sequence that
    clears the line. recheck shows the closest passage without them (as the run's ending does),
    and --json keeps them as escapes, the same text for a program."""
    live = RETENTION.replace("15 days", "\u202e15\u202c days\x1b[2K\x9b2J").replace("1.6x", "1.8x")
    url = server.serve("/retention", PAGE_BEFORE.format(quote=live))
    run = _run(tmp_path, [(1, url, RETENTION)])
    code, out, _ = _recheck(capsys, str(run), "--allow-loopback")
    assert code == EXIT_CHECK_FAILED and "closest live passage" in out, out
    assert 'closest live passage: "Indexed retention defaults to 15 days[2K2J.' in out, out
    assert not any(ch in out for ch in "\u202e\u202c\x1b\x9b")
    code, out, _ = _recheck(capsys, str(run), "--allow-loopback", "--json")
    assert not any(ch in out for ch in "\u202e\u202c\x1b\x9b") and "\\u202e" in out, out
    assert "\u202e15\u202c" in json.loads(out)["citations"][0]["closest"]


def test_only_unreachable_pages_are_their_own_exit_code(server: PageServer, tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    same = server.serve("/same", COMMITMENT)
    stall = server.serve("/stall-here", 10.0)
    run = _run(tmp_path, [(1, same, COMMITMENT), (2, stall, COMMITMENT)])
    monkeypatch.setenv("WEB_RESEARCH_FETCH_TIMEOUT", "3")  # time enough for the page that answers
    code, out, _ = _recheck(capsys, str(run), "--allow-loopback")
    assert code == EXIT_NO_VERDICT
    assert "1 unreachable: no verdict on those" in out


@pytest.mark.parametrize("setup, argv, words", [
    (lambda run: (run / formats.PLAN_FILE).unlink() or (run / formats.REPORT_FILE).unlink(), [], "not a run folder"),
    (lambda run: (run / formats.REPORT_FILE).unlink(), [], "report.md does not exist"),
    (lambda run: None, ["--only", "9"], "--only: no footnote [^9]"),
    (lambda run: (run / formats.REPORT_FILE).write_text("# Research: x\n", encoding="utf-8"), [],
     "cites no page"),
    (lambda run: (run / formats.REPORT_FILE).write_bytes(b"# Research: x\n\xe9t\xe9\n"), [],
     "report.md is not UTF-8 text: line 2, column 1"),
])
def test_what_cannot_be_rechecked_is_exit_2_with_one_line(tmp_path: Path, capsys, setup, argv, words) -> None:
    run = _run(tmp_path, [(1, "http://127.0.0.1:9/", COMMITMENT)])
    setup(run)
    code, out, err = _recheck(capsys, str(run), *argv)
    assert code == EXIT_USAGE and out == ""
    assert words in err and err.count("\n") == 1
    assert not (run / formats.CHECKS_DIR).exists() and not (run / formats.RECHECKS_DIR).exists()


def test_bad_only_numbers_are_an_argument_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["recheck", str(tmp_path), "--only", "2,x"])
    assert done.value.code == EXIT_USAGE
    assert "expected footnote numbers" in capsys.readouterr().err


def test_recheck_input_errors_name_the_report_and_the_line(tmp_path: Path) -> None:
    run = _run(tmp_path, [(1, "http://127.0.0.1:9/", COMMITMENT)])
    (run / formats.REPORT_FILE).write_bytes(b"# Research: x\n\nBilled per GB \xff here.\n")
    with pytest.raises(RecheckInputError, match=r"^report.md is not UTF-8 text: line 3, column 15 holds the byte 0xff"):
        recheck_run(run, LOOPBACK)


def test_status_shows_the_date_and_summary_of_the_latest_recheck(server: PageServer, tmp_path: Path,
                                                                 capsys) -> None:
    page = server.serve("/same", COMMITMENT)
    run = _run(tmp_path, [(1, page, COMMITMENT)])
    assert main(["status", str(run)]) == EXIT_OK
    assert "Recheck:" not in capsys.readouterr().out  # never rechecked: nothing said
    result = recheck_run(run, LOOPBACK)
    assert main(["status", str(run)]) == EXIT_OK
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Recheck: "))
    when = result.record.started_at.replace("T", " ")[:16]
    assert line == (f"Recheck: {when} UTC: 1 citation: 1 unchanged, 0 changed, 0 moved, 0 gone, 0 unreachable "
                    f"(checks/{result.path.name})")
    assert main(["status", str(run), "--json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)["recheck"]
    assert data["at"] == result.record.started_at and data["summary"]["unchanged"] == 1
    (run / formats.REPORT_FILE).write_text(_report([(1, page, COMMITMENT), (2, page, COMMITMENT)]), encoding="utf-8")
    assert main(["status", str(run)]) == EXIT_OK
    assert f"(checks/{result.path.name}; report.md has changed since)" in capsys.readouterr().out
    result.path.write_text("{}", encoding="utf-8")
    assert main(["status", str(run)]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"Recheck: the latest record cannot be read: checks/{result.path.name}: field 'version' is missing" in out


def test_the_readme_shows_what_recheck_prints_for_the_bundled_example() -> None:
    from recheck_example import EXAMPLE, example_output

    before = _evidence(EXAMPLE)
    text, code = example_output()
    assert code == EXIT_CHECK_FAILED
    for state in (UNCHANGED, CHANGED, MOVED, GONE, UNREACHABLE):
        assert f"] {state} " in text
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"```text\n{text}\n```" in readme, "README.md: paste `python tests/unit/recheck_example.py`'s output"
    assert _evidence(EXAMPLE) == before and not (EXAMPLE / formats.RECHECKS_DIR).exists()


def test_footnotes_the_record_cannot_hold_are_skipped_and_said(server: PageServer, tmp_path: Path, capsys) -> None:
    page = server.serve("/same", COMMITMENT)
    long_url = server.url("/" + "a" * 9000)
    run = _run(tmp_path, [(1, page, COMMITMENT), (2, long_url, COMMITMENT), (0, page, COMMITMENT)])
    (run / formats.REPORT_FILE).write_text((run / formats.REPORT_FILE).read_text(encoding="utf-8")
                                           + "\n[^3]: **Title**: No excerpt\n      **URL**: " + page + "\n",
                                           encoding="utf-8")
    code, out, _ = _recheck(capsys, str(run), "--allow-loopback")
    assert code == EXIT_OK
    assert "  [^2] skipped: a URL longer than 8192 characters, nothing to recheck" in out
    assert "  [^0] skipped: not a footnote number" in out and "  [^3] skipped: no excerpt" in out
    assert [c.number for c in latest_recheck(run).citations] == [1]


def test_what_the_web_says_is_cut_to_the_records_bounds(server: PageServer, tmp_path: Path) -> None:
    far = server.serve("/far", b"", status=302, headers={"Location": "/" + "b" * 9000})
    run = _run(tmp_path, [(1, far, COMMITMENT)])
    result = recheck_run(run, LOOPBACK)  # the record is written: every string fits its schema
    (page,) = result.record.pages
    assert page.outcome == "gone" and page.status == 404
    assert len(page.final_url or "") == 8192 and len(page.error or "") == 2000
    assert len(result.record.citations[0].note) <= 3000 and latest_recheck(run) == result.record
