"""Sealed provenance and the run ledger: seals written by the hooks, checked by verify.

Every test drives the real launcher (hooks/run) with the payload shapes of the
real client, or the real `verify` command; the forger is the orchestrator with
a Bash command that makes every file in the run folder agree with the others.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from example_run import copy_example_to, judge_statements
from hook_harness import CLI, LAUNCHER, Harness, PreparedHarnesses, recorded
from web_research.evidence import ledger
from web_research.checks.checklist import run_checklist
from web_research.core.result import passed
from web_research.commands.fetch_cmd import render_window
from web_research.evidence.snapshots import load_snapshot

AGENT = "a1b2c3d4e5f6a7b8c"
RETENTION_URL = "https://docs.acme.example/logs/retention"
TRUE_SENTENCE = "Indexed retention defaults to 15 days."
FORGED_SENTENCE = "Indexed retention defaults to 45 days."


def seal_example_run(h: Harness, verdicts: bool = True) -> None:
    """Open a run and put the bundled example in it, every file sealed as the hooks seal them:
    snapshots through a researcher's fetch PostToolUse, briefs and findings at production
    (`verdicts`: and the verdicts its statements of absence were given, see copy_example_run)."""
    h.start_run()
    h.copy_example_run(sealed=False, verdicts=verdicts)
    for meta in sorted((h.run_dir / "sources").glob("*.json")):
        assert h.hook(fetch_returned(h, load_snapshot(meta).requested_url)).stdout == ""
    h.seal_as_produced(snapshots=False)


@pytest.fixture
def run(prepared: PreparedHarnesses) -> Harness:
    """An active run holding the bundled example, every file sealed (seal_example_run)."""
    return prepared.get("sealed-example", seal_example_run)[0]


def fetch_command(h: Harness, url: str) -> str:
    return f'"{CLI}" fetch "{url}" --run "{h.run_dir}"'


def fetch_returned(h: Harness, url: str, stored_before: bool = False, agent_id: str = AGENT) -> dict:
    """The PostToolUse of a researcher's fetch, with the output the command prints."""
    from web_research.evidence.snapshots import find_snapshot

    snap = find_snapshot(h.run_dir, url)
    stdout = render_window(snap, snap.text(), h.run_dir, 0, 4000, stored_before)
    return h.bash("PostToolUse", fetch_command(h, url), stdout, agent_id=agent_id)


def ledger_entries(h: Harness) -> list[dict]:
    return ledger.read(ledger.ledger_path(h.data, h.run_dir))


def snapshot_of(h: Harness, url: str):
    from web_research.evidence.snapshots import find_snapshot

    return find_snapshot(h.run_dir, url)


FORGE = r'''python3 - <<'PY'
import hashlib, json, pathlib
run = pathlib.Path({run!r})
for meta_path in (run / "sources").glob("*.json"):
    meta = json.loads(meta_path.read_text())
    text_path = meta_path.with_name(meta["text_file"])
    text = text_path.read_text()
    if {old!r} in text:
        text = text.replace({old!r}, {new!r})
        text_path.write_text(text)
        meta["sha256"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        meta["chars"] = len(text)
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
for name in ("findings/billing-units-and-retention-tiers.md", "report.md"):
    path = run / name
    path.write_text(path.read_text().replace({old!r}, {new!r}))
PY'''


def forge(h: Harness) -> None:
    """The orchestrator's one Bash command: page text, its hash and length, and the excerpt; and a
    verdicts file for the statements of absence the forged page now stands against (the forger
    answers for the checker too), so the folder agrees with itself."""
    proc = h.shell(FORGE.format(run=str(h.run_dir), old=TRUE_SENTENCE, new=FORGED_SENTENCE))
    assert proc.returncode == 0, proc.stderr
    judge_statements(h.run_dir)


# --- the ledger ---------------------------------------------------------------------

