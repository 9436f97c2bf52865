"""Where a run lives, whether that place may hold a run, and archiving on refresh.

A run folder is the run's own: `start` refuses the filesystem root, the home
folder (and any folder above it) and a project root (a folder holding `.git`),
because a run there would mix with, and a refresh would sweep up, the user's
files. Archiving moves only the names a run owns (`formats.RUN_OWNED_NAMES`)
into `.archive-<UTC timestamp>/`; everything else stays where it is. It renames,
never copies and never deletes, so an interrupted archive leaves every file
either where it was or in the archive, and nothing a user wrote is lost.
"""
from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Mapping

from ..formats import (ARCHIVE_PREFIX, DEFAULT_ROOT, PRIOR_RUN_MARKERS, ROOT_ENV_VAR, RUN_OWNED_NAMES,
                       START_REFUSES_NAMES)
from .inputs import InputError, StartInput, from_raw
from ..core.slug import dated_slug

PROJECT_DIR_ENV_VAR = "CLAUDE_PROJECT_DIR"
ARCHIVE_TIME_FORMAT = "%Y%m%d-%H%M%S"
PROJECT_MARKER = ".git"


def home_dir(env: Mapping[str, str]) -> Path:
    """The user's home folder: $HOME of `env`, else the account's."""
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _expand_home(path: Path, env: Mapping[str, str]) -> Path:
    text = str(path)
    if text == "~" or text.startswith("~" + os.sep):
        return home_dir(env) / text[2:]
    return path.expanduser()  # ~user


def _absolute(path: Path, base: Path, env: Mapping[str, str]) -> Path:
    """`path` made absolute against `base`, `~` expanded, `.`/`..` folded (symlinks kept)."""
    return Path(os.path.abspath(base / _expand_home(path, env)))


def project_dir(cwd: Path, env: Mapping[str, str]) -> Path:
    """The current project: $CLAUDE_PROJECT_DIR when set, else the current directory."""
    value = env.get(PROJECT_DIR_ENV_VAR, "")
    return _absolute(Path(value), cwd, env) if value else _absolute(Path("."), cwd, env)


def research_root(cwd: Path, env: Mapping[str, str]) -> Path:
    """The folder that holds dated run folders ($WEB_RESEARCH_ROOT replaces .beagle/research)."""
    project = project_dir(cwd, env)
    override = env.get(ROOT_ENV_VAR, "")
    return _absolute(Path(override), project, env) if override else project / DEFAULT_ROOT


def resolve_output_dir(
    question: str,
    output_dir: str | os.PathLike[str] | None,
    cwd: Path,
    today: datetime.date,
    env: Mapping[str, str],
) -> Path:
    """The absolute run folder: `output_dir` as given (relative to `cwd`), else `<root>/<date>-<slug>`."""
    if output_dir is not None and str(output_dir).strip():
        return _absolute(Path(output_dir), Path(cwd), env)
    return research_root(Path(cwd), env) / dated_slug(question, today)


def not_a_run_folder(run_dir: Path, env: Mapping[str, str]) -> str | None:
    """Why `run_dir` must not hold a run (root, home or above, project root), or None.

    Symlinks are resolved first, so a link to the home folder is the home folder.
    """
    real = Path(os.path.realpath(run_dir))
    home = Path(os.path.realpath(home_dir(env)))
    shown = str(run_dir) if real == Path(run_dir) else f"{run_dir} (resolves to {real})"
    if real == Path(real.anchor):
        reason = "is the filesystem root"
    elif real == home:
        reason = "is your home folder"
    elif home.is_relative_to(real):
        reason = f"contains your home folder {home}"
    elif os.path.lexists(real / PROJECT_MARKER):
        reason = f"holds {PROJECT_MARKER}, so it is a project root"
    else:
        return None
    return (f"output_dir: {shown} {reason}; expected a folder of the run's own, such as a new "
            f"subfolder of it (a run writes plan.md, report.md and more there, and refresh archives them)")


