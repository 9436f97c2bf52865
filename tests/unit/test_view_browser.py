"""The report view in a real browser: Debian's Chromium, headless, driven by Playwright.

Each test opens a run's report.html from disk, as a person would, and clicks. The browser is
the system's (`/usr/bin/chromium`, or WEB_RESEARCH_CHROMIUM); Playwright never downloads one.
Without Chromium or Playwright these tests skip, unless WEB_RESEARCH_REQUIRE_BROWSER=1 (as
`.ci/run` sets), where that is a failure. WEB_RESEARCH_VIEW_SCREENSHOT=PATH also saves the
bundled example's screenshot there (how docs/view.png is made).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import view_runs
from example_run import SCRIPTS_DIR

from web_research import formats

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("WEB_RESEARCH_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _unavailable(why: str):
    if os.environ.get("WEB_RESEARCH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required, but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium with a fresh profile, for the module."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (the test extra)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        _unavailable(f"no Chromium at {CHROMIUM} (Debian package chromium)")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1280, "height": 860}, offline=True)
        try:
            yield context
        finally:
            context.close()


def open_view(browser, run: Path):
    """Write the run's view with the real command, open it from disk; collect what would be a
    sign of script running or of a request leaving the page."""
    done = subprocess.run([sys.executable, "-m", "web_research", "view", str(run)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SCRIPTS_DIR), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    page = browser.new_page()
    page.dialogs, page.requests, page.errors = [], [], []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto((run / formats.REPORT_VIEW_FILE).as_uri())
    return page


def click_footnote(page, label: str):
    page.click(f"sup.fn-ref a[data-fn='{label}']")
    page.wait_for_selector("#panel:not([hidden])")
    return page.locator("#panel")


def assert_in_view(page, locator):
    """The element is inside the browser's viewport and inside its scrolling box."""
    box = locator.bounding_box()
    assert box is not None and locator.is_visible()
    viewport = page.viewport_size
    assert 0 <= box["y"] and box["y"] + min(box["height"], 40) <= viewport["height"], box
    scroller = page.locator("pre.page").bounding_box()
    assert scroller["y"] - 1 <= box["y"] <= scroller["y"] + scroller["height"], (box, scroller)


def test_bundled_example_footnote_shows_its_excerpt_highlighted_in_the_page(browser, tmp_path):
    page = open_view(browser, view_runs.example(tmp_path))  # as bundled: no seals, no metrics
    ref = page.locator("sup.fn-ref a[data-fn='4']").first
    assert ref.get_attribute("title").startswith(  # what the pointer resting on it shows
        "Retention periods and archives | Acme Observability Docs (https://docs.acme.example/logs/retention)")
    panel = click_footnote(page, "4")
    assert "Retention periods and archives | Acme Observability Docs" in panel.locator("h3").inner_text()
    fields = panel.locator("dl").inner_text()
    for text in ("https://docs.acme.example/logs/retention", "official-docs", "2026-04-18", "not sealed"):
        assert text in fields, fields
    mark = panel.locator("pre.page mark.excerpt-hit").first
    assert mark.inner_text().startswith("Indexed retention defaults to 15 days.")
    whole = panel.locator("pre.page").inner_text()
    assert whole.index("Retention periods and archives") < whole.index("Indexed retention")  # context around it
    assert_in_view(page, mark)
    assert page.locator("#header-cost").inner_text() == "no metrics"
    assert page.locator("#verify-result").inner_text().startswith("Verification passed")
    shot = tmp_path / "view.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000
    if os.environ.get("WEB_RESEARCH_VIEW_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["WEB_RESEARCH_VIEW_SCREENSHOT"])
    assert page.errors == [] and page.dialogs == []
    assert [u for u in page.requests if not u.startswith("file:")] == []


def test_the_figures_show_each_researcher_against_its_budget_and_the_cost(browser, tmp_path):
    page = open_view(browser, view_runs.with_metrics(view_runs.example(tmp_path)))
    page.click("header nav a[href='#figures']")
    figures = page.locator("#figures")
    rows = figures.locator("tbody tr").all_inner_texts()
    assert rows[0].split("\t")[:4] == [view_runs.BILLING, "done", "4 / 5", "6 / 8"], rows
    assert rows[-1].startswith("orchestrator"), rows
    total = page.locator("#total-cost").inner_text()
    assert total.startswith("at most $") and page.locator("#header-cost").inner_text() == total
    assert "9 min 00 s" in figures.inner_text() and "prices of" in figures.inner_text()


def test_a_long_page_is_scrolled_to_the_excerpt(browser, tmp_path):
    run = view_runs.example(tmp_path)
    text = run / formats.SOURCES_DIR / view_runs.LUMEN_PAGE
    filler = "".join(f"Line {n} of a long pricing page, nothing to quote here.\n" for n in range(400))
    text.write_text(filler + text.read_text(encoding="utf-8") + filler, encoding="utf-8")
    page = open_view(browser, run)
    mark = click_footnote(page, "2").locator("pre.page mark.excerpt-hit").first
    assert mark.inner_text().startswith("Every plan is priced per GB ingested.")
    assert page.locator("pre.page").evaluate("e => e.scrollTop") > 0
    assert_in_view(page, mark)


def test_a_hostile_page_runs_nothing(browser, tmp_path):
    page = open_view(browser, view_runs.hostile(tmp_path))
    panel = click_footnote(page, "2")
    assert view_runs.HOSTILE in panel.locator("h3").inner_text()  # shown as text
    assert view_runs.HOSTILE in panel.locator("pre.page").inner_text()
    assert view_runs.HOSTILE in page.locator("article#report").inner_text()
    page.click("text=click")  # the report's javascript: link is no link
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("article img, #panel img").count() == 0
    assert page.dialogs == [] and page.errors == []
    assert [u for u in page.requests if not u.startswith("file:")] == []


def test_an_old_format_run(browser, tmp_path):
    page = open_view(browser, view_runs.old_format(tmp_path))
    panel = click_footnote(page, "9")
    assert panel.locator("pre.page mark.excerpt-hit").count() == 1
    assert "No plan bullets" not in page.locator("#coverage").inner_text()
    assert page.errors == []


def test_a_run_with_failed_subtopics(browser, tmp_path):
    page = open_view(browser, view_runs.failed_subtopics(tmp_path))
    coverage = page.locator("#coverage").inner_text()
    assert "missing" in coverage and "failed" in coverage, coverage
    assert page.locator("#verify-result").inner_text().startswith("Verification failed")
    assert click_footnote(page, "1").locator("pre.page mark.excerpt-hit").count() == 1
    assert page.errors == []


def test_a_run_that_fails_verification_links_each_check_to_its_place(browser, tmp_path):
    page = open_view(browser, view_runs.failing_verification(tmp_path))
    assert page.locator("#verify-result").inner_text().startswith("Verification failed")
    link = page.locator("a.goto[href='#fn-4']").first
    link.click()
    target = page.locator("#fn-4")
    assert "targeted" in target.get_attribute("class") and target.is_visible()
    header = page.locator("header.top").bounding_box()
    box = target.bounding_box()
    assert header["y"] + header["height"] <= box["y"] < page.viewport_size["height"], (header, box)  # not under it
    panel = click_footnote(page, "4")
    assert "not found" in panel.inner_text()
    assert page.errors == []