def test_the_ledger_folds_seals_latest_first_and_counts_per_agent(tmp_path: Path):
    path = tmp_path / "ledger.jsonl"
    ledger.append(path, [ledger.entry("seal", "a1", "s", artifact="findings", path="findings/s.md", sha256="sha256:1"),
                         ledger.entry("search", "a1", "s", query="q"),
                         ledger.entry("seal", "a2", "s", artifact="findings", path="findings/s.md", sha256="sha256:2"),
                         ledger.entry("page_read", None, None, url="u")])
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"kind": "seal", "path": "findings/x.md"\n[1]\n')  # a cut line and a non-object
    entries = ledger.read(path)
    assert len(entries) == 4
    folded = ledger.seals(entries)
    assert list(folded) == ["findings/s.md"]
    seal = folded["findings/s.md"]
    assert (seal.sha256, seal.agent_id, seal.hashes) == ("sha256:2", "a2", frozenset({"sha256:1", "sha256:2"}))
    assert ledger.counts(entries) == {"a1": {"seal": 1, "search": 1}, "a2": {"seal": 1}, None: {"page_read": 1}}
    assert ledger.read(path, max_bytes=10) == []
    assert ledger.seals_from_copy(ledger.seals_copy("/r", folded)) == folded


def test_a_ledger_line_is_written_as_json_with_its_fields_and_read_back_typed(tmp_path: Path):
    path = tmp_path / "ledger.jsonl"
    ledger.append(path, [ledger.entry("page_read", "a1", "s", tool="fetch", url="u", paging=False, offset=0,
                                      tool_use_id="t1", phase="allowed", snapshot_id=None)])
    line = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(line) == ["agent_id", "at", "kind", "offset", "paging", "phase", "slug", "tool", "tool_use_id",
                            "url"]  # the common fields, then only those set
    assert ledger.read(path) == [ledger.Entry("page_read", line["at"], "a1", "s", url="u", tool="fetch",
                                              tool_use_id="t1", phase="allowed", paging=False, offset=0)]
    # a line the plugin did not write: a field of the wrong type reads as absent, unknown keys are dropped
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"kind": "seal", "path": ["findings/x.md"], "sha256": "sha256:1",
                                 "artifact": "findings", "agent_id": 7, "offset": True, "extra": 1}) + "\n")
    (planted,) = ledger.read(path)
    assert (planted.path, planted.agent_id, planted.offset, planted.sha256) == (None, None, None, "sha256:1")
    assert ledger.seals([planted]) == {}  # no path: no seal
    with pytest.raises(TypeError):
        ledger.entry("seal", None, None, unknown_field="x")  # the writer only writes fields the reader knows


def test_only_seals_written_since_the_run_opened_count(tmp_path: Path):
    """Lines from before the last opening by a new start (a previous run, or lines planted before
    the run began) seal nothing; a resumed opening continues the run."""
    def seal(name: str) -> dict:
        return ledger.entry("seal", "a1", "s", artifact="snapshot", path=f"sources/{name}.txt", sha256="sha256:1")

    def written(sha: str) -> dict:
        return ledger.entry("written", None, None, path="findings/s.md", by="plugin", sha256=sha)

    planted = [seal("planted"), written("sha256:old")]
    opened = ledger.entry(ledger.RUN_OPEN, resumed=False)
    resumed = ledger.entry(ledger.RUN_OPEN, resumed=True)
    assert list(ledger.seals([*planted, opened, seal("fetched")])) == ["sources/fetched.txt"]
    assert list(ledger.seals([opened, seal("first"), resumed, seal("later")])) == ["sources/first.txt",
                                                                                  "sources/later.txt"]
    assert list(ledger.seals([opened, seal("old"), opened, seal("new")])) == ["sources/new.txt"]
    assert list(ledger.seals(planted)) == ["sources/planted.txt"]  # a ledger from before run_open lines
    assert ledger.last_written([*planted, opened], "findings/s.md", None) is None
    assert ledger.last_written([opened, written("sha256:new")], "findings/s.md", None) == "sha256:new"


