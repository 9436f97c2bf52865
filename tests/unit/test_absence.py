"""Issue 43, one kind of sentence: what Gaps & Limitations says is missing is judged against every
stored page (checks/gaps_prose.py, checks/absence.py, evidence/closest_passages.py).

The pages are real: the Python 3.11 and PostgreSQL 15 manual pages of the extraction benchmark,
stored as `fetch` stores them (tests/unit/real_page_run.py), and, where this machine has them
installed (CI does not), the held-out Debian copies of the two pages the real runs cited.
Each attack stands beside the honest form that still verifies.
"""
from __future__ import annotations

import gzip
import json
import re
import time
from pathlib import Path

import pytest

from real_page_run import BENCHMARK, build
from web_research import formats
from web_research.checks import absence
from web_research.checks.checklist import parse_and_check, run_checklist
from web_research.checks.gaps_prose import (ABSENCE, CLAIM, FIXED, FIXED_SENTENCES, OTHER, RECORDED, UNCONFIRMED,
                                            absence_what, gaps_sentences)
from web_research.checks.report import parse_report
from web_research.evidence.closest_passages import MAX_PASSAGES, Page, closest_passages, key_terms, name_terms
from web_research.evidence.extraction import extract_in_process
from web_research.evidence.transport import FetchedPage
from web_research.report.claim_checker import parse_answer
from web_research.report.claim_checker import prompt_for_run as prompt_for_parsed_run

HELD_OUT = {"https://docs.python.org/3.11/whatsnew/3.11.html": "/usr/share/doc/python3.11-doc/html/whatsnew/3.11.html",
            "https://docs.python.org/3.11/library/functions.html":
                "/usr/share/doc/python3.11-doc/html/library/functions.html"}
GAPS_LINE = "- Only the pages listed under Sources were read.\n"


def failing(checks) -> dict:
    """The failing errors by check id (the first of an id)."""
    out: dict = {}
    for c in checks:
        if not c.ok and c.severity == "error":
            out.setdefault(c.id, c)
    return out


def _page(url: str, body: bytes) -> Page:
    text = extract_in_process(FetchedPage(requested_url=url, final_url=url, status=200, content_type="text/html",
                                          charset="utf-8", body=body))
    return Page(url, text.title, text.text)


@pytest.fixture(scope="module")
def benchmark_pages() -> list[Page]:
    manifest = {e["name"]: e for e in json.loads((BENCHMARK / "manifest.json").read_text(encoding="utf-8"))["pages"]}
    return [_page(manifest[name]["origin_url"], gzip.decompress((BENCHMARK / manifest[name]["html"]).read_bytes()))
            for name in ("python-library-asyncio-task", "python-library-stdtypes", "postgresql-sql-set")]


@pytest.fixture(scope="module")
def held_out_pages() -> list[Page]:
    if not all(Path(p).is_file() for p in HELD_OUT.values()):
        pytest.skip("the held-out Python 3.11 pages are not installed (apt-get install python3.11-doc)")
    return [_page(url, Path(path).read_bytes()) for url, path in HELD_OUT.items()]


def _closest(statement: str, pages: list[Page]) -> list:
    what = absence_what(statement)
    assert what is not None, statement
    return closest_passages(key_terms(what), pages, names=name_terms(what))


# --- the forms Gaps & Limitations may take ---------------------------------------------------------

