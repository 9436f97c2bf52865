"""`web-research verify`: exit codes, the people's view and the JSON shape."""
from __future__ import annotations

import json
from pathlib import Path

from example_run import BILLING, EXAMPLE_DIR, copy_example, findings_path, line_of, replace_once, reseal, run_cli
from web_research.checks.checklist import run_checklist

SCRIPT_LAUNCHER = Path(__file__).resolve().parents[2] / "scripts" / "web-research"


def test_verbose_lists_every_check_and_a_summary() -> None:
    result = run_cli("verify", str(EXAMPLE_DIR), "--verbose")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    checks = run_checklist(EXAMPLE_DIR)
    assert len(lines) == len(checks) + 2  # heading, one line per check, summary
    assert all(line.startswith("\u2713 ") for line in lines[1:-1])
    assert lines[-1].startswith("PASSED:") and f"{len(checks)} of {len(checks)}" in lines[-1]
    assert result.stderr == ""


def test_by_default_a_passing_run_prints_only_the_summary() -> None:
    result = run_cli("verify", str(EXAMPLE_DIR))
    assert result.returncode == 0, result.stdout + result.stderr
    checks = run_checklist(EXAMPLE_DIR)
    assert result.stdout.splitlines() == [
        f"PASSED: {len(checks)} of {len(checks)} checks passed, 0 error(s), 0 warning(s)"]


def test_by_default_only_failing_checks_are_listed(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    replace_once(findings_path(run, BILLING), "status: ok\n", "status: done\n")
    (run / "findings" / "scratch.md").write_text("notes\n", encoding="utf-8")
    reseal(run)  # checked as a run that made these files: its seals hold, only the two defects show
    lines = run_cli("verify", str(run), cwd=tmp_path).stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"\u2717 findings.{BILLING}.status",
                                                           "! findings.unexpected"]
    assert lines[-1].startswith("FAILED:") and "1 error(s), 1 warning(s)" in lines[-1]
    verbose = run_cli("verify", str(run), "--verbose", cwd=tmp_path).stdout.splitlines()
    assert set(lines) < set(verbose) and any(line.startswith("\u2713 ") for line in verbose)


def test_a_failing_error_check_exits_1_and_names_path_and_line(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    replace_once(findings_path(run, BILLING), "status: ok\n", "status: done\n")
    result = run_cli("verify", str(run), cwd=tmp_path)
    assert result.returncode == 1
    (line,) = [ln for ln in result.stdout.splitlines() if ln.startswith("\u2717 ")]
    assert line.startswith(f"\u2717 findings.{BILLING}.status: run/findings/{BILLING}.md:2: ")
    assert "'done'" in line
    assert result.stdout.splitlines()[-1].startswith("FAILED:") and "1 error(s)" in result.stdout


def test_warnings_alone_keep_exit_0_and_are_marked(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    (run / "findings" / "scratch.md").write_text("notes\n", encoding="utf-8")
    reseal(run)
    result = run_cli("verify", str(run), cwd=tmp_path)
    assert result.returncode == 0
    assert "! findings.unexpected: run/findings/scratch.md: " in result.stdout
    assert "1 warning(s)" in result.stdout.splitlines()[-1]


def test_json_has_the_documented_shape(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    replace_once(run / "report.md", "off list[^9],", "off list[^9][^11],")
    reseal(run)
    result = run_cli("verify", str(run), "--json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert set(payload) == {"output_dir", "ok", "passed", "errors", "warnings", "rules", "checks"}
    assert set(payload["rules"]) == {"made_under", "recorded", "current", "needs_verdict", "added_since",
                                     "evidence_fails"}
    assert payload["output_dir"] == str(run.resolve()) and payload["ok"] is False
    for check in payload["checks"]:
        assert set(check) == {"id", "ok", "severity", "message", "path", "line"}
        assert check["severity"] in ("error", "warning")
    bad = [c for c in payload["checks"] if not c["ok"]]
    assert [(c["id"], c["line"]) for c in bad] == [("report.citations.undefined", line_of(run / "report.md", "[^11]"))]
    assert bad[0]["path"] == str(run.resolve() / "report.md")
    ok = json.loads(run_cli("verify", str(EXAMPLE_DIR), "--json").stdout)
    assert ok["ok"] is True and all(c["ok"] for c in ok["checks"])
    assert (ok["passed"], ok["errors"], ok["warnings"]) == (len(ok["checks"]), 0, 0)


def test_json_counts_errors_and_warnings_as_the_summary_line_does(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    replace_once(run / "report.md", "off list[^9],", "off list[^9][^11],")  # an error
    replace_once(run / "findings" / "billing-units-and-retention-tiers.md", "\nNone.\n",
                 "\nNone, as far as I know.\n")  # a warning (findings.<slug>.memory)
    (run / "findings" / "notes.md").write_text("scratch\n", encoding="utf-8")  # another warning
    reseal(run)
    payload = json.loads(run_cli("verify", str(run), "--json").stdout)
    checks = payload["checks"]
    assert payload["errors"] == sum(1 for c in checks if not c["ok"] and c["severity"] == "error") == 1
    assert payload["warnings"] == sum(1 for c in checks if not c["ok"] and c["severity"] == "warning") == 2
    assert payload["passed"] == sum(1 for c in checks if c["ok"]) == len(checks) - 3
    summary = run_cli("verify", str(run)).stdout.splitlines()[-1]
    assert summary == (f"FAILED: {payload['passed']} of {len(checks)} checks passed, 1 error(s), 2 warning(s)")


def test_a_folder_that_is_not_there_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for target, words in ((tmp_path / "nope", "no such folder"),
                          (EXAMPLE_DIR / "plan.md", f"not a folder; pass the run folder that holds it: {EXAMPLE_DIR}"),
                          (tmp_path / "empty", "not a run folder (it holds neither plan.md nor report.md)")):
        result = run_cli("verify", str(target))
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and words in result.stderr and str(target) in result.stderr


def test_verify_changes_nothing(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    before = sorted((p, p.read_bytes()) for p in run.rglob("*") if p.is_file())
    run_cli("verify", str(run))
    run_cli("verify", str(run), "--json")
    assert sorted((p, p.read_bytes()) for p in run.rglob("*") if p.is_file()) == before


def test_the_launcher_runs_verify() -> None:
    import subprocess

    result = subprocess.run([str(SCRIPT_LAUNCHER), "verify", str(EXAMPLE_DIR)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("PASSED:")


def test_ascii_terminals_get_ascii_marks(tmp_path: Path, monkeypatch) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(SCRIPT_LAUNCHER.parent), PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "web_research", "verify", str(EXAMPLE_DIR), "--verbose"], env=env,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("ascii").splitlines()[1].startswith("ok plan.exists")
