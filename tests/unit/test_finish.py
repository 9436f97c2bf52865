"""`web-research finish`: references numbered by first use, Sources copied from the findings,
the checklist, the rounds of fixes and the return object (report/assembly.py, report/finish.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from example_run import BILLING, COMMITMENTS, EXAMPLE_DIR, copy_example, judge_statements, run_cli, without_verdicts
from web_research import formats
from web_research.checks.citation_entries import parse_citations
from web_research.guard.rules.stop_gate import declares_unverified
from web_research.checks.report_references import REFERENCE, SHAPE, find_references, reference
from web_research.report.assembly import assemble, identity, sources_span

RETURN_KEYS = set(formats.RETURN_PATH_KEYS)


def findings_identities(run: Path) -> dict[tuple[str, str, str], str]:
    """Each findings entry's (title, URL, excerpt) -> its reference key `slug:n`."""
    out: dict[tuple[str, str, str], str] = {}
    for path in sorted((run / formats.FINDINGS_DIR).glob("*.md")):
        for c in parse_citations(path.read_text(encoding="utf-8")):
            out.setdefault(identity(c), f"{path.stem}:{c.number}")
    return out


def to_references(run: Path) -> str:
    """Rewrite the run's report the new way: every `[^n]` becomes the reference to the
    findings entry its Sources entry copies, and the Sources section goes. Returns the text."""
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    keys = findings_identities(run)
    by_number = {c.number: keys[identity(c)] for c in parse_citations(text)}
    lines = text.splitlines()
    span = sources_span(lines)
    assert span is not None
    body = "\n".join(lines[:span[0]])
    body = re.sub(r"\[\^(\d+)\](?!:)", lambda m: "[^" + by_number[int(m.group(1))] + "]", body)
    draft = body.rstrip() + "\n"
    report.write_text(draft, encoding="utf-8")
    return draft


def finish(run: Path):
    return run_cli("finish", str(run))


def entries_match_findings(run: Path) -> None:
    """Every Sources entry of the report is a findings entry, field for field, and every
    number is used in order of first use."""
    text = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    keys = findings_identities(run)
    cites = parse_citations(text)
    assert cites and all(identity(c) in keys for c in cites)
    firsts: list[int] = []
    for m in find_references(text):
        assert m.slug is None, f"reference left: {m}"
        if m.number not in firsts:
            firsts.append(m.number)
    assert firsts == list(range(1, len(firsts) + 1)) == [c.number for c in cites]


def test_references_become_the_example_report_byte_for_byte(tmp_path):
    run = copy_example(tmp_path)
    to_references(run)
    done = finish(run)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {"plan": str(run / "plan.md"), "report": str(run / "report.md"),
                                       "findings_dir": str(run / "findings") + "/",
                                       "view": str(run / formats.REPORT_VIEW_FILE)}
    assert done.stdout.strip().count("\n") == 0  # the object alone
    assert 'id="wr-data"' in (run / formats.REPORT_VIEW_FILE).read_text(encoding="utf-8")  # the view exists
    assert (run / "report.md").read_bytes() == (EXAMPLE_DIR / "report.md").read_bytes()


def test_the_bundled_example_was_assembled_by_finish(tmp_path):
    """examples/observability-pricing keeps the draft finish rewrote; finish on it gives report.md."""
    draft = EXAMPLE_DIR / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE
    assert REFERENCE.search(draft.read_text(encoding="utf-8"))
    assert "**Subtopic" not in draft.read_text(encoding="utf-8")  # the failed subtopic's Gaps bullet is finish's
    run = copy_example(tmp_path)
    (run / "report.md").write_bytes(draft.read_bytes())
    (run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).unlink()
    assert finish(run).returncode == 0
    assert (run / "report.md").read_bytes() == (EXAMPLE_DIR / "report.md").read_bytes()


def test_a_second_run_changes_nothing(tmp_path):
    run = copy_example(tmp_path)
    to_references(run)
    first = finish(run)
    after_first = (run / "report.md").read_bytes()
    second = finish(run)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert (run / "report.md").read_bytes() == after_first