@pytest.mark.parametrize("statement, what", [
    ("The pages read do not relate sys.maxsize to int values or container sizes.",
     "sys.maxsize to int values or container sizes."),
    ("No page read states how TaskGroup compares with gather().", "how TaskGroup compares with gather()."),
    ("The stored pages do not give Northwind's retention prices.", "Northwind's retention prices."),
    ("None of the pages read names the context (postmaster, sighup or user) of each setting.",
     "the context (postmaster, sighup or user) of each setting."),
    ("The pages read do not state: the price of rehydration.", "the price of rehydration."),
    ("No page read gives Acme's, Lumen's or Northwind's archive price, nor a date for it.",
     "Acme's, Lumen's or Northwind's archive price, nor a date for it."),
    ("The pages read do not state which plans include SSO, or whether it costs extra.",
     "which plans include SSO, or whether it costs extra."),
    ("The pages read do not give a per-GB price for year-long retention.", "a per-GB price for year-long retention."),
    ("The pages read do not state whether Acme was fined.", "whether Acme was fined."),
    ("No page read gives a price for data that is archived.", "a price for data that is archived."),
    ("The pages read do not state prices for other vendors (e.g. Lumen).", "prices for other vendors (e.g. Lumen)."),
    ("The pages read do not state what the price is when data is archived.",
     "what the price is when data is archived."),
    ("The pages read do not state whether prices differ by region, e.g. EU versus US.",
     "whether prices differ by region, e.g. EU versus US."),
    ("No page read specifies the minimum term, in months, for Acme's enterprise tier.",
     "the minimum term, in months, for Acme's enterprise tier."),
    ("The pages read do not confirm the figures with a second, independent source.",
     "the figures with a second, independent source."),
    ("No page read gives Acme's prices since 2024 (in months, per GB).", "Acme's prices since 2024 (in months, per GB)."),
    ("The pages read do not say what happens when a TaskGroup is cancelled from outside.",
     "what happens when a TaskGroup is cancelled from outside."),
    # questions in the present tense ask without asserting; a footnote mark is no bracketed aside
    ("No page read explains how Acme prices archived logs.", "how Acme prices archived logs."),
    ("No page read says when the Standard plan ends.", "when the Standard plan ends."),
    ("The pages read do not state whether Acme hid its fees.", "whether Acme hid its fees."),
    ("No page read says how indexed logs are priced.", "how indexed logs are priced."),
    ("No page read gives a price for the Standard plan [EU].", "a price for the Standard plan [EU]."),
])
def test_an_absence_statement_is_read_with_what_it_says_is_missing(statement: str, what: str) -> None:
    assert absence_what(statement) == what


@pytest.mark.parametrize("statement", [
    "Acme's Standard plan is being withdrawn after a data breach.",  # the audit's figure-free Gaps prose
    "The only direct comparison of TaskGroup with gather() is that it is a more modern way.",  # run A's Gaps line
    "The cited excerpts quote its rows but not its header row.",
    "The pages read do not matter: Acme was fined.",  # an absence form's words, no verb of saying
    "Acme was fined, and the pages read do not state why.",  # the form not first
    # an absence form carrying a second clause that asserts (the checker is shown the whole; the form
    # keeps the assertion out whatever it judges): each is no statement of absence, so report.gaps.form refuses it
    "The pages read do not state Acme's Standard price, which was withdrawn after a data breach.",
    "The pages read do not state Acme's archive price; Acme was fined for hiding it.",
    "No page read gives Acme's archive price because Acme hides its fees.",
    "The pages read do not state Acme's archive price \u2014 Acme was fined for hiding it.",
    "The pages read do not state Acme's archive price - Acme was fined for hiding it.",
    "No page read gives Acme's archive price (which Acme hides from buyers).",
    "The pages read do not give Acme's price, although Acme was fined for hiding it.",
    # what is missing said as a fact: read, listed under the lead-in, as the report's word
    "The pages read do not say Acme was fined for hidden fees.",
    "The pages read do not state: Acme was fined for hidden fees.",
    "No page read states Acme's Standard plan is being withdrawn.",
    "The pages read do not state Acme's archive price. Acme hides it from buyers.",
    "No page read gives a price for rehydrating archived logs. | Why | Acme hides it |",  # a table run on into it
    "The pages read do not state otherwise than that Acme was fined.",  # a denial said as an absence
    "No page read gives a price for rehydrating archived logs, the feature Acme withdrew.",  # an appended aside
    "No page read gives a price for the Standard plan (withdrawn after a data breach).",  # an aside in parentheses
    "No page read gives a price for the Standard plan (Acme is withdrawing it).",
    "No page read gives a price for the Standard plan since Acme withdrew it after a data breach.",  # a reason
    "No page read explains why Acme hid its log fees from customers.",  # 'why' presupposes Acme hid them
    # a second audit's rewordings: a past deed of a named subject in a question, an aside in brackets
    "No page read explains how Acme hid its log fees from customers.",
    "No page read says when Acme withdrew the Standard plan after a data breach.",
    "No page read says where Northwind stored the leaked logs.",
    "No page read gives a price for the Standard plan [withdrawn after a data breach].",
])
def test_any_other_sentence_is_no_absence_statement(statement: str) -> None:
    assert absence_what(statement) is None


