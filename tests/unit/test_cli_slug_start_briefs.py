"""`slug`, `start` and `briefs` driven through the real command line in subprocesses."""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest

from cli_support import VALID_PLAN, clean_env, run_cli, snapshot_tree
from web_research.core.slug import dated_slug

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"  # VALID_PLAN's

TRICKY_QUESTION = 'Why does `echo "$HOME"` print \'x\': really? $(rm -rf /) & more'


def _today_folder(root: Path, question: str) -> Path:
    return root / ".beagle" / "research" / dated_slug(question, datetime.date.today())


def _json(result) -> dict:
    assert result.stdout.count("\n") == 1, result.stdout
    return json.loads(result.stdout)


# --- slug -------------------------------------------------------------------

def test_slug_command(tmp_path: Path) -> None:
    result = run_cli(["slug", "Kubernetes: how do pods schedule?"], tmp_path)
    assert (result.returncode, result.stdout) == (0, "kubernetes-how-do-pods-schedule\n")
    dated = run_cli(["slug", "--date", "2026-04-18", "What is X?"], tmp_path)
    assert (dated.returncode, dated.stdout) == (0, "2026-04-18-what-is-x\n")


@pytest.mark.parametrize("bad", ["2026-13-01", "20260418", "yesterday"])
def test_slug_command_bad_date(tmp_path: Path, bad: str) -> None:
    result = run_cli(["slug", "--date", bad, "Q"], tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert "--date" in result.stderr and "YYYY-MM-DD" in result.stderr


# --- start: success ------------------------------------------------------------

def test_start_success_default_folder(tmp_path: Path) -> None:
    result = run_cli(["start", "--question", "What is X?"], tmp_path)
    assert result.returncode == 0, result.stderr
    out = _json(result)
    folder = _today_folder(tmp_path, "What is X?")
    assert out["output_dir"] == str(folder)
    assert out["plan"] == str(folder / "plan.md")
    assert out["report"] == str(folder / "report.md")
    assert out["findings_dir"] == str(folder / "findings") + "/"
    assert out["auto_proceed"] is False
    assert out["research_question"] == "What is X?"
    assert (folder / "findings").is_dir()
    # plan.md is the model's to create (its first Write then overwrites nothing and needs no Read)
    assert sorted(os.listdir(folder)) == [".web-research", "findings"]
    # what the plan needs, so that no reference file is read: the tier's caps; and who reads the end
    assert out["budget"] == {"max_subtopics": 5, "searches_per_researcher": 5, "page_reads_per_researcher": 8,
                             "claim_check": True, "second_wave": False}
    assert out["caller"] == "person"
    quick = _json(run_cli(["start", "--args", 'research_question: "What is Y?"\ntier: quick', ], tmp_path))
    assert quick["caller"] == "skill" and quick["budget"]["max_subtopics"] == 2


def test_start_with_launcher_and_project_env(tmp_path: Path) -> None:
    project = tmp_path / "project"
    env = clean_env(CLAUDE_PROJECT_DIR=str(project))
    result = run_cli(["start", "--args", "--auto What is Y?"], tmp_path, env=env, launcher=True)
    assert result.returncode == 0, result.stderr
    out = _json(result)
    assert out["output_dir"] == str(_today_folder(project, "What is Y?"))
    assert out["auto_proceed"] is True


def test_start_root_env(tmp_path: Path) -> None:
    env = clean_env(WEB_RESEARCH_ROOT=str(tmp_path / "root"))
    out = _json(run_cli(["start", "--question", "Q"], tmp_path, env=env))
    assert out["output_dir"] == str(tmp_path / "root" / dated_slug("Q", datetime.date.today()))


def test_start_args_file_stdin_with_shell_metacharacters(tmp_path: Path) -> None:
    # The skill pipes $ARGUMENTS through a quoted heredoc, which adds a trailing newline.
    result = run_cli(["start", "--args-file", "-"], tmp_path, stdin=f"--out runs/one {TRICKY_QUESTION}\n")
    assert result.returncode == 0, result.stderr
    out = _json(result)
    assert out["research_question"] == TRICKY_QUESTION
    assert out["output_dir"] == str(tmp_path / "runs" / "one")  # relative to the current directory
    assert (tmp_path / "runs" / "one" / "findings").is_dir()


def test_start_args_file_yaml_contract(tmp_path: Path) -> None:
    args = tmp_path / "args.yaml"
    target = tmp_path / "abs" / "out"
    args.write_text(
        f'research_question: {json.dumps(TRICKY_QUESTION)}\noutput_dir: "{target}"\n'
        "auto_proceed: true\nrefresh: false\n",
        encoding="utf-8",
    )
    out = _json(run_cli(["start", "--args-file", str(args)], tmp_path))
    assert out["research_question"] == TRICKY_QUESTION
    assert out["output_dir"] == str(target) and out["auto_proceed"] is True


def test_start_colon_question_is_not_a_mapping(tmp_path: Path) -> None:
    out = _json(run_cli(["start", "--args", "Kubernetes: how do pods schedule?"], tmp_path))
    assert out["research_question"] == "Kubernetes: how do pods schedule?"
    assert out["output_dir"].endswith("-kubernetes-how-do-pods-schedule")


def test_start_unicode_question_on_a_c_locale(tmp_path: Path) -> None:
    env = clean_env(LC_ALL="C", LANG="C", PYTHONIOENCODING="ascii")
    result = run_cli(["start", "--question", "Qu'est-ce que l'écosystème ✓?"], tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert _json(result)["research_question"] == "Qu'est-ce que l'écosystème ✓?"


# --- start: re-run protection --------------------------------------------------

def _prior_run(folder: Path) -> None:
    (folder / "findings").mkdir(parents=True)
    (folder / "plan.md").write_text("# prior plan\n")
    (folder / "findings" / "a.md").write_bytes(b"---\nstatus: ok\n---\nbody \xe2\x9c\x93\n")
    (folder / ".archive-20250101-000000").mkdir()
    (folder / ".archive-20250101-000000" / "report.md").write_text("older report\n")


@pytest.mark.parametrize("marker", ["plan.md", "report.md", "sources/", "findings/", "briefs/", "checks/",
                                    ".web-research/"])
def test_prior_run_present_writes_nothing(tmp_path: Path, marker: str) -> None:
    """A new run starts in a folder without evidence: a page, findings or seals planted before
    `start` are refused, not adopted (refresh archives them)."""
    folder = tmp_path / "run"
    folder.mkdir()
    if marker.endswith("/"):
        (folder / marker).mkdir()
        (folder / marker / "planted.txt").write_text("prior\n")
    else:
        (folder / marker).write_text("prior\n")
    (folder / "notes.txt").write_text("keep me\n")
    before = snapshot_tree(tmp_path)
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    result = run_cli(["start", "--question", "Q", "--output-dir", str(folder)], tmp_path)
    assert result.returncode == 3
    out = _json(result)
    assert out["error"] == "prior-run-present"
    assert str(folder) in out["detail"] and "refresh: true" in out["detail"] and f" {marker}," in out["detail"]
    assert snapshot_tree(tmp_path) == before
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == mtimes


def test_prior_run_present_on_the_default_folder(tmp_path: Path) -> None:
    folder = _today_folder(tmp_path, "Same question")
    _prior_run(folder)
    before = snapshot_tree(tmp_path)
    result = run_cli(["start", "--args-file", "-"], tmp_path, stdin="Same question\n")
    assert result.returncode == 3 and _json(result)["error"] == "prior-run-present"
    assert snapshot_tree(tmp_path) == before


@pytest.mark.parametrize("how", ["flag", "yaml", "raw"])
def test_refresh_archives_then_starts_fresh(tmp_path: Path, how: str) -> None:
    folder = tmp_path / "run"
    _prior_run(folder)
    before = snapshot_tree(folder)
    args = {
        "flag": ["start", "--question", "Q", "--output-dir", str(folder), "--refresh"],
        "yaml": ["start", "--args", f"research_question: Q\noutput_dir: {folder}\nrefresh: true"],
        "raw": ["start", "--args", f"--refresh --out {folder} Q"],
    }[how]
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    out = _json(result)
    archive = Path(out["archived_to"])
    assert archive.parent == folder and archive.name.startswith(".archive-")
    assert sorted(os.listdir(folder)) == sorted([".archive-20250101-000000", archive.name, ".web-research", "findings"])
    assert os.listdir(folder / "findings") == []
    moved = {k: v for k, v in before.items() if not k.startswith(".archive-20250101-000000")}
    assert snapshot_tree(archive) == moved
    earlier = {k: v for k, v in before.items() if k.startswith(".archive-20250101-000000")}
    assert {k: v for k, v in snapshot_tree(folder).items() if k in earlier} == earlier


def test_refresh_on_a_missing_folder_just_starts(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    out = _json(run_cli(["start", "--question", "Q", "--output-dir", str(folder), "--refresh"], tmp_path))
    assert out["archived_to"] is None and sorted(os.listdir(folder)) == [".web-research", "findings"]


# --- start: invalid input -------------------------------------------------------

@pytest.mark.parametrize(
    ("args", "stdin", "needle"),
    [
        (["start"], None, "research_question: missing"),
        (["start", "--question", "  "], None, "research_question"),
        (["start", "--args", ""], None, "research_question"),
        (["start", "--args-file", "-"], "\n", "research_question"),
        (["start", "--args", "output_dir: /tmp/x"], None, "research_question: missing"),
        (["start", "--args", "research_question: Q\nrefesh: true"], None, "unknown key 'refesh'"),
        (["start", "--args", "research_question: Q\nauto_proceed: sometimes"], None, "auto_proceed"),
        (["start", "--args", "Q", "--args-file", "-"], "Q", "only one"),
        (["start", "--args", "Q", "--refresh"], None, "cannot be combined"),
        (["start", "--args-file", "/does/not/exist"], None, "--args-file"),
        (["start", "--args", "--bogus Q"], None, "unknown option '--bogus'"),
    ],
)
def test_invalid_input(tmp_path: Path, args: list[str], stdin: str | None, needle: str) -> None:
    result = run_cli(args, tmp_path, stdin=stdin)
    assert result.returncode == 2, result.stdout + result.stderr
    out = _json(result)
    assert out["error"] == "invalid-input" and needle in out["detail"]
    assert os.listdir(tmp_path) == []


def test_output_dir_that_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("not a folder\n")
    for extra in ([], ["--refresh"]):
        result = run_cli(["start", "--question", "Q", "--output-dir", str(target), *extra], tmp_path)
        assert result.returncode == 2
        out = _json(result)
        assert out["error"] == "invalid-input" and "output_dir" in out["detail"] and str(target) in out["detail"]
        assert target.read_text() == "not a folder\n"


def test_args_file_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "args"
    bad.write_bytes(b"\xff\xfe what")
    out = _json(run_cli(["start", "--args-file", str(bad)], tmp_path))
    assert out["error"] == "invalid-input" and "UTF-8" in out["detail"]


# --- briefs ------------------------------------------------------------------------

def test_briefs_command(tmp_path: Path) -> None:
    out = _json(run_cli(["start", "--question", QUESTION, "--output-dir", "run"], tmp_path))
    run = Path(out["output_dir"])
    (run / "plan.md").write_text(VALID_PLAN, encoding="utf-8")
    result = run_cli(["briefs", "run"], tmp_path)  # relative DIR resolves like output_dir
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    slugs = ["pricing-models", "enterprise-discounts"]
    assert [Path(item["brief_path"]).stem for item in listed] == slugs
    for item, slug in zip(listed, slugs):
        # the short list: what to dispatch (`Brief: <brief_path>`) and where its findings go
        assert set(item) == {"subtopic", "brief_path", "findings_path"}
        assert item["brief_path"] == str(run / "briefs" / f"{slug}.md")
        assert item["findings_path"] == str(run / "findings" / f"{slug}.md")
        assert "Findings file: " + item["findings_path"] in Path(item["brief_path"]).read_text(encoding="utf-8")
    again = run_cli(["briefs", str(run)], tmp_path)
    assert json.loads(again.stdout) == listed


def test_briefs_lists_only_briefs_still_to_dispatch(tmp_path: Path) -> None:
    """A brief whose researcher wrote its findings file (ok, empty or failed) is done; a missing
    file, one without a status, or the plugin's stub (the researcher never finished) is listed."""
    from web_research.formats import FINDINGS_STUB_REASON

    out = _json(run_cli(["start", "--question", QUESTION, "--output-dir", "run"], tmp_path))
    run = Path(out["output_dir"])
    (run / "plan.md").write_text(VALID_PLAN, encoding="utf-8")
    first = json.loads(run_cli(["briefs", "run"], tmp_path).stdout)
    done, other = (Path(item["findings_path"]) for item in first)
    done.write_text('---\nstatus: empty\nreason: "nothing public"\n---\n', encoding="utf-8")
    other.write_text(f'---\nstatus: failed\nreason: "{FINDINGS_STUB_REASON}"\n---\n', encoding="utf-8")
    listed = json.loads(run_cli(["briefs", "run"], tmp_path).stdout)
    assert [item["findings_path"] for item in listed] == [str(other)]
    other.write_text("no frontmatter\n", encoding="utf-8")
    assert [item["findings_path"] for item in json.loads(run_cli(["briefs", "run"], tmp_path).stdout)] == [str(other)]
    other.write_text('---\nstatus: ok\n---\n', encoding="utf-8")
    assert json.loads(run_cli(["briefs", "run"], tmp_path).stdout) == []


def test_briefs_plan_error(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    text = VALID_PLAN.replace("- Searches per subagent: 4", "- Searches per subagent: lots")
    (run / "plan.md").write_text(text)
    result = run_cli(["briefs", str(run)], tmp_path)
    line = text.split("\n").index("- Searches per subagent: lots") + 1
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {run / 'plan.md'}:{line}: ")
    assert not (run / "briefs").exists()


def test_briefs_missing_plan(tmp_path: Path) -> None:
    result = run_cli(["briefs", str(tmp_path)], tmp_path)
    assert result.returncode == 2
    assert "not a run folder (it holds neither plan.md nor report.md)" in result.stderr
    (tmp_path / "report.md").write_text("# Research: Q\n")  # a run, but without its plan
    result = run_cli(["briefs", str(tmp_path)], tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'plan.md'}:1: ")
