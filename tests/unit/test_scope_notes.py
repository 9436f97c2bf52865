"""`## Scope notes` in plan.md: optional, parsed as written, copied into every brief."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import VALID_PLAN
from web_research.run.briefs import SCOPE_NOTES_LABEL, write_briefs
from web_research.formats import PLAN_SECTION_SCOPE_NOTES
from web_research.run.plan import PlanError, parse_plan

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
NOTES = "- Region: the EU only.\n- Audience: teams of 50 to 200 engineers."


def with_notes(notes: str = NOTES) -> str:
    return VALID_PLAN.replace("## Subtopics", f"## {PLAN_SECTION_SCOPE_NOTES}\n\n{notes}\n\n## Subtopics", 1)


def _run(tmp_path: Path, text: str) -> Path:
    run = tmp_path / "run"
    (run / "findings").mkdir(parents=True, exist_ok=True)
    (run / "plan.md").write_text(text, encoding="utf-8")
    return run


def test_plan_without_scope_notes_has_none() -> None:
    assert parse_plan(VALID_PLAN).scope_notes is None


def test_scope_notes_are_parsed_as_written_and_the_question_stays_verbatim() -> None:
    plan = parse_plan(with_notes())
    assert plan.scope_notes == NOTES
    assert plan.question == QUESTION


def test_empty_scope_notes_section_names_its_line() -> None:
    text = with_notes("")
    line = text.splitlines().index(f"## {PLAN_SECTION_SCOPE_NOTES}") + 1
    with pytest.raises(PlanError) as error:
        parse_plan(text)
    assert error.value.line == line and PLAN_SECTION_SCOPE_NOTES in error.value.message


def test_every_brief_carries_the_scope_notes_under_the_question(tmp_path: Path) -> None:
    infos = write_briefs(_run(tmp_path, with_notes()))
    assert len(infos) == 2
    for info in infos:
        text = Path(info.brief_path).read_text(encoding="utf-8")
        assert f"{QUESTION}\n\n{SCOPE_NOTES_LABEL}\n{NOTES}\n\nYour subtopic:" in text


def test_briefs_are_byte_identical_for_one_plan(tmp_path: Path) -> None:
    first = {i.slug: Path(i.brief_path).read_bytes() for i in write_briefs(_run(tmp_path / "a", with_notes()))}
    second = {i.slug: Path(i.brief_path).read_bytes() for i in write_briefs(_run(tmp_path / "b", with_notes()))}
    assert [b.replace(b"/b/", b"/a/") for b in second.values()] == list(first.values())


def test_a_plan_without_notes_renders_no_notes_block(tmp_path: Path) -> None:
    for info in write_briefs(_run(tmp_path, VALID_PLAN)):
        text = Path(info.brief_path).read_text(encoding="utf-8")
        assert SCOPE_NOTES_LABEL not in text and f"{QUESTION}\n\nYour subtopic:" in text


@pytest.mark.parametrize("raw, clarify", [
    (f"{QUESTION}", True),
    (f"--tier quick {QUESTION}", True),
    (f"--auto {QUESTION}", False),
    (f'research_question: "{QUESTION}"', False),  # a calling skill is never asked
    (f'research_question: "{QUESTION}"\nauto_proceed: false', False),
    ("--resume /tmp/run", False),
])
def test_clarifying_questions_only_for_a_person_at_the_review_gate(raw: str, clarify: bool) -> None:
    from web_research.run.inputs import from_raw

    assert from_raw(raw).may_clarify is clarify


def test_start_says_whether_it_may_ask(tmp_path: Path) -> None:
    import json

    from cli_support import run_cli

    typed = run_cli(["start", "--args-file", "-"], tmp_path, stdin=f"--out run {QUESTION}")
    called = run_cli(["start", "--args-file", "-"], tmp_path, stdin=f'research_question: "{QUESTION}"\noutput_dir: other')
    assert json.loads(typed.stdout)["clarify"] is True and json.loads(called.stdout)["clarify"] is False