def _gaps(body: str, recorded: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> list:
    text = f"# Research: Q\n\n## TL;DR\n\n- A[^1].\n\n## Findings\n\nA[^1].\n\n## Gaps & Limitations\n\n{body}\n## Sources\n"
    return [(s.form, s.text) for s in gaps_sentences(parse_report(text), lambda line: line.strip() in recorded, names)]


def test_each_gaps_sentence_takes_one_form_and_the_rest_is_other() -> None:
    recorded = '- **Subtopic "Pricing"** (failed): timeout.'
    body = (f"{recorded}\n- The pages read do not state Acme's archive price.\n- {FIXED_SENTENCES[0]}\n"
            '- Unconfirmed evidence: subtopic "Pricing", findings/pricing.md (provenance.sealed).\n'
            "- Acme's list price is falling[^pricing:1].\n"
            "- Acme's Standard plan is being withdrawn after a data breach.\n"
            "- Unconfirmed evidence: Acme was fined.\n")
    forms = _gaps(body, (recorded,), ("Pricing", "pricing"))
    assert [f for f, _t in forms] == [RECORDED, ABSENCE, FIXED, UNCONFIRMED, CLAIM, OTHER, OTHER]


@pytest.mark.parametrize("line, form", [
    # the unconfirmed form named words as a run file or a check id, and they reached the person
    ("- Unconfirmed evidence: findings/acme-was-fined-for-hidden-fees.md (provenance.sealed).", OTHER),
    ("- Unconfirmed evidence: acme.was-fined.for-hiding-log-fees.", OTHER),
    ("- Unconfirmed evidence: report.withdrawn-after-breach.", OTHER),
    ("- Unconfirmed evidence: sources/acme-charges-250000-dollars.txt.", OTHER),
    ("- Unconfirmed evidence: checks/acme-was-fined.json.", OTHER),
    # the honest forms failure-modes.md gives
    ("- Unconfirmed evidence: findings/pricing.md (findings.pricing.citations.verbatim).", UNCONFIRMED),
    ("- Unconfirmed evidence: findings/pricing.md.", UNCONFIRMED),  # the sentence's full stop ends the name
    ("- Unconfirmed evidence: sources/0c0427753cf3ee41.txt.", UNCONFIRMED),
    ("- Unconfirmed evidence: findings/pricing.md.acme-was-fined.", OTHER),
    ("- Unconfirmed evidence: sources/0c0427753cf3ee41.txt (provenance.links).", UNCONFIRMED),
    ("- Unconfirmed evidence: checks/verdicts-2.json (checks.verdicts), report.coverage.1.2.", UNCONFIRMED),
    ('- Unconfirmed evidence: subtopic "Pricing" (report.claims.grounded).', UNCONFIRMED),
])
def test_the_unconfirmed_form_names_only_the_runs_files_and_check_ids(line: str, form: str) -> None:
    assert [f for f, _t in _gaps(line + "\n", (), ("Pricing", "pricing"))] == [form]


def test_every_check_id_the_plugin_names_is_one_the_unconfirmed_form_reads() -> None:
    from web_research.checks import checklist  # noqa: PLC0415
    from web_research.checks.gaps_prose import is_check_id  # noqa: PLC0415

    failure_modes = formats.reference_file("failure-modes.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\s{4}([a-z]+(?:\.[a-z0-9_<>-]+)+)", checklist.__doc__, re.M))
    named |= {m for m in re.findall(r"`([a-z]+(?:\.[a-z0-9_<>*-]+)+)`", failure_modes) if "/" not in m
              and not m.endswith((".md", ".json")) and m.split(".")[0] in ("plan", "run", "report", "findings",
                                                                          "provenance", "citations", "sources",
                                                                          "checks")}
    assert len(named) > 60
    assert [i for i in sorted(named) if not is_check_id(i)] == []


def test_a_list_under_an_absence_lead_in_is_read_with_it() -> None:
    forms = _gaps("The pages read do not state:\n\n- Northwind's retention prices.\n- Acme's archive price.\n")
    assert forms == [(ABSENCE, "The pages read do not state: Northwind's retention prices."),
                     (ABSENCE, "The pages read do not state: Acme's archive price.")]
    assert [f for f, _t in _gaps("Some caveats:\n\n- Acme was fined.\n")] == [OTHER]


