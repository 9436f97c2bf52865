"""Messages that tell the truth: one reader (fsutil.read_run_file) says what a run file really is
(missing, too large, not UTF-8 at byte N, a link, a link loop), and `status`, `gaps`, `verify` and
`claims` all say that; one rule for a folder that is not a run; a closed pipe ends every command
quietly."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from example_run import copy_example, run_cli
from web_research import formats
from web_research.core import fsutil
from web_research.exitcodes import EXIT_BROKEN_PIPE, EXIT_USAGE

BILLING = "billing-units-and-retention-tiers"
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _latin1_findings(run: Path) -> Path:
    path = run / "findings" / f"{BILLING}.md"
    data = path.read_bytes()
    path.write_bytes(data + b"caf\xe9\n")
    return path


def _oversized_report(run: Path) -> Path:
    path = run / "report.md"
    with path.open("r+b") as handle:
        handle.truncate(fsutil.MAX_RUN_FILE_BYTES + 1)  # sparse: no disk spent
    return path


def _looped_report(run: Path) -> Path:
    path = run / "report.md"
    path.unlink()
    path.symlink_to("report.md")
    return path


def _dangling_report(run: Path) -> Path:
    path = run / "report.md"
    path.unlink()
    path.symlink_to("gone.md")
    return path


@pytest.mark.parametrize("damage, state", [
    (_latin1_findings, fsutil.STATE_NOT_UTF8),
    (_oversized_report, fsutil.STATE_TOO_LARGE),
    (_looped_report, fsutil.STATE_LINK_LOOP),
    (_dangling_report, fsutil.STATE_SYMLINK),
])
def test_the_reader_names_the_true_state(tmp_path: Path, damage, state: str):
    run = copy_example(tmp_path)
    path = damage(run)
    with pytest.raises(fsutil.RunFileError) as caught:
        fsutil.read_run_text(path, run)
    assert caught.value.state == state and not caught.value.missing
    assert "changed while it was read" not in caught.value.reason


def test_a_latin1_byte_in_findings_is_named_alike_by_status_gaps_verify_and_claims(tmp_path: Path):
    run = copy_example(tmp_path)
    _latin1_findings(run)
    raw = (run / "findings" / f"{BILLING}.md").read_bytes()
    offset = raw.index(b"\xe9")
    line, column = raw.count(b"\n", 0, offset) + 1, offset - raw.rfind(b"\n", 0, offset)
    said = f"is not UTF-8 text: line {line}, column {column} holds the byte 0xe9"  # a place a person can find

    status = run_cli("status", str(run))
    assert status.returncode == 0, status.stderr
    row = next(line for line in status.stdout.splitlines() if f" {BILLING} " in line)
    assert "not UTF-8" in row and "missing" not in row
    assert said in status.stdout
    data = json.loads(run_cli("status", "--json", str(run)).stdout)
    entry = next(s for s in data["subtopics"] if s["slug"] == BILLING)
    assert entry["status"] == "not UTF-8" and said in entry["problem"]

    gaps = run_cli("gaps", str(run))
    assert gaps.returncode == 0 and "has no findings file" not in gaps.stdout and said in gaps.stdout

    verify = json.loads(run_cli("verify", "--json", str(run)).stdout)
    failing = {c["id"]: c for c in verify["checks"] if not c["ok"]}
    assert said in failing[f"findings.{BILLING}.readable"]["message"]
    passing = {c["id"] for c in verify["checks"] if c["ok"]}
    assert f"findings.{BILLING}.exists" in passing  # the file is there: the check's name says what failed
    assert "(findings unreadable)" in failing[f"report.gaps.names.{BILLING}"]["message"]

    claims = run_cli("claims", str(run))
    assert claims.returncode == EXIT_USAGE and said in claims.stderr


@pytest.mark.parametrize("damage, words", [
    # Every command reads report.md through the checklist, under the Markdown size limit.
    (_oversized_report, f"over the {formats.MAX_MARKDOWN_BYTES}-byte limit"),
    (_looped_report, "symbolic link loop"),
])
def test_an_unusable_report_is_named_alike_by_status_verify_and_claims(tmp_path: Path, damage, words: str):
    run = copy_example(tmp_path)
    damage(run)
    status = run_cli("status", str(run))
    report_line = next(line for line in status.stdout.splitlines() if line.startswith("Report:"))
    assert "missing" not in report_line and words in report_line, report_line
    assert json.loads(run_cli("status", "--json", str(run)).stdout)["report"]["problem"].find(words) >= 0
    verify = json.loads(run_cli("verify", "--json", str(run)).stdout)
    (bad,) = [c for c in verify["checks"] if not c["ok"] and c["id"] != "provenance.sealed"]  # an unsealed copy
    assert bad["id"] == "report.readable" and words in bad["message"]
    for args in (["claims"], ["claims", "--json"], ["claims", "--prompt"]):
        claims = run_cli(*args, str(run))
        assert claims.returncode == EXIT_USAGE, (args, claims.stdout)
        assert words in claims.stderr and "report.md" in claims.stderr


RUN_COMMANDS = [["claims"], ["claims", "--prompt"], ["gaps"], ["estimate"], ["briefs"], ["status"]]


@pytest.mark.parametrize("args", RUN_COMMANDS, ids=" ".join)
@pytest.mark.parametrize("folder", ["empty", "random"])
def test_a_folder_that_is_not_a_run_is_refused_alike(tmp_path: Path, args: list[str], folder: str):
    target = tmp_path / folder
    target.mkdir()
    if folder == "random":
        (target / "notes.txt").write_text("hello\n")
        (target / "findings").mkdir()
    result = run_cli(*args, str(target))
    assert result.returncode == EXIT_USAGE, (result.stdout, result.stderr)
    assert result.stderr.strip().endswith("not a run folder (it holds neither plan.md nor report.md); pass the "
                                          "output_dir of a run"), result.stderr
    assert not (target / "briefs").exists() and sorted(p.name for p in target.iterdir()) == (
        [] if folder == "empty" else ["findings", "notes.txt"])


@pytest.mark.parametrize("command", sorted({args[0] for args in RUN_COMMANDS}))
def test_each_help_states_the_not_a_run_rule(command: str):
    text = " ".join(run_cli(command, "--help").stdout.split())
    assert "not a run folder (it holds neither plan.md nor report.md)" in text


@pytest.mark.parametrize("args", [["status", "--json"], ["status"], ["verify", "--json"], ["verify", "--verbose"],
                                  ["claims"], ["claims", "--json"], ["gaps", "--json"], ["estimate"],
                                  ["briefs"], ["slug", "a question"]], ids=" ".join)
def test_a_closed_pipe_ends_every_command_quietly(tmp_path: Path, args: list[str]):
    """`web-research status --json DIR | head -1`: the reader is gone before the first write.
    Unbuffered output makes every write reach the pipe where the command makes it."""
    run = copy_example(tmp_path)
    argv = args if args[0] == "slug" else [*args, str(run)]
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(SCRIPTS), "PYTHONUNBUFFERED": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "web_research", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, env=env, timeout=120)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr.decode()) == (EXIT_BROKEN_PIPE, "")
