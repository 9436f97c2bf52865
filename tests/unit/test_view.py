"""`web-research view`: what report.html holds, and that nothing in a run can script it.

The page in a real browser: test_view_browser.py."""
from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest
import view_runs
from example_run import SCRIPTS_DIR, replace_once

from web_research import formats
from web_research.view.data import gather, locate_excerpt, page_window
from web_research.view.html import csp_hash, json_block, render_page


def _view(run):
    done = subprocess.run([sys.executable, "-m", "web_research", "view", str(run)], capture_output=True, text=True,
                          cwd=run.parent, env={"PYTHONPATH": str(SCRIPTS_DIR), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    path = run / formats.REPORT_VIEW_FILE
    assert done.stdout.strip() == str(path)
    return path.read_text(encoding="utf-8")


def _data(page: str) -> dict:
    block = re.search(r'<script type="application/json" id="wr-data">(.*?)</script>', page, re.S)
    return json.loads(block.group(1))


def test_the_page_is_self_contained_with_a_strict_policy(tmp_path):
    page = _view(view_runs.example(tmp_path))
    policy = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert csp_hash(script) in policy and csp_hash(style) in policy
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page.split('<article id="report"')[0])
    assert "<link" not in page and "@import" not in page and "url(" not in page


def test_every_footnote_carries_its_source_and_the_excerpt_in_its_page(tmp_path):
    page = _view(view_runs.example(tmp_path))
    notes = {f["label"]: f for f in _data(page)["footnotes"]}
    assert sorted(notes, key=int) == [str(n) for n in range(1, 10)]
    four = notes["4"]
    assert four["title"] == "Retention periods and archives | Acme Observability Docs"
    assert four["url"] == "https://docs.acme.example/logs/retention" and four["source_type"] == "official-docs"
    assert four["retrieved"] == "2026-04-18" and four["match"] == "found"
    marked = "".join(text for text, hit in four["page"]["segments"] if hit)
    assert marked.startswith("Indexed retention defaults to 15 days.") and "3x the 15-day rate" in marked
    assert four["seal"]["state"] == "unsealed"  # the example has no seals on record
    assert notes["3"]["retrieved"] is None  # written without a Retrieved field
    assert [c["line"] for c in four["claims"]] == [6, 19]
    assert 'data-fn="4"' in page and 'id="fn-4"' in page


def test_the_report_is_rendered_by_the_markdown_parser(tmp_path):
    page = _view(view_runs.example(tmp_path))
    article = page.split('<article id="report" class="report">')[1].split("</article>")[0]
    assert '<h2 id="L3">TL;DR</h2>' in article
    from web_research.checks.report import parse_report

    markers = parse_report((tmp_path / "example" / formats.REPORT_FILE).read_text(encoding="utf-8")).markers
    assert article.count('<sup class="fn-ref st-') == len(markers) == 21  # every marker; Sources entries are none
    assert "**Title**" not in article.split("footnotes")[0]


def test_coverage_figures_and_verification_sections(tmp_path):
    run = view_runs.with_metrics(view_runs.example(tmp_path))
    view = gather(run)
    states = {b["id"]: b["state"] for b in view["coverage"]}
    assert states["1.1"] == "covered" and states["3.1"] == "missing", states
    covered = next(b for b in view["coverage"] if b["id"] == "1.1")
    assert covered["sources"] and all(s["footnotes"] for s in covered["sources"]), covered
    totals = view["figures"]["totals"]
    assert totals["cost"] > 0 and totals["cost_text"].startswith("at most $")  # one researcher has no split
    assert [r["slug"] for r in view["figures"]["researchers"]] == [view_runs.BILLING, view_runs.COMMITMENTS]
    assert view["verification"]["passed"] is True
    page = render_page(view)
    assert "5 / 5" in page and "6 / 8" in page and totals["cost_text"] in page
    assert "Verification passed" in page


def test_failing_checks_link_to_their_place_in_the_report(tmp_path):
    page = _view(view_runs.failing_verification(tmp_path))
    assert "Verification failed" in page
    links = re.findall(r'<a href="#([^"]+)" class="goto">report\.md:(\d+)</a>', page)
    assert ("fn-4", str(_line_of(tmp_path / "failing", "[^4]: "))) in links, links
    assert all(f'id="{target}"' in page for target, _ in links)
    four = next(f for f in _data(page)["footnotes"] if f["label"] == "4")
    assert four["match"] == "not-found" and four["state"] == "failing"
    assert any("excerpt is not in the page" in why for why in four["why"]), four["why"]
    assert [text for text, kind in four["page"]["segments"] if kind == "diff"] == ["15"]  # the page's word
    assert [w for w, differs in four["closest"]["part"] if differs] == ["45"]  # the excerpt's word


def _line_of(run, needle):
    lines = (run / formats.REPORT_FILE).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(needle))


