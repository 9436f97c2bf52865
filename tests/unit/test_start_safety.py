"""`start` never moves what a run does not own, never opens a run in a place
that is not its own (root, home, a project root), and reads booleans strictly.

Driven through the real command line (and the real hook launcher for the
PreToolUse approval), with HOME pointed at a private folder.
"""
from __future__ import annotations

import ast
import datetime
import json
import os
import re
from pathlib import Path

import pytest

from cli_support import SCRIPTS_DIR, clean_env, run_cli, snapshot_tree
from hook_harness import Harness
from web_research import formats
from web_research.run.inputs import InputError, StartInput, from_raw
from web_research.run.runfolder import archive_prior_run, entries_to_archive

PACKAGE = SCRIPTS_DIR / "web_research"


def _json(result) -> dict:
    assert result.stdout.count("\n") == 1, result.stdout + result.stderr
    return json.loads(result.stdout)


def _env(home: Path) -> dict[str, str]:
    return clean_env(HOME=str(home))


# --- refresh archives only what a run owns ---------------------------------------

def _user_files(folder: Path) -> None:
    """What a person keeps in a folder: none of it belongs to a run."""
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.py").write_text("print('hi')\n")
    (folder / "notes.md").write_text("my notes\n")
    (folder / ".env").write_text("SECRET=1\n")
    (folder / "plans").mkdir()
    (folder / "plans" / "plan.md").write_text("a nested plan.md is the user's\n")


def _run_files(folder: Path) -> None:
    """Every top-level name a run owns, each with content."""
    for name in formats.RUN_OWNED_NAMES:
        if "." in name.lstrip("."):
            (folder / name).write_text(f"run's {name}\n")
        else:
            (folder / name).mkdir(parents=True, exist_ok=True)
            (folder / name / "x.md").write_text(f"run's {name}/x\n")


