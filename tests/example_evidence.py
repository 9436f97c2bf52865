"""The bundled example's WARCs and seals, made with the plugin's own code (no tests here).

The example's sites are fictional (`.example` hosts, invented pages): no page was ever fetched, so
its WARCs are reconstructions, and say so in their warcinfo record: each holds one exchange for the
snapshot's URL, dated at its `retrieved_at`, whose response is the stored text itself as
`text/plain` from a documentation address (192.0.2.1), so that `verify --deep` extracts from it
exactly the stored text. They are written by `archive.build_warc` and recorded in each snapshot's
record as `fetch` records a WARC (`snapshots.store_snapshot`'s `archive` object).

The seals are the hooks' own (guard/effects/seals.py, the producers a run calls): each snapshot
with its record and WARC as after a researcher's fetch, each brief as `briefs` rendered it, each
findings file as its researcher left it, report.md and plan.md as at the Stop gate's pass; the
folder copy `.web-research/seals.json` is what standalone `verify` reads. `start`'s record
(`.web-research/start.json`) is written as `start` writes it, naming the rules version the example
is kept under (checks/rules_version.py). `--judge` writes the verdicts file of the example's
claim-checker answer (`EXAMPLE_ANSWER`, a person's). Run it after changing any of the example's
evidence or the rules version:

    .venv/bin/python tests/example_evidence.py [--warcs] [--judge] examples/observability-pricing
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "scripts"))

from web_research import formats  # noqa: E402
from web_research.commands.start_cmd import _write_record  # noqa: E402
from web_research.run.plan import load_plan, start_record_path  # noqa: E402
from web_research.evidence import ledger  # noqa: E402
from web_research.evidence.archive import body_sha256, build_warc  # noqa: E402
from web_research.evidence.provenance import MAX_EVIDENCE_BYTES  # noqa: E402
from web_research.evidence.seal_line import seal_line  # noqa: E402
from web_research.evidence.snapshots import ARCHIVE_SUFFIX, SnapshotIndex, load_snapshot  # noqa: E402
from web_research.evidence.transport import USER_AGENT, Exchange, FetchedPage  # noqa: E402
from web_research.guard.effects import seals  # noqa: E402
from web_research.guard.effects.replies import findings_status  # noqa: E402

RECONSTRUCTION = ("a reconstruction: the bundled example's sites are fictional and this page was never fetched; the "
                  "response holds the snapshot's stored text as text/plain, dated at its retrieved_at")
DOCUMENTATION_ADDRESS = "192.0.2.1"  # TEST-NET-1 (RFC 5737): no real host


def write_warcs(run: Path) -> int:
    """A reconstructed WARC beside each snapshot of `run`, named in its record."""
    written = 0
    for meta_path in sorted((run / formats.SOURCES_DIR).glob("*.json")):
        snap = load_snapshot(meta_path)
        text = snap.text()
        body = text.encode("utf-8")
        parts = urlsplit(snap.final_url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request = (f"GET {target} HTTP/1.1\r\nHost: {parts.hostname}\r\nUser-Agent: {USER_AGENT}\r\n"
                   "Accept-Encoding: identity\r\nConnection: close\r\n\r\n").encode("ascii")
        response = (f"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                    "\r\n").encode("ascii") + body
        arrived = datetime.fromisoformat(snap.retrieved_at)
        exchange = Exchange(request, response, DOCUMENTATION_ADDRESS, arrived)
        page = FetchedPage(snap.requested_url, snap.final_url, 200, "text/plain", "utf-8", body, exchange=exchange)
        name = f"{meta_path.stem}{ARCHIVE_SUFFIX}"
        warc = build_warc(page, snap.retrieved_at, name, note=RECONSTRUCTION)
        (meta_path.parent / name).write_bytes(warc)
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["archive"] = {"file": name, "sha256": "sha256:" + hashlib.sha256(warc).hexdigest(), "bytes": len(warc),
                           "body_sha256": body_sha256(body), "ms": 0}
        meta_path.write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written += 1
    return written


def seal(run: Path) -> int:
    """Seal `run`'s evidence as the hooks of a run do, and write the folder copy of the seals. A folder
    inside this repository is named in the copy by its path from the repository's root (the copy's
    `run_dir`), so the committed example names no machine's folder."""
    run = run.resolve()
    if run.is_relative_to(REPO_ROOT):
        os.chdir(REPO_ROOT)
        run = run.relative_to(REPO_ROOT)
    copy = run / ".web-research" / "seals.json"
    copy.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as data:
        env = {"CLAUDE_PLUGIN_DATA": data}
        index = SnapshotIndex.build(run)
        for snap in sorted({id(s): s for s in index.by_key.values()}.values(), key=lambda s: s.meta_path.name):
            seals.after_fetch(env, str(run), snap.requested_url, 0, seal_line(snap, snap.text(), False), None, None)
        briefs = sorted((run / formats.BRIEFS_DIR).glob("*.md"))
        seals.seal_briefs(env, str(run), [(str(path), path.stem) for path in briefs])
        for path in sorted((run / formats.FINDINGS_DIR).glob("*.md")):
            seals.seal_findings(env, str(run), str(path), None, path.stem, status=findings_status(str(path)))
        for path in sorted((run / formats.CHECKS_DIR).glob(f"{formats.VERDICTS_FILE_PREFIX}*.json")):
            seals.seal_verdicts(env, str(run), str(path), None, ledger.file_sha256(path, MAX_EVIDENCE_BYTES))
        seals.seal_at_pass(env, str(run), {name: ledger.file_sha256(run / name, MAX_EVIDENCE_BYTES)
                                           for name in (formats.REPORT_FILE, formats.PLAN_FILE)})
        return len(ledger.seals(seals.ledger_entries(env, str(run))))