def test_seals_planted_before_start_do_not_seal_the_run(tmp_path: Path):
    """Pages and seals put in place for a folder before its run opened (through the hooks' own
    code, as a model freed by an abandon might) are no evidence of the run started there."""
    h = Harness(tmp_path)
    h.run_dir.mkdir(parents=True)
    h.copy_example_run()  # files and their seals, before any start
    assert ledger.seals(ledger_entries(h))
    aside = tmp_path / "aside"
    aside.mkdir()
    for name in ("plan.md", "report.md", "briefs", "findings", "sources", "checks", ".web-research"):
        shutil.move(str(h.run_dir / name), str(aside / name))  # start refuses a folder holding them
    h.start_run()
    assert ledger.seals(ledger_entries(h)) == {}
    for name in ("briefs", "findings", "sources"):
        shutil.rmtree(h.run_dir / name, ignore_errors=True)
        shutil.move(str(aside / name), str(h.run_dir / name))
    shutil.copy2(aside / "report.md", h.run_dir / "report.md")
    result = h.hook(h.stop())
    assert result.decision == "block", result
    # each of sources/ (text, record, WARC) fails as unsealed; with 50 failures the lines are cut in the middle
    unsealed = [line for line in result.reason.splitlines() if "/research/sources" in line
                and line.endswith("never by hand [provenance.sealed]")]
    assert len(unsealed) >= 3, result.reason


def test_the_ledger_of_a_run_folder_is_found_from_its_real_path(tmp_path: Path):
    (tmp_path / "run").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "run")
    assert ledger.ledger_path(tmp_path / "data", tmp_path / "link") == ledger.ledger_path(tmp_path / "data",
                                                                                          tmp_path / "run")
    assert ledger.ledger_path(tmp_path / "data", tmp_path / "run").parent.parent == tmp_path / "data" / "runs"


# --- sealing ------------------------------------------------------------------------

def test_a_researchers_fetch_seals_the_snapshot_it_wrote(run: Harness):
    snap = snapshot_of(run, RETENTION_URL)
    seals = ledger.seals(ledger_entries(run))
    text_seal = seals[f"sources/{snap.text_path.name}"]
    assert text_seal.sha256 == snap.sha256 and text_seal.url == RETENTION_URL and text_seal.agent_id == AGENT
    assert f"sources/{snap.meta_path.name}" in seals
    reads = [e for e in ledger_entries(run) if e.kind == "page_read"]
    assert {e.url for e in reads} >= {RETENTION_URL} and all(e.tool == "fetch" for e in reads)
    copy = json.loads((run.run_dir / ".web-research" / "seals.json").read_text())
    assert copy["seals"][f"sources/{snap.text_path.name}"]["sha256"] == snap.sha256
    assert "only as trustworthy as this folder" in copy["note"]


def test_a_snapshot_served_from_an_earlier_unsealed_file_is_not_sealed(tmp_path: Path):
    """A snapshot placed by hand before a researcher asks for its URL: fetch serves it as
    "stored earlier" and the hook does not vouch for it."""
    h = Harness(tmp_path)
    h.start_run()
    h.copy_example_run(sealed=False)
    h.hook(fetch_returned(h, RETENTION_URL, stored_before=True))
    assert not [k for k in ledger.seals(ledger_entries(h)) if k.startswith("sources/")]
    assert [e.paging for e in ledger_entries(h) if e.kind == "page_read"] == [False]


