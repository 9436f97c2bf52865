"""What the checklist parsed of a run folder (`ParsedRun`), handed to every check group.

A module of its own so that the extra check groups (claims, coverage, verdicts) can
receive it without importing the checklist, which registers them: the checklist
depends on the groups, never the other way round.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from ..core.records import Record

if TYPE_CHECKING:  # the checklist imports these lazily (checklist.run_checklist)
    from .result import Check
    from .citation_entries import Citation
    from .findings import Findings
    from .report import Report


class Cited(NamedTuple):
    """A citation entry and the file it appears in (input of extra check groups)."""

    path: Path
    citation: "Citation"


class ParsedRun(Record):
    """Everything the checklist parsed, handed to extra check groups so they
    need not read the files again."""

    __slots__ = ("run_dir", "plan", "findings", "report", "report_path", "seal_source", "unreadable")

    def __init__(self, run_dir: Path, plan: Any = None, findings: "dict[str, Findings] | None" = None,
                 report: "Report | None" = None, report_path: Path | None = None, seal_source: Any = None) -> None:
        self.run_dir = run_dir
        self.plan = plan  # plan.Plan, or None when missing or unparseable
        self.findings: dict[str, Findings] = {} if findings is None else findings  # by slug
        self.report = report
        self.report_path = report_path
        # Where the seals come from (provenance.SealSource); None: the folder copy (standalone verify).
        self.seal_source = seal_source
        # Files that exist but could not be used, by path, with why (fsutil.RunFileError: its
        # `state` and `reason`), so that `status` and `claims` say what `verify` says.
        self.unreadable: dict[Path, Any] = {}

    @property
    def cited(self) -> list[Cited]:
        """Every citation entry of the report and of each findings file."""
        out: list[Cited] = []
        if self.report is not None and self.report_path is not None:
            out.extend(Cited(self.report_path, c) for c in self.report.citations)
        for found in self.findings.values():
            out.extend(Cited(found.path, c) for c in found.citations)
        return out


CheckGroup = Callable[[Path, ParsedRun], "list[Check]"]
