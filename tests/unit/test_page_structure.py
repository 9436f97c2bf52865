"""Where a page says it (issue 43): the checker's context for an excerpt comes from the page's own
structure, read from its archived HTML (evidence/page_structure.py, in the bounded child of
structure_child.py), with the stored text's context as the fallback (excerpt_context.py).

Built on real pages: the extraction benchmark's committed Python and PostgreSQL pages (CI has
them), and pages of the held-out documentation packages where installed (python3.11-doc,
postgresql-doc-15; skipped otherwise). Each case has its honest form beside it."""
from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from example_run import copy_example, replace_once, without_verdicts
from web_research import formats
from web_research.checks.checklist import parse_and_check
from web_research.evidence.archive import body_sha256, build_warc
from web_research.evidence.excerpt_context import ExcerptContext, find_context
from web_research.evidence.extraction import extract_in_process
from web_research.evidence.matcher import StoredPage
from web_research.evidence.page_contexts import Excerpt, contexts
from web_research.evidence.snapshots import SnapshotIndex, store_snapshot
from web_research.evidence.structure_child import PageRequest
from web_research.evidence.transport import Exchange, FetchedPage
from web_research.report.claim_checker import prompt_for_run

PAGES = Path(__file__).resolve().parents[1] / "benchmarks" / "extraction" / "pages"
PYTHON_DOC = Path("/usr/share/doc/python3.11/html")
POSTGRES_DOC = Path("/usr/share/doc/postgresql-doc-15/html")


def _body(name: str) -> bytes:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())


def _stored(body: bytes) -> str:
    """The page's stored text, as `fetch` extracts it."""
    return extract_in_process(FetchedPage("https://x.example/", "https://x.example/", 200, "text/html", "utf-8",
                                          body)).text


_CACHE: dict[object, tuple[bytes, StoredPage]] = {}


def _page(source: str | Path) -> tuple[bytes, StoredPage]:
    if source not in _CACHE:
        body = source.read_bytes() if isinstance(source, Path) else _body(source)
        _CACHE[source] = body, StoredPage(_stored(body))
    return _CACHE[source]


def in_page(source: str | Path, *excerpts: str) -> list[ExcerptContext | None]:
    """Each excerpt's context as the checker gets it, the page's HTML in hand."""
    body, page = _page(source)
    html = PageRequest((), body=body, charset="utf-8")
    return contexts([Excerpt(page, html, excerpt) for excerpt in excerpts])


def held_out(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path} is not installed (apt-get install python3.11-doc postgresql-doc-15)")
    return path


# --- A table row shows its header; a parameter's description its name ---------------------


def test_a_table_row_shows_its_header_row_and_its_label() -> None:
    [cell, row] = in_page("python-library-stdtypes", "floored quotient of x and y", "x // y | floored quotient")
    assert cell is not None and cell.columns == "Operation | Result | Notes | Full documentation"
    assert cell.column == "Result" and cell.row == "x // y"
    assert cell.heading == "Built-in Types \u203a Numeric Types \u2014 int, float, complex"
    assert cell.lead_in and cell.lead_in.startswith("All numeric types (except complex) support")
    assert row is not None and row.columns == cell.columns and row.paragraph == "x // y | floored quotient of x and y | (1) |"


def test_a_parameters_description_shows_the_parameters_name() -> None:
    [described] = in_page(held_out(POSTGRES_DOC / "runtime-config-resource.html"),
                          "Sets the base maximum amount of memory to be used by a query operation")
    assert described is not None and described.term == "work_mem (integer)"
    assert described.heading == "20.4. Resource Consumption \u203a 20.4.1. Memory"
    assert "hash_mem_multiplier" in (described.after or "")  # the next paragraph of the same definition
    assert described.paragraph and "Note that a complex query might" in described.paragraph


def test_pg_settings_shows_each_description_under_its_name() -> None:
    page = held_out(POSTGRES_DOC / "view-pg-settings.html")
    [column, value] = in_page(page, "Context required to set the parameter's value",
                              "they reflect internally determined values")
    assert column is not None and column.row == "context text" and column.columns == "Column Type Description"
    assert value is not None and value.term == "internal" and value.heading == "54.24. pg_settings"