def checked_run_dir(request: StartInput, cwd: Path, today: datetime.date, env: Mapping[str, str]) -> Path:
    """The run folder `start` will use for `request`, or InputError saying why it may not.

    The one rule for where a run may go: `start` applies it before touching the
    disk, and the PreToolUse hook applies it before approving a start command.
    """
    run_dir = resolve_output_dir(request.question, request.output_dir, cwd, today, env)
    reason = not_a_run_folder(run_dir, env)
    if reason:
        raise InputError(reason)
    if os.path.lexists(run_dir) and not run_dir.is_dir():
        raise InputError(f"output_dir: {run_dir} exists and is not a folder; expected a folder or a new path")
    return run_dir


def check_start_args(raw: str, cwd: Path, today: datetime.date, env: Mapping[str, str]) -> tuple[StartInput, Path]:
    """Raw skill arguments -> (validated input, run folder), or InputError: all `start` checks
    that come before the disk, for a caller (the hook) that holds the arguments as text."""
    request = from_raw(raw)
    return request, checked_run_dir(request, cwd, today, env)


def has_prior_run(directory: Path) -> bool:
    """True when the folder holds plan.md or report.md (of any kind, even a broken link)."""
    return any(os.path.lexists(Path(directory) / marker) for marker in PRIOR_RUN_MARKERS)


def evidence_present(directory: Path) -> list[str]:
    """The evidence a new run may not find in its folder (`formats.START_REFUSES_NAMES`: plan.md,
    report.md, briefs/, findings/, sources/, checks/, .web-research/), as `start` names them:
    folders with a trailing `/`. Any kind of entry counts, even a broken link."""
    return [f"{name}/" if os.path.isdir(Path(directory) / name) and not os.path.islink(Path(directory) / name)
            else name for name in START_REFUSES_NAMES if os.path.lexists(Path(directory) / name)]


def entries_to_archive(directory: Path) -> list[str]:
    """The run-owned top-level names present in `directory` (what refresh moves), sorted."""
    if not Path(directory).is_dir():
        return []
    return sorted(name for name in RUN_OWNED_NAMES if os.path.lexists(Path(directory) / name))


def holds_run_artifacts(directory: Path) -> bool:
    """True when the folder holds anything a research run writes."""
    return bool(entries_to_archive(directory))


class ArchiveError(OSError):
    """Archiving stopped part-way; every entry is either in place or in `archive`."""

    def __init__(self, archive: Path, cause: OSError) -> None:
        super().__init__(cause.errno, f"{cause.strerror or cause} (entries already moved are in {archive})")
        self.archive = archive


def _claim_archive_dir(directory: Path, now: datetime.datetime) -> Path:
    """Create a fresh `.archive-<stamp>[-N]` folder; mkdir is the atomic claim on the name."""
    stamp = now.astimezone(datetime.timezone.utc).strftime(ARCHIVE_TIME_FORMAT)
    base = f"{ARCHIVE_PREFIX}{stamp}"
    attempt = 1
    while True:
        candidate = Path(directory) / (base if attempt == 1 else f"{base}-{attempt}")
        try:
            os.mkdir(candidate)
        except FileExistsError:
            attempt += 1
            continue
        return candidate


def archive_prior_run(directory: Path, now: datetime.datetime) -> Path:
    """Move the run-owned entries of `directory` into a new `.archive-<UTC stamp>/`.

    `now` should be timezone-aware; a naive value is taken as UTC. Returns the archive.
    """
    if now.tzinfo is None:
        now = now.replace(tzinfo=datetime.timezone.utc)
    names = entries_to_archive(directory)
    archive = _claim_archive_dir(directory, now)
    for name in names:
        try:
            os.rename(Path(directory) / name, archive / name)
        except OSError as error:
            raise ArchiveError(archive, error) from error
    return archive
