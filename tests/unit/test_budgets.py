"""Budgets the hooks hold (guard/rules/budgets.py, counted by guard/budgets.py) and the ledger fold they count from (usage.py).

The pure rules are tested directly; each rule is also driven once through the
real launcher (hooks/run) with the payload shapes of the real client.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hook_harness import CLI, Harness, PreparedHarnesses
from web_research.evidence import ledger
from web_research.guard.handlers import post_briefs
from web_research.guard.rules import budgets as rules
from web_research.guard.rules.dispatch import decide_dispatch
from web_research.guard.state import Run
from web_research.metrics.usage import AgentUsage, fold

AGENT = "a1b2c3d4e5f6a7b8c"
URL = "https://docs.acme.example/logs/retention"


def entries(*items: dict) -> list[ledger.Entry]:
    return [ledger.entry(i.pop("kind"), i.pop("agent_id", AGENT), "slug", **i) for i in items]


def usage_of(*items: dict) -> AgentUsage:
    return fold(entries(*items)).get(AGENT) or AgentUsage(AGENT)


def search(query: str, call: str) -> dict:
    return {"kind": "search", "query": query, "tool_use_id": call, "phase": "allowed"}


def read(url: str, call: str, tool: str = "fetch", ok: bool | None = None, paging: bool = False) -> dict:
    item = {"kind": "page_read", "url": url, "tool": tool, "tool_use_id": call, "paging": paging}
    if ok is None:
        item["phase"] = "allowed"
    else:
        item["ok"] = ok
    return item


# --- the fold ---------------------------------------------------------------------

def test_pre_and_post_entries_of_one_call_count_once():
    used = usage_of(search("log pricing", "t1"), {"kind": "search", "query": "log pricing", "tool_use_id": "t1"},
                    search("retention", "t2"))
    assert used.search_count == 2


def test_paging_is_not_a_page_read_and_the_hook_decides_what_pages():
    used = usage_of(read(URL, "t1"), read(URL, "t1", ok=True), read(URL, "t2", paging=True),
                    read(URL, "t2", ok=True, paging=True))
    assert used.page_read_count == 1
    # PostToolUse says paging (offset > 0) but the PreToolUse hook counted it as a new read: it counts.
    used = usage_of(read(URL, "t1", paging=False), read(URL, "t1", ok=True, paging=True))
    assert used.page_read_count == 1


def test_agents_are_counted_apart_and_denials_by_rule():
    folded = fold(entries(search("q", "t1"), {"kind": "denied", "rule": "search-budget"},
                          {"kind": "search", "agent_id": "other", "query": "q", "tool_use_id": "t9"}))
    assert folded[AGENT].search_count == 1 and folded["other"].search_count == 1
    assert folded[AGENT].denied_by_rule == {"search-budget": 1}


# --- searches ---------------------------------------------------------------------

def test_a_search_beyond_the_budget_is_denied_naming_the_budget():
    used = usage_of(search("a", "t1"), search("b", "t2"))
    assert rules.decide_search(usage_of(search("a", "t1")), 2, "b").allowed
    verdict = rules.decide_search(used, 2, "c")
    assert not verdict.allowed and verdict.rule == rules.SEARCH_BUDGET
    assert "2 of your 2 web searches" in verdict.reason and "Reply with your findings now" in verdict.reason


@pytest.mark.parametrize("again", ["Log  Pricing", "log pricing", " LOG\tpricing "])
def test_the_same_words_again_are_a_loop(again: str):
    verdict = rules.decide_search(usage_of(search("log pricing", "t1")), 5, again)
    assert not verdict.allowed and verdict.rule == rules.SEARCH_LOOP
    assert "already searched" in verdict.reason
    assert rules.decide_search(usage_of(search("log pricing", "t1")), 5, "log pricing 2026").allowed


def test_a_loop_is_named_even_when_the_budget_is_spent():
    verdict = rules.decide_search(usage_of(search("a", "t1")), 1, "A")
    assert verdict.rule == rules.SEARCH_LOOP


# --- page reads ---------------------------------------------------------------------

def test_a_page_read_beyond_the_budget_is_denied():
    used = usage_of(read("https://a.example/1", "t1", ok=True), read("https://a.example/2", "t2", ok=True))
    verdict = rules.decide_page_read(used, 2, "https://a.example/3")
    assert not verdict.allowed and verdict.rule == rules.PAGE_BUDGET
    assert "2 of your 2 pages" in verdict.reason and "Reply with your findings now" in verdict.reason


def test_paging_a_page_already_read_is_allowed_even_with_the_budget_spent():
    used = usage_of(read(URL, "t1"), read(URL, "t1", ok=True))
    verdict = rules.decide_page_read(used, 1, URL, offset=8000)
    assert verdict.allowed and verdict.paging


def test_an_offset_on_a_page_never_read_is_refused_as_a_first_read():
    """A first read starts at the top: `fetch --offset N` of a URL not read yet would skip the
    page's opening text (and count as a read of it)."""
    for used in (AgentUsage(AGENT), usage_of(read("https://a.example/1", "t1", ok=True))):
        verdict = rules.decide_page_read(used, 1 if used.page_read_count else 5, URL, offset=8000)
        assert not verdict.allowed and verdict.rule == rules.OFFSET_FIRST
        assert "not read" in verdict.reason and "without --offset" in verdict.reason
    assert rules.decide_page_read(AgentUsage(AGENT), 5, URL).allowed  # from the top: a read


