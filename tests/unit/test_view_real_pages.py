"""A run built from real documentation pages, quoted with apostrophes, quotes and code as a model
quotes them: verify passes and the report view marks every claim verified (issue 36)."""
from __future__ import annotations

from pathlib import Path

import real_page_run

from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.view.data import FAILING, VERIFIED, gather
from web_research.view.html import write_view


def test_a_verified_run_on_real_pages_shows_no_failing_mark(tmp_path: Path) -> None:
    run, built = real_page_run.build(tmp_path)
    assert built["claims"] >= 10 and built["with_apostrophe"] >= 5, built
    errors = [f"{c.id}: {c.message}" for c in run_checklist(run) if not c.ok and c.severity == "error"]
    assert not errors
    view = gather(run)
    assert view["verification"]["passed"]
    assert [f["label"] for f in view["footnotes"] if f["match"] != "found"] == []
    assert [c["text"] for c in view["claims"] if c["state"] != VERIFIED] == []
    assert len(view["claims"]) >= built["claims"]
    html = write_view(run).read_text(encoding="utf-8")
    assert f'class="claim st-{FAILING}"' not in html and f'fn-ref st-{FAILING}' not in html
    assert html.count(f'class="claim st-{VERIFIED}"') >= built["claims"]
    assert (run / formats.REPORT_VIEW_FILE).is_file()


def test_the_view_marks_failing_only_what_verify_fails_and_names_the_check(tmp_path: Path) -> None:
    run, built = real_page_run.build(tmp_path)
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    quoted = built["excerpts"][0]
    report.write_text(text.replace(quoted, quoted.replace("garbage", "rubbish"), 1), encoding="utf-8")
    view = gather(run)
    assert not view["verification"]["passed"]
    failing = [f for f in view["footnotes"] if f["state"] == FAILING]
    assert [f["label"] for f in failing] == ["1"]
    assert any(why.startswith("report.citations.verbatim: ") for why in failing[0]["why"]), failing[0]["why"]
    html = write_view(run).read_text(encoding="utf-8")
    assert html.count('title="fails a check: report.citations.') >= 2  # the footnote's marks and its claims'