def test_a_report_whose_gaps_state_the_world_fails_at_the_line(tmp_path: Path) -> None:
    run, _ = build(tmp_path)
    report = run / "report.md"
    text = report.read_text(encoding="utf-8")
    attack = "- Acme's Standard plan is being withdrawn after a data breach.\n"
    report.write_text(text.replace(GAPS_LINE, GAPS_LINE + attack), encoding="utf-8")
    check = failing(run_checklist(run))["report.gaps.form"]
    line = report.read_text(encoding="utf-8").splitlines().index(attack.strip()) + 1
    assert check.line == line and "withdrawn after a data breach" in check.message
    assert "The pages read do not" in check.message  # the form to use
    report.write_text(text, encoding="utf-8")  # the honest report: a fixed sentence only
    assert "report.gaps.form" not in failing(run_checklist(run))


# --- the search: the passages that come closest, across every stored page --------------------------

def test_the_search_finds_the_stored_passage_that_relates_sys_maxsize_to_lengths(benchmark_pages) -> None:
    """Run B: "the pages read do not relate sys.maxsize to int values or container sizes"; the stored
    Built-in Types page says ranges beyond sys.maxsize make len() raise OverflowError."""
    passages = _closest("The pages read do not relate sys.maxsize to int values or container sizes.", benchmark_pages)
    assert passages and "stdtypes" in passages[0].url
    assert "larger than sys.maxsize" in passages[0].text and "OverflowError" in passages[0].text


def test_the_search_finds_the_what_s_new_sentence_on_task_groups(benchmark_pages, held_out_pages) -> None:
    """Run A: "the only direct comparison is that it is a more modern way"; the stored What's New page
    says TaskGroup "is recommended over using create_task() and gather() directly"."""
    statement = "The pages read do not compare TaskGroup with gather() beyond calling it a more modern way."
    texts = [p.text for p in _closest(statement, benchmark_pages + held_out_pages)]
    assert any("recommended over using create_task() and gather() directly" in t for t in texts), texts
    assert any("A more modern way" in t for t in texts)  # and the passage the statement does rest on
    lengths = _closest("No page read relates len() to sys.maxsize.", benchmark_pages + held_out_pages)
    assert any("len raises OverflowError on lengths larger than sys.maxsize" in p.text for p in lengths)


def test_the_search_is_bounded_on_hostile_pages() -> None:
    statement = "The pages read do not relate sys.maxsize to int values, container sizes, lengths or ranges."
    pages = [Page(f"https://h.example/{i}", "t", ("sys maxsize int values container sizes " * 60_000)[:2_000_000])
             for i in range(4)] + [Page(f"https://h.example/x{i}", "t", "x" * 2_000_000) for i in range(4)]
    start = time.process_time()
    passages = _closest(statement, pages)
    assert len(passages) == MAX_PASSAGES
    assert all(len(p.text) <= 700 for p in passages)
    assert time.process_time() - start < 5  # 0.15 s of CPU on the 2-core machine at load 10


# --- judged by the checker, from what it is shown -----------------------------------------------------

def _tiered_run(root: Path, gaps: str) -> Path:
    run, _ = build(root)
    plan = run / "plan.md"
    plan.write_text(plan.read_text(encoding="utf-8").replace("## Budget\n", "## Budget\n\nTier: standard\n"),
                    encoding="utf-8")
    report = run / "report.md"
    report.write_text(report.read_text(encoding="utf-8").replace(GAPS_LINE, GAPS_LINE + gaps), encoding="utf-8")
    return run


def _prompt(run: Path):
    return prompt_for_parsed_run(run, parse_and_check(run, extra=())[0])[0]


def scripted_checker(prompt: str, stated: dict[str, tuple[str, ...]]) -> str:
    """A checker that answers from its prompt alone: a claim is supported; a statement of absence is
    unsupported when a passage shown under it holds all the words `stated` gives for it (what a page
    saying it must say), and supported otherwise."""
    lines = []
    for block in prompt.split("\n## Claim ")[1:]:
        number = block.split(" ", 1)[0]
        head, _, rest = block.partition("\n")
        statement = next((line[len("Statement: "):] for line in rest.splitlines() if line.startswith("Statement: ")), "")
        words = next((w for key, w in stated.items() if key in statement), None) if absence.MARK in head else None
        shown = [line for line in rest.splitlines() if line.startswith("Passage ")]
        hit = next((n for n, line in enumerate(shown, 1) if words and all(w in line for w in words)), None)
        lines.append(f"{number} unsupported: passage {hit} states it" if hit else f"{number} supported: as shown")
    return "Verdicts:\n" + "\n".join(lines)