def test_a_researcher_let_go_at_subagent_stop_seals_its_findings_file(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    infos = h.render_briefs(["Billing units", "Retention tiers"])
    brief_seals = ledger.seals(ledger_entries(h))
    assert {f"briefs/{Path(b['brief_path']).name}" for b in infos} <= set(brief_seals)
    ok, failed = infos
    for agent_id, info, status in (("agentok", ok, "ok"), ("agentfail", failed, "failed")):
        h.start_agent(agent_id, h.prompt_for(info))
        reply = h.findings_reply(status, None if status == "ok" else "no source reachable")
        assert h.reply(agent_id, reply).stdout == ""
        path = Path(info["findings_path"])
        seal = ledger.seals(ledger_entries(h))[f"findings/{path.name}"]
        assert seal.sha256 == ledger.file_sha256(path, 1 << 20) and seal.agent_id == agent_id
        assert seal.status == status and path.read_text(encoding="utf-8").endswith("---\n\nNothing cited.\n")


def test_web_searches_and_page_reads_are_recorded_per_agent(run: Harness):
    search = recorded("PostToolUse", "WebSearch", in_agent=True)
    page = recorded("PostToolUse", "WebFetch", in_agent=True)
    for payload in (search, page):
        payload["session_id"] = run.sid
        assert run.hook(payload).stdout == ""
    entries = ledger_entries(run)
    assert [e.query for e in entries if e.kind == "search"] == [search["tool_input"]["query"]]
    fetched = [e for e in entries if e.tool == "WebFetch"]
    assert [e.url for e in fetched] == [page["tool_input"]["url"]]
    assert ledger.counts(entries)[search["agent_id"]]["search"] == 1


def test_web_tools_in_a_session_without_a_run_start_no_python(tmp_path: Path):
    h = Harness(tmp_path)
    marker = tmp_path / "python-started"
    fake = tmp_path / "fake-python"
    fake.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    for tool in ("WebSearch", "WebFetch"):
        for event in ("PreToolUse", "PostToolUse"):
            result = h.hook(recorded(event, tool), WEB_RESEARCH_PYTHON=str(fake))
            assert (result.returncode, result.stdout) == (0, "")
    assert not marker.exists()
    hooks = json.loads((LAUNCHER.parent / "hooks.json").read_text())["hooks"]
    assert any(m["matcher"] == "WebSearch|WebFetch" for m in hooks["PostToolUse"])


# --- the Stop gate checks seals -----------------------------------------------------------

def test_a_sealed_run_passes_the_stop_gate(run: Harness):
    assert run.hook(run.stop()).decision is None  # passes: no block, only the ending shown
    assert run.history()[-1]["outcome"] == "verified"


def test_a_forged_snapshot_and_excerpt_block_the_stop_naming_the_files(run: Harness):
    forge(run)
    snap = snapshot_of(run, RETENTION_URL)
    assert FORGED_SENTENCE in snap.text() and snap.text_is_intact(snap.text())
    # Everything in the folder agrees with itself: without seals the forgery would pass.
    checks = run_checklist(run.run_dir)
    assert passed([c for c in checks if c.id != "provenance.sealed"])
    assert not passed(checks)  # the folder copy of the seals already tells
    result = run.hook(run.stop())
    assert result.decision == "block"
    text_seal = ledger.seals(ledger_entries(run))[f"sources/{snap.text_path.name}"]
    assert f"sources/{snap.text_path.name}: page snapshot changed after it was sealed at {text_seal.at}" \
        in result.reason
    assert "findings/billing-units-and-retention-tiers.md: findings file changed after it was sealed" \
        in result.reason
    assert "[provenance.sealed]" in result.reason


def test_a_findings_file_changed_after_its_seal_blocks_the_stop(run: Harness):
    path = run.run_dir / "findings" / "billing-units-and-retention-tiers.md"
    path.write_text(path.read_text() + "\n")
    result = run.hook(run.stop())
    assert result.decision == "block"
    assert f"{path}: findings/{path.name}: findings file changed after it was sealed at" in result.reason


def test_a_snapshot_no_fetch_produced_blocks_the_stop(run: Harness):
    from web_research.evidence.snapshots import store_snapshot

    snap = store_snapshot(run.run_dir, requested_url="https://invented.example/page", final_url="https://invented.example/page",
                          title="Invented", status=200, content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00",
                          text="Whatever the orchestrator wanted a page to say.", extractor="hand")
    result = run.hook(run.stop())
    assert result.decision == "block"
    assert f"sources/{snap.text_path.name}: page snapshot is not sealed: no researcher's fetch in this run " \
           "produced it" in result.reason


def test_a_deleted_sealed_snapshot_blocks_the_stop(run: Harness):
    snap = snapshot_of(run, RETENTION_URL)
    snap.text_path.unlink()
    snap.meta_path.unlink()
    result = run.hook(run.stop())
    assert result.decision == "block" and f"sources/{snap.text_path.name}: page snapshot was sealed at" in result.reason
    assert "is gone" in result.reason


def test_the_stop_gate_trusts_the_ledger_not_the_folder_copy(run: Harness):
    forge(run)
    copy = run.run_dir / ".web-research" / "seals.json"
    data = json.loads(copy.read_text())
    for path in (run.run_dir / "checks").glob("verdicts-*.json"):  # and seals the verdicts it wrote
        data["seals"].setdefault(f"checks/{path.name}", dict(data["seals"]["checks/verdicts-1.json"]))
    for rel, seal in data["seals"].items():  # the forger rewrites the folder copy too
        digest = ledger.file_sha256(run.run_dir / rel, 1 << 24)
        seal["sha256"], seal["hashes"] = digest, [digest]
    copy.write_text(json.dumps(data))
    assert subprocess.run([str(CLI), "verify", str(run.run_dir)], capture_output=True).returncode == 0
    assert run.hook(run.stop()).decision == "block"


# --- standalone verify ------------------------------------------------------------------

def _verify(run_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), "verify", str(run_dir), "--verbose"], capture_output=True, text=True, timeout=120)