def test_archive_moves_only_run_owned_names(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    _user_files(folder)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    user_before = snapshot_tree(folder)
    _run_files(folder)
    run_before = {k: v for k, v in snapshot_tree(folder).items() if k not in user_before}

    assert entries_to_archive(folder) == sorted(formats.RUN_OWNED_NAMES)
    archive = archive_prior_run(folder, datetime.datetime.now(datetime.timezone.utc))

    after = snapshot_tree(folder)
    assert {k: v for k, v in after.items() if not k.startswith(archive.name)} == user_before
    assert snapshot_tree(archive) == run_before


def test_refresh_on_a_folder_with_a_report_keeps_the_users_files(tmp_path: Path) -> None:
    """A folder holding report.md and sources/ beside the user's own files: only the run's go."""
    home = tmp_path / "home"
    home.mkdir()
    folder = tmp_path / "work"
    _user_files(folder)
    user_before = snapshot_tree(folder)
    (folder / "report.md").write_text("old report\n")
    (folder / "sources").mkdir()
    (folder / "sources" / "page.txt").write_text("snapshot\n")

    result = run_cli(["start", "--question", "Q", "--output-dir", str(folder), "--refresh"], tmp_path, env=_env(home))
    assert result.returncode == 0, result.stdout + result.stderr
    archive = Path(_json(result)["archived_to"])
    assert sorted(os.listdir(archive)) == ["report.md", "sources"]
    after = snapshot_tree(folder)
    assert {k: v for k, v in after.items() if k in user_before} == user_before
    assert not (folder / "report.md").exists() and (folder / "findings").is_dir()


def _run_dir_names_written_by_code() -> dict[str, str]:
    """Top-level names the package's code joins onto a run folder: `<run_dir> / NAME / ...`.

    A path expression counts when its leftmost operand mentions `run_dir` (or is `run`,
    the codebase's name for `Path(run_dir)`); NAME is a string literal, a module
    constant or a `formats.` constant. Returns {name: where}.
    """
    import importlib

    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py":
            continue  # importing it would run the CLI
        module_name = ".".join(path.relative_to(SCRIPTS_DIR).with_suffix("").parts)
        module = importlib.import_module(module_name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
                continue
            if isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Div):
                continue  # an outer part of a chain; its innermost join is visited on its own
            if isinstance(node.left, ast.Call) and ast.unparse(node.left.func) != "Path":
                continue  # a folder some function derives (the ledger's, outside the run), not the run
            base = ast.unparse(node.left)
            if "run_dir" not in base and base not in ("run", "Path(run)"):
                continue
            right = node.right
            value: object = None
            if isinstance(right, ast.Constant):
                value = right.value
            elif isinstance(right, ast.Name):
                value = getattr(module, right.id, None)
            elif isinstance(right, ast.Attribute) and ast.unparse(right.value) == "formats":
                value = getattr(formats, right.attr, None)
            if isinstance(value, str):
                found.setdefault(value, f"{path.relative_to(SCRIPTS_DIR)}:{node.lineno}")
    return found


def test_every_name_the_code_writes_into_a_run_folder_is_run_owned() -> None:
    names = _run_dir_names_written_by_code()
    # The scan must see the writers we know of, or it proves nothing.
    for known in (formats.PLAN_FILE, formats.FINDINGS_DIR, formats.BRIEFS_DIR, formats.SOURCES_DIR,
                  formats.RUN_STATE_DIR):
        assert known in names, f"the scan no longer sees {known}"
    strays = {name: where for name, where in names.items() if name not in formats.RUN_OWNED_NAMES}
    assert strays == {}, f"add these to formats.RUN_OWNED_NAMES: {strays}"


def test_run_owned_names_are_plain_top_level_names() -> None:
    assert len(set(formats.RUN_OWNED_NAMES)) == len(formats.RUN_OWNED_NAMES)
    for name in formats.RUN_OWNED_NAMES:
        assert name and "/" not in name and name not in (".", "..", ".git")
        assert not name.startswith(formats.ARCHIVE_PREFIX)


# --- start refuses a folder that is not a run's own ------------------------------

def _places(tmp_path: Path) -> dict[str, tuple[list[str], Path, str]]:
    """name -> (start arguments, the folder the refusal names, a word of its reason)."""
    home = tmp_path / "home"
    project = home / "code" / "app"
    (project / ".git").mkdir(parents=True)
    worktree = home / "code" / "wt"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's .git is a file
    link = tmp_path / "link-to-home"
    link.symlink_to(home)
    return {
        "root": (["--output-dir", "/"], Path("/"), "root"),
        "home-absolute": (["--output-dir", str(home)], home, "home"),
        "home-tilde": (["--output-dir", "~"], home, "home"),
        "home-tilde-slash": (["--output-dir", "~/"], home, "home"),
        "home-relative": (["--output-dir", "../home"], home, "home"),
        "home-dotdot": (["--output-dir", "~/code/.."], home, "home"),
        "home-symlink": (["--output-dir", str(link)], home, "home"),
        "above-home": (["--output-dir", str(tmp_path)], tmp_path, "home"),
        "project-root": (["--output-dir", str(project)], project, ".git"),
        "worktree-root": (["--output-dir", "~/code/wt"], worktree, ".git"),
    }


PLACES = ["root", "home-absolute", "home-tilde", "home-tilde-slash", "home-relative", "home-dotdot",
          "home-symlink", "above-home", "project-root", "worktree-root"]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("refresh", [False, True])
def test_start_refuses_a_folder_that_is_not_a_runs_own(tmp_path: Path, place: str, refresh: bool) -> None:
    args, guarded, word = _places(tmp_path)[place]
    home = tmp_path / "home"
    (home / "report.md").write_text("a report the user keeps at home\n")
    (home / "code" / "app" / "report.md").write_text("the project's report\n")
    (home / "code" / "app" / "sources").mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    before = snapshot_tree(tmp_path)
    result = run_cli(["start", "--question", "Q", *args, *(["--refresh"] if refresh else [])], cwd, env=_env(home))
    assert result.returncode == 2, result.stdout + result.stderr
    out = _json(result)
    assert out["error"] == "invalid-input"
    assert out["detail"].startswith("output_dir: ") and word in out["detail"]
    assert str(Path(os.path.realpath(guarded))) in out["detail"] or str(guarded) in out["detail"]
    assert snapshot_tree(tmp_path) == before


def test_start_accepts_a_subfolder_of_home_or_of_a_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "app" / ".git").mkdir(parents=True)
    for target in ("~/research/q1", str(home / "app" / "research")):
        result = run_cli(["start", "--question", "Q", "--output-dir", target], tmp_path, env=_env(home))
        assert result.returncode == 0, result.stdout + result.stderr
        assert Path(_json(result)["output_dir"]).parent in (home / "research", home / "app")


def test_the_default_folder_is_checked_too(tmp_path: Path) -> None:
    """WEB_RESEARCH_ROOT pointing at a project root's parent still yields a fresh subfolder: fine."""
    home = tmp_path / "home"
    home.mkdir()
    env = dict(_env(home), WEB_RESEARCH_ROOT=str(home))
    result = run_cli(["start", "--question", "Q"], tmp_path, env=env)
    assert result.returncode == 0 and Path(_json(result)["output_dir"]).parent == home


