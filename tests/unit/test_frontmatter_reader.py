"""The one frontmatter reader: hostile YAML in a findings file fails its check fast,
in bounded memory, and nothing dangerous is ever constructed."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from web_research.checks.findings import findings_checks, load_findings, parse_frontmatter
from web_research.core.frontmatter_reader import MAX_DEPTH, MAX_FRONTMATTER_CHARS, read_frontmatter

REPO = Path(__file__).resolve().parents[2]
HASH = "sha256:" + "a" * 64
GOOD = (f"status: ok\nsubtopic: \"Pricing\"\nbrief_hash: {HASH}\n"
        "started_at: 2026-04-18T09:00:00Z\nfinished_at: 2026-04-18T09:05:00Z\n")


def billion_laughs() -> str:
    """About a kilobyte of YAML that stands for 9**9 strings when expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(8):
        prev, name = chr(ord("a") + level), chr(ord("b") + level)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


CHECK_IN_CHILD = textwrap.dedent("""
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (768 * 1024 * 1024, 768 * 1024 * 1024))
    sys.path.insert(0, {scripts!r})
    from pathlib import Path
    from web_research.checks.findings import findings_checks, load_findings
    found = load_findings(Path(sys.argv[1]))
    failed = [(c.id, c.line, c.message) for c in findings_checks("x", "Pricing", found) if not c.ok]
    print(json.dumps(failed))
""")


def _check_in_child(path: Path) -> list[list]:
    code = CHECK_IN_CHILD.format(scripts=str(REPO / "scripts"))
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_a_billion_laughs_findings_file_fails_its_check_at_once(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    block = "status: ok\n" + billion_laughs()
    assert len(block) < 1200
    path.write_text(f"---\n{block}---\nNothing cited.\n", encoding="utf-8")
    failed = _check_in_child(path)
    assert ["findings.x.frontmatter", 3, "anchors (&a) are not allowed in frontmatter"] in failed


@pytest.mark.parametrize("yaml_text,line,words", [
    ("status: ok\nreason: *nowhere\n", 3, "aliases (*nowhere)"),
    ("status: !!python/object/apply:os.system [\"true\"]\n", 2, "tags (tag:yaml.org,2002:python/object/apply"),
    ("status: ok\nreason: !custom text\n", 3, "tags (!custom)"),
    ("status: ! ok\n", 2, "tags (!)"),
    ("status: !!str ok\n", 2, "tags (tag:yaml.org,2002:str)"),
    ("status: ok\nreason: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", 3, "deeper than"),
])
def test_anchors_aliases_tags_and_deep_nesting_are_refused_with_their_line(yaml_text, line, words) -> None:
    data, _lines, _body, problems = parse_frontmatter(f"---\n{yaml_text}---\nbody\n")
    assert data is None
    assert len(problems) == 1 and problems[0].line == line and words in problems[0].message


def test_a_huge_frontmatter_is_refused_without_parsing_it(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    # Over MAX_FRONTMATTER_CHARS by far, under formats.MAX_MARKDOWN_BYTES (the file is read and parsed).
    path.write_text("---\nstatus: ok\n" + "reason: x\n" * 20_000 + "---\nbody\n", encoding="utf-8")
    failed = _check_in_child(path)
    assert failed[0][0] == "findings.x.frontmatter"
    assert f"longer than {MAX_FRONTMATTER_CHARS} characters" in failed[0][2]


def test_an_unclosed_frontmatter_is_reported_as_such() -> None:
    found = read_frontmatter("---\nstatus: ok\n")
    assert found.data is None and "not closed" in found.problems[0].message


def test_plain_frontmatter_keeps_values_lines_and_body_start() -> None:
    found = read_frontmatter("\ufeff---\r\n" + GOOD.replace("\n", "\r\n") + "---\r\n\r\nbody\r\n")
    assert found.problems == []
    assert found.data["started_at"] == "2026-04-18T09:00:00Z"
    assert found.key_lines == {"status": 2, "subtopic": 3, "brief_hash": 4, "started_at": 5, "finished_at": 6}
    assert found.body_first_line == 8
    assert read_frontmatter(f"---\n{GOOD}...\nbody\n").data["status"] == "ok"


def test_a_good_findings_file_still_passes(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_text(f"---\n{GOOD}---\n\nNothing cited.\n", encoding="utf-8")
    found = load_findings(path)
    errors = [c for c in findings_checks("x", "Pricing", found) if not c.ok and c.severity == "error"]
    assert errors == [] and found.body_first_line == 8