def _answer(run: Path, stated: dict[str, tuple[str, ...]]) -> None:
    prompt = _prompt(run)
    verdicts, problems = parse_answer(scripted_checker(prompt.text, stated), prompt.keys)
    assert not problems, problems
    Path(prompt.verdicts_path).parent.mkdir(exist_ok=True)
    Path(prompt.verdicts_path).write_text(json.dumps({"verdicts": [
        {"claim": k, "verdict": v, "reason": r} for k, v, r in verdicts]}), encoding="utf-8")


MAXSIZE = {"sys.maxsize": ("sys.maxsize", "OverflowError")}


def test_a_gaps_line_a_stored_page_refutes_fails_with_the_passage(tmp_path: Path) -> None:
    run = _tiered_run(tmp_path, "- The pages read do not relate sys.maxsize to container sizes or len().\n")
    assert "report.claims.checked" in failing(run_checklist(run))  # the statement awaits the checker too
    prompt = _prompt(run)
    assert absence.MARK in prompt.text and "larger than sys.maxsize" in prompt.text
    _answer(run, MAXSIZE)
    bad = failing(run_checklist(run))
    check = bad["report.gaps.absence"]
    assert "report.claims.checked" not in bad
    assert "a stored page states it" in check.message and "larger than sys.maxsize" in check.message
    assert "docs.python.org/3.11/library/stdtypes.html" in check.message
    assert check.line == (run / "report.md").read_text(encoding="utf-8").splitlines().index(
        "- The pages read do not relate sys.maxsize to container sizes or len().") + 1


def test_an_honest_not_established_still_verifies(tmp_path: Path) -> None:
    run = _tiered_run(tmp_path, "- The pages read do not state how much memory a TaskGroup uses.\n")
    _answer(run, MAXSIZE)
    checks = run_checklist(run)
    assert not {"report.gaps.absence", "report.claims.checked", "report.gaps.form"} & set(failing(checks))
    assert any(c.id == "report.gaps.absence" and c.ok for c in checks)


def test_a_verdict_survives_an_unchanged_statement_and_is_asked_again_on_a_change(tmp_path: Path) -> None:
    run = _tiered_run(tmp_path, "- The pages read do not state how much memory a TaskGroup uses.\n")
    _answer(run, MAXSIZE)
    report = run / "report.md"
    text = report.read_text(encoding="utf-8")
    moved = text.replace(GAPS_LINE + "- The pages read do not state how much memory a TaskGroup uses.\n",
                         "- The pages read do not state how much memory a TaskGroup uses.\n" + GAPS_LINE)
    report.write_text(moved, encoding="utf-8")
    assert _prompt(run) is None  # moved: the same words against the same passages
    report.write_text(moved.replace("how much memory a TaskGroup uses", "how much memory a TaskGroup needs"),
                      encoding="utf-8")
    prompt = _prompt(run)
    assert prompt is not None and len(prompt.keys) == 1 and "TaskGroup needs" in prompt.text


def test_a_newly_stored_page_asks_again(tmp_path: Path) -> None:
    from web_research.evidence.snapshots import store_snapshot  # noqa: PLC0415

    run = _tiered_run(tmp_path, "- The pages read do not state how much memory a TaskGroup uses.\n")
    _answer(run, MAXSIZE)
    assert _prompt(run) is None
    (run / ".web-research" / "seals.json").unlink()  # a folder with no record of seals: every snapshot counts
    store_snapshot(run, requested_url="https://mem.example/", final_url="https://mem.example/", title="Memory",
                   status=200, content_type="text/html", retrieved_at="2026-12-04T10:00:00+00:00",
                   text="Each TaskGroup uses memory for its tasks.", extractor="trafilatura 2.0.0")
    prompt = _prompt(run)
    assert prompt is not None and "Each TaskGroup uses memory" in prompt.text


# --- a tier with no claim check: statements of absence are judged all the same -----------------------

def _run_in_tier(root: Path, tier: str | None, gaps: str) -> Path:
    run, _ = build(root)
    if tier is not None:
        plan = run / "plan.md"
        plan.write_text(plan.read_text(encoding="utf-8").replace("## Budget\n", f"## Budget\n\nTier: {tier}\n"),
                        encoding="utf-8")
    report = run / "report.md"
    report.write_text(report.read_text(encoding="utf-8").replace(GAPS_LINE, GAPS_LINE + gaps), encoding="utf-8")
    return run