def test_a_sphinx_methods_description_shows_its_class_and_signature() -> None:
    [described] = in_page("python-library-asyncio-task", "Create a task in this task group")
    assert described is not None
    assert described.term == "class asyncio.TaskGroup \u203a create_task(coro, *, name=None, context=None)"
    assert described.heading == "Coroutines and Tasks \u203a Task Groups"


def test_a_docbook_parameter_on_a_committed_page_shows_its_name() -> None:
    [described] = in_page("postgresql-sql-set", "Specifies that the command takes effect for only the current transaction")
    assert described is not None and described.term == "LOCAL"


def test_the_paragraph_is_whole_not_hard_wrapped_fragments() -> None:
    [found] = in_page("python-library-asyncio-task", "the remaining tasks in the group are cancelled")
    assert found is not None and found.heading == "Coroutines and Tasks \u203a Task Groups"
    assert found.paragraph and found.paragraph.startswith("The first time any of the tasks belonging to the group fails")
    assert found.paragraph.endswith("it will not bubble out of the containing async with statement.")
    assert found.after and found.after.startswith("Once all tasks have finished")


def test_an_admonition_around_the_excerpt_is_named() -> None:
    [boxed] = in_page("python-library-asyncio-task", "gather them in a collection")
    assert boxed is not None and boxed.notice and boxed.notice.startswith("Important")
    [plain] = in_page("python-library-asyncio-task", "the remaining tasks in the group are cancelled")
    assert plain is not None and plain.notice is None  # the honest form: no notice invented


def test_a_list_item_shows_its_lead_in() -> None:
    [item] = in_page("python-library-stdtypes",
                     "This is a short-circuit operator, so it only evaluates the second argument if the first one is false")
    assert item is not None and item.lead_in == "Notes:"


# --- Written cases: a lead-in two lines up, a withdrawn notice, hostile HTML ---------------

LEAD_IN = b"""<html><body><main><h1>Acme plans</h1><p>Several claims about the Standard plan circulate.
None of them is true:</p><ul><li>The Standard plan includes 50 GB of logs.</li>
<li>The Standard plan costs $15 per month.</li></ul><h2>Prices</h2>
<div class="alert alert-warning">The Standard plan was withdrawn on 1 December.</div>
<p>The Standard plan costs $15 per month for every team.</p></main></body></html>"""


def _written(body: bytes, *excerpts: str) -> list[ExcerptContext | None]:
    page = StoredPage(_stored(body))
    return contexts([Excerpt(page, PageRequest((), body=body), excerpt) for excerpt in excerpts])


def test_a_lists_lead_in_two_items_up_reaches_the_checker() -> None:
    [second] = _written(LEAD_IN, "The Standard plan costs $15 per month.")
    assert second is not None and second.lead_in and second.lead_in.endswith("None of them is true:")


NESTED = b"""<html><body><main><h1>Myths</h1><p>The following claims are false:</p><ul><li>Retention<ul>
<li>Retention is free on the Team plan.</li><li>Retention can be extended.</li></ul></li></ul>
<p>Plain facts:</p><ul><li>Archives cost less.</li></ul></main></body></html>"""


@pytest.mark.parametrize("excerpt, lead_in", [
    ("Retention is free on the Team plan.", "The following claims are false: Retention"),  # the outer one says what
    ("Archives cost less.", "Plain facts:"),  # the honest form: one list, its own lead-in alone
])
def test_a_nested_items_lead_in_holds_each_enclosing_lists(excerpt: str, lead_in: str) -> None:
    [item] = _written(NESTED, excerpt)
    assert item is not None and item.lead_in == lead_in


def test_a_withdrawn_notice_above_the_excerpt_reaches_the_checker() -> None:
    [priced] = _written(LEAD_IN, "The Standard plan costs $15 per month for every team.")
    assert priced is not None and priced.notice == "The Standard plan was withdrawn on 1 December."
    assert priced.heading == "Acme plans \u203a Prices" and priced.lead_in is None


def test_without_html_the_stored_text_gives_the_context() -> None:
    body, page = _page("python-library-stdtypes")
    [cell] = contexts([Excerpt(page, None, "floored quotient of x and y")])
    assert cell is not None and cell.columns == "Operation | Result | Notes | Full documentation"
    assert cell.row == "x // y" and cell.column == "Result"


