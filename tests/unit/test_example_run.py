"""The bundled example run stays a faithful, passing run of the current code.

Its briefs must be what `briefs` renders today from its plan (so the example
shows the real brief), its findings must carry those briefs' hashes, and the
whole folder must pass verify. Briefs hold absolute paths of the checkout they
were rendered in, so both sides are compared with their own root replaced.
"""
from __future__ import annotations

from web_research import formats
from web_research.run.briefs import brief_hash, render_brief
from web_research.checks.checklist import run_checklist
from web_research.core.result import passed
from web_research.checks.findings import load_findings
from web_research.run.plan import load_plan

EXAMPLE = formats.PLUGIN_ROOT / "examples" / "observability-pricing"


def _rooted(text: str, run_dir: str) -> str:
    root = run_dir[: -len("/examples/observability-pricing")]
    return text.replace(root, "<root>")


def test_example_briefs_are_what_the_current_template_renders():
    plan = load_plan(EXAMPLE / formats.PLAN_FILE)
    for subtopic in plan.subtopics:
        committed = (EXAMPLE / formats.BRIEFS_DIR / f"{subtopic.slug}.md").read_text(encoding="utf-8")
        committed_run_dir = next(line for line in committed.splitlines() if line.startswith("Run folder: "))
        committed_run_dir = committed_run_dir.removeprefix("Run folder: ")
        fresh = render_brief(plan, subtopic, EXAMPLE)
        assert _rooted(committed, committed_run_dir) == _rooted(fresh, str(EXAMPLE)), (
            f"{subtopic.slug}: re-render the example with `web-research briefs examples/observability-pricing` "
            "and copy the printed hashes into its findings files")


def test_example_findings_carry_their_briefs_hashes_and_the_run_passes():
    plan = load_plan(EXAMPLE / formats.PLAN_FILE)
    for subtopic in plan.subtopics:
        brief = EXAMPLE / formats.BRIEFS_DIR / f"{subtopic.slug}.md"
        findings = load_findings(EXAMPLE / formats.FINDINGS_DIR / f"{subtopic.slug}.md")
        assert findings.frontmatter["brief_hash"] == brief_hash(brief.read_bytes())
    assert passed(run_checklist(EXAMPLE))
