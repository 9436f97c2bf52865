"""A researcher's final reply is its findings: what the brief says the reply holds is what the
code reads (run/findings_reply.py), and every prompt, refusal and block says so the same way."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from web_research import formats
from web_research.checks.findings import load_findings
from web_research.core.frontmatter_reader import read_frontmatter
from web_research.guard.rules import room
from web_research.guard.briefs_match import Brief
from web_research.guard.findings_gate import findings_problems
from web_research.guard.handlers.subagent_stop import block_reason
from web_research.run.briefs import load_template
from web_research.run.findings_reply import ReplyDocument, reply_document

EXAMPLE = formats.PLUGIN_ROOT / "examples" / "observability-pricing"
AGENT = formats.PLUGIN_ROOT / "agents" / f"{formats.RESEARCHER_AGENT}.md"
HASH = "sha256:" + "a" * 64
TIMES = ("2026-04-18T09:00:00Z", "2026-04-18T09:10:00Z")


def _folded(text: str) -> str:
    return " ".join(text.split()).lower()


def _reply_of(findings_text: str) -> str:
    """A findings file as its researcher replied it: only the fields a researcher types."""
    front = read_frontmatter(findings_text)
    kept = {k: v for k, v in front.data.items() if k in formats.FINDINGS_RESEARCHER_FIELDS}
    head = "---\n" + "".join(f'{k}: "{v}"\n' if k == "reason" else f"{k}: {v}\n" for k, v in kept.items()) + "---\n"
    return head + "".join(findings_text.splitlines(keepends=True)[front.body_first_line - 1:])


@pytest.mark.parametrize("name", sorted(p.name for p in (EXAMPLE / formats.FINDINGS_DIR).glob("*.md")))
def test_each_example_findings_file_is_what_the_plugin_writes_from_its_reply(name: str) -> None:
    """The bundled example follows the brief's shape (test_templates_match_code): replied as the
    brief says, each becomes its findings file again, body byte for byte, and passes the gate."""
    committed = (EXAMPLE / formats.FINDINGS_DIR / name).read_text(encoding="utf-8")
    meta = read_frontmatter(committed).data
    document, why = reply_document(_reply_of(committed), meta["subtopic"], meta["brief_hash"],
                                   meta["started_at"], meta["finished_at"])
    assert why is None and document is not None
    assert document.text == committed
    brief = Brief(name[:-3], str(EXAMPLE / formats.BRIEFS_DIR / name), meta["brief_hash"],
                  str(EXAMPLE / formats.FINDINGS_DIR / name), "")
    assert findings_problems(brief, document.text) == []


def test_the_briefs_reply_skeleton_is_read_with_exactly_the_researchers_fields() -> None:
    """The brief's shape of the reply, from its frontmatter to its end, filled in the least way."""
    template = load_template()
    skeleton = template[template.index("\n---\nstatus:") + 1:]
    skeleton = re.sub(r"\{\{[a-z_]+\}\}", "", skeleton).replace("ok | empty | failed", "failed")
    document, why = reply_document(skeleton, "S", HASH, *TIMES)
    assert why is None and document is not None
    data = read_frontmatter(document.text).data
    assert {k: data[k] for k in formats.FINDINGS_RESEARCHER_FIELDS} == {
        "status": "failed", "reason": "<one line; only when status is empty or failed>"}
    assert [h for h in load_findings(Path("f.md"), document.text).doc.headings if h.level == 2] and all(
        f"## {section}" in document.text for section in formats.FINDINGS_SECTIONS)


def test_prose_before_the_frontmatter_and_one_fence_around_it_are_tolerated_and_lines_map_back() -> None:
    reply = "Here are my findings.\n\n```markdown\n---\nstatus: ok\n---\n\n## Claims\n\n- A claim[^1].\n```\n"
    document, why = reply_document(reply, "S", HASH, *TIMES)
    assert why is None and isinstance(document, ReplyDocument)
    assert document.text.endswith("---\n\n## Claims\n\n- A claim[^1].\n") and "```" not in document.text
    claim_line = document.text.splitlines().index("- A claim[^1].") + 1
    assert reply.splitlines()[document.reply_line(claim_line) - 1] == "- A claim[^1]."
    assert document.reply_line(2) == 4  # a frontmatter line: the block's opening line in the reply