def test_an_offset_on_a_page_the_run_already_stored_is_a_free_read_even_with_the_budget_spent():
    """Issue 42: a page another researcher (or an earlier attempt) stored is served from its
    snapshot, so reading it at --offset downloads nothing and costs no page read."""
    spent = usage_of(read("https://a.example/1", "t1", ok=True))
    verdict = rules.decide_page_read(spent, 1, URL, offset=8000, stored=True)
    assert verdict.allowed and verdict.paging
    assert rules.decide_page_read(spent, 1, URL, stored=True).rule == rules.PAGE_BUDGET  # from the top: a read


def test_a_second_read_of_the_same_url_is_denied_as_done():
    used = usage_of(read(URL, "t1"), read(URL, "t1", ok=True))
    verdict = rules.decide_page_read(used, 5, URL + "#pricing")
    assert not verdict.allowed and verdict.rule == rules.PAGE_LOOP and "already read" in verdict.reason
    assert "--offset" in verdict.reason and "WebFetch" not in verdict.reason


def test_find_is_one_page_read_of_a_new_url_then_paging_and_the_top_stays_readable():
    """`fetch --find` of a URL not read yet is one page read (within the budget), however many
    windows it prints; on a URL already read it is paging; and a page read only with --find may
    still be read from the top (paging: its top was never shown)."""
    first = rules.decide_page_read(AgentUsage(AGENT), 1, URL, find=True)
    assert first.allowed and not first.paging
    spent = usage_of(read("https://a.example/1", "t1", ok=True))
    assert rules.decide_page_read(spent, 1, URL, find=True).rule == rules.PAGE_BUDGET
    found = usage_of({**read(URL, "t1"), "find": "retention tiers"}, read(URL, "t1", ok=True))
    assert found.page_read_count == 1 and found.reads[0].find == "retention tiers"
    for again in (dict(find=True), dict(offset=4000), {}):
        verdict = rules.decide_page_read(found, 1, URL, **again)
        assert verdict.allowed and verdict.paging, again
    plain = usage_of(read(URL, "t1"), read(URL, "t1", ok=True))
    assert rules.decide_page_read(plain, 1, URL, find=True).paging
    assert rules.decide_page_read(plain, 5, URL).rule == rules.PAGE_LOOP  # a plain read again: done


def test_a_failed_fetch_may_be_tried_again_but_not_one_still_pending():
    """Researchers read pages only with `fetch` (their WebFetch is denied), so the page rule knows
    one tool: a read that failed may be fetched again, one whose result is unknown may not."""
    import inspect

    assert list(inspect.signature(rules.decide_page_read).parameters) == ["usage", "limit", "url", "offset", "find",
                                                                          "stored"]
    assert rules.decide_page_read(usage_of(read(URL, "t1"), read(URL, "t1", ok=False)), 5, URL).allowed
    assert not rules.decide_page_read(usage_of(read(URL, "t1")), 5, URL).allowed


# --- dispatches ----------------------------------------------------------------------

def test_second_wave_subtopics_widen_the_dispatch_cap(tmp_path: Path):
    from test_coverage import EXAMPLE_PLAN, SECOND_WAVE, deep

    (tmp_path / "plan.md").write_text(deep(EXAMPLE_PLAN) + SECOND_WAVE, encoding="utf-8")
    assert post_briefs.run_limits(str(tmp_path)).max_dispatches == (3 + 2) * 2
    (tmp_path / "plan.md").write_text(deep(EXAMPLE_PLAN), encoding="utf-8")
    assert post_briefs.run_limits(str(tmp_path)).max_dispatches == 3 * 2
    assert rules.max_dispatches(3, 2) == 10