@pytest.mark.parametrize("make", [view_runs.old_format, view_runs.failed_subtopics, view_runs.unfinished,
                                  view_runs.no_report])
def test_other_runs_still_get_a_page(tmp_path, make):
    page = _view(make(tmp_path))
    assert 'id="wr-data"' in page and "{{" not in page and "{%" not in page


def test_a_run_without_report_or_plan_says_so(tmp_path):
    page = _view(view_runs.no_report(tmp_path))
    problem = html.unescape(re.search(r'id="report-problem">([^<]*)', page).group(1))
    assert problem.startswith("report.md: ") and "missing" in problem, problem
    assert "No plan bullets to show: plan.md" in page and "plan.md missing or unreadable" not in page
    assert "Verification failed" in page


def test_a_broken_plan_heading_is_named_with_its_line(tmp_path):
    run = view_runs.example(tmp_path)
    replace_once(run / formats.PLAN_FILE, "## Subtopics\n", "## Subtopic list\n")
    page = html.unescape(_view(run))
    assert "No plan bullets to show: plan.md:7: unknown section '## Subtopic list'" in page
    assert "missing or unreadable" not in page


def test_a_byte_that_is_not_utf8_keeps_the_report_on_the_page_and_names_its_line(tmp_path):
    run = view_runs.example(tmp_path)
    report = run / formats.REPORT_FILE
    raw = report.read_bytes()
    at = raw.index(b"Lumen Logs bills per GB")
    report.write_bytes(raw[:at] + b"\xff" + raw[at:])
    page = _view(run)
    problem = html.unescape(re.search(r'id="report-problem">([^<]*)', page).group(1))
    line = raw.count(b"\n", 0, at) + 1
    assert problem.startswith(f"report.md:{line}: is not UTF-8 text: line {line}, column "), problem
    assert "\ufffdLumen Logs bills per GB" in page  # the report is still shown, the byte replaced


def test_an_unfinished_report_shows_its_references_as_written(tmp_path):
    page = _view(view_runs.unfinished(tmp_path))
    assert f"[^{view_runs.BILLING}:1]" in page and _data(page)["footnotes"] == []


def test_nothing_hostile_survives_as_markup(tmp_path):
    page = _view(view_runs.hostile(tmp_path))
    head, data_and_script = page.split('<script type="application/json" id="wr-data">')
    assert "<script>window.pwned" not in head and "onerror=" not in re.sub(r"onerror=&(quot|#34);", "", head)
    assert "javascript:" not in re.sub(r"&[a-z#0-9]+;", "", "".join(re.findall(r'href="([^"]*)"', page)))
    data_text = data_and_script.split("</script>")[0]
    assert "<" not in data_text and ">" not in data_text  # so no </script> can close the block
    two = next(f for f in _data(page)["footnotes"] if f["label"] == "2")
    assert view_runs.HOSTILE in two["title"]  # kept as data, to be shown as text
    assert any(view_runs.HOSTILE in text for text, _hit in two["page"]["segments"])
    assert page.count("<script") == 2  # the data block and our own script, nothing else


