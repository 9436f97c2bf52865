"""`web-research status`: the run at a glance."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from example_run import BILLING, COMMITMENTS, COST, EXAMPLE_DIR, copy_example, findings_path, replace_once, run_cli


def _rows(stdout: str) -> dict[str, list[str]]:
    lines = stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("SUBTOPIC"))
    rows = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[-4]] = cells[-3:]  # slug -> status, sources, claims
    return rows


def test_status_of_the_example() -> None:
    result = run_cli("status", str(EXAMPLE_DIR))
    assert result.returncode == 0, result.stderr
    # Claims are counted as `claims` lists them (13 in the report), not its 20 footnote markers.
    assert _rows(result.stdout) == {BILLING: ["ok", "5", "7"], COMMITMENTS: ["ok", "4", "6"],
                                    COST: ["failed", "0", "0"]}
    assert "Question: How do enterprise observability vendors price their logs tier in 2026?" in result.stdout
    assert "Report: report.md present, 9 sources, 13 claims" in result.stdout
    assert "Verify: passes (0 error(s), 0 warning(s))" in result.stdout


def test_status_shows_missing_invalid_and_a_failing_report(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    findings_path(run, COMMITMENTS).unlink()
    replace_once(findings_path(run, BILLING), "status: ok\n", "status: done\n")
    (run / "report.md").unlink()
    result = run_cli("status", str(run))
    assert result.returncode == 0
    rows = _rows(result.stdout)
    assert rows[COMMITMENTS] == ["missing", "-", "-"]
    assert rows[BILLING][0] == "invalid"
    assert "Report: report.md missing" in result.stdout
    assert "Verify: fails (" in result.stdout


def test_status_without_a_plan_lists_the_findings_files(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    (run / "plan.md").unlink()
    result = run_cli("status", str(run))
    assert result.returncode == 0
    assert "Plan: unusable (plan.md is missing" in result.stdout
    assert set(_rows(result.stdout)) == {BILLING, COMMITMENTS, COST}


def test_status_of_a_missing_folder_exits_2(tmp_path: Path) -> None:
    result = run_cli("status", str(tmp_path / "nope"))
    assert result.returncode == 2 and result.stdout == "" and "no such folder" in result.stderr


def test_status_prices_what_the_run_spent(tmp_path: Path) -> None:
    import json

    import view_runs

    from web_research.metrics.pricing import Tokens, cost, packaged_table

    run = view_runs.with_metrics(copy_example(tmp_path))
    result = run_cli("status", str(run))
    assert result.returncode == 0, result.stderr
    split = json.loads((run / "metrics.json").read_text())["researchers"][0]["models"]["claude-sonnet-4-5"]
    expected = cost([("claude-sonnet-4-5", Tokens(split["input_tokens"], split["output_tokens"],
                                                  split["cache_read_input_tokens"],
                                                  split["cache_creation_input_tokens"]))], packaged_table())
    row = next(line for line in result.stdout.splitlines() if line.startswith(BILLING))
    assert f"${expected.dollars:.2f}" in row.split(), row
    assert ", at most $" in result.stdout and "about at most" not in result.stdout  # an upper bound, said once
    assert f"Cost at prices of {packaged_table().as_of} (packaged table)." in result.stdout
    data = json.loads(run_cli("status", str(run), "--json").stdout)
    assert data["researchers"][0]["cost"] == round(expected.dollars, 4) and data["totals"]["cost"] > expected.dollars


def test_status_counts_the_claims_that_claims_lists(tmp_path: Path) -> None:
    """Both commands count one way, on the example and on a report whose markers and
    claims differ more (a sentence citing three sources, a marker in a code span)."""
    run = copy_example(tmp_path)
    replace_once(run / "report.md", "## Gaps & Limitations\n",
                 "One more claim[^1][^2][^4], and `[^3]` is code.\n\n## Gaps & Limitations\n")
    for folder in (EXAMPLE_DIR, run):
        listed = json.loads(run_cli("claims", str(folder), "--json").stdout)["claims"]
        per_file = Counter(Path(c["file"]).name if Path(c["file"]).name == "report.md"
                           else Path(c["file"]).stem for c in listed)
        status = json.loads(run_cli("status", str(folder), "--json").stdout)
        assert status["report"]["claims"] == per_file["report.md"]
        assert {s["slug"]: s["claims"] for s in status["subtopics"]} == \
            {BILLING: per_file[BILLING], COMMITMENTS: per_file[COMMITMENTS], COST: 0}
        rows = _rows(run_cli("status", str(folder)).stdout)
        assert {slug: int(row[2]) for slug, row in rows.items()} == \
            {BILLING: per_file[BILLING], COMMITMENTS: per_file[COMMITMENTS], COST: 0}
    assert per_file["report.md"] == 14  # the example's 13 and the added one


def test_status_says_when_the_spending_record_is_not_this_folders_run(tmp_path: Path) -> None:
    """The bundled example's metrics.json was copied from an end-to-end run of the same question
    (its README says so): status names what does not fit, from the record and the folder; a record
    whose researchers are the plan's subtopics and whose page reads cover the stored pages gets no note."""
    metrics = json.loads((EXAMPLE_DIR / "metrics.json").read_text(encoding="utf-8"))
    from web_research.run.plan import load_plan

    slugs = {s.slug for s in load_plan(EXAMPLE_DIR / "plan.md").all_subtopics}
    foreign = sorted(r["slug"] for r in metrics["researchers"] if r["slug"] not in slugs)
    stored = len(list((EXAMPLE_DIR / "sources").glob("*.json")))
    result = run_cli("status", str(EXAMPLE_DIR))
    (note,) = [ln for ln in result.stdout.splitlines() if ln.startswith("This record does not describe")]
    assert foreign and f"its researchers {', '.join(foreign)} are not this plan's subtopics" in note
    assert f"it counts {metrics['totals']['page_reads']} page read(s) where this folder stores {stored}" in note
    data = json.loads(run_cli("status", str(EXAMPLE_DIR), "--json").stdout)
    assert data["mismatch"] == note

    run = copy_example(tmp_path)
    for researcher, slug in zip(metrics["researchers"], sorted(slugs)):
        researcher["slug"] = slug
    metrics["totals"]["page_reads"] = stored
    (run / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    fitted = run_cli("status", str(run))
    assert "This record does not describe" not in fitted.stdout
    assert json.loads(run_cli("status", str(run), "--json").stdout)["mismatch"] is None
