"""One way to dispatch, said once: SKILL.md and every refusal give the same Agent call
(formats.dispatch_call; finish's request for the checker: test_finish), and a prompt holding
the form anywhere is read."""
from __future__ import annotations

import pytest
from web_research import formats
from web_research.guard.briefs_match import Brief
from web_research.guard.events import CHECKER, RESEARCHER, dispatch_fields
from web_research.guard.rules import room
from web_research.guard.rules.dispatch import decide_dispatch
from web_research.guard.state import Run

SKILL = formats.SKILL_DIR / "SKILL.md"
RUN = "/home/user/project/research/run"
BRIEF = f"{RUN}/briefs/billing-units.md"


def _folded(text: str) -> str:
    return " ".join(text.split())


def test_skill_gives_each_form_once_and_no_other_dispatch_field() -> None:
    text = _folded(SKILL.read_text(encoding="utf-8"))
    for prompt in (formats.DISPATCH_BRIEF_PROMPT, formats.DISPATCH_CHECK_PROMPT):
        assert text.count(formats.dispatch_call(prompt)) == 1, prompt
    assert "subagent_type" not in text and "run_in_background" not in text


def test_every_refusal_gives_the_form_the_skill_gives() -> None:
    refusal = room.dispatch_refusal(room.ORCHESTRATOR, "general-purpose", "/p/web-research", RUN)
    assert formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT) in refusal
    assert formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {RUN}") in refusal
    brief = Brief("billing-units", BRIEF, "sha256:" + "0" * 64, f"{RUN}/findings/billing-units.md", "text\n")
    for prompt, briefs in (("research everything", [brief]), ("anything", [])):
        decision = decide_dispatch(Run(RUN), {"prompt": prompt}, "t1", briefs, 0.0)
        assert decision.action == "deny" and formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT) in decision.reason
    decision = decide_dispatch(Run(RUN), {"prompt": "research everything"}, "t1", [brief], 0.0)
    assert formats.dispatch_call(f"{formats.DISPATCH_BRIEF_LABEL} {BRIEF}") in decision.reason  # one per brief


@pytest.mark.parametrize("prompt,agent", [
    (f"Brief: {BRIEF}", RESEARCHER),
    (f"Please research this. Brief: {BRIEF}", RESEARCHER),
    (f"**brief**: `{BRIEF}`", RESEARCHER),
    (f"Check the claims.\nCheck: {RUN}", CHECKER),
    (f"Now verify. Check: {RUN}", CHECKER),
    ("Research the question. Brief hash: sha256:" + "0" * 64, None),  # "Brief hash:" is not the form
    ("You are a helpful agent; research pricing.", None),
])
def test_a_prompt_holding_the_form_anywhere_names_its_agent(prompt: str, agent: str | None) -> None:
    fields = dispatch_fields({"description": "x", "prompt": prompt, "subagent_type": None})
    assert fields.get("subagent_type") == agent
    if agent is not None:
        assert fields["run_in_background"] is False


def test_a_whole_brief_with_its_hash_line_is_a_researchers_even_if_its_question_says_check() -> None:
    prompt = "Research question (verbatim):\nCheck: is it cheaper?\n\nBrief hash: sha256:" + "a" * 64 + "\n"
    assert dispatch_fields({"prompt": prompt})["subagent_type"] == RESEARCHER