@pytest.mark.parametrize("reply,expected", [
    ("/run/findings/x.md ok", "does not start with your findings"),
    ("Intro.\n" * 8 + "---\nstatus: ok\n---\nBody\n", "does not start with your findings"),
    ("---\ntitle: x\n---\nBody\n", "does not start with your findings"),
    ("---\nstatus: ok\nx: &a [1]\n---\n", "line 3 of your reply: anchors (&a) are not allowed"),
    ("---\nstatus: ok\n---\n" + "x" * (formats.MAX_MARKDOWN_BYTES + 1), "KiB"),
])
def test_a_reply_that_holds_no_findings_says_why(reply: str, expected: str) -> None:
    document, why = reply_document(reply, "S", HASH, *TIMES)
    assert document is None and expected in str(why)


def test_every_researcher_prompt_refusal_and_block_says_the_reply_is_the_findings() -> None:
    said = [load_template(), AGENT.read_text(encoding="utf-8"), room.RESEARCHER_REFUSAL,
            block_reason(["x"], "/run/findings/x.md")]
    for text in said:
        assert formats.REPLY_IS_FINDINGS in _folded(text), text[:300]
    for text in said[:2]:  # and no researcher prompt asks for a file write
        assert not re.search(r"\b(write|overwrite|rewrite) (the|your|its) (findings )?file\b", _folded(text)), text



def _example_reply() -> str:
    name = sorted(p.name for p in (EXAMPLE / formats.FINDINGS_DIR).glob("*.md"))[0]
    return _reply_of((EXAMPLE / formats.FINDINGS_DIR / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("label,items", [
    ("Sources:", ["- [Pricing | Acme Docs](https://docs.acme.example/pricing)", "- https://b.example/page"]),
    ("**Sources:**", ["1. [A page](https://a.example/x)", "", "2. <https://a.example/y>"]),
])
def test_the_clients_trailing_sources_list_of_links_is_dropped_and_nothing_else(label: str, items: list[str]) -> None:
    """The client's WebSearch tool tells every agent to end with a "Sources:" list of links; the
    brief's reply shape wins, and a reply that adds the list anyway is written as if it had not."""
    reply = _example_reply()
    plain, why = reply_document(reply, "S", HASH, *TIMES)
    assert why is None and plain is not None
    document, why = reply_document(reply.rstrip("\n") + "\n\n" + "\n".join([label, *items]) + "\n", "S", HASH, *TIMES)
    assert why is None and document is not None
    assert document.text == plain.text and "https://b.example" not in document.text and "a.example/x" not in document.text


@pytest.mark.parametrize("tail", [
    "Sources:\n- [A page](https://a.example/x) says the price rose in 2026.",  # a claim, not a bare link
    "Sources:\n\nThe pages above.",
    "- [A page](https://a.example/x)",  # no label: part of the last section
])
def test_a_trailing_block_that_is_not_only_a_list_of_links_is_kept(tail: str) -> None:
    reply = _example_reply().rstrip("\n") + "\n\n" + tail + "\n"
    document, why = reply_document(reply, "S", HASH, *TIMES)
    assert why is None and document is not None and document.text.rstrip("\n").endswith(tail)


def test_the_brief_says_its_reply_shape_wins_over_a_tools_formatting_reminder() -> None:
    assert "wins over any tool's own formatting reminder" in _folded(load_template())


def test_the_refusal_points_at_a_closest_passage_only_when_it_shows_one() -> None:
    """Issue 42: "the closest passage is shown above" was said when no problem showed one."""
    from web_research.checks.integrity import CLOSEST_SHOWN

    bare = block_reason(["your reply does not start with your findings"], "/run/findings/x.md")
    assert "closest passage" not in bare
    shown = block_reason([f'[^1] excerpt is not in the page https://a.example/ (x): "a"; {CLOSEST_SHOWN} "b".'],
                         "/run/findings/x.md")
    assert "(the closest passage is shown above)" in shown
