"""The evidence rules: only what the plugin fetched and sealed, as its owner wrote it,
can make a run pass.

- Seal what was written, when it was written: a researcher writes no file; the plugin writes its
  reply as its findings file and seals that write at once, so a file changed afterwards by
  anything else fails its seal, and a file planted over the stub is never sealed as it is.
- A snapshot's seal is the hash the hook computes of the stored file, never a printed line.
- No snapshot, no citation: in a run with seals, a citation whose page no fetch sealed is an error,
  told to the researcher at its stop; researchers cannot WebFetch in a run.
- One dispatch per sealed result: a findings file sealed `ok` is final.
- Sealed at the end: a report changed after the Stop gate passed fails a later verify.

Every hook is driven through the real launcher (hooks/run) with the real client's payload shapes.
"""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path


from hook_harness import CLI, Harness, agent_result, sha
from test_seals import fetch_returned, ledger_entries
from web_research.evidence import ledger
from web_research.checks.checklist import run_checklist
from web_research.checks.integrity import citation_integrity
from web_research.evidence.snapshots import store_snapshot

AGENT = "agentA"
URL = "https://docs.acme.example/logs/pricing"
PAGE = "Ingest is billed per GB. Indexing is billed per million events."


def reply_text(status: str = "ok", cite: str | None = None, excerpt: str = "Ingest is billed per GB.") -> str:
    """A researcher's final reply as its brief shows it (its findings)."""
    front = f"---\nstatus: {status}\n" + ('reason: "no source reachable"\n' if status != "ok" else "") + "---\n\n"
    if cite is None:
        return front + "Nothing cited.\n"
    return front + ("## Claims\n\n- Ingest is billed per GB[^1].\n\n## Sources\n\n"
                    f"[^1]: **Title**: Pricing | Acme\n      **URL**: {cite}\n      **Excerpt**: \"{excerpt}\"\n")


