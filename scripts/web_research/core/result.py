"""The result type every rule returns: `Check`, and the `Problem` a parser finds.

Vocabulary at the bottom of the package (it imports nothing of ours), so that the per-file rule modules
(`citation_checks`, `findings`, `report`, ...) and the checklist that collects them
can all use it without importing each other, and run/ and evidence/ can judge with it too.
"""
from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING, Any, Iterable, Literal, NamedTuple

if TYPE_CHECKING:
    Severity = Literal["error", "warning"]


class Check(NamedTuple):
    """The outcome of one rule. `message` says what was checked when it passes
    and what is wrong (and what was expected) when it fails. Immutable once made."""

    id: str
    ok: bool
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "ok": self.ok, "severity": self.severity,
                "message": self.message, "path": self.path, "line": self.line}


class Problem(NamedTuple):
    """A defect found by a parser or validator, before it becomes a check."""

    line: int | None
    message: str


def passed(checks: Iterable[Check]) -> bool:
    """True when no error-severity check failed (failed warnings are allowed)."""
    return not any(not c.ok and c.severity == "error" for c in checks)


def ok(check_id: str, message: str, path: Path | str | None = None, severity: Severity = "error") -> Check:
    return Check(check_id, True, severity, message, str(path) if path is not None else None, None)


def fail(check_id: str, message: str, path: Path | str | None = None, line: int | None = None,
         severity: Severity = "error") -> Check:
    return Check(check_id, False, severity, message, str(path) if path is not None else None, line)