def test_dispatches_beyond_the_run_cap_are_denied(tmp_path: Path):
    from web_research.guard.briefs_match import Brief, brief_hash, dispatch_prompt

    briefs = [Brief(f"s{i}", f"/b/s{i}.md", brief_hash(f"body {i}".encode()), f"/f/s{i}.md", f"body {i}")
              for i in range(3)]
    run = Run(str(tmp_path), dispatches={"s0": 2, "s1": 2})
    prompt = {"prompt": dispatch_prompt(briefs[2])}
    decision = decide_dispatch(run, prompt, "t1", briefs, 0.0, max_dispatches=4)
    assert decision.action == "deny" and "4" in decision.reason
    assert decide_dispatch(run, prompt, "t1", briefs, 0.0, max_dispatches=6).action == "allow"


# --- through the hooks ---------------------------------------------------------------

@pytest.fixture
def h(prepared: PreparedHarnesses) -> Harness:
    """A run whose briefs give 2 searches and 1 page read per researcher, agentA started on the first."""
    return prepared.get("budget-of-two", _budget_of_two)[0]


def _budget_of_two(h: Harness) -> None:
    h.start_run()
    h.render_briefs(["Billing units", "Retention tiers"])
    text = (h.run_dir / "plan.md").read_text().replace("Searches per subagent: 5", "Searches per subagent: 2\n"
                                                       "Page reads per subagent: 1")
    (h.run_dir / "plan.md").write_text(text)
    briefs = rerender(h)  # the budget is fixed when the briefs are rendered
    h.start_agent(AGENT, h.prompt_for(briefs[0]))


def rerender(h: Harness) -> list[dict]:
    command = h.core_command("briefs")
    proc = h.shell(command)
    assert proc.returncode == 0, proc.stderr
    given = h.hook(h.bash("PostToolUse", command, proc.stdout))
    assert given.returncode == 0 and "Dispatch " in given.stdout, given  # the Agent calls to make
    return json.loads(proc.stdout)


def web(h: Harness, tool: str, call: str, agent_id: str | None = AGENT, event: str = "PreToolUse", **tool_input):
    return h.payload(event, agent_id, tool_name=tool, tool_input=tool_input, tool_use_id=call)


# fetch's first output line, as a successful fetch prints it (commands/fetch_cmd.py)
FETCHED = ('web-research snapshot: {"snapshot_id": "0123456789abcdef", "sha256": "sha256:' + "0" * 64
           + '", "chars": 10, "origin": "fetched"}\nTitle: Retention\n')


def fetch(h: Harness, url: str, call: str, offset: int | None = None) -> dict:
    command = f'"{CLI}" fetch "{url}" --run "{h.run_dir}"' + (f" --offset {offset}" if offset else "")
    payload = h.bash("PreToolUse", command, agent_id=AGENT)
    payload["tool_use_id"] = call
    return payload


def test_hooks_deny_the_third_search_of_a_budget_of_two(h: Harness):
    for call, query in (("t1", "log pricing"), ("t2", "retention tiers")):
        assert h.hook(web(h, "WebSearch", call, query=query)).stdout == ""
        assert h.hook(web(h, "WebSearch", call, event="PostToolUse", query=query,
                          tool_response={"query": query})).stdout == ""
    third = h.hook(web(h, "WebSearch", "t3", query="ingest units"))
    assert third.decision == "deny" and "2 of your 2 web searches" in third.reason
    found = fold(ledger.read(ledger.ledger_path(h.data, h.run_dir)))[AGENT]
    assert found.search_count == 2 and found.denied_by_rule == {"search-budget": 1}
    assert found.slug == "billing-units"
    progress = json.loads((h.run_dir / ".web-research" / "progress.json").read_text())
    mine = next(a for a in progress["agents"] if a["agent_id"] == AGENT)
    assert (mine["searches"], mine["denied"]) == (2, 1) and progress["budget"]["searches_per_researcher"] == 2


def test_parallel_searches_of_one_message_are_counted_before_they_return(h: Harness):
    procs = [h.spawn(web(h, "WebSearch", f"t{i}", query=f"query {i}"), f"s{i}") for i in range(4)]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert sum('"deny"' in out for out in outs) == 2, outs