def test_references_out_of_order_and_reused_are_numbered_by_first_use(tmp_path):
    run = copy_example(tmp_path)
    draft = to_references(run)
    # The TL;DR now opens with a commitments source, and cites billing:2 twice more.
    first_bullet = next(line for line in draft.splitlines() if line.startswith("- Vendors bill"))
    lapse = first_bullet.replace("[^" + BILLING + ":1]", "[^" + COMMITMENTS + ":2][^" + BILLING + ":1]", 1) \
        + " Lumen includes indexing[^" + BILLING + ":2]."
    (run / "report.md").write_text(draft.replace(first_bullet, lapse), encoding="utf-8")
    done = finish(run)
    assert done.returncode == 0, done.stdout + done.stderr
    entries_match_findings(run)
    text = (run / "report.md").read_text(encoding="utf-8")
    opening = next(line for line in text.splitlines() if line.startswith("- Vendors bill"))
    assert opening.startswith("- Vendors bill logs by different units: Acme splits ingestion (per GB) from "
                              "indexing (per million events)[^1][^2]")
    assert opening.endswith("Lumen includes indexing[^3].") and opening.count("[^3]") == 2
    assert "help.lumenlogs.example/billing/true-up" in next(c.url for c in parse_citations(text) if c.number == 1)


def test_a_reference_added_after_finish_renumbers_every_footnote(tmp_path):
    run = copy_example(tmp_path)
    to_references(run)
    assert finish(run).returncode == 0
    text = (run / "report.md").read_text(encoding="utf-8")
    added = "## TL;DR\n\n- Lumen reconciles overage quarterly[^" + COMMITMENTS + ":2]."
    (run / "report.md").write_text(text.replace("## TL;DR\n", added, 1), encoding="utf-8")
    done = finish(run)
    assert done.returncode == 0, done.stdout + done.stderr
    entries_match_findings(run)
    cites = {c.number: c for c in parse_citations((run / "report.md").read_text(encoding="utf-8"))}
    assert cites[1].url == "https://help.lumenlogs.example/billing/true-up"
    assert cites[2].url == "https://docs.acme.example/logs/pricing"  # was [^1]
    assert len(cites) == 9  # the true-up page keeps one number


def test_a_sources_section_written_by_hand_is_replaced_with_a_note(tmp_path):
    run = copy_example(tmp_path)
    draft = to_references(run)
    handmade = draft + "\n## Sources\n\n[^1]: **Title**: Pricing\n      **URL**: https://acme.example/\n" \
        '      **Excerpt**: "Cheap."\n'
    (run / "report.md").write_text(handmade, encoding="utf-8")
    done = finish(run)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    record = json.loads((run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).read_text(encoding="utf-8"))
    assert "Sources section was written by hand (1 entries, 1 of them in no findings file)" in record["notes"][0]
    assert (run / "report.md").read_bytes() == (EXAMPLE_DIR / "report.md").read_bytes()
    kept = run / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE
    assert kept.read_text(encoding="utf-8") == handmade


def test_an_old_format_report_is_checked_as_written(tmp_path):
    run = copy_example(tmp_path)
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "old-format-report.md"
    (run / "report.md").write_bytes(fixture.read_bytes())
    (run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).unlink()  # finish never ran on it
    done = finish(run)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    record = json.loads((run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).read_text(encoding="utf-8"))
    assert "it is checked as written" in record["notes"][0]
    assert (run / "report.md").read_bytes() == fixture.read_bytes()
    judge_statements(run)  # its statements of absence, as a checker judges them (every tier)
    assert run_cli("verify", str(run)).returncode == 0


@pytest.mark.parametrize("bad, says", [
    ("[^no-such-subtopic:1]", "there is no findings/no-such-subtopic.md"),
    ("[^" + BILLING + ":9]", f"findings/{BILLING}.md has no footnote 9 (it has: 1, 2, 3, 4, 5)"),
    ("[^12]", "[^12] has no entry in report.md's Sources"),
])
def test_a_reference_that_names_nothing_stops_finish_with_its_line(tmp_path, bad, says):
    run = copy_example(tmp_path)
    draft = to_references(run)
    broken = draft.replace("## Findings\n", "## Findings\n\nA stray claim" + bad + ".\n", 1)
    (run / "report.md").write_text(broken, encoding="utf-8")
    done = finish(run)
    assert done.returncode == 1
    line = broken.splitlines().index("A stray claim" + bad + ".") + 1
    assert f"report.references: report.md:{line}: " in done.stdout and says in done.stdout
    assert done.stdout.startswith(f"{run / 'report.md'} fails 1 check(s).")
    assert "Round 1 of 3 of fixes" in done.stdout
    assert (run / "report.md").read_text(encoding="utf-8") == broken  # nothing rewritten


