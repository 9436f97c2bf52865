"""Reading a run folder that may have been planted: `fsutil.read_run_file` on its
own, and `verify` (and the hooks' readers) on top of it.

Anything in a run folder may come from a model: a symlink to a file outside
(whose lines a check would echo), a FIFO or device (a read that never returns),
a giant file, a snapshot record built to crash the JSON parser. Each must give a
failing check naming the file, never a hang, a traceback or a leak.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from example_run import BILLING, SCRIPTS_DIR, copy_example, failing, findings_path, run_cli
from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.core.result import passed
from web_research.core.fsutil import RunFileError, read_run_file, read_run_text

SECRET = "TOP-SECRET-LINE do not echo me"
CLI_TIMEOUT = 30


def _secret_file(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "secret.md"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_text(f"# Research: {SECRET}\n\n## TL;DR\n\n- {SECRET}\n", encoding="utf-8")
    return outside


def _verify(run: Path, *extra: str) -> subprocess.CompletedProcess:
    """verify as a subprocess, with a timeout that turns a hang into a failure."""
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "web_research", "verify", str(run), *extra], env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=CLI_TIMEOUT)


# --- fsutil.read_run_file -----------------------------------------------------------

def test_reads_a_regular_file_inside_the_run(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"hello")
    assert read_run_file(tmp_path / "a.md", tmp_path) == b"hello"
    assert read_run_text(tmp_path / "a.md", tmp_path) == "hello"


def test_a_missing_file_is_marked_missing(tmp_path: Path) -> None:
    with pytest.raises(RunFileError) as info:
        read_run_file(tmp_path / "nope.md", tmp_path)
    assert info.value.missing and "does not exist" in info.value.reason


def test_a_symlink_inside_the_run_is_not_followed(tmp_path: Path) -> None:
    """One rule for every reader: a link is never read through, even one that stays inside
    the run (it lets one file stand for another)."""
    (tmp_path / "real.md").write_text("inside", encoding="utf-8")
    (tmp_path / "link.md").symlink_to("real.md")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "a.md").write_text("inside", encoding="utf-8")
    (tmp_path / "findings").symlink_to("folder", target_is_directory=True)
    for path, link in ((tmp_path / "link.md", "link.md"), (tmp_path / "findings" / "a.md", "findings")):
        with pytest.raises(RunFileError, match="symbolic link") as info:
            read_run_text(path, tmp_path)
        assert f"({link})" in info.value.reason and not info.value.missing
    assert read_run_text(tmp_path / "folder" / "a.md", tmp_path) == "inside"


def test_the_run_folder_itself_may_be_reached_through_a_link(tmp_path: Path) -> None:
    """Only the parts below the run folder count: the person may choose a linked output_dir."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "plan.md").write_text("plan", encoding="utf-8")
    (tmp_path / "alias").symlink_to(tmp_path / "run", target_is_directory=True)
    assert read_run_text(tmp_path / "alias" / "plan.md", tmp_path / "alias") == "plan"
    assert read_run_text(tmp_path / "alias" / "plan.md", tmp_path / "run") == "plan"
    assert read_run_text(tmp_path / "run" / "plan.md", tmp_path / "alias") == "plan"


@pytest.mark.parametrize("where", ["plan.md", "report.md", "briefs", "findings", "sources", "checks",
                                   ".web-research", f"findings/{BILLING}.md", "sources/ab.txt"])
def test_a_link_anywhere_in_the_evidence_fails_verify(tmp_path: Path, where: str) -> None:
    """A link that stays inside the run fails `provenance.links`, whichever evidence name it takes."""
    run = copy_example(tmp_path)
    target = run / where
    keep = run / "kept-elsewhere"
    keep.mkdir()
    if target.exists():
        target.rename(keep / target.name)
    else:
        target.parent.mkdir(exist_ok=True)
        if target.suffix in (".md", ".txt"):
            (keep / target.name).write_text("x", encoding="utf-8")
        else:
            (keep / target.name).mkdir()
    target.symlink_to(os.path.relpath(keep / target.name, target.parent))
    checks = run_checklist(run)
    links = [c for c in checks if c.id == "provenance.links" and not c.ok]
    if where in ("plan.md", "report.md"):  # always read: their reader names the link (one defect, one check)
        bad = [c for c in checks if not c.ok and c.severity == "error"]
        assert links == [] and [c.id for c in bad] == [f"{Path(where).stem}.readable"], bad
        assert "symbolic link" in bad[0].message
    else:
        assert [Path(c.path) for c in links] == [target], links
        assert f"{where} is a symbolic link" in links[0].message and links[0].severity == "error"
    assert not passed(checks)
    assert _verify(run).returncode == 1


def test_a_run_without_links_passes_the_link_check(tmp_path: Path) -> None:
    checks = run_checklist(copy_example(tmp_path))
    assert [c.ok for c in checks if c.id == "provenance.links"] == [True]


