"""Brief rendering from the shared template, hashing, and the Agent prompt wrapper."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from cli_support import VALID_PLAN, plan_text, sha256_hex
from web_research import formats
from web_research.run import briefs
from web_research.run.briefs import (
    PLACEHOLDERS,
    BriefInfo,
    brief_hash,
    compose_agent_prompt,
    extract_template,
    load_template,
    render_brief,
    split_agent_prompt,
    write_briefs,
)
from web_research.formats import (
    BRIEF_TEMPLATE,
    CITATION_LABELS,
    FINDINGS_FIELDS,
    FINDINGS_PLUGIN_FIELDS,
    FINDINGS_RESEARCHER_FIELDS,
    MAX_PARALLEL_RESEARCHERS,
    PLUGIN_ROOT,
    SOURCE_TYPES,
    STATUSES,
)
from web_research.run.plan import PlanError, parse_plan


def _run(tmp_path: Path, text: str = VALID_PLAN) -> Path:
    run = tmp_path / "run"
    (run / "findings").mkdir(parents=True)
    (run / "plan.md").write_text(text, encoding="utf-8")
    return run


def test_template_placeholders_are_exactly_the_renderer_fields() -> None:
    raw = BRIEF_TEMPLATE.read_text(encoding="utf-8")
    fenced = re.findall(r"^```text\n(.*?)^```$", raw, flags=re.S | re.M)
    assert len(fenced) == 1
    assert set(re.findall(r"\{\{(\w+)\}\}", fenced[0])) == set(PLACEHOLDERS)
    assert "{{" not in raw.replace(fenced[0], "").replace("`{{name}}`", "")


def test_template_agrees_with_formats() -> None:
    template = load_template()
    frontmatter = template.split("\n---\n")[1].split("\n")
    # the researcher writes only its own fields; the plugin fills in the rest
    assert [line.split(":")[0] for line in frontmatter] == list(FINDINGS_RESEARCHER_FIELDS)
    assert set(FINDINGS_RESEARCHER_FIELDS) | set(FINDINGS_PLUGIN_FIELDS) == set(FINDINGS_FIELDS)
    assert "{{claims_headings}}" in template
    assert " | ".join(STATUSES) in template
    assert " | ".join(SOURCE_TYPES) in template
    for label in CITATION_LABELS:
        assert f"**{label}**:" in template
    assert "## Sources" in template
    assert "[citation-schema.md](citation-schema.md)" in BRIEF_TEMPLATE.read_text(encoding="utf-8")
    assert (BRIEF_TEMPLATE.parent / "citation-schema.md").is_file()


def test_render_fills_every_field(tmp_path: Path) -> None:
    plan = parse_plan(VALID_PLAN)
    run = tmp_path / "run"
    text = render_brief(plan, plan.subtopics[0], run)
    assert "{{" not in text and "}}" not in text
    assert plan.question in text
    assert "Your subtopic: Pricing models" in text
    assert "- 1.1 Which units vendors bill logs by (GB ingested, events, hosts)\n- 1.2 Whether retention is priced separately" in text
    assert "at most 4 web searches" in text
    assert f"up to {MAX_PARALLEL_RESEARCHERS} researchers" in text
    assert str(run / "findings" / "pricing-models.md") in text
    assert f'"{PLUGIN_ROOT / "scripts" / "web-research"}" fetch "<url>" --run "{run}"' in text
    assert f"Findings file: {run / 'findings' / 'pricing-models.md'}\n" in text
    assert text.rstrip().endswith("**Source type**: <official-docs | vendor | blog | forum | news | other; leave the line "
                                  "out if unclear>")  # the reply's shape is the brief's last word


def test_values_are_not_rescanned_for_placeholders(tmp_path: Path) -> None:
    plan = parse_plan(plan_text(question="What does {{subtopic}} mean in {{budget}}?"))
    text = render_brief(plan, plan.subtopics[0], tmp_path, "Q={{question}} S={{subtopic}}\n")
    assert text == "Q=What does {{subtopic}} mean in {{budget}}? S=Pricing models\n"


def test_unknown_placeholder_is_refused(tmp_path: Path) -> None:
    plan = parse_plan(VALID_PLAN)
    with pytest.raises(briefs.TemplateError, match="brief_hash"):
        render_brief(plan, plan.subtopics[0], tmp_path, "{{subtopic}} {{brief_hash}}\n")


def test_extract_template_needs_one_closed_block() -> None:
    assert extract_template("intro\n```text\nA {{x}}\n\nB\n```\nafter\n") == "A {{x}}\n\nB\n"
    with pytest.raises(briefs.TemplateError, match="exactly one"):
        extract_template("no block here\n")
    with pytest.raises(briefs.TemplateError, match="never closed"):
        extract_template("```text\nA\n")


def test_brief_hash() -> None:
    data = "brief ✓\n".encode("utf-8")
    assert brief_hash(data) == "sha256:" + hashlib.sha256(data).hexdigest()
    assert brief_hash(b"") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_write_briefs(tmp_path: Path) -> None:
    run = _run(tmp_path)
    infos = write_briefs(run)
    assert [i.slug for i in infos] == ["pricing-models", "enterprise-discounts"]
    for info in infos:
        assert isinstance(info, BriefInfo)
        path = Path(info.brief_path)
        assert path == run / "briefs" / f"{info.slug}.md" and path.is_absolute()
        assert info.brief_hash == "sha256:" + sha256_hex(path.read_bytes())
        assert info.findings_path == str(run / "findings" / f"{info.slug}.md")
        plan = parse_plan(VALID_PLAN)
        subtopic = next(s for s in plan.subtopics if s.slug == info.slug)
        assert path.read_text(encoding="utf-8") == render_brief(plan, subtopic, run)
        assert info.subtopic == subtopic.name


def test_rerender_is_byte_identical_and_hash_tracks_edits(tmp_path: Path) -> None:
    run = _run(tmp_path)
    first = write_briefs(run)
    first_bytes = {i.slug: Path(i.brief_path).read_bytes() for i in first}
    second = write_briefs(run)
    assert first == second
    assert first_bytes == {i.slug: Path(i.brief_path).read_bytes() for i in second}
    (run / "plan.md").write_text(VALID_PLAN.replace("Minimum commitments", "Minimum seat counts"))
    third = {i.slug: i.brief_hash for i in write_briefs(run)}
    assert third["pricing-models"] == first[0].brief_hash
    assert third["enterprise-discounts"] != first[1].brief_hash


def test_write_briefs_plan_error(tmp_path: Path) -> None:
    run = _run(tmp_path, VALID_PLAN.replace("## Budget", "## Budgets"))
    with pytest.raises(PlanError) as info:
        write_briefs(run)
    assert str(info.value).startswith(f"{run / 'plan.md'}:")
    assert not (run / "briefs").exists()


def test_agent_prompt_round_trip() -> None:
    text = "line one\n\nline two\n"
    digest = brief_hash(text.encode())
    prompt = compose_agent_prompt(text, digest)
    assert prompt.endswith(f"\n\nBrief hash: {digest}\n")
    assert split_agent_prompt(prompt) == (text, digest)
    assert split_agent_prompt(prompt.rstrip() + "  \n\n") == (text, digest)  # tolerant of trailing space
    assert split_agent_prompt(text) == (text, None)
    assert split_agent_prompt(text + "Brief hash: sha256:nothex\n")[1] is None


def test_the_brief_renders_the_real_headings_the_researcher_fills_in(tmp_path: Path) -> None:
    """One `### <id> <point>` per point under Establish, the point word for word, in order."""
    name = 'The "pay-as-you-go" tier \\ legacy plans'
    run = _run(tmp_path, plan_text(subtopics={name: ["Prices, dated", "What a \"unit\" is"]}))
    info = write_briefs(run)[0]
    text = Path(info.brief_path).read_text(encoding="utf-8")
    claims = text.split("\n## Claims\n", 1)[1].split("\n## ", 1)[0]
    assert [line for line in claims.splitlines() if line.startswith("### ")] == [
        "### 1.1 Prices, dated", '### 1.2 What a "unit" is']
    assert formats.FIGURE_RULE in text  # the figure rule, stated where it is checked
