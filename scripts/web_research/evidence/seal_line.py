"""The seal line: the first line `fetch` prints, naming the snapshot it served and the SHA-256
of the text it wrote, `web-research snapshot: {"chars", "origin", "sha256", "snapshot_id"}`
(origin `fetched` or `stored`).

`fetch` writes it and the PostToolUse hook reads it to seal the snapshot
(docs/hooks/provenance.md, sealed provenance). Only the first line counts, and it comes before
any page text, so a page cannot forge it.
"""
from __future__ import annotations

import json

from .snapshots import Snapshot, text_sha256

SEAL_LINE_PREFIX = "web-research snapshot: "


def seal_line(snap: Snapshot, text: str, stored_before: bool) -> str:
    """The line for the snapshot `snap`, whose text is `text`."""
    return SEAL_LINE_PREFIX + json.dumps({"snapshot_id": snap.text_path.stem, "sha256": text_sha256(text),
                                          "chars": len(text), "origin": "stored" if stored_before else "fetched"},
                                         sort_keys=True)


def parse_seal_line(stdout: str) -> dict | None:
    """The seal line of fetch's output (its first line only), or None."""
    first = stdout.split("\n", 1)[0].strip()
    if not first.startswith(SEAL_LINE_PREFIX):
        return None
    try:
        value = json.loads(first[len(SEAL_LINE_PREFIX):])
    except ValueError:
        return None
    if not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("snapshot_id", "sha256", "origin")):
        return None
    return value