def test_standalone_verify_of_a_folder_without_seals_warns_it_is_not_verifiable(tmp_path: Path):
    """Issue 45: a hand-made run, or a copy without its seals, passes only with a warning that says
    why; the same folder sealed as a run seals it has none."""
    copy_example_to(tmp_path / "run")
    result = _verify(tmp_path / "run")
    assert result.returncode == 0, result.stdout
    (line,) = [x for x in result.stdout.splitlines() if "provenance.sealed" in x]
    assert line.startswith("! provenance.sealed: ") and "not verifiable" in line, line
    assert result.stdout.splitlines()[-1].endswith(" 1 warning(s)")
    copy_example_to(tmp_path / "sealed", sealed=True)
    sealed = _verify(tmp_path / "sealed")
    assert sealed.returncode == 0 and sealed.stdout.splitlines()[-1].endswith(" 0 warning(s)"), sealed.stdout
    assert "sealed and intact" in sealed.stdout


def test_standalone_verify_reads_the_folder_copy_and_says_how_far_to_trust_it(run: Harness):
    result = _verify(run.run_dir)
    assert result.returncode == 0, result.stdout
    line = next(x for x in result.stdout.splitlines() if "provenance.sealed" in x)
    assert "sealed and intact" in line and "only as trustworthy as the folder it sits in" in line
    forge(run)
    result = _verify(run.run_dir)
    assert result.returncode == 1
    assert "page snapshot changed after it was sealed at" in result.stdout
    assert "file(s) changed since sealed" in result.stdout


# --- guards ----------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", [
    "{data}/runs", "{data}", "'{data}'/runs/*/ledger.jsonl", "$HOME/{rel}", "~/{rel}/sessions",
    "cat $(ls -d ~/.claude/plugins/data/*)/x", "echo $CLAUDE_PLUGIN_DATA", "sed -i s/a/b/ ledger.jsonl",
    "python3 -c 'open(\"plug\" \"ins/data\")'", "cat .web-research/seals.json",
])
def test_a_bash_command_naming_the_data_directory_is_denied(tmp_path: Path, spelling: str):
    run = Harness(tmp_path)
    run.data = run.home / ".claude" / "plugins" / "data" / "web-research-inline"  # where Claude Code puts it
    run.start_run()
    rel = os.path.relpath(run.data, run.home)
    command = spelling.format(data=run.data, rel=rel)
    if not command.startswith(("cat", "echo", "sed", "python3")):
        command = f"ls {command}"
    main = run.hook(run.bash("PreToolUse", command))
    researcher = run.hook(run.bash("PreToolUse", command, agent_id=AGENT))
    assert main.decision == "deny" and "runs only the plugin's own commands" in main.reason, command
    assert researcher.decision == "deny", command
    for reason in (main.reason, researcher.reason):  # refusals never print where the records are
        assert str(run.data) not in reason and rel not in reason


def test_other_commands_of_the_main_agent_are_denied(run: Harness):
    assert run.hook(run.bash("PreToolUse", f"ls {run.run_dir}/sources")).decision == "deny"
    assert run.hook(run.bash("PreToolUse", f'"{CLI}" verify "{run.run_dir}"')).decision == "allow"


@pytest.mark.parametrize("agent_id", [None, AGENT])
def test_writes_into_the_data_directory_are_denied(run: Harness, agent_id):
    target = ledger.ledger_path(run.data, run.run_dir)
    for tool in ("Write", "Edit"):
        result = run.hook(run.write_call(agent_id, str(target), tool))
        assert result.decision == "deny" and "plugin's own folder or its data or cache folders" in result.reason
        assert str(run.data) not in result.reason


def test_the_orchestrator_may_not_write_the_folder_copy(run: Harness):
    result = run.hook(run.write_call(None, str(run.run_dir / ".web-research" / "seals.json")))
    assert result.decision == "deny"