# --- booleans are true or false, nothing else ------------------------------------

YAML11_BOOLS = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "Y", "N", "YES", "oN"]


@pytest.mark.parametrize("field", ["auto_proceed", "refresh"])
@pytest.mark.parametrize("spelling", YAML11_BOOLS)
def test_yaml_1_1_booleans_are_invalid(field: str, spelling: str) -> None:
    with pytest.raises(InputError) as info:
        from_raw(f"research_question: Q\n{field}: {spelling}\n")
    detail = str(info.value)
    assert detail.startswith(f"{field}: ") and "true or false" in detail and spelling in detail


@pytest.mark.parametrize("spelling, value", [("true", True), ("false", False), ("True", True), ("FALSE", False)])
def test_true_and_false_are_booleans(spelling: str, value: bool) -> None:
    got = from_raw(f"research_question: Q\nauto_proceed: {spelling}\nrefresh: {spelling}\n")
    assert got == StartInput("Q", auto_proceed=value, refresh=value)


def test_yaml_1_1_words_stay_text_elsewhere() -> None:
    assert from_raw("research_question: no\noutput_dir: off\n") == StartInput("no", "off")


def test_auto_proceed_yes_is_refused_by_start_and_writes_nothing(tmp_path: Path) -> None:
    result = run_cli(["start", "--args-file", "-"], tmp_path, stdin="research_question: Q\nauto_proceed: yes\n")
    assert result.returncode == 2
    out = _json(result)
    assert out["error"] == "invalid-input" and out["detail"].startswith("auto_proceed: ")
    assert os.listdir(tmp_path) == []


# --- the hook approves only a start that is safe -----------------------------------

def _start(h: Harness, body: str) -> str:
    from hook_harness import CLI

    return f"\"{CLI}\" start --args-file - <<'WEB_RESEARCH_ARGS'\n{body}\nWEB_RESEARCH_ARGS"


@pytest.mark.parametrize("body, needle", [
    ("research_question: Q\noutput_dir: \"~\"\nrefresh: true", "home"),  # a bare ~ is YAML null
    ("research_question: Q\noutput_dir: /\nrefresh: true", "root"),
    ("--refresh --out .. Q", "home"),  # the project's parent is the harness's tmp folder, above HOME
    ("research_question: Q\noutput_dir: .\nrefresh: true", ".git"),
    ("research_question: Q\nauto_proceed: yes", "auto_proceed"),
    ("research_question: Q\nrefesh: true", "refesh"),
])
def test_hook_denies_a_start_that_start_would_refuse(tmp_path: Path, body: str, needle: str) -> None:
    h = Harness(tmp_path)
    (h.project / ".git").mkdir()
    (h.project / "report.md").write_text("the project's own report\n")
    before = {"project": snapshot_tree(h.project), "home": snapshot_tree(h.home)}
    result = h.hook(h.bash("PreToolUse", _start(h, body)))
    assert result.decision == "deny", result
    reason = result.reason
    refusal = json.loads(reason[reason.index("{"):reason.rindex("}") + 1])
    assert refusal["error"] == "invalid-input" and needle in refusal["detail"]
    # and the refusal is the one start itself gives for the same input
    proc = h.shell(_start(h, body))
    assert proc.returncode == 2 and json.loads(proc.stdout) == refusal
    after = {"project": snapshot_tree(h.project), "home": snapshot_tree(h.home)}
    # The command may remember the interpreter it found (the plugin's own state under
    # <home>/.local/share/web-research, its environment cache under <home>/.cache/web-research);
    # nothing else may change.
    assert {where: {k: v for k, v in tree.items() if "web-research" not in k and not k.startswith((".local", ".cache"))}
            for where, tree in after.items()} == {
        where: {k: v for k, v in tree.items() if "web-research" not in k and not k.startswith((".local", ".cache"))}
        for where, tree in before.items()}


def test_hook_still_allows_a_safe_start(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.project / ".git").mkdir()
    result = h.hook(h.bash("PreToolUse", h.start_command(refresh=True)))
    assert result.decision == "allow", result


def test_the_contract_names_every_run_owned_name() -> None:
    """The companion contract tells callers what refresh moves; it must match the code."""
    text = (formats.REFERENCES_DIR / "companion-contract.md").read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if "`refresh` moves only" in p)
    named = {word.rstrip("/") for word in re.findall(r"`([^`]+)`", paragraph)}
    assert set(formats.RUN_OWNED_NAMES) <= named, set(formats.RUN_OWNED_NAMES) - named