def test_stored_text_fallback_finds_a_bare_marked_definitions_term() -> None:
    text = ("Memory\n- shared_buffers (integer)\n-\n   Sets the amount of memory the server uses\n"
            "(such as a cache) for shared memory buffers.\n- work_mem (integer)\n-\n   Sets the base maximum "
            "amount of memory to be used by a query operation\n   (such as a sort or hash table).\n")
    found = find_context("Sets the base maximum amount of memory", StoredPage(text))
    assert found is not None and found.term == "work_mem (integer)" and found.heading == "Memory"
    assert found.sentence.endswith("(such as a sort or hash table).")


def test_stored_text_fallback_finds_lead_in_and_notices() -> None:
    text = ("Acme plans\nNone of them is true:\n- The plan includes 50 GB.\n- The plan costs $15 per month.\n"
            "Prices\nNote: this plan was withdrawn on 1 December.\nThe plan costs $20 per month for every team.\n")
    item = find_context("The plan costs $15 per month", StoredPage(text))
    assert item is not None and item.lead_in == "None of them is true:"
    priced = find_context("The plan costs $20 per month", StoredPage(text))
    assert priced is not None and priced.notice == "Note: this plan was withdrawn on 1 December."
    assert priced.lead_in is None and priced.heading == "Prices"


@pytest.mark.parametrize("body", [
    b"<div>" * 100_000 + b"The plan costs $15 per month." + b"</div>" * 100_000,  # nested past any recursion
    b"<table>" + b"<tr><td>x</td></tr>" * 50_000 + b"<tr><td>The plan costs $15 per month.</td></tr></table>",
    b"\x00\xff<<<>>>&#0;<html" * 1000 + b"<p>The plan costs $15 per month.</p>",
    b"",
])
def test_hostile_html_never_breaks_a_context(body: bytes) -> None:
    page = StoredPage("Plans\nThe plan costs $15 per month.\n")
    began = time.monotonic()
    [found] = contexts([Excerpt(page, PageRequest((), body=body), "The plan costs $15 per month")])
    assert found is not None and found.sentence == "The plan costs $15 per month."
    assert time.monotonic() - began < 15


def test_a_child_that_cannot_answer_leaves_the_stored_texts_context(monkeypatch) -> None:
    from web_research.evidence import page_contexts

    monkeypatch.setattr(page_contexts, "page_structures", lambda requests: None)
    body, page = _page("python-library-stdtypes")
    [cell] = contexts([Excerpt(page, PageRequest((), body=body), "floored quotient of x and y")])
    assert cell is not None and cell.row == "x // y" and cell.paragraph is None


# --- The checker's prompt of a run whose page was archived --------------------------------