@pytest.mark.parametrize("char, name", [
    ("\u2028", "U+2028 LINE SEPARATOR"), ("\u2029", "U+2029 PARAGRAPH SEPARATOR"), ("\x85", "U+0085 NEXT LINE (NEL)"),
    ("\x1e", "U+001E RECORD SEPARATOR"), ("\x0c", "U+000C FORM FEED"), ("\r", "U+000D CARRIAGE RETURN"),
    ("\r\n", None),  # the honest form: a Windows line end is one line end to every reader
])
def test_a_character_only_some_programs_end_a_line_at_stops_finish_before_it_writes(tmp_path, char, name):
    """str.splitlines ends a line at U+2028 and its kin, Markdown does not: references placed by one
    numbering were written into another's line, over the draft's words (issue 43)."""
    run = copy_example(tmp_path)
    draft = to_references(run)
    lines = draft.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("- Vendors bill logs"))
    column = lines[at].index(" ", 10) + 1
    lines[at] = lines[at][:column - 1] + char + lines[at][column:]
    broken = "\n".join(lines)
    (run / "report.md").write_bytes(broken.encode("utf-8"))
    done = finish(run)
    if name is None:
        assert "report.text.controls" not in done.stdout and "[^" + BILLING + ":" not in \
            (run / "report.md").read_text(encoding="utf-8")
        return
    assert done.returncode == 1
    assert f"report.text.controls: report.md:{at + 1}: column {column}: {name}" in done.stdout, done.stdout
    assert (run / "report.md").read_bytes() == broken.encode("utf-8")  # nothing rewritten
    assert name.split()[0] in run_cli("verify", str(run)).stdout


def test_a_number_without_an_entry_is_never_read_through_an_earlier_numbering(tmp_path):
    """The model rewrites a finished report with numbers of its own and no Sources: [^1] is now
    meant for the true-up page, which the last finish numbered 7. finish refuses and says how to
    cite, rather than pointing [^1] at the page the old numbering gave it."""
    run = copy_example(tmp_path)
    to_references(run)
    assert finish(run).returncode == 0  # finish ran: its numbering is recorded
    text = (run / "report.md").read_text(encoding="utf-8")
    body = text[:text.index("## Sources")].rstrip() + "\n"
    rewritten = body.replace("Lumen reconciles overage quarterly at the contracted per-GB rate, not the list "
                             "price[^7]", "Lumen reconciles overage quarterly at the contracted per-GB rate, not "
                             "the list price[^1]")
    assert rewritten != body
    (run / "report.md").write_text(rewritten, encoding="utf-8")
    done = finish(run)
    assert done.returncode == 1, done.stdout
    assert "[^1] has no entry in report.md's Sources" in done.stdout
    assert f"cite the source by reference, {SHAPE}" in done.stdout
    assert (run / "report.md").read_text(encoding="utf-8") == rewritten  # nothing renumbered through the record


def test_rounds_of_fixes_then_the_unverified_object(tmp_path):
    run = copy_example(tmp_path)
    draft = to_references(run)
    broken = draft.replace("# Research: How do", "# Research: Why do", 1)
    (run / "report.md").write_text(broken, encoding="utf-8")
    for round_ in range(1, formats.MAX_VERIFY_ROUNDS + 1):
        done = finish(run)
        assert done.returncode == 1 and f"Round {round_} of {formats.MAX_VERIFY_ROUNDS} of fixes" in done.stdout
        assert "report.title" in done.stdout
    done = finish(run)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert set(answer) == RETURN_KEYS | {formats.RETURN_VERIFIED_KEY, formats.RETURN_FAILED_CHECKS_KEY}
    assert answer[formats.RETURN_VERIFIED_KEY] is False and answer[formats.RETURN_FAILED_CHECKS_KEY] == ["report.title"]
    assert declares_unverified(done.stdout)


def test_waiting_for_a_claim_checker_is_no_round_of_fixes(tmp_path):
    run = without_verdicts(copy_example(tmp_path))
    plan = run / "plan.md"
    plan.write_text(plan.read_text(encoding="utf-8").replace("## Budget\n", "## Budget\n\nTier: standard\n"),
                    encoding="utf-8")
    to_references(run)
    for _ in range(formats.MAX_VERIFY_ROUNDS + 1):
        done = finish(run)
        assert done.returncode == 0, done.stdout + done.stderr  # a step of the run, not an error
        assert done.stdout.startswith("Claims of report.md need a verdict")
        assert formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {run}") in done.stdout  # SKILL.md's one form
    record = json.loads((run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).read_text(encoding="utf-8"))
    assert record.get("fix_rounds", 0) == 0