def fetched(h: Harness, url: str = URL, agent_id: str = AGENT) -> None:
    """A page as the researcher's fetch stores it, and the PostToolUse hook of that fetch."""
    store_snapshot(h.run_dir, requested_url=url, final_url=url, title="Pricing | Acme", status=200,
                   content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00", text=PAGE, extractor="test")
    assert h.hook(fetch_returned(h, url, agent_id=agent_id)).stdout == ""


def seals(h: Harness) -> dict:
    return ledger.seals(ledger_entries(h))


def sealed_as_written(h: Harness, path: Path, body: str) -> None:
    """The stop let the researcher go: the plugin wrote its reply as the findings file (a recorded
    plugin write) and sealed the file as that write, which keeps the reply's `body`."""
    on_disk = path.read_bytes()
    assert body in on_disk.decode("utf-8")
    last = [e for e in ledger_entries(h) if e.kind == ledger.PLUGIN_WRITE and e.path == f"findings/{path.name}"][-1]
    assert seals(h)[f"findings/{path.name}"].sha256 == last.sha256 == sha(on_disk)


# --- written from the reply and sealed at once -------------------------------------------------

def test_a_reply_is_written_and_sealed_at_once_and_a_later_change_fails_its_seal(researcher):
    """No window between the write and the seal: the plugin writes the reply and seals that write
    in the same stop. Anything that changes the file afterwards fails verify."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    assert h.reply(AGENT, reply_text("failed")).stdout == ""
    sealed_as_written(h, path, "Nothing cited.")
    assert seals(h)[f"findings/{path.name}"].agent_id == AGENT
    path.write_text(path.read_text(encoding="utf-8").replace("Nothing cited.", "Planted later."), encoding="utf-8")
    checks = run_checklist(h.run_dir)
    assert any(c.id == "provenance.sealed" and not c.ok and "changed after it was sealed" in c.message for c in checks)
    hooks = json.loads((Path(CLI).parent.parent / "hooks" / "hooks.json").read_text())["hooks"]
    # the one PostToolUse of writes is the orchestrator's next step after plan.md or report.md
    # (handlers post_plan, post_report); no subagent write is recorded
    assert [m["matcher"] for m in hooks["PostToolUse"] if "Write" in m["matcher"]] == ["Write"]


def test_the_reply_after_the_block_is_the_one_written_and_sealed(researcher):
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    stub = path.read_text(encoding="utf-8")
    assert h.reply(AGENT, "---\nstatus: failed\n---\n\nNothing cited.\n").decision == "block"  # no reason
    assert path.read_text(encoding="utf-8") == stub  # a blocked reply is not written
    again = reply_text("failed").replace("Nothing cited.", "Nothing cited, again.")
    assert h.reply(AGENT, again, stop_hook_active=True).stdout == ""
    sealed_as_written(h, path, "Nothing cited, again.")


def test_a_file_planted_over_the_stub_is_never_sealed_as_it_is(researcher):
    """A findings file put in place by something else over the plugin's stub, and a researcher
    whose replies hold no findings: the seal is the stub the plugin wrote, so the file fails it."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    planted = h.findings_text(infos[0], "ok")
    path.write_text(planted, encoding="utf-8")
    assert h.reply(AGENT, "done").decision == "block"
    h.reply(AGENT, "done", stop_hook_active=True)
    assert path.read_text(encoding="utf-8") == planted
    seal = seals(h).get(f"findings/{path.name}")
    assert seal is not None and not seal.accepts(sha(planted.encode()))


def test_with_no_record_of_any_write_a_planted_file_is_not_sealed(researcher):
    """No stub recorded (the file was there before the hooks saw anything) and no findings replied."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    entries = [e for e in ledger_entries(h) if e.kind != ledger.PLUGIN_WRITE]
    ledger_file = ledger.ledger_path(h.data, h.run_dir)
    ledger_file.unlink()
    ledger.append(ledger_file, entries)
    path.write_text(h.findings_text(infos[0], "ok"), encoding="utf-8")
    assert h.reply(AGENT, "done").decision == "block"
    h.reply(AGENT, "done", stop_hook_active=True)
    assert f"findings/{path.name}" not in seals(h)


def test_a_write_by_the_plugin_counts_as_the_owners(researcher):
    """What the plugin itself wrote into a findings file (the stub: plugin_writes.write_run_file,
    or the older `written` entry by plugin) is the owner's last write."""
    from web_research.guard.effects.seals import owner_written, record_written

    h, infos = researcher
    path = Path(infos[1]["findings_path"])
    text = h.findings_text(infos[1], "failed")
    path.write_text(text, encoding="utf-8")
    record_written(h.env(), str(h.run_dir), str(path), sha(text.encode()))
    assert owner_written(h.env(), str(h.run_dir), str(path), "agentZ") == (sha(text.encode()), sha(text.encode()))


# --- snapshot seals are the hook's own hash of the stored file ----------------------------------

def test_a_snapshot_changed_before_the_hook_hashed_it_is_not_sealed(researcher):
    """fetch printed the hash of what it wrote; the file differs by the time the hook looks (or
    the line was printed by something that is not fetch): nothing is sealed."""
    h, _ = researcher
    snap = store_snapshot(h.run_dir, requested_url=URL, final_url=URL, title="Pricing | Acme", status=200,
                          content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00", text=PAGE,
                          extractor="test")
    payload = fetch_returned(h, URL, agent_id=AGENT)
    snap.text_path.write_text(PAGE.replace("per GB", "per TB"), encoding="utf-8")
    assert h.hook(payload).stdout == ""
    assert not [p for p in seals(h) if p.startswith("sources/")]


def test_a_seal_line_naming_a_snapshot_of_another_url_seals_nothing(researcher):
    h, _ = researcher
    other = "https://docs.acme.example/other"
    store_snapshot(h.run_dir, requested_url=other, final_url=other, title="Other", status=200,
                   content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00", text=PAGE, extractor="test")
    payload = fetch_returned(h, other, agent_id=AGENT)
    payload["tool_input"]["command"] = payload["tool_input"]["command"].replace(other, URL)
    assert h.hook(payload).stdout == ""
    assert not [p for p in seals(h) if p.startswith("sources/")]


def test_a_fetched_snapshot_is_sealed_with_the_hash_of_its_file(researcher):
    h, _ = researcher
    fetched(h)
    found = {p: s for p, s in seals(h).items() if p.startswith("sources/")}
    assert len(found) == 2
    for rel, seal in found.items():
        assert seal.sha256 == ledger.file_sha256(h.run_dir / rel, 1 << 24) and seal.url == URL


# --- no snapshot, no citation -----------------------------------------------------------------

def test_in_a_run_with_seals_a_citation_without_a_sealed_snapshot_is_an_error(tmp_path: Path):
    from web_research.checks.citation_entries import Citation

    run = tmp_path / "run"
    run.mkdir()
    path = run / "report.md"
    path.write_text("x", encoding="utf-8")
    citation = Citation(number=1, title="Page", url="https://nowhere.example/page", excerpt="A quoted sentence here.",
                        line=40)
    checks, summary = citation_integrity(run, [(path, citation)], sealed={})
    errors = [c for c in checks if c.id == "report.citations.snapshot" and not c.ok]
    assert [c.severity for c in errors] == ["error"] and "no page read through the fetch command" in errors[0].message
    checks, _ = citation_integrity(run, [(path, citation)], sealed=None)  # no record of seals: today's warning
    assert [c.severity for c in checks if c.id == "report.citations.snapshot" and not c.ok] == ["warning"]


def test_a_researcher_citing_a_page_it_never_fetched_is_told_at_its_stop(researcher):
    h, infos = researcher
    first = h.reply(AGENT, reply_text(cite=URL))
    assert first.decision == "block", first
    assert f"{URL} has no page snapshot" in first.reason and "web-research fetch" in first.reason
    fetched(h)  # it reads the page, as told, and replies again
    assert h.reply(AGENT, reply_text(cite=URL), stop_hook_active=True).stdout == ""


def test_a_reply_still_citing_a_page_never_read_at_its_second_stop_is_no_result(researcher):
    """Told once, it replies again with the same citation: the reply is not written (the stub
    stays, sealed as the plugin wrote it) and it is a silent failure naming the page, never
    findings sealed ok with a citation of a page nobody read."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    stub = path.read_bytes()
    assert h.reply(AGENT, reply_text(cite=URL)).decision == "block"
    second = h.reply(AGENT, reply_text(cite=URL), stop_hook_active=True)
    assert path.read_bytes() == stub
    assert seals(h)[f"findings/{path.name}"].sha256 == sha(stub)
    assert seals(h)[f"findings/{path.name}"].status == "failed"
    assert f"{URL} has no page snapshot" in _recorded_problems(h, infos[0]["slug"])
    assert "silent failure" in (second.json or {}).get("systemMessage", ""), second.stdout
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_retry")).decision == "allow"  # a retry may fix it


def test_a_returned_reply_citing_a_page_never_read_is_no_result(researcher):
    """The stop went unseen, so nothing could be sent back: a reply citing a page never read is
    not written either."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    stub = path.read_bytes()
    returned = agent_result(AGENT, reply_text(cite=URL))
    h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0", "PostToolUse", returned))
    assert path.read_bytes() == stub
    assert f"{URL} has no page snapshot" in _recorded_problems(h, infos[0]["slug"])


def test_a_hand_made_snapshot_backs_no_citation_in_a_run(researcher):
    h, infos = researcher
    store_snapshot(h.run_dir, requested_url=URL, final_url=URL, title="Pricing | Acme", status=200,
                   content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00", text=PAGE, extractor="hand")
    first = h.reply(AGENT, reply_text(cite=URL))
    assert first.decision == "block" and "no researcher's fetch sealed" in first.reason


def test_researchers_cannot_webfetch_in_a_run(researcher):
    h, _ = researcher
    payload = h.payload("PreToolUse", AGENT, tool_name="WebFetch", tool_use_id="toolu_wf",
                        tool_input={"url": URL, "prompt": "quote it"})
    result = h.hook(payload)
    assert result.decision == "deny" and "fetch" in result.reason and "summary" in result.reason
    denied = [e for e in ledger_entries(h) if e.kind == "denied"]
    assert [(e.agent_id, e.tool) for e in denied] == [(AGENT, "WebFetch")]


def test_standalone_verify_errs_on_an_unsealed_citation_when_the_folder_has_seals(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    h.copy_example_run()
    sealed = sorted(p for p in (h.run_dir / "sources").glob("*.txt"))
    copy = h.run_dir / ".web-research" / "seals.json"
    data = json.loads(copy.read_text())
    rel = f"sources/{sealed[0].name}"
    del data["seals"][rel]
    copy.write_text(json.dumps(data))
    result = subprocess.run([str(CLI), "verify", str(h.run_dir)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "no researcher's fetch sealed" in result.stdout, result.stdout


def test_a_stop_that_went_unseen_is_settled_from_the_returned_agent_calls_result(researcher):
    """No SubagentStop reached the hooks: when the Agent call returns, its result (the researcher's
    last reply) is written as the findings file and sealed; a reply with no findings leaves the stub
    and is a silent failure (nothing can be sent back any more)."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    returned = agent_result(AGENT, reply_text("failed"))
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0", "PostToolUse", returned)).returncode == 0
    sealed_as_written(h, path, "Nothing cited.")
    assert h.record()["run"]["agents"][AGENT]["state"] == "done"
    assert h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1")).decision == "allow"
    h.start_agent("agentB", h.prompt_for(infos[1]))
    stub = Path(infos[1]["findings_path"]).read_text(encoding="utf-8")
    silent = agent_result("agentB", "All done.")
    h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1", "PostToolUse", silent))
    assert Path(infos[1]["findings_path"]).read_text(encoding="utf-8") == stub
    assert [f["slug"] for f in h.record()["run"]["silent_failures"]] == [infos[1]["slug"]]


def _recorded_problems(h: Harness, slug: str) -> str:
    """What the silent failure of `slug` records (silent-failures.json: what finish and Gaps read)."""
    recorded = json.loads((h.run_dir / ".web-research" / "silent-failures.json").read_text(encoding="utf-8"))
    return "; ".join(p for f in recorded if f["slug"] == slug for p in f["problems"])


def test_a_returned_result_with_no_readable_reply_says_so_not_that_the_reply_was_wrong(researcher):
    """The Agent call returned a result this code cannot read a reply from: the stub stays, a
    silent failure that says no reply could be read (there was none to judge), while a reply that
    was read but holds no findings keeps its own wording."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    stub = path.read_text(encoding="utf-8")
    unreadable = agent_result(AGENT, reply_text("ok"))
    del unreadable["harnessNoteCount"]  # a shape this code was not built for
    shown = h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0", "PostToolUse", unreadable))
    assert path.read_text(encoding="utf-8") == stub
    problems = _recorded_problems(h, infos[0]["slug"])
    assert "no reply could be read from the Agent result" in problems and "stub" in problems, problems
    notice = (shown.json or {}).get("systemMessage", "")  # the person is told at once, as at a stop
    assert "silent failure" in notice and "no reply could be read from the Agent result" in notice, shown.stdout
    assert "does not start with your findings" not in problems
    assert h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1")).decision == "allow"
    h.start_agent("agentB", h.prompt_for(infos[1]))
    h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1", "PostToolUse", agent_result("agentB", "All done.")))
    assert "does not start with your findings" in _recorded_problems(h, infos[1]["slug"])


# --- one dispatch per sealed result --------------------------------------------------------------

def _finished(h: Harness, infos: list, status: str) -> Path:
    path = Path(infos[0]["findings_path"])
    assert h.reply(AGENT, reply_text(status)).stdout == ""
    h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0", "PostToolUse", {"status": "completed", "agentId": AGENT}))
    return path


def test_a_brief_sealed_ok_is_not_dispatched_again(researcher):
    h, infos = researcher
    path = _finished(h, infos, "ok")
    assert seals(h)[f"findings/{path.name}"].status == "ok"
    result = h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_again"))
    assert result.decision == "deny" and "sealed with status ok" in result.reason
    assert h.record()["run"]["dispatches"][infos[0]["slug"]] == 1


def test_a_brief_sealed_failed_may_be_retried(researcher):
    h, infos = researcher
    _finished(h, infos, "failed")
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_retry")).decision == "allow"


def _silent(h: Harness, agent_id: str) -> None:
    """The researcher `agent_id` stops twice having written nothing: the stub stays, sealed failed."""
    assert h.hook(h.subagent_stop(agent_id)).decision == "block"
    h.hook(h.subagent_stop(agent_id, stop_hook_active=True))


def test_a_retry_whose_transcript_is_not_written_yet_is_known_by_elimination(researcher):
    """The client may not have written a short-lived subagent's transcript when its SubagentStop
    runs. A retried brief's researcher is then still known: it is the one started researcher not
    yet attributed, and its dispatch the one no agent holds. Its stop is judged (blocked once for
    the stub left as it was), and the stub the retry's dispatch wrote is sealed as it is let go."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    _silent(h, AGENT)
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_retry")).decision == "allow"
    retry = "agentRetry"  # started, but no transcript on disk
    h.hook(h.payload("SubagentStart", retry, agent_type="web-research:researcher"))
    assert h.record()["run"]["agents"][retry]["slug"] == infos[0]["slug"]
    first = h.hook(h.subagent_stop(retry))
    assert first.decision == "block" and path.name in first.reason, first.stdout
    h.hook(h.subagent_stop(retry, stop_hook_active=True))
    assert seals(h)[f"findings/{path.name}"].sha256 == sha(path.read_bytes())
    assert [e["agent_id"] for e in h.record()["run"]["silent_failures"]] == [AGENT, retry]
    assert h.record()["run"]["reservations"] == []


def test_two_unknown_researchers_are_never_attributed_by_elimination(researcher):
    h, infos = researcher
    assert h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1")).decision == "allow"
    for agent in ("agentX", "agentY"):  # neither transcript can be read: which is which is unknown
        h.hook(h.payload("SubagentStart", agent, agent_type="web-research:researcher"))
    agents = h.record()["run"].get("agents", {})
    assert "agentX" not in agents and "agentY" not in agents
    assert h.hook(h.subagent_stop("agentX")).stdout == ""


def test_the_returned_agent_call_seals_a_retry_stub_its_stop_left_unsealed(researcher):
    """The fallback at the Agent call's return seals the owner's last write when the latest seal
    is another attempt's, not only when the file was never sealed."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    _silent(h, AGENT)
    before = seals(h)[f"findings/{path.name}"].sha256
    time.sleep(1.05 - time.time() % 1)  # the new stub's start time is a second later
    h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_retry"))
    stub = sha(path.read_bytes())
    assert before != stub  # the dispatch wrote a new stub (a new start time)
    h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_retry", "PostToolUse",
                        {"status": "completed", "agentId": "agentGone"}))
    assert seals(h)[f"findings/{path.name}"].sha256 == stub


def test_a_settled_researcher_that_stops_again_changes_nothing(researcher):
    """Re-entered after its reply was written and sealed (a client's `resume`, a message), a
    researcher stops again: its findings are final, so the new reply is neither judged nor
    written, and nothing is sealed anew, whatever it holds."""
    h, infos = researcher
    path = _finished(h, infos, "ok")
    before, entries = path.read_bytes(), len(ledger_entries(h))
    for again in (reply_text("ok").replace("Nothing cited.", "Rewritten."), "not findings at all"):
        result = h.reply(AGENT, again)
        assert result.stdout == "", result.stdout  # not sent back either
        assert path.read_bytes() == before and len(ledger_entries(h)) == entries
    assert h.record()["run"]["agents"][AGENT]["state"] == "done"


def test_a_stop_of_another_agent_on_a_brief_sealed_ok_changes_nothing(researcher):
    """An agent the run has not bound yet whose transcript names a brief sealed ok (one the
    dispatch rule would refuse) writes nothing over that file."""
    h, infos = researcher
    path = _finished(h, infos, "ok")
    before, entries = path.read_bytes(), len(ledger_entries(h))
    h.start_agent("agentLate", h.prompt_for(infos[0]))
    assert h.reply("agentLate", reply_text("ok").replace("Nothing cited.", "Rewritten.")).stdout == ""
    assert path.read_bytes() == before and len(ledger_entries(h)) == entries


def test_a_researcher_never_writes_over_a_file_sealed_ok(researcher):
    """No researcher writes a file, an unattributable one (no transcript) included, and a file
    sealed ok least of all."""
    h, infos = researcher
    path = _finished(h, infos, "ok")
    stranger = h.payload("PreToolUse", "agentZ", tool_name="Write", tool_use_id="toolu_z",
                         tool_input={"file_path": str(path), "content": "x"})
    assert h.hook(stranger).decision == "deny"


# --- sealed at the end ------------------------------------------------------------------------------

def test_the_report_is_sealed_when_the_stop_gate_passes_and_a_later_change_is_named(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    h.copy_example_run()
    assert h.hook(h.stop()).decision is None  # passes (the person's summary is shown, nothing blocks)
    assert h.history()[-1]["outcome"] == "verified"
    report = h.run_dir / "report.md"
    found = seals(h)
    assert found["report.md"].sha256 == ledger.file_sha256(report, 1 << 24) and "plan.md" in found
    assert "report.md" in json.loads((h.run_dir / ".web-research" / "seals.json").read_text())["seals"]
    ok = subprocess.run([str(CLI), "verify", str(h.run_dir)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout
    report.write_text(report.read_text().replace("## TL;DR", "## TL;DR\n\n- An added claim."), encoding="utf-8")
    later = subprocess.run([str(CLI), "verify", str(h.run_dir)], capture_output=True, text=True, timeout=120)
    assert later.returncode == 1
    assert "report.md: report changed after it was sealed at" in later.stdout
    assert "when the run passed verification" in later.stdout