def _archive(run: Path, url: str, body: bytes) -> None:
    """Replace the run's snapshot of `url` by `body` as fetch stores it: text and WARC."""
    snap = SnapshotIndex.build(run).find(url)
    response = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
                + str(len(body)).encode() + b"\r\n\r\n" + body)
    fetched = FetchedPage(url, url, 200, "text/html", "utf-8", body,
                          exchange=Exchange(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", response, "192.0.2.1"))
    warc = build_warc(fetched, snap.retrieved_at, "page.warc.gz")
    store_snapshot(run, requested_url=url, final_url=snap.final_url, title=snap.title, status=200,
                   content_type="text/html", retrieved_at=snap.retrieved_at, text=_stored(body), extractor="test",
                   warc=warc, body_sha256=body_sha256(body))


def test_the_checker_sees_a_table_rows_header_from_the_archived_page(tmp_path: Path) -> None:
    run = without_verdicts(copy_example(tmp_path))
    replace_once(run / formats.PLAN_FILE, "## Budget\n", "## Budget\n\nTier: standard\n")
    url = "https://lumenlogs.example/pricing"
    snap = SnapshotIndex.build(run).find(url)
    text = snap.text()
    excerpt = "Every plan is priced per GB ingested."
    assert excerpt in text
    body = ("<html><body><main><h1>Pricing</h1><p>Choose a plan:</p><table><thead><tr><th>Plan</th><th>Terms</th>"
            f"</tr></thead><tr><td>All plans</td><td>{text}</td></tr></table></main></body></html>").encode()
    _archive(run, url, body)
    prompt, why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    assert prompt is not None, why
    block = prompt.text.split("Excerpt [^2] (https://lumenlogs.example/pricing)", 1)[1].split("\nExcerpt", 1)[0]
    assert '  Columns: "Plan | Terms"' in block and '  Column: "Terms"' in block and '  Row: "All plans"' in block
    assert '  Headings: "Pricing"' in block and '  Lead-in: "Choose a plan:"' in block


# --- recheck compares the same context ------------------------------------------------------

PLAN_PAGE = """<html><body><main><h1>Acme plans</h1><h2>Prices</h2>{notice}<p>Acme bills per host.</p>
<p>{above}</p><ul><li>The Pro plan includes support.</li><li>Hosts cost $15 a month on the Standard plan.</li>
</ul></main></body></html>"""


@pytest.fixture
def server():
    from page_server import PageServer

    with PageServer() as page_server:
        yield page_server


@pytest.mark.parametrize("above, notice, state", [
    ("Our plans:", "", "unchanged"),  # the same page
    ("Our plans:", '<div class="notice">The Standard plan was withdrawn on 1 December.</div>', "changed"),
    ("Our plans:", "<p>Note: the Standard plan was withdrawn.</p>", "changed"),
    ("None of the following is true:", "", "changed"),  # the list's lead-in, two items up
])
def test_recheck_reads_both_pages_the_same_way(server, tmp_path: Path, above: str, notice: str, state: str) -> None:
    from test_recheck import LOOPBACK, _run

    from web_research.recheck.session import recheck_run

    then = PLAN_PAGE.format(above="Our plans:", notice="").encode()
    url = server.serve("/plans", PLAN_PAGE.format(above=above, notice=notice), content_type="text/html; charset=utf-8")
    excerpt = "Hosts cost $15 a month on the Standard plan"
    run = _run(tmp_path, [(1, url, excerpt)])
    response = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
                + str(len(then)).encode() + b"\r\n\r\n" + then)
    fetched = FetchedPage(url, url, 200, "text/html", "utf-8", then,
                          exchange=Exchange(b"GET /plans HTTP/1.1\r\nHost: x\r\n\r\n", response, "127.0.0.1"))
    store_snapshot(run, requested_url=url, final_url=url, title="Page", status=200, content_type="text/html",
                   retrieved_at="2026-04-18T09:00:00+00:00", text=_stored(then), extractor="test",
                   warc=build_warc(fetched, "2026-04-18T09:00:00Z", "p.warc.gz"), body_sha256=body_sha256(then))
    [checked] = recheck_run(run, LOOPBACK).record.citations
    assert checked.state == state and checked.excerpt_found is True, checked
    if state == "changed":
        assert "what surrounds it changed" in checked.note and ("withdrawn" in checked.note or "None of the following" in checked.note)


# --- The benchmark's measure on committed pages (tests/benchmarks/extraction/checker_context.py) ---


@pytest.mark.parametrize("name", ["python-library-operator", "postgresql-functions-string", "postgresql-sql-set"])
def test_every_table_cell_shows_its_header_and_every_description_its_term(name: str) -> None:
    from benchmarks.extraction.checker_context import measure

    missed: list[str] = []
    row = measure(name, _body(name), missed)
    for kind in ("cell", "term"):
        quotes, named, alone = row["counts"][kind]
        assert named == quotes, missed[:5]  # with the page's HTML: all of them
        assert alone <= named
    assert sum(row["counts"][kind][0] for kind in ("cell", "term")) >= 10
    assert sum(row["counts"][kind][2] for kind in ("cell", "term")) < row["excerpts"]  # the text alone falls short


def test_without_lxml_or_within_a_small_memory_limit_the_text_context_stands(monkeypatch) -> None:
    from web_research.evidence import structure_child

    large = b"<html><body><p>The plan costs $15 per month.</p>" + b"<p>filler words here</p>" * 300_000
    request = PageRequest((structure_child.Anchor("The plan costs $15 per month."),), body=large)
    assert structure_child.page_structures([request], memory_bytes=64 * 1024 * 1024) in (None, [[None]])
    body, page = _page("python-library-stdtypes")
    request = PageRequest((structure_child.Anchor("floored quotient of x and y"),), body=body)
    monkeypatch.setattr(structure_child, "available", lambda: False)  # a Python with the core only
    assert structure_child.page_structures([request]) is None
    [cell] = contexts([Excerpt(page, PageRequest((), body=body), "floored quotient of x and y")])
    assert cell is not None and cell.row == "x // y" and cell.paragraph is None
