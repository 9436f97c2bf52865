"""The Gaps & Limitations lines `finish` writes (report/gaps.py): the plugin's own words never fail
its checks (issue 42), and nothing a researcher wrote reaches report.md through them (issue 43).

The property: plan bullets holding figures, versions, SQLSTATE codes, ids, dates and Markdown
marks, one bullet established in part, one not at all and a failed subtopic's, go through
`finish` and the whole checklist on the first round: verified, with finish's lines in Gaps. A
model that then adds references to finish's lines (what an old failure message asked for) gets
them taken out again by the next `finish`, and the run still verifies."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from example_run import BILLING, COMMITMENTS, COST, EXAMPLE_DIR, copy_example, failing, findings_path, run_cli
from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.checks.report import parse_report
from web_research.checks.statements import statement_checks
from web_research.report.finish import DONE, finish_run
from web_research.report.gaps import bullet_line, is_own, own_lines, subtopic_line, words
from web_research.run.briefs import write_briefs
from web_research.run.finish_record import read_record
from web_research.run.plan import load_plan

EXAMPLE_PLAN = (EXAMPLE_DIR / formats.PLAN_FILE).read_text(encoding="utf-8")
DRAFT = (EXAMPLE_DIR / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE).read_text(encoding="utf-8")
# What plan bullets hold in real runs (issue 42: "Python 3.11", "(40001) … (40P01)"), and marks
# Markdown would read as structure.
FRAGMENTS = ["Python 3.11", "PostgreSQL 16.2", "SQLSTATE 40P01", "serialization failures (40001) \u2026 deadlocks (40P01)",
             "error 40001", "since 2026-04-18", "in April 2026", "RFC 9110", "a $250,000 yearly plan", "30% off",
             "bullet 5.1", "3x the rate", "10 to 30 percent", "release v2.0.1", "HTTP/2", "1,000,000 events",
             "half the price", "max_connections", "work_mem \u00d7 hash_mem_multiplier", "`SELECT 1`",
             "the <details> element", "a & b", "Q1 2026", "p99 latency", "sys.maxsize (2**63 - 1)",
             "*starred* words", "__init__", "a | b", "#7", "~approximately~", "[bracketed] text", "!important",
             "https://example.com/pricing?a=1&b=2", "~5 GB", "v1.2.3-rc.1", "ISO 8601 (2026-12-06T20:40Z)",
             "100\u2009000 rows", "\u00a350/month", "blank\u2800\u2800 cells", "zero\u200bwidth", "wide\u3000\u3000gap"]
# Bullets whose state finish names: 1.2 and 2.3 established in part, 3.1 and 3.2 left by the failed
# subtopic, and 2.4 (added) not established at all.


@st.composite
def bullet_texts(draw) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3, unique=True))
    return "Whether " + " and ".join(parts) + draw(st.sampled_from(["", " apply", ", and what it costs"]))


def build(tmp_path: Path, texts: dict[str, str], name: str) -> Path:
    """The example run with the plan's bullets rewritten (`texts`: id -> words, 2.4 added), its
    briefs rendered again and the findings' brief hashes to match; report.md the model's draft."""
    run = copy_example(tmp_path, name)
    lines = EXAMPLE_PLAN.split("\n")
    subtopic, bullet = 0, 0
    for number, line in enumerate(list(lines)):
        if line.startswith("### "):
            subtopic, bullet = subtopic + 1, 0
        elif line.startswith("- ") and subtopic:
            bullet += 1
            lines[number] = f"- {texts[f'{subtopic}.{bullet}']}" if f"{subtopic}.{bullet}" in texts else line
            if (subtopic, bullet) == (2, 3):
                lines[number] += f"\n- {texts['2.4']}"
        elif line.startswith("## ") and subtopic:
            subtopic = 0
    (run / formats.PLAN_FILE).write_text("\n".join(lines), encoding="utf-8")
    rehash(run, {info.slug: info for info in write_briefs(run)})
    (run / formats.REPORT_FILE).write_text(DRAFT, encoding="utf-8")
    (run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).unlink()
    return run


def rehash(run: Path, infos: dict) -> None:
    """The example's findings files, their brief hashes those of the briefs rendered again."""
    for slug in (BILLING, COMMITMENTS, COST):
        path = findings_path(run, slug)
        path.write_text(re.sub(r"^brief_hash: .*$", f"brief_hash: {infos[slug].brief_hash}",
                               path.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")


def errors(run: Path) -> dict:
    return {k: c.message for k, c in failing(run_checklist(run)).items()}


def gaps_of(run: Path) -> list[str]:
    text = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    return text.split("## Gaps & Limitations\n", 1)[1].split("\n## ", 1)[0].strip().splitlines()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(bullet_texts(), min_size=5, max_size=5, unique=True).map(
           lambda found: dict(zip(("1.2", "2.3", "2.4", "3.1", "3.2"), found))),
       mark=st.sampled_from(["[^billing-units-and-retention-tiers:1]", "[^1]", "[^enterprise-commitments-and-overages:2]"]))
def test_finishs_own_lines_pass_every_check_first_time_and_after_references_added(tmp_path, texts, mark):
    run = build(Path(tempfile.mkdtemp(dir=tmp_path)), texts, "run")
    plan = load_plan(run / formats.PLAN_FILE)
    states = {b.id: b for b in plan.bullets}
    assert states["2.4"].text == texts["2.4"]
    first = finish_run(run)
    assert first.kind == DONE and first.failing == [] and first.rounds == 0, errors(run)
    assert errors(run) == {}
    lines = gaps_of(run)
    expected = [subtopic_line("Cost controls for high-volume logs", COST, "failed", [texts["3.1"], texts["3.2"]]),
                bullet_line(texts["1.2"], "partly"), bullet_line(texts["2.3"], "partly"),
                bullet_line(texts["2.4"], "not-established")]
    assert lines[:4] == expected
    assert read_record(run)["gaps"] == expected
    # what the researchers wrote stays out of report.md (issue 43)
    report = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    assert "timed out" not in report and "Northwind's retention prices" not in report
    # the model adds references to finish's lines: the next finish takes them out, and all still verifies
    text = report
    for line in expected:
        text = text.replace(line, line[:-1] + mark + ".", 1)
    (run / formats.REPORT_FILE).write_text(text, encoding="utf-8")
    second = finish_run(run)
    assert second.kind == DONE and second.failing == [], errors(run)
    assert gaps_of(run)[:4] == expected and errors(run) == {}
    assert run_cli("verify", str(run)).returncode == 0


def test_a_gaps_line_quoting_a_researchers_reason_fails_and_finishs_own_does_not(tmp_path):
    """Issue 43's attack: a reason with a figure copied into Gaps is the model's prose and fails
    `report.gaps.figures`; finish's line for the same failure names the findings file instead."""
    run = copy_example(tmp_path)
    path = findings_path(run, COST)
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r'^reason: .*$', 'reason: "the Enterprise plan costs $250,000 per year"', text,
                           count=1, flags=re.M), encoding="utf-8")
    assert finish_run(run).kind == DONE and errors(run) == {}
    assert "250,000" not in (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    quoted = (run / formats.REPORT_FILE).read_text(encoding="utf-8").replace(
        "## Sources\n", "- The researcher says the Enterprise plan costs $250,000 per year.\n\n## Sources\n", 1)
    (run / formats.REPORT_FILE).write_text(quoted, encoding="utf-8")
    assert "'$250,000 per year'" in errors(run)["report.gaps.figures"]


def test_gaps_prose_may_name_the_plans_own_figures(tmp_path):
    """A bullet named by its full text in the model's own Gaps prose (what report.coverage accepts)
    states the plan's figures, not the pages': no failure asks for a reference it cannot have."""
    report = parse_report(DRAFT.replace("## Gaps & Limitations\n\n", "## Gaps & Limitations\n\n"
                                        "- The pages read do not state whether Python 3.11 changed it (SQLSTATE 40P01).\n",
                                        1))

    def gaps_figures(planned: list[str]):
        checks = statement_checks(Path("report.md"), report, (), None, (), lambda _line: False, planned)
        return next(c for c in checks if c.id == "report.gaps.figures")

    assert gaps_figures(["Whether Python 3.11 changed it (SQLSTATE 40P01)"]).ok
    failed = gaps_figures([])
    assert not failed.ok and "'3.11'" in failed.message


def test_own_lines_are_recognised_with_references_added_and_markdown_marks_escaped():
    line = bullet_line("Whether `SELECT 1` <b> [x] & *y*", "partly")
    assert line.startswith("- **Whether \\`SELECT 1\\` \\<b\\> \\[x\\] \\& \\*y\\***: established only in part")
    own = {line}
    assert is_own(line, own) and is_own(line[:-1] + "[^3].", own) and is_own(line[:-1] + " [^billing:1].", own)
    assert not is_own(line[:-1] + " and costs $5.", own)
    assert words("a  b\nc_d") == "a b c\\_d"
    assert words("a\u2800\u2800b \u3164 c\u200b") == "ab c"  # nothing report.md may not hold


def test_every_line_finish_could_write_is_its_own(tmp_path):
    """verify recognises finish's lines by recomputing them from the plan and the findings' statuses,
    not from its record: the first finish passes with the record it has not written yet."""
    run = copy_example(tmp_path)
    from web_research.checks.coverage import read_findings_files  # noqa: PLC0415

    plan = load_plan(run / formats.PLAN_FILE)
    found, unreadable = read_findings_files(run, plan)
    assert set(read_record(EXAMPLE_DIR)["gaps"]) <= own_lines(plan, found, unreadable)


SECOND_WAVE = """
## Second wave

### Acme was fined for hidden log fees
- 3.2: rehydration pages in each vendor's documentation
- 1.2: Northwind's retention options in its docs
"""


def test_a_failed_second_wave_subtopic_is_named_by_its_place_never_by_its_name(tmp_path):
    """A second-wave subtopic is named after the first wave's pages were read: finish's line names it
    by its place and the first-wave bullets it aimed at, and report.gaps.names accepts that."""
    run = copy_example(tmp_path)
    plan = (run / formats.PLAN_FILE).read_text(encoding="utf-8").replace("## Budget\n", "## Budget\n\nDeepen: yes\n", 1)
    (run / formats.PLAN_FILE).write_text(plan + SECOND_WAVE, encoding="utf-8")
    infos = {info.slug: info for info in write_briefs(run)}
    rehash(run, infos)
    second = next(info for info in infos.values() if "fined" in info.subtopic)
    Path(second.findings_path).write_text(
        f"---\nstatus: failed\nsubtopic: \"{second.subtopic}\"\nbrief_hash: {second.brief_hash}\n"
        "started_at: 2026-04-18T10:00:00Z\nfinished_at: 2026-04-18T10:05:00Z\nreason: \"Acme was fined $2 million\"\n"
        "---\n\n# Second wave\n\n## Claims\n\n### 3.2 Rehydration\n\n### 1.2 Retention\n\n## Not established\n\n"
        "- 3.2 and 1.2: no page.\n\n## Contradictions\n\nNone.\n\n## Searched and not found\n\n- \"x\": nothing.\n\n"
        "## Exit reason\n\nerror: nothing read.\n", encoding="utf-8")
    (run / formats.REPORT_FILE).write_text(DRAFT, encoding="utf-8")
    (run / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).unlink()
    outcome = finish_run(run)
    assert outcome.kind == DONE and outcome.failing == [], errors(run)
    report = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    line = ("- **Second-wave subtopic 1** (failed): its researcher did not complete it; its findings file gives the "
            "researcher's reason. It aimed at: \"Whether archived logs can be rehydrated and what that costs\"; "
            "\"How the retention period (hot, warm, archive) changes the price per unit\".")
    assert line in report and "fined" not in report
    assert f"report.gaps.names.{second.slug}" in {c.id for c in run_checklist(run) if c.ok}