def test_verify_names_a_reference_left_unnumbered(tmp_path):
    run = copy_example(tmp_path)
    to_references(run)
    done = run_cli("verify", str(run))
    assert done.returncode == 1
    assert re.search(r"report\.references: .*report\.md:5: \[\^" + BILLING + r":1\] and \d+ more", done.stdout)
    assert "run finish" in done.stdout


def test_the_reference_shape_is_the_pattern():
    assert REFERENCE.fullmatch(reference("billing-units", 3))
    assert not REFERENCE.fullmatch("[^../../etc:1]") and not REFERENCE.fullmatch("[^a/b:1]")
    assert SHAPE == "[^<subtopic-slug>:<n>]"
    marks = find_references("Text[^a-b:1] and `[^c:2]` and [^3].\n\n```\n[^d:4]\n```\n\n## Sources\n\n[^e:5]\n")
    assert [(m.slug, m.number) for m in marks] == [("a-b", 1), (None, 3)]


def test_assemble_keeps_the_prose_and_what_follows_sources():
    findings = {"s": {1: _entry("s:1", "A"), 2: _entry("s:2", "B")}}
    text = "# T\n\nOne[^s:2], two[^s:1], one again[^s:2].\n\n## Sources\n\nold\n\n## After\n\nkept\n"
    result = assemble(text, findings, {}, [])
    assert result.problems == []
    assert result.text == ("# T\n\nOne[^1], two[^2], one again[^1].\n\n## Sources\n\n[^1]: **Title**: B\n"
                           "      **URL**: https://b.example/\n      **Excerpt**: \"b b b b\"\n\n[^2]: **Title**: A\n"
                           "      **URL**: https://a.example/\n      **Excerpt**: \"a a a a\"\n\n## After\n\nkept\n")


def _entry(key: str, title: str):
    from web_research.report.assembly import Entry
    low = title.lower()
    lines = (f"[^{key.split(':')[1]}]: **Title**: {title}", f"      **URL**: https://{low}.example/",
             f'      **Excerpt**: "{low} {low} {low} {low}"')
    return Entry(key, lines, (title, f"https://{low}.example/", f"{low} {low} {low} {low}"))


# --- Gaps & Limitations: the recorded failures are written by finish (report/gaps.py) -------------

FAILED_LINE = ('- **Subtopic "Cost controls for high-volume logs"** (failed): its researcher did not complete it; '
               "findings/cost-controls-for-high-volume-logs.md gives the researcher's reason. Not established: "
               '"Which built-in controls vendors document for reducing billable log volume (sampling, filtering, '
               'exclusion rules)"; "Whether archived logs can be rehydrated and what that costs".')


def test_finish_writes_the_gaps_bullet_of_a_failed_subtopic(tmp_path):
    """The model writes only its own limitations; finish puts the failed subtopic's bullet (its
    reason, its uncovered ids) at the top of Gaps: the example report, byte for byte."""
    run = copy_example(tmp_path)
    draft = to_references(run)
    assert FAILED_LINE in draft
    (run / "report.md").write_text(draft.replace(FAILED_LINE + "\n", ""), encoding="utf-8")
    done = finish(run)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (run / "report.md").read_bytes() == (EXAMPLE_DIR / "report.md").read_bytes()
    again = finish(run)  # its own lines are replaced, never doubled
    assert again.returncode == 0 and (run / "report.md").read_text(encoding="utf-8").count(FAILED_LINE) == 1


