"""A run says which rules it was made under, and verify on an older run tells the claims that need a
verdict under the current rules apart from evidence that fails (issue 45).

The older run is tests/fixtures/runs/made-by-d8cefd3: made and verified by the code of commit d8cefd3
(its README says how), with one claim whose code span issue 36 gave a new check key.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from example_run import EXAMPLE_DIR, REPO_ROOT, run_cli
from web_research import formats
from web_research.checks.checklist import parse_and_check
from web_research.checks.verdicts import report_records
from web_research.checks.rules_version import (CHANGES, RULES_VERSION, UNRECORDED_VERSION, change_of,
                                               rules_line, sort_failures)
from web_research.core.result import fail
from web_research.exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_OLDER_RULES
from web_research.report.claim_checker import parse_answer, prompt_for_run, verdicts_json
from web_research.run.choices import read_start_record

OLD_RUN = REPO_ROOT / "tests" / "fixtures" / "runs" / "made-by-d8cefd3"


def old_run(tmp_path: Path) -> Path:
    run = tmp_path / "old-run"
    shutil.copytree(OLD_RUN, run)
    return run


def verify_json(run: Path) -> tuple[int, dict]:
    result = run_cli("verify", str(run), "--json")
    return result.returncode, json.loads(result.stdout)


def code_span_claim_lines(run: Path) -> list[int]:
    """The lines where the report's claims with a code span start: what issue 36 re-keyed."""
    spans = [s.strip("; ") for s in re.findall(r"`([^`]+)`", (run / formats.REPORT_FILE).read_text(encoding="utf-8"))]
    return sorted({r.claim.line for r in report_records(parse_and_check(run, extra=())[0])
                   if any(span in r.claim.text for span in spans)})


def test_an_older_run_names_exactly_the_claims_that_need_a_verdict_and_exits_4(tmp_path: Path) -> None:
    run = old_run(tmp_path)
    code, data = verify_json(run)
    rules = data["rules"]
    assert code == EXIT_OLDER_RULES and not data["ok"], data
    assert (rules["made_under"], rules["recorded"], rules["current"]) == (UNRECORDED_VERSION, False, RULES_VERSION)
    assert [c["line"] for c in rules["needs_verdict"]] == code_span_claim_lines(run) != []
    assert rules["evidence_fails"] is False
    failing = {c["id"] for c in data["checks"] if not c["ok"] and c["severity"] == "error"}
    assert failing == {"report.claims.checked", *rules["added_since"]}
    assert all(change_of(check, UNRECORDED_VERSION).added for check in rules["added_since"])
    text = run_cli("verify", str(run)).stdout
    assert f"made under rules version {UNRECORDED_VERSION} (before runs recorded their rules)" in text
    assert f"{len(rules['needs_verdict'])} claim(s) need a verdict under the current rules" in text
    assert "No evidence fails" in text and "--resume" in text and "--prompt" in text
    assert text.splitlines()[-1].startswith("NEEDS THE CURRENT RULES' ROUND:")
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")  # README shows this run's summary as it is
    assert text.splitlines()[-1] in readme.splitlines()
    status = run_cli("status", str(run)).stdout
    assert "Verify: needs the current rules' round (" in status
    assert f"{len(rules['needs_verdict'])} claim(s) need a verdict under them" in status
    assert json.loads(run_cli("status", str(run), "--json").stdout)["verify"]["rules"] == rules


def test_the_checker_round_gives_the_missing_verdicts(tmp_path: Path) -> None:
    """The claim-checker's round, as the plugin records it, asks only for the claims listed; after
    it no claim needs a verdict (what is left is the report's, under rules added since)."""
    run = old_run(tmp_path)
    listed = [c["key"] for c in verify_json(run)[1]["rules"]["needs_verdict"]]
    prompt, why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    assert prompt is not None, why
    assert list(prompt.keys) == listed
    answer = "\n".join(f"{n}. supported: the excerpt states it" for n in range(1, len(listed) + 1))
    verdicts, problems = parse_answer(answer, listed)
    assert not problems
    (run / formats.CHECKS_DIR / f"{formats.VERDICTS_FILE_PREFIX}2.json").write_text(verdicts_json(verdicts))
    code, data = verify_json(run)
    assert data["rules"]["needs_verdict"] == [] and data["rules"]["added_since"]
    assert code == EXIT_OLDER_RULES
    assert "report.claims.checked" not in {c["id"] for c in data["checks"] if not c["ok"]}