# The example's claim-checker answer, given by a person who read each passage shown: its plan has no
# Tier: line, so only its statements of absence are judged (checks/absence.py), and no passage shown
# states what they say is missing.
EXAMPLE_ANSWER = """\
1 supported: the passages say archives must be rehydrated and restoring is billed separately, but none gives a price
2 supported: passage 3 is a forum post, not an Acme or Northwind page; passage 4 names commitments but no discount
3 supported: Lumen prices per GB without a figure; no passage gives per-GB list prices in one unit for all three
"""


def judge(run: Path) -> int:
    """Write the verdicts file the hooks write from a claim-checker's answer (`EXAMPLE_ANSWER`) to the
    prompt `claims --prompt` renders for the run now (sealed with the rest by `seal`). Refuses when
    the prompt is not the one the answer was given for."""
    from web_research.checks.checklist import parse_and_check
    from web_research.report.claim_checker import parse_answer, prompt_for_run, verdicts_json

    prompt, why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    if prompt is None:
        return 0
    verdicts, problems = parse_answer(EXAMPLE_ANSWER, prompt.keys)
    if problems:
        sys.exit(f"the example's checker answer does not fit the prompt ({'; '.join(problems)}):\n{prompt.text}")
    path = Path(prompt.verdicts_path)
    path.parent.mkdir(exist_ok=True)
    path.write_text(verdicts_json(verdicts), encoding="utf-8")
    return len(verdicts)


def record_start(run: Path) -> Path:
    """Write the record `start` writes (`start_cmd._write_record`): the question and tier the plan
    states and the rules version the example is kept under (test_rules_version holds it current).
    No `start` ever ran for the example, so no deepen choice was made: the record leaves it null,
    which imposes nothing (run/choices.py), and tests may plan a second wave on a copy."""
    plan = load_plan(run / formats.PLAN_FILE, run)
    _write_record(run, SimpleNamespace(question=plan.question, tier=plan.tier, deepen=None))
    return start_record_path(run)


if __name__ == "__main__":
    args = sys.argv[1:]
    warcs = "--warcs" in args
    folders = [Path(a) for a in args if a not in ("--warcs", "--judge")]
    if len(folders) != 1 or not (folders[0] / formats.PLAN_FILE).is_file():
        sys.exit("usage: tests/example_evidence.py [--warcs] [--judge] RUN_FOLDER")
    if warcs:
        print(f"{write_warcs(folders[0])} WARC(s) written")
    print(f"start's record written: {record_start(folders[0])}")
    if "--judge" in args:
        print(f"{judge(folders[0])} verdict(s) written from the example's checker answer")
    print(f"{seal(folders[0])} file(s) sealed; the copy is {folders[0] / '.web-research' / 'seals.json'}")