def test_hooks_deny_a_repeated_query_and_a_repeated_fetch_but_not_paging(h: Harness):
    assert h.hook(web(h, "WebSearch", "t1", query="Log pricing")).stdout == ""
    again = h.hook(web(h, "WebSearch", "t2", query="log   PRICING"))
    assert again.decision == "deny" and "already searched" in again.reason
    assert h.hook(fetch(h, URL, "t3")).decision == "allow"
    h.hook(h.payload("PostToolUse", AGENT, tool_name="Bash", tool_use_id="t3",
                     tool_input={"command": fetch(h, URL, "t3")["tool_input"]["command"]},
                     tool_response={"stdout": FETCHED, "stderr": "", "interrupted": False}))
    repeated = h.hook(fetch(h, URL, "t4"))
    assert repeated.decision == "deny" and "already read" in repeated.reason
    assert h.hook(fetch(h, URL, "t5", offset=8000)).decision == "allow"  # paging, budget of 1 spent or not
    over = h.hook(fetch(h, "https://other.example/page", "t6"))
    assert over.decision == "deny" and "1 of your 1 pages" in over.reason


def test_hooks_let_a_researcher_read_on_in_a_page_the_run_stored_without_counting_it(h: Harness):
    from web_research.evidence.snapshots import store_snapshot

    store_snapshot(h.run_dir, requested_url=URL, final_url=URL, title="Retention", status=200,
                   content_type="text/html", retrieved_at="2026-01-01T00:00:00+00:00", text="x" * 9000,
                   extractor="test")
    assert h.hook(fetch(h, "https://other.example/page", "t1")).decision == "allow"  # the budget of 1 spent
    assert h.hook(fetch(h, URL, "t2", offset=8000)).decision == "allow"
    never = h.hook(fetch(h, "https://third.example/page", "t3", offset=8000))
    assert never.decision == "deny" and "not read" in never.reason
    found = fold(ledger.read(ledger.ledger_path(h.data, h.run_dir)))[AGENT]
    assert found.page_read_count == 1 and [r.paging for r in found.reads] == [False, True]


def test_the_orchestrators_web_calls_are_denied_only_during_a_run(tmp_path: Path, h: Harness):
    for tool, tool_input in (("WebSearch", {"query": "x"}), ("WebFetch", {"url": URL, "prompt": "p"})):
        denied = h.hook(web(h, tool, "t1", agent_id=None, **tool_input))
        assert denied.decision == "deny" and "researchers do the searching" in denied.reason
    idle = Harness(tmp_path / "idle")
    assert idle.hook(web(idle, "WebSearch", "t1", agent_id=None, query="x")).stdout == ""


def test_a_run_wide_dispatch_cap_comes_from_the_plan(h: Harness):
    limits = post_briefs.run_limits(str(h.run_dir))
    assert (limits.searches, limits.page_reads, limits.max_dispatches) == (2, 1, 4)
    (h.run_dir / "plan.md").write_text("not a plan")
    assert post_briefs.run_limits(str(h.run_dir)).max_dispatches is None


def test_a_researchers_call_refused_by_a_scope_rule_is_counted_as_denied(h: Harness):
    refused = h.hook(h.bash("PreToolUse", f"ls {h.run_dir}", agent_id=AGENT))
    assert refused.decision == "deny"
    used = fold(ledger.read(ledger.ledger_path(h.data, h.run_dir)))[AGENT]
    assert used.denied_by_rule == {"scope": 1}
    over = h.hook(fetch(h, URL, "t1"))  # allowed: the budget counts it, and a denial is not counted twice
    assert over.decision == "allow"
    assert h.hook(fetch(h, URL, "t2")).decision == "deny"
    used = fold(ledger.read(ledger.ledger_path(h.data, h.run_dir)))[AGENT]
    assert used.denied_by_rule == {"scope": 1, "page-repeated": 1}


def test_a_plan_edited_after_its_briefs_cannot_raise_the_budget(h: Harness):
    """The limits are recorded when `briefs` renders the approved plan; an orchestrator that
    later raises `Searches per subagent` in plan.md does not raise what the hooks allow."""
    plan = h.run_dir / "plan.md"
    plan.write_text(plan.read_text().replace("Searches per subagent: 2", "Searches per subagent: 50"))
    decisions = [h.hook(web(h, "WebSearch", f"s{i}", query=f"query {i}")).decision for i in range(3)]
    assert decisions == [None, None, "deny"]  # allowed calls get no decision: the normal flow