def test_a_symlink_to_a_file_outside_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "report.md").symlink_to(_secret_file(tmp_path))
    with pytest.raises(RunFileError, match="outside the run folder") as info:
        read_run_file(run / "report.md", run)
    assert not info.value.missing and SECRET not in str(info.value)


def test_a_file_under_a_symlinked_folder_outside_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    secret = _secret_file(tmp_path)
    (run / "findings").symlink_to(secret.parent, target_is_directory=True)
    with pytest.raises(RunFileError, match="outside the run folder"):
        read_run_file(run / "findings" / secret.name, run)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    started = time.monotonic()
    with pytest.raises(RunFileError, match="FIFO"):
        read_run_file(tmp_path / "pipe.md", tmp_path)
    assert time.monotonic() - started < 2


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_a_device_is_refused(tmp_path: Path) -> None:
    import stat

    os.mknod(tmp_path / "zero.md", 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # like /dev/zero
    with pytest.raises(RunFileError, match="character device"):
        read_run_file(tmp_path / "zero.md", tmp_path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(RunFileError, match="folder"):
        read_run_file(tmp_path / "dir.md", tmp_path)


def test_size_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"x" * 101)
    assert read_run_file(tmp_path / "big.md", tmp_path, max_bytes=101) == b"x" * 101
    with pytest.raises(RunFileError, match="over the 100-byte limit"):
        read_run_file(tmp_path / "big.md", tmp_path, max_bytes=100)


def test_text_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_bytes(b"\xff\xfe")
    with pytest.raises(RunFileError, match="UTF-8"):
        read_run_text(tmp_path / "bin.md", tmp_path)


# --- verify on a planted run folder -----------------------------------------------------

MALFORMED_RECORDS = {
    "huge number": '{"status": ' + "9" * 5000 + "}",
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "wrong types": json.dumps({"requested_url": 1, "final_url": [], "status": "200", "chars": True}),
    "not an object": "[1, 2, 3]",
    "bool as int": None,  # filled in from a real record below
    "nul in text_file": None,
}


@pytest.mark.parametrize("case", list(MALFORMED_RECORDS))
def test_a_malformed_snapshot_record_is_a_failing_check_naming_the_file(tmp_path: Path, case: str) -> None:
    run = copy_example(tmp_path)
    record = sorted((run / formats.SOURCES_DIR).glob("*.json"))[0]
    body = MALFORMED_RECORDS[case]
    if body is None:
        meta = json.loads(record.read_text(encoding="utf-8"))
        if case == "bool as int":
            meta["chars"] = True
        else:
            meta["text_file"] = "x\u0000.txt"
        body = json.dumps(meta)
    record.write_text(body, encoding="utf-8")
    result = _verify(run)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    lines = [ln for ln in result.stdout.splitlines() if "sources.records" in ln]
    assert lines and record.name in lines[0], result.stdout


def test_an_oversized_snapshot_record_is_refused(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    record = sorted((run / formats.SOURCES_DIR).glob("*.json"))[0]
    meta = json.loads(record.read_text(encoding="utf-8"))
    meta["title"] = "t" * 2_000_000
    record.write_text(json.dumps(meta), encoding="utf-8")
    bad = failing(run_checklist(run))
    assert "byte limit" in bad["sources.records"].message


@pytest.mark.parametrize("where", ["report.md", "plan.md", f"findings/{BILLING}.md", f"briefs/{BILLING}.md",
                                   "sources/first.json", "sources/first.txt"])
def test_a_fifo_anywhere_verify_reads_is_a_failing_check_not_a_hang(tmp_path: Path, where: str) -> None:
    run = copy_example(tmp_path)
    if where.startswith("sources/first"):
        record = sorted((run / formats.SOURCES_DIR).glob("*.json"))[0]
        where = str((record.with_suffix(".json" if where.endswith(".json") else ".txt")).relative_to(run))
    target = run / where
    target.unlink()
    os.mkfifo(target)
    result = _verify(run)  # a blocking open would hit the timeout
    assert "Traceback" not in result.stderr, result.stderr
    flagged = [ln for ln in result.stdout.splitlines() if target.name in ln and not ln.startswith("\u2713")]
    assert flagged, result.stdout
    assert any("FIFO" in ln or "no page snapshot" in ln for ln in flagged), flagged


@pytest.mark.parametrize("where", ["report.md", "plan.md", f"findings/{BILLING}.md"])
def test_a_file_linked_from_outside_is_refused_and_never_echoed(tmp_path: Path, where: str) -> None:
    run = copy_example(tmp_path)
    (run / where).unlink()
    (run / where).symlink_to(_secret_file(tmp_path))
    result = _verify(run)
    assert result.returncode == 1
    assert SECRET not in result.stdout + result.stderr
    assert any("outside the run folder" in ln and Path(where).name in ln for ln in result.stdout.splitlines())


def test_a_symlinked_findings_folder_is_refused_and_never_echoed(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (run / "findings").rename(elsewhere)
    for path in elsewhere.glob("*.md"):
        path.write_text(path.read_text(encoding="utf-8").replace("status: ok", f"status: {SECRET}"),
                        encoding="utf-8")
    (run / "findings").symlink_to(elsewhere, target_is_directory=True)
    result = _verify(run, "--json")
    assert SECRET not in result.stdout + result.stderr
    checks = {c["id"]: c for c in json.loads(result.stdout)["checks"]}
    assert not checks[f"findings.{BILLING}.readable"]["ok"]
    assert "outside the run folder" in checks[f"findings.{BILLING}.readable"]["message"]


def test_a_symlinked_sources_folder_backs_no_citation(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (run / "sources").rename(elsewhere)
    (run / "sources").symlink_to(elsewhere, target_is_directory=True)
    checks = run_checklist(run)
    assert not any(c.ok and c.id.endswith(".citations.verbatim") for c in checks)
    assert any(not c.ok and c.id == "sources.records" and "outside the run folder" in c.message for c in checks)


def test_an_oversized_report_is_a_failing_check(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    with open(run / "report.md", "ab") as handle:
        handle.write(b"\n" + b"x" * (5 * 1024 * 1024))
    bad = failing(run_checklist(run))
    assert "byte limit" in bad["report.readable"].message


# --- hooks' readers ---------------------------------------------------------------

def test_the_stop_gate_turns_a_verifier_crash_into_a_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from web_research.guard.handlers import stop
    from web_research.guard.handlers.stop import verifier_failures

    def crash(run_dir: Path, seal_source: object = None) -> list:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(stop, "run_checklist", crash)
    failures = verifier_failures(tmp_path)
    assert len(failures) == 1 and "[verify.incomplete]" in failures[0]


def test_the_findings_gate_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    from web_research.guard.briefs_match import load_briefs
    from web_research.guard.findings_gate import findings_problems

    run = copy_example(tmp_path)
    brief = next(b for b in load_briefs(run) if b.slug == BILLING)
    findings_path(run, BILLING).unlink()
    os.mkfifo(findings_path(run, BILLING))
    problems = findings_problems(brief)
    assert len(problems) == 1 and "FIFO" in problems[0]


def test_briefs_that_are_fifos_are_skipped(tmp_path: Path) -> None:
    from web_research.guard.briefs_match import load_briefs

    run = copy_example(tmp_path)
    (run / "briefs" / f"{BILLING}.md").unlink()
    os.mkfifo(run / "briefs" / f"{BILLING}.md")
    assert BILLING not in {b.slug for b in load_briefs(run)}


# --- closed pipes -------------------------------------------------------------------

@pytest.mark.parametrize("args", [["verify", "{run}"], ["verify", "{run}", "--json"], ["status", "{run}"],
                                  ["slug", "What is a closed pipe?"]])
def test_printing_into_a_closed_pipe_exits_quietly(tmp_path: Path, args: list[str]) -> None:
    run = copy_example(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`| head`) is already gone when we print
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR), PYTHONIOENCODING="utf-8")
    try:
        result = subprocess.run([sys.executable, "-m", "web_research", *(a.format(run=run) for a in args)],
                                stdout=write_end, stderr=subprocess.PIPE, env=env, timeout=CLI_TIMEOUT)
    finally:
        os.close(write_end)
    assert result.stderr == b""
    assert result.returncode == 141


def test_a_run_that_verifies_still_prints_normally(tmp_path: Path) -> None:
    result = run_cli("verify", str(copy_example(tmp_path)))
    assert result.returncode == 0 and result.stdout.splitlines()[-1].startswith("PASSED")


# --- the Stop hook, end to end through the hook launcher -------------------------------------

def _active_harness(tmp_path: Path):
    from hook_harness import Harness

    h = Harness(tmp_path)
    h.start_run()
    h.copy_example_run()
    return h


def test_the_stop_hook_blocks_on_a_malformed_snapshot_record_instead_of_failing_open(tmp_path: Path) -> None:
    h = _active_harness(tmp_path)
    sources = h.run_dir / formats.SOURCES_DIR
    sources.mkdir(exist_ok=True)
    (sources / "0000000000000000.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    report = h.run_dir / "report.md"
    report.write_text(report.read_text(encoding="utf-8").replace("## Gaps & Limitations", "## Caveats"),
                      encoding="utf-8")
    result = h.hook(h.stop())
    assert result.decision == "block", result.stdout + h.log()
    assert "Traceback" not in h.log()


def test_the_stop_hook_verifies_a_report_that_is_a_fifo(tmp_path: Path) -> None:
    h = _active_harness(tmp_path)
    report = h.run_dir / "report.md"
    report.unlink()
    os.mkfifo(report)
    result = h.hook(h.stop())
    assert result.decision == "block", result.stdout + h.log()
    assert "FIFO" in result.reason


def test_the_stop_hook_never_echoes_a_report_linked_from_outside(tmp_path: Path) -> None:
    h = _active_harness(tmp_path)
    report = h.run_dir / "report.md"
    report.unlink()
    report.symlink_to(_secret_file(tmp_path))
    result = h.hook(h.stop())
    assert result.decision == "block" and "outside the run folder" in result.reason
    assert SECRET not in result.stdout