def test_evidence_that_fails_is_told_apart_and_exits_1(tmp_path: Path) -> None:
    run = old_run(tmp_path)
    snapshot = sorted((run / formats.SOURCES_DIR).glob("*.txt"))[0]
    snapshot.write_text("Nothing any report cites.\n", encoding="utf-8")
    code, data = verify_json(run)
    assert code == EXIT_CHECK_FAILED and data["rules"]["evidence_fails"] is True
    assert data["rules"]["needs_verdict"]  # still said, beside the failure
    text = run_cli("verify", str(run)).stdout
    assert "fail on the run's own evidence or report" in text and "No evidence fails" not in text
    # A check made stricter since the run is named as such beside the failure, never excused.
    verbatim = change_of("report.citations.verbatim", UNRECORDED_VERSION)
    assert f"report.citations.verbatim was made stricter in version {verbatim.version} ({verbatim.what})" in text
    assert text.splitlines()[-1].startswith("FAILED:")


def test_start_records_the_rules_version(tmp_path: Path) -> None:
    result = run_cli("start", "--question", "How do vendors price logs?", "--output-dir", str(tmp_path / "r"),
                     cwd=tmp_path)
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    assert read_start_record(tmp_path / "r").rules_version == RULES_VERSION
    record = json.loads((tmp_path / "r" / formats.RUN_STATE_DIR / formats.START_RECORD_FILE).read_text())
    assert record["rules_version"] == RULES_VERSION


def test_the_bundled_example_is_kept_under_the_current_rules() -> None:
    """Its start record is written by tests/example_evidence.py; bumping the version means running it
    again (and the example passing the new rules)."""
    assert read_start_record(EXAMPLE_DIR).rules_version == RULES_VERSION
    result = run_cli("verify", str(EXAMPLE_DIR), "--json")
    assert result.returncode == EXIT_OK
    assert json.loads(result.stdout)["rules"]["made_under"] == RULES_VERSION
    assert "Rules:" not in run_cli("verify", str(EXAMPLE_DIR)).stdout


@pytest.mark.parametrize("value", ["2", 0, -1, True, 2.0, None, [2]])
def test_a_rules_version_that_is_no_whole_positive_number_reads_as_unrecorded(tmp_path: Path, value) -> None:
    (tmp_path / formats.RUN_STATE_DIR).mkdir()
    (tmp_path / formats.RUN_STATE_DIR / formats.START_RECORD_FILE).write_text(json.dumps({"rules_version": value}))
    assert read_start_record(tmp_path).rules_version is None


def test_a_run_from_newer_rules_says_to_update_the_plugin() -> None:
    assert "update the plugin" in rules_line(RULES_VERSION + 1, True)
    assert "current rules" in rules_line(RULES_VERSION, True)


def test_every_change_is_of_a_version_after_the_first_and_not_after_the_current() -> None:
    assert CHANGES and all(UNRECORDED_VERSION < c.version <= RULES_VERSION for c in CHANGES)
    assert change_of("report.gaps.form", RULES_VERSION) is None  # a current run has nothing newer


def test_a_stricter_rule_still_counts_as_evidence_that_fails() -> None:
    """An excerpt not in its page fails whatever the version: a check made stricter since is not excused."""
    verbatim = fail("report.citations.verbatim", "not in the page")
    added = fail("report.gaps.form", "a sentence no check reads")
    sorted_ = sort_failures([verbatim, added], UNRECORDED_VERSION)
    assert sorted_.evidence == (verbatim,) and [c for c, _ in sorted_.new_rules] == [added]
    assert not sorted_.only_newer_rules
    assert sort_failures([added], UNRECORDED_VERSION).only_newer_rules
