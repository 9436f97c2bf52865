"""The report view in a real browser: Debian's Chromium, headless, driven by Playwright.

Each test opens a run's report.html from disk, as a person would, and clicks. The browser is
the system's (`/usr/bin/chromium`, or WEB_RESEARCH_CHROMIUM); Playwright never downloads one.
Without Chromium or Playwright these tests skip, unless WEB_RESEARCH_REQUIRE_BROWSER=1 (as
`.ci/run` sets), where that is a failure. The layout tests run at a desktop width (1400 px) and
a phone's (390 px) and save a screenshot of each in their temporary folder;
WEB_RESEARCH_VIEW_SCREENSHOTS=DIR copies them to DIR as well (docs/view.png is DIR/view-example.png).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import real_page_run
import view_runs
from example_run import SCRIPTS_DIR

from web_research import formats

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("WEB_RESEARCH_CHROMIUM", "/usr/bin/chromium")
DESKTOP, PHONE, NARROWEST = 1400, 390, 360
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


def open_view(browser, run: Path, width: int = 1280):
    """Write the run's view with the real command, open it from disk at `width` px; collect what
    would be a sign of script running or of a request leaving the page."""
    done = subprocess.run([sys.executable, "-m", "web_research", "view", str(run)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SCRIPTS_DIR), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 860 if width > 800 else 780})
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


def assert_on_screen(page, locator):
    """The element lies wholly within the viewport (not scrolled off, not cut at a side)."""
    box = locator.bounding_box()
    viewport = page.viewport_size
    assert box is not None and locator.is_visible(), box
    assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"] + 0.5, (box, viewport)
    assert 0 <= box["y"] and box["y"] + box["height"] <= viewport["height"], (box, viewport)


def sideways_scroll(page) -> int:
    """How far the page itself can scroll sideways, in px (0 when nothing sticks out)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def save_screenshot(page, tmp_path: Path, name: str) -> Path:
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000
    if os.environ.get("WEB_RESEARCH_VIEW_SCREENSHOTS"):
        folder = Path(os.environ["WEB_RESEARCH_VIEW_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, folder / shot.name)
    return shot


def test_bundled_example_footnote_shows_its_excerpt_highlighted_in_the_page(browser, tmp_path):
    page = open_view(browser, view_runs.example(tmp_path), DESKTOP)  # a copy without its seals; metrics
    panel = click_footnote(page, "4")
    assert "Retention periods and archives | Acme Observability Docs" in panel.locator("h3").inner_text()
    fields = panel.locator("dl").inner_text()
    for text in ("https://docs.acme.example/logs/retention", "acme.example", "official-docs", "2026-04-18",
                 "not sealed"):
        assert text in fields, fields
    assert panel.locator(".state-line").inner_text().endswith("verified")
    mark = panel.locator("pre.page mark.excerpt-hit").first
    assert mark.inner_text().startswith("Indexed retention defaults to 15 days.")
    whole = panel.locator("pre.page").inner_text()
    assert whole.index("Retention periods and archives") < whole.index("Indexed retention")  # context around it
    assert_in_view(page, mark)
    assert page.locator("#verify-result").inner_text().startswith("Verification passed")
    assert page.locator("#header-cost").inner_text() == page.locator("#total-cost").inner_text()  # recorded
    assert "$" in page.locator("#header-cost").inner_text()
    assert "not sealed" in page.locator("header .seal-note").inner_text()  # and what that means for the verdict
    assert "the verdict rests on the stored text" in page.locator("#seals").inner_text()
    save_screenshot(page, tmp_path, "view-example")  # docs/view.png
    assert page.errors == [] and page.dialogs == []
    assert [u for u in page.requests if not u.startswith("file:")] == []


@pytest.mark.parametrize("width", [DESKTOP, PHONE, NARROWEST])
def test_nothing_scrolls_sideways_and_the_panel_title_stays_in_view(browser, tmp_path, width):
    page = open_view(browser, view_runs.with_metrics(view_runs.example(tmp_path)), width)
    assert sideways_scroll(page) == 0
    for table in page.locator("#coverage table, #figures table").all():  # wide tables scroll in their box
        box = table.locator("xpath=..").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
    save_screenshot(page, tmp_path, f"view-{width}-top")
    panel = click_footnote(page, "4")
    assert_on_screen(page, panel.locator("#panel-title"))
    assert_on_screen(page, panel.locator("#panel-close"))
    panel_box = panel.bounding_box()
    if width < DESKTOP:
        assert panel_box["x"] == 0 and panel_box["width"] == width  # a full-width sheet
    else:
        assert panel_box["width"] < width * 0.5  # beside the report
    assert sideways_scroll(page) == 0
    assert panel.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    assert_in_view(page, panel.locator("pre.page mark.excerpt-hit").first)
    save_screenshot(page, tmp_path, f"view-{width}")
    assert page.errors == []


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_changed_excerpt_marks_its_claim_and_shows_the_closest_passage(browser, tmp_path, width):
    page = open_view(browser, view_runs.changed_excerpt(tmp_path), width)
    ref = page.locator("article sup.fn-ref a[data-fn='4']").first
    assert "st-failing" in ref.locator("xpath=..").get_attribute("class")
    assert "fails a check" in ref.get_attribute("aria-label")
    claim = page.locator("article .claim.st-failing").first  # the claim's words, marked in the text
    assert "Acme charges 1.6x and 3x its 15-day rate" in claim.inner_text()
    assert page.locator("article .claim.st-verified").count() >= 10  # the others are marked verified
    if width == DESKTOP:  # the passage, and why it fails, on hover
        ref.hover()
        peek = page.locator("#peek")
        peek.wait_for(state="visible")
        assert "excerpt is not in the page" in peek.locator(".why").inner_text()
        assert peek.locator("del.diff").inner_text() == "1.5x"
    panel = click_footnote(page, "4")
    assert_on_screen(page, panel.locator("#panel-title"))
    assert "excerpt is not in the page" in panel.locator(".why").inner_text()
    assert panel.locator("blockquote del.diff").all_inner_texts() == ["1.5x"]  # the excerpt's differing word
    assert panel.locator("pre.page mark.diff").all_inner_texts() == ["1.6x"]  # the page's, in the closest passage
    passage = "".join(panel.locator("pre.page mark.excerpt-hit").all_inner_texts())
    assert passage.startswith("Indexed retention defaults to 15 days.") and "3x the 15-day rate" in passage
    assert_in_view(page, panel.locator("pre.page mark.diff"))
    assert sideways_scroll(page) == 0
    save_screenshot(page, tmp_path, f"view-{width}-changed")
    assert page.errors == []


def test_the_keyboard_reaches_opens_and_closes_a_footnote(browser, tmp_path):
    page = open_view(browser, view_runs.example(tmp_path), DESKTOP)
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('sup.fn-ref a')"):
            break
    else:
        pytest.fail("Tab never reached a footnote")
    label = page.evaluate("document.activeElement.getAttribute('data-fn')")
    assert page.locator("#peek").is_visible()  # focus shows the passage, as hover does
    page.keyboard.press("Enter")
    page.wait_for_selector("#panel:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "panel-title"
    assert page.locator("#panel-title").inner_text().startswith(f"[{label}]")
    page.keyboard.press("Escape")
    assert page.locator("#panel").is_hidden()
    assert page.evaluate("document.activeElement.getAttribute('data-fn')") == label  # back where it was


def test_sources_are_cards_with_what_a_reader_weighs(browser, tmp_path):
    page = open_view(browser, view_runs.example(tmp_path), DESKTOP)
    cards = page.locator("#sources li.card")
    assert cards.count() == 9
    four = page.locator("#sources li.card#fn-4")
    title = four.locator("a.card-title")
    assert title.inner_text() == "Retention periods and archives | Acme Observability Docs"
    # The live page, with a text fragment to the excerpt's passage (evidence/quote_links.py)
    assert title.get_attribute("href") == ("https://docs.acme.example/logs/retention#:~:text=Indexed%20retention"
                                           "%20defaults%20to,3x%20the%2015%2Dday%20rate.")
    meta = four.locator(".card-meta").inner_text()
    for text in ("acme.example", "official-docs", "retrieved 2026-04-18", "not sealed", "verified",
                 "cited by 2 claims"):
        assert text in meta, meta
    four.locator("a.cites").click()
    page.wait_for_selector("#panel:not([hidden])")
    assert page.locator("#panel-title").inner_text().startswith("[4]")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_rechecked_run_marks_each_footnote_with_its_live_state(browser, tmp_path, width):
    page = open_view(browser, view_runs.rechecked(tmp_path), width)
    ref = page.locator("article sup.fn-ref a[data-fn='4']").first
    assert ref.locator(".mark").inner_text() == "\u2713" and ref.locator(".live.live-changed").count() == 1
    assert "rechecked 2026-05-02: changed" in ref.get_attribute("aria-label")
    assert page.locator("article sup.fn-ref a[data-fn='9'] .live.live-gone").count() >= 1
    card = page.locator("#sources li.card#fn-4 .card-meta").inner_text()
    assert "live 2026-05-02: changed" in card
    panel = click_footnote(page, "4")
    box = panel.locator(".recheck")
    assert "live page changed" in box.inner_text() and "rechecked 2026-05-02" in box.inner_text()
    assert box.locator("blockquote.live-passage").inner_text() == view_runs.RECHECK_CLOSEST
    assert box.locator("mark.diff").all_inner_texts() == ["1.7x"]  # the word the live page now says
    assert_on_screen(page, panel.locator("#panel-title"))
    assert sideways_scroll(page) == 0
    save_screenshot(page, tmp_path, f"view-{width}-rechecked")
    assert page.errors == []


def test_a_tap_on_a_phone_opens_the_passage(browser, tmp_path):
    page = open_view(browser, view_runs.example(tmp_path), PHONE)
    panel = click_footnote(page, "2")
    assert panel.locator("blockquote.excerpt").inner_text().startswith("Every plan is priced per GB ingested.")
    assert_on_screen(page, panel.locator("#panel-title"))
    panel.locator("#panel-close").click()
    assert panel.is_hidden() and sideways_scroll(page) == 0


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
    assert "not in the stored page text" in panel.inner_text()
    assert page.errors == []


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_real_pages_quoted_with_typographic_apostrophes_show_every_claim_verified(browser, tmp_path, width):
    """Issue 36: excerpts of real manual pages whose apostrophes and quotes the model typed straight
    ("isn't" for the page's "isn’t"): verify passes, and the page marks every claim verified."""
    run, built = real_page_run.build(tmp_path)
    page = open_view(browser, run, width)
    assert page.locator("#verify-result").inner_text().startswith("Verification passed")
    assert page.locator(".claim.st-failing").count() == 0 and page.locator("sup.fn-ref.st-failing").count() == 0
    assert page.locator(".claim.st-verified").count() >= built["claims"]
    assert page.locator("sup.fn-ref:not(.st-verified)").count() == 0
    from web_research.checks.citation_entries import parse_citations

    report = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    label = next(str(c.number) for c in parse_citations(report) if "isn't referenced" in (c.excerpt or ""))
    panel = click_footnote(page, label)
    assert panel.locator(".state-line").inner_text().endswith("verified")
    mark = panel.locator("pre.page mark.excerpt-hit").first
    assert "isn\u2019t referenced elsewhere" in mark.inner_text()  # the page's own apostrophe, marked in place
    assert_on_screen(page, mark)
    assert sideways_scroll(page) == 0
    save_screenshot(page, tmp_path, f"view-real-pages-{width}")
    assert page.errors == [] and page.dialogs == []