def test_json_block_escapes_what_could_end_the_script():
    text = json_block({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_locate_excerpt_finds_the_page_spelling_of_each_part():
    page = "Intro.\n\u201cLog  Management\u201d is billed on two\ndimensions \u2014 ingest, per GB. Later text here."
    spans = locate_excerpt('"Log Management" is billed on two dimensions - ingest ... per GB. Later text here',
                           page)
    assert [page[a:b] for a, b in spans] == ["Log  Management\u201d is billed on two\ndimensions \u2014 ingest",
                                             "per GB. Later text here"]
    assert locate_excerpt("not in the page at all", page) is None
    window = page_window(page, spans)
    assert "".join(t for t, _ in window["segments"]) == page[window["start"]:window["end"]]


def test_a_folder_that_is_no_run_dir_is_refused(tmp_path):
    done = subprocess.run([sys.executable, "-m", "web_research", "view", str(tmp_path / "nope")],
                          capture_output=True, text=True, env={"PYTHONPATH": str(SCRIPTS_DIR)})
    assert done.returncode == 2 and "no such folder" in done.stderr


def test_a_file_of_a_run_names_the_folder_to_pass_instead(tmp_path):
    run = view_runs.example(tmp_path)
    done = subprocess.run([sys.executable, "-m", "web_research", "view", str(run / formats.REPORT_FILE)],
                          capture_output=True, text=True, env={"PYTHONPATH": str(SCRIPTS_DIR)})
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"not a folder; pass the run folder that holds it: {run}" in done.stderr


def test_each_footnote_carries_its_latest_recheck(tmp_path):
    page = _view(view_runs.rechecked(tmp_path))
    notes = {f["label"]: f for f in _data(page)["footnotes"]}
    assert notes["4"]["recheck"]["state"] == "changed" and notes["4"]["recheck"]["date"] == "2026-05-02"
    assert notes["4"]["recheck"]["closest"] == view_runs.RECHECK_CLOSEST
    assert notes["4"]["recheck"]["differences"] == [["1.6x", "1.7x"]]
    assert notes["9"]["recheck"]["state"] == "gone" and notes["1"]["recheck"]["state"] == "unchanged"
    assert notes["4"]["state"] == "verified"  # the stored page still holds the excerpt: a live change is apart
    assert "live pages rechecked 2026-05-02: 9 citations: 7 unchanged, 1 changed" in page


def test_a_recheck_record_that_cannot_be_used_is_named_not_ignored(tmp_path):
    run = view_runs.rechecked(tmp_path)
    [record] = (run / formats.CHECKS_DIR).glob("recheck-*.json")
    record.write_text("{not json", encoding="utf-8")
    page = html.unescape(_view(run))
    assert f"{formats.CHECKS_DIR}/{record.name}: not a JSON recheck record" in page
    assert all(f["recheck"] is None for f in _data(page)["footnotes"])


def test_the_bundled_example_shows_what_its_recorded_run_spent(tmp_path):
    page = _view(view_runs.example(tmp_path))
    total = _data_figures_total(page)
    assert total.startswith("$") or total.startswith("at most $"), total
    assert f'<span id="header-cost">{total}</span>' in page and f'<strong id="total-cost">{total}</strong>' in page


def test_a_run_without_metrics_says_why_it_shows_no_cost(tmp_path):
    run = view_runs.example(tmp_path)
    (run / formats.METRICS_FILE).unlink()
    page = html.unescape(_view(run))
    assert '<span id="header-cost">not recorded</span>' in page
    assert ("No cost to show: this run has no metrics.json. The hooks record what a run spends while it is "
            "active") in page
    (run / formats.METRICS_FILE).write_text("[1, 2", encoding="utf-8")
    assert "metrics.json in this folder cannot be read as a JSON object" in html.unescape(_view(run))


def _data_figures_total(page: str) -> str:
    return html.unescape(re.search(r'<strong id="total-cost">([^<]*)</strong>', page).group(1))
