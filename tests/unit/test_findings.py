"""Findings files: frontmatter parsing with line numbers, schema, per-file checks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_run import BILLING, COST, EXAMPLE_DIR, findings_path
from web_research import formats
from web_research.run.briefs import brief_hash
from web_research.core.schema_validation import load_schema
from web_research.checks.findings import findings_checks, load_findings, parse_frontmatter

HASH = "sha256:" + "a" * 64


def _doc(frontmatter: str, body: str = "\nNo claims.\n") -> str:
    return f"---\n{frontmatter}---\n{body}"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "findings" / "x.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _failing(checks) -> dict:
    return {c.id: c for c in checks if not c.ok}


def _errors(checks) -> dict:
    return {c.id: c for c in checks if not c.ok and c.severity == "error"}


GOOD = (f"status: failed\nsubtopic: \"Pricing\"\nbrief_hash: {HASH}\n"
        "started_at: 2026-04-18T09:00:00Z\nfinished_at: 2026-04-18T09:05:00+02:00\nreason: \"timeout\"\n")


def test_timestamps_stay_strings_and_keys_keep_their_lines() -> None:
    data, lines, body_first, problems = parse_frontmatter(_doc(GOOD))
    assert problems == []
    assert data["started_at"] == "2026-04-18T09:00:00Z"
    assert lines == {"status": 2, "subtopic": 3, "brief_hash": 4, "started_at": 5, "finished_at": 6, "reason": 7}
    assert body_first == 9


def test_a_valid_failed_file_passes_its_checks(tmp_path: Path) -> None:
    found = load_findings(_write(tmp_path, _doc(GOOD)))
    checks = findings_checks("x", "Pricing", found)
    assert _failing(checks) == {}
    assert found.status == "failed" and found.reason == "timeout"


@pytest.mark.parametrize("edit,check_id,line,needle", [
    (("status: failed\n", "status: maybe\n"), "status", 2, "one of ok, empty, failed"),
    (("reason: \"timeout\"\n", ""), "reason", 1, "required when status is failed"),
    (("reason: \"timeout\"\n", "reason: \"\"\n"), "reason", 7, "one non-empty line"),
    (("status: failed\n", "status: empty\n", "reason: \"timeout\"\n", "reason:\n"), "reason", 7, "one non-empty"),
    (("reason: \"timeout\"\n", "reason: \"time\\e[2Jout\"\n"), "reason", 7, "without control characters"),
    (("reason: \"timeout\"\n", "reason: \"time\\u202eout\"\n"), "reason", 7, "without control characters"),
    (("reason: \"timeout\"\n", "reason: \"time\\x9bout\"\n"), "reason", 7, "without control characters"),
    ((f"brief_hash: {HASH}", "brief_hash: abc"), "frontmatter", 4, "64 lowercase hex"),
    (("finished_at: 2026-04-18T09:05:00+02:00\n", ""), "frontmatter", 1, "'finished_at' is missing"),
    (("subtopic: \"Pricing\"\n", "subtopic: 42\n"), "frontmatter", 3, "subtopic name"),
    (("reason: \"timeout\"\n", "reason: \"timeout\"\nnotes: x\n"), "frontmatter.extra", 8, "known fields"),
    (("subtopic: \"Pricing\"", "subtopic: \"Prices\""), "subtopic", 3, 'expected "Pricing"'),
])
def test_each_frontmatter_defect_is_one_check(tmp_path: Path, edit: tuple, check_id: str, line: int,
                                              needle: str) -> None:
    text = _doc(GOOD)
    for old, new in zip(edit[::2], edit[1::2]):
        assert old in text
        text = text.replace(old, new)
    bad = _failing(findings_checks("x", "Pricing", load_findings(_write(tmp_path, text))))
    assert list(bad) == [f"findings.x.{check_id}"]
    assert bad[f"findings.x.{check_id}"].line == line
    assert needle in bad[f"findings.x.{check_id}"].message


def test_a_reason_refuses_every_control_the_terminal_rule_drops_and_every_bidi_control() -> None:
    """The schema's reason pattern holds the same line as core/terminal.printable for control
    characters (Cc, the line separators) and as core/text for the bidi controls: a reason is shown
    to the person (status, Gaps, the ending)."""
    import re
    import unicodedata

    from web_research.core.text import bidi_controls
    pattern = re.compile(load_schema("findings-frontmatter.schema.json")["properties"]["reason"]["pattern"])
    refused = [chr(c) for c in range(0x3000) if unicodedata.category(chr(c)) in ("Cc", "Zl", "Zp")
               or bidi_controls(chr(c))]
    assert len(refused) > 70 and "\u202e" in refused and "\x1b" in refused
    assert [c for c in refused if pattern.search(f"page {c} gone")] == []
    assert pattern.search("page gone: HTTP 503 \u2013 «indisponible», café") is not None


@pytest.mark.parametrize("text,line,needle", [
    ("No frontmatter here.\n", 1, "must start with a '---' line"),
    ("---\nstatus: ok\n", 1, "not closed"),
    ("---\nstatus: [ok\nsubtopic: x\n---\n", 3, "not valid YAML"),
    ("---\n- a list\n---\n", 2, "mapping"),
])
def test_unreadable_frontmatter_is_one_check(tmp_path: Path, text: str, line: int, needle: str) -> None:
    bad = _failing(findings_checks("x", "Pricing", load_findings(_write(tmp_path, text))))
    assert list(bad) == ["findings.x.frontmatter"]
    assert bad["findings.x.frontmatter"].line == line and needle in bad["findings.x.frontmatter"].message


def test_brief_hash_is_compared_with_the_brief_bytes(tmp_path: Path) -> None:
    brief = b"You are one of up to 3 researchers.\n"
    text = _doc(GOOD.replace(HASH, brief_hash(brief)))
    found = load_findings(_write(tmp_path, text))
    assert _failing(findings_checks("x", "Pricing", found, brief)) == {}
    bad = _failing(findings_checks("x", "Pricing", found, brief + b"edited"))
    assert list(bad) == ["findings.x.brief_hash"] and bad["findings.x.brief_hash"].line == 4


def test_sources_heading_is_required_once_when_the_file_cites(tmp_path: Path) -> None:
    entry = '[^1]: **Title**: T\n    **URL**: https://a.example\n    **Excerpt**: "q"\n'
    fm = GOOD.replace("status: failed", "status: ok").replace('reason: "timeout"\n', "")
    found = load_findings(_write(tmp_path, _doc(fm, f"\nClaim[^1].\n\n{entry}")))
    bad = _errors(findings_checks("x", "Pricing", found))
    assert list(bad) == ["findings.x.sources"] and bad["findings.x.sources"].line == 9
    found = load_findings(_write(tmp_path, _doc(fm, f"\nClaim[^1].\n\n## Sources\n\n{entry}\n## Sources\n")))
    bad = _errors(findings_checks("x", "Pricing", found))
    assert list(bad) == ["findings.x.sources"] and bad["findings.x.sources"].line == 17


def test_the_example_findings_parse() -> None:
    ok = load_findings(findings_path(EXAMPLE_DIR, BILLING))
    assert ok.status == "ok" and len(ok.citations) == 5 and len(ok.markers) == 9
    assert ok.sources_span is not None and ok.citations[0].line > ok.sources_span[0]
    failed = load_findings(findings_path(EXAMPLE_DIR, COST))
    assert failed.status == "failed" and failed.reason and failed.citations == []


def test_frontmatter_schema_agrees_with_formats() -> None:
    schema = load_schema("findings-frontmatter.schema.json")
    assert tuple(schema["properties"]) == formats.FINDINGS_FIELDS
    assert tuple(schema["properties"]["status"]["enum"]) == formats.STATUSES
    assert "reason" not in schema["required"]
    assert schema["properties"]["brief_hash"]["pattern"].startswith("^" + formats.BRIEF_HASH_PREFIX)
    json.dumps(schema)
