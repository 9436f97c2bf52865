"""What the checklist parsed of a run folder (`ParsedRun`), handed to every check group.

A module of its own so that the extra check groups (claims, coverage, verdicts) can
receive it without importing the checklist, which registers them: the checklist
depends on the groups, never the other way round.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

from ..core.result import Check
from .citation_entries import Citation
from .findings import Findings
from .report import Report


class Cited(NamedTuple):
    """A citation entry and the file it appears in (input of extra check groups)."""

    path: Path
    citation: Citation


@dataclass(slots=True)
class ParsedRun:
    """Everything the checklist parsed, handed to extra check groups so they
    need not read the files again."""

    run_dir: Path
    plan: Any = None  # plan.Plan, or None when missing or unparseable
    findings: dict[str, Findings] = field(default_factory=dict)  # by slug
    report: Report | None = None
    report_path: Path | None = None
    # Where the seals come from (provenance.SealSource); None: the folder copy (standalone verify).
    seal_source: Any = None
    # Files that exist but could not be used, by path, with why (fsutil.RunFileError: its
    # `state` and `reason`), so that `status` and `claims` say what `verify` says.
    unreadable: dict[Path, Any] = field(default_factory=dict, init=False)

    @property
    def cited(self) -> list[Cited]:
        """Every citation entry of the report and of each findings file."""
        out: list[Cited] = []
        if self.report is not None and self.report_path is not None:
            out.extend(Cited(self.report_path, c) for c in self.report.citations)
        for found in self.findings.values():
            out.extend(Cited(found.path, c) for c in found.citations)
        return out


CheckGroup = Callable[[Path, ParsedRun], list[Check]]