def test_without_a_claim_check_a_statement_of_absence_is_judged_all_the_same(tmp_path: Path) -> None:
    """A plan with no Tier: line (older runs, hand-written plans) judges no cited claim, but a
    statement that the pages lack something goes before the checker with the passages closest to
    it: the audit's synonyms ("how long Acme keeps logs" against "retained for 15 days") passed the
    key-term test that stood in for a judge there, which also refused honest ones."""
    tier = None
    attack = "- No page read says whether len() may exceed sys.maxsize.\n"
    run = _run_in_tier(tmp_path / "attack", tier, attack)
    bad = failing(run_checklist(run))
    assert "report.claims.checked" in bad and "statement(s) of absence" in bad["report.claims.checked"].message
    assert [a["state"] for a in _claims_json(run)["absences"]] == ["unchecked"]
    prompt = _prompt(run)
    assert prompt is not None and len(prompt.keys) == 1  # the statement only: no cited claim is judged here
    assert absence.MARK in prompt.text and "larger than sys.maxsize" in prompt.text and "\nClaim: " not in prompt.text
    _answer(run, MAXSIZE)
    bad = failing(run_checklist(run))
    assert "report.claims.checked" not in bad and "a stored page states it" in bad["report.gaps.absence"].message
    assert [a["state"] for a in _claims_json(run)["absences"]] == ["unsupported"]

    honest = "- The pages read do not state how much memory a TaskGroup uses.\n"
    run = _run_in_tier(tmp_path / "honest", tier, honest)
    _answer(run, MAXSIZE)
    checks = run_checklist(run)
    assert not {"report.gaps.absence", "report.claims.checked", "report.gaps.form"} & set(failing(checks))
    passed = next(c for c in checks if c.id == "report.claims.checked" and c.ok)
    assert "1 statement(s) of absence have a current verdict" in passed.message
    assert [a["state"] for a in _claims_json(run)["absences"]] == ["supported"]


def test_without_a_claim_check_and_no_statement_of_absence_no_checker_is_asked(tmp_path: Path) -> None:
    run = _run_in_tier(tmp_path, None, "")
    assert "report.claims.checked" not in failing(run_checklist(run))
    prompt, why = prompt_for_parsed_run(run, parse_and_check(run, extra=())[0])
    assert prompt is None and "judges no cited claim" in why


