"""Where a run lives, whether a prior run is there, and archiving it on refresh.

Archiving renames each top-level entry into `.archive-<UTC timestamp>/`; it
never copies and never deletes, so an interrupted archive leaves every file
either where it was or in the archive, and nothing a user wrote is lost.
"""
from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Mapping

from .formats import ARCHIVE_PREFIX, BRIEFS_DIR, DEFAULT_ROOT, FINDINGS_DIR, PRIOR_RUN_MARKERS, ROOT_ENV_VAR, SOURCES_DIR
from .slug import dated_slug

PROJECT_DIR_ENV_VAR = "CLAUDE_PROJECT_DIR"
ARCHIVE_TIME_FORMAT = "%Y%m%d-%H%M%S"


def _absolute(path: Path, base: Path) -> Path:
    """`path` made absolute against `base`, with `.`/`..` folded (symlinks kept)."""
    return Path(os.path.abspath(base / path.expanduser()))


def project_dir(cwd: Path, env: Mapping[str, str]) -> Path:
    """The current project: $CLAUDE_PROJECT_DIR when set, else the current directory."""
    value = env.get(PROJECT_DIR_ENV_VAR, "")
    return _absolute(Path(value), cwd) if value else _absolute(Path("."), cwd)


def research_root(cwd: Path, env: Mapping[str, str]) -> Path:
    """The folder that holds dated run folders ($WEB_RESEARCH_ROOT replaces .beagle/research)."""
    project = project_dir(cwd, env)
    override = env.get(ROOT_ENV_VAR, "")
    return _absolute(Path(override), project) if override else project / DEFAULT_ROOT


def resolve_output_dir(
    question: str,
    output_dir: str | os.PathLike[str] | None,
    cwd: Path,
    today: datetime.date,
    env: Mapping[str, str],
) -> Path:
    """The absolute run folder: `output_dir` as given (relative to `cwd`), else `<root>/<date>-<slug>`."""
    if output_dir is not None and str(output_dir).strip():
        return _absolute(Path(output_dir), Path(cwd))
    return research_root(Path(cwd), env) / dated_slug(question, today)


def has_prior_run(directory: Path) -> bool:
    """True when the folder holds plan.md or report.md (of any kind, even a broken link)."""
    return any(os.path.lexists(Path(directory) / marker) for marker in PRIOR_RUN_MARKERS)


def holds_run_artifacts(directory: Path) -> bool:
    """True when the folder holds anything a research run writes.

    Refresh archives only such a folder: `refresh` with an output_dir that
    is an ordinary project folder must not sweep the whole project away.
    """
    names = (*PRIOR_RUN_MARKERS, FINDINGS_DIR, BRIEFS_DIR, SOURCES_DIR)
    return any(os.path.lexists(Path(directory) / name) for name in names)


def is_archive(entry: os.DirEntry[str]) -> bool:
    return entry.name.startswith(ARCHIVE_PREFIX) and entry.is_dir(follow_symlinks=False)


def entries_to_archive(directory: Path) -> list[str]:
    """Top-level names that refresh would move: everything except earlier archives."""
    if not Path(directory).is_dir():
        return []
    with os.scandir(directory) as entries:
        return sorted(entry.name for entry in entries if not is_archive(entry))


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
    """Move every non-archive entry of `directory` into a new `.archive-<UTC stamp>/`.

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