def test_finish_writes_a_not_established_bullet_and_drops_it_once_covered(tmp_path):
    """Issue 43: the line is fixed words and the bullet's; the researcher's reason (figures and all)
    stays in its findings file, which the line names."""
    from web_research.report.gaps import bullet_line  # noqa: PLC0415

    run = copy_example(tmp_path)
    draft = to_references(run)
    assert "1.3" not in draft  # the report covers 1.3 by citation, not in Gaps
    findings = run / "findings" / f"{BILLING}.md"
    text = findings.read_text(encoding="utf-8")
    heading = next(line for line in text.splitlines() if line.startswith("### 1.3"))
    body_end = text.index("\n### ", text.index(heading) + 1) if "\n### " in text[text.index(heading) + 1:] \
        else text.index("\n## Not established")
    cut = text[:text.index(heading)] + heading + "\n\n" + text[body_end:]
    cut = cut.replace("## Not established\n\n", "## Not established\n\n- 1.3: no page [states] it; Enterprise costs\n"
                      "  $250,000 per year.\n", 1)
    findings.write_text(cut, encoding="utf-8")
    assert finish(run).returncode == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    line = ("- **Whether indexing and ingestion are priced separately**: not established; no source the researcher's "
            "findings cite establishes it.")
    assert bullet_line("Whether indexing and ingestion are priced separately", "not-established") == line
    assert line in report and "250,000" not in report and "no page" not in report
    assert report.index("## Gaps & Limitations") < report.index(line) < report.index("## Sources")
    findings.write_text(text, encoding="utf-8")  # a later wave establishes it: the bullet goes
    finish(run)
    assert line not in (run / "report.md").read_text(encoding="utf-8")


def test_a_report_without_gaps_gets_no_section_from_finish(tmp_path):
    """The section is the model's to write (report.sections.missing says so): finish adds bullets
    to it, never the heading."""
    run = copy_example(tmp_path)
    draft = to_references(run)
    start = draft.index("## Gaps & Limitations")
    (run / "report.md").write_text(draft[:start].rstrip() + "\n", encoding="utf-8")
    done = finish(run)
    assert done.returncode == 1 and "report.sections.missing" in done.stdout
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "## Gaps" not in report and FAILED_LINE not in report


def test_a_failure_the_model_named_gets_no_second_bullet(tmp_path):
    run = copy_example(tmp_path)
    draft = to_references(run)
    own = '- The pages read do not establish subtopic "Cost controls for high-volume logs".'  # a Gaps form
    named = draft.replace(FAILED_LINE, own)
    (run / "report.md").write_text(named, encoding="utf-8")
    assert finish(run).returncode == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "Subtopic \"Cost controls" not in report and own in report
    assert ("- **Which built-in controls vendors document for reducing billable log volume (sampling, filtering, "
            "exclusion rules)**: not established; its researchers left no usable findings.") in report


def test_many_failures_fit_what_the_client_shows_and_the_rest_is_in_a_file(tmp_path):
    """Issue 38: run C's finish printed 20 failing claims with their passages and the client cut
    the output. Issue 42: every failure the model must fix is listed (no "And N more"), each
    shortened to fit; all of them in full are in a file."""
    from web_research.core.message_fit import escaped_len
    from web_research.report.steps import FAILURES_FILE, MAX_TEXT

    run = copy_example(tmp_path)
    draft = to_references(run)
    strays = "".join(f"Stray claim {i} " + "with many words " * 40 + f"[^no-such-subtopic-{i}:1].\n\n"
                     for i in range(40))
    (run / "report.md").write_text(draft.replace("## Findings\n", "## Findings\n\n" + strays, 1), encoding="utf-8")
    done = finish(run)
    assert done.returncode == 1
    assert escaped_len(done.stdout) <= MAX_TEXT, escaped_len(done.stdout)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{run / 'report.md'} fails 40 check(s). Round 1 of")  # what to do first
    assert lines[1].startswith("- report.references: ") and "no-such-subtopic-0" in lines[1]
    listed = [line for line in lines if line.startswith("- report.references: ")]
    assert len(listed) == 40 and " more." not in done.stdout
    full = run / formats.RUN_STATE_DIR / FAILURES_FILE
    assert str(full) in done.stdout
    assert all(f"no-such-subtopic-{i}.md" in full.read_text(encoding="utf-8") for i in range(40))


def test_one_fix_finished_by_the_hook_and_then_by_hand_is_one_round(tmp_path):
    """After a Write of report.md the hook runs finish; a model that also runs it by hand in the same
    message spends no second round on the one fix. Run again by hand on a report nobody changed,
    it counts as usual (a model that never fixes still reaches the unverified end)."""
    from web_research.report.finish import finish_run

    run = copy_example(tmp_path)
    (run / "report.md").write_text(to_references(run).replace("# Research: How do", "# Research: Why do", 1),
                                   encoding="utf-8")
    assert finish_run(run, by_hook=True).rounds == 1
    assert "Round 1 of 3 of fixes" in finish(run).stdout  # by hand, right after: the same fix
    assert "Round 2 of 3 of fixes" in finish(run).stdout  # again by hand: a round like any other