def _claims_json(run: Path) -> dict:
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    done = subprocess.run([sys.executable, "-m", "web_research", "claims", str(run), "--json"], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


# The held-out audit's rewordings: each says a page lacks what a stored passage states, in other
# words than the passage's (inflections, synonyms, a number in words, a verb of relating). The
# search must put the passage that states it before the checker.
REWORDED = [
    ("No page read relates len() to sys.maxsize.", "sys.maxsize"),  # the passage's own terms
    ("No page read connects len() and sys.maxsize.", "sys.maxsize"),  # another verb of relating
    ("The pages read do not say whether len() can exceed sys.maxsize.", "sys.maxsize"),  # larger / exceed
    ("No page read says what happens to lengths larger than sys.maxsize.", "sys.maxsize"),  # inflections
    ("The pages read do not state whether ranges bigger than sys.maxsize are allowed.", "sys.maxsize"),
    ("No page read states that len() fails for ranges past sys.maxsize.", "sys.maxsize"),  # fails / raise
    ("No page read says SET LOCAL ends with the transaction.", "SET LOCAL"),  # "the end of the current transaction"
]


@pytest.mark.parametrize("statement, stated", REWORDED, ids=[s for s, _w in REWORDED])
def test_the_passage_a_reworded_statement_denies_is_shown_to_the_checker(benchmark_pages, statement: str,
                                                                        stated: str) -> None:
    what = absence_what(statement)
    terms, names = key_terms(what), name_terms(what)
    shown = closest_passages(terms, benchmark_pages, names=names)
    assert any(stated in p.text and set(p.terms) >= set(terms) for p in shown), (terms, [p.text[:160] for p in shown])


def test_a_term_is_found_in_the_words_a_page_says_it_with() -> None:
    from web_research.evidence.closest_passages import holds, span  # noqa: PLC0415

    assert holds("Team plan: $12 per seat", "cost") and holds("billed at 1.6x", "price")
    assert holds("up to two hosts", "2") and holds("2 hosts", key_terms("two")[0])
    assert not holds("costs 300 a year", "30") and not holds("Introspection", "int")
    assert holds("asyncio.TaskGroup()", "group") and holds("the lengths", "length")
    assert span("See len() may raise an error when larger than sys.maxsize", ["len", "maxsize"]) == 53
    assert span("len() ... " + "x" * 500 + " maxsize", ["len", "maxsize"]) > 300
    assert span("only len()", ["len", "maxsize"]) is None


def test_the_passage_that_holds_every_term_is_shown_first() -> None:
    """A page that repeats the statement's rarest name outranked, window for window, the one passage
    that holds every term: the checker saw the refuting passage second or not at all."""
    noisy = Page("https://a.example/", "A", "\n\n".join(f"Brightpath Brightpath queue note {i}." for i in range(40)))
    refuting = Page("https://b.example/", "B", "Intro.\n\nBrightpath queues cost less than Acme queues.\n")
    terms = key_terms("whether Brightpath queues cost less than Acme's")
    passages = closest_passages(terms, [noisy, refuting], names=name_terms("whether Brightpath queues cost less"))
    assert passages[0].url == "https://b.example/" and set(passages[0].terms) == set(terms), passages
    # and a name spelt apart and a synonym do not get a rewording past it: the checker sees it first
    what = "whether Bright Path queues are cheaper than Acme's"
    passages = closest_passages(key_terms(what), [noisy, refuting], names=name_terms(what))
    assert passages and passages[0].url == "https://b.example/", passages


def test_the_checker_is_told_the_absence_item_kind() -> None:
    body = (formats.PLUGIN_ROOT / "agents" / f"{formats.CHECKER_AGENT}.md").read_text(encoding="utf-8")
    assert absence.MARK in body and "passages of all the run's stored pages" in body
    assert re.search(r"`unsupported`[^\n]*\n?[^\n]*passage", body)


def test_the_template_gives_every_gaps_form_the_code_reads() -> None:
    """One source of truth: the fixed sentences and the forms live in gaps_prose.py; the template the
    orchestrator writes from states each, and its skeleton's Gaps line is an absence statement."""
    template = " ".join(formats.reference_file("report-template.md").read_text(encoding="utf-8").split())
    for sentence in FIXED_SENTENCES:
        assert sentence in template, sentence
    assert "`Unconfirmed evidence: <subtopic names, run files, check ids>.`" in template
    for form in re.findall(r"`((?:The pages read do not|No page read) [^`]+)`", template):
        assert absence_what(form.replace("<", "").replace(">", "")) is not None, form
    skeleton = re.search(r"## Gaps & Limitations\n\n- (.*)\n", formats.reference_file("report-template.md")
                         .read_text(encoding="utf-8")).group(1)
    assert absence_what(re.sub(r"[<>|]", "", skeleton)) is not None, skeleton


def test_more_statements_than_are_judged_fail_rather_than_pass_unread(tmp_path: Path) -> None:
    run, _ = build(tmp_path)
    report = run / "report.md"
    many = "".join(f"- The pages read do not state the price of plan {word}.\n"
                   for word in [f"p{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(absence.MAX_ITEMS + 1)])
    report.write_text(report.read_text(encoding="utf-8").replace(GAPS_LINE, GAPS_LINE + many), encoding="utf-8")
    check = failing(run_checklist(run))["report.gaps.absence"]
    assert f"more than the {absence.MAX_ITEMS} judged" in check.message


def test_a_partial_verdict_fails_showing_the_passage_the_checker_names() -> None:
    from web_research.checks.verdicts import Decision  # noqa: PLC0415
    from web_research.evidence.closest_passages import Passage  # noqa: PLC0415

    passages = (Passage("https://a.example/", "A", 0, 10, "Nothing about it here.", ("gather",), False),
                Passage("https://b.example/", "B", 0, 10, "TaskGroup is recommended over gather().", ("gather",), False))
    item = absence.AbsenceItem(9, "No page read compares TaskGroup with gather() or with wait().", ("gather",), passages)
    [check] = absence.judged_failures(Path("report.md"), [item],
                                      lambda key: Decision("partial", 0, "passage 2 compares it with gather()"))
    assert check.id == "report.gaps.absence" and check.line == 9 and "states part of" in check.message
    assert "recommended over gather()" in check.message and "Nothing about it here" not in check.message
    honest = absence.judged_failures(Path("report.md"), [item], lambda key: Decision("supported", 0, "none does"))
    assert honest == []
