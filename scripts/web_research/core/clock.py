"""The one way the plugin writes a moment: UTC to the second, `2026-12-02T07:46:22Z`.

The run record, the ledger, findings frontmatter, metrics and the researcher's clock line all
carry this form, and readers compare and sort them as text, so it is written in one place."""
from __future__ import annotations

import time


def utc_stamp(seconds: float | None = None) -> str:
    """`seconds` since the epoch (now when None) as `YYYY-MM-DDTHH:MM:SSZ`."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
