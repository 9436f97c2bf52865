"""tests/protocol_count.py: its before -> after table counts what the prompts say."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pc():
    spec = importlib.util.spec_from_file_location("protocol_count", ROOT / "tests" / "protocol_count.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["protocol_count"] = module
    spec.loader.exec_module(module)
    return module


def test_a_standard_run_asks_at_most_six_exact_formats_of_the_orchestrator(pc):
    result = pc.count("references", None)
    assert result["standard"]["exact_format_demands"] <= 6, result["standard"]["demands"]
    assert result["deep"]["exact_format_demands"] <= 6
    assert result["standard"]["values_copied"] <= 10


def test_a_listed_demand_whose_text_is_gone_fails_the_count(pc, monkeypatch):
    real = pc.read_at
    monkeypatch.setattr(pc, "read_at", lambda rev, rel: real(rev, rel).replace('"Check: <output_dir>"', ""))
    with pytest.raises(SystemExit, match="no longer make these orchestrator demands"):
        pc.count("references", None)


@pytest.mark.parametrize("added", ['{"error": "web-tools-unavailable", "detail": "missing: WebSearch"}',
                                   "with `subagent_type`: `web-research:researcher`",
                                   "`run_in_background`: `false`"])
def test_a_demand_moved_into_code_cannot_come_back_uncounted(pc, monkeypatch, added):
    real = pc.read_at
    monkeypatch.setattr(pc, "read_at", lambda rev, rel: real(rev, rel) + (f"\n{added}\n" if rel == pc.SKILL else ""))
    with pytest.raises(SystemExit, match="moved into code"):
        pc.count("references", None)


def test_a_standard_researcher_reads_three_pages_in_at_most_six_turns(pc):
    """The brief invites several searches or page reads in one message, and the reply is the
    findings: 4 searches and 3 page reads take at most 6 turns, the reply included."""
    turns = pc.researcher_turns(pc.example_sizes(), None)
    assert sum(calls for what, calls, _e, _r in turns if what.endswith("fetch")) == 3
    assert pc.count_turns(None)["researcher"]["turns"] <= 6, turns


def test_without_the_briefs_invitation_each_call_is_a_turn_of_its_own(pc, monkeypatch):
    real = pc.read_at
    monkeypatch.setattr(pc, "read_at", lambda rev, rel: real(rev, rel).replace(pc.PARALLEL_ANCHOR, ""))
    sequential = pc.count_turns(None)["researcher"]
    monkeypatch.setattr(pc, "read_at", real)
    together = pc.count_turns(None)["researcher"]
    assert sequential["turns"] == 8 > together["turns"]  # 7 calls and the reply
    assert sequential["input_tokens"] > together["input_tokens"]  # every turn re-sends the whole context


def test_the_orchestrator_reads_the_findings_files_only_where_the_skill_says_to(pc, monkeypatch):
    """SKILL.md has the report written from the researchers' results: no message reads the findings
    files the results already carried; without that sentence, one message reads each."""
    real = pc.read_at
    assert pc.RESULTS_ANCHOR in pc._folded(real(None, pc.SKILL))
    monkeypatch.setattr(pc, "read_at", lambda rev, rel: real(rev, rel).replace(pc.RESULTS_ANCHOR, ""))
    reading = pc.count_turns(None)["orchestrator, standard"]
    monkeypatch.setattr(pc, "read_at", real)
    from_results = pc.count_turns(None)["orchestrator, standard"]
    files = len(list((pc.EXAMPLE / "findings").glob("*.md")))
    assert reading["turns"] == from_results["turns"] + files
    assert reading["input_tokens"] > from_results["input_tokens"]


def test_the_orchestrators_standard_run_instructions_stay_within_25000_characters(pc):
    """Issue 42: they ride in every orchestrator turn (33,660 characters at 09cf003). A sentence
    added to SKILL.md or a reference a standard run reads takes one out."""
    sizes = pc.standard_run_instruction_chars(None)
    assert sizes["total"] <= pc.MAX_STANDARD_RUN_INSTRUCTION_CHARS == 25_000, sizes
    assert pc.standard_run_instruction_chars("09cf003")["total"] in (0, 33_660)  # the measure (0: a shallow clone)


def test_the_instruction_count_reads_every_file_it_names(pc):
    sizes = pc.standard_run_instruction_chars(None)
    assert all(sizes[rel] > 500 for rel in pc.STANDARD_RUN_INSTRUCTIONS), sizes


def test_a_fix_round_reads_report_md_only_where_the_skill_does_not_quote_the_lines(pc, monkeypatch):
    """Issue 42: finish's answer quotes each failing line as report.md holds it, and SKILL.md says to
    write the Edits from it: the fix round has no Read; without that sentence, a Read turn."""
    real = pc.read_at
    assert pc.NO_READ_ANCHOR in pc._folded(real(None, pc.SKILL))
    quoted = pc.count_turns(None)["orchestrator, standard"]
    monkeypatch.setattr(pc, "read_at", lambda rev, rel: " ".join(real(rev, rel).split()).replace(
        "with no Read", "") if rel == pc.SKILL else real(rev, rel))
    reading = pc.count_turns(None)["orchestrator, standard"]
    assert reading["turns"] == quoted["turns"] + 1 and reading["input_tokens"] > quoted["input_tokens"]
