"""Fuzz the hooks through `hooks/run` with every mutation of payload_mutations.py.

    .venv/bin/python tests/fuzz/run_fuzz.py [--only SCENARIO] [--json OUT] [-v]

In a run (real `start` and `briefs`, the run folder and data directory restored
before each call so that no call sees another's state): each mutated payload of a
refused scenario must still be refused. Counted: fail-open (no deny/block), crashes
(a Python exception reached the runner, a non-zero exit or non-JSON output), hangs
(no answer within min(client timeout, 25 s)), oversize output (> 10,000 chars).
With no run anywhere: every mutated payload must be quiet (no output) and fast
(noisy: output, or more than 1 s); a start refused by the hook (output_dir "/") is
counted apart: outside a run a payload the hook cannot read gets no decision, and
start then refuses those arguments itself.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from payload_mutations import HOOK_TIMEOUTS, Harness, build_run, mutations, run_hook, start_scenario  # noqa: E402

SLOW_NO_RUN_SECONDS = 1.0


def _snapshot(h: Harness, keep: Path) -> None:
    for name, folder in (("data", h.data), ("project", h.project), ("transcripts", h.transcripts)):
        shutil.copytree(folder, keep / name, symlinks=True)


def _restore(h: Harness, keep: Path) -> None:
    for name, folder in (("data", h.data), ("project", h.project), ("transcripts", h.transcripts)):
        shutil.rmtree(folder)
        shutil.copytree(keep / name, folder, symlinks=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only")
    parser.add_argument("--json")
    parser.add_argument("-v", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hook-fuzz-"))
    began = time.monotonic()
    load_before = os.getloadavg()
    h, scenarios = build_run(tmp / "run")
    keep = tmp / "pristine"
    _snapshot(h, keep)
    figures: Counter[str] = Counter()
    bad: list[dict[str, object]] = []
    seconds: list[float] = []
    for sc in scenarios:
        if args.only and sc.name != args.only:
            continue
        clean = run_hook(h, sc.event, json.dumps(sc.payload).encode(), "clean")
        assert clean.decision == sc.refusal, (sc.name, clean)
        _restore(h, keep)
        timeout = min(25.0, HOOK_TIMEOUTS[sc.event])
        for label, raw in mutations(sc.payload, tmp / "run"):
            out = run_hook(h, sc.event, raw, label, timeout=timeout)
            _restore(h, keep)
            seconds.append(out.seconds)
            figures["payloads"] += 1
            kinds = [k for k, hit in (("hang", out.hung), ("crash", out.crashed), ("oversize", out.oversize),
                                      ("fail-open", not out.hung and out.decision != sc.refusal)) if hit]
            for kind in kinds:
                figures[kind] += 1
            if kinds:
                bad.append({"scenario": sc.name, "mutation": label, "kinds": kinds, "seconds": round(out.seconds, 2),
                            "stdout": out.stdout[:300], "log": out.new_log[-400:]})
                if args.v:
                    print(sc.name, label, kinds, f"{out.seconds:.2f}s", out.stdout[:160], file=sys.stderr)
    # a refused start with no run anywhere, and every payload of a session with no run
    quiet = Harness(tmp / "norun")
    sc = start_scenario(quiet)
    if not args.only or args.only == sc.name:
        for label, raw in mutations(sc.payload, tmp / "run"):
            out = run_hook(quiet, sc.event, raw, label, timeout=25.0)
            figures["start payloads (no run)"] += 1
            kinds = [k for k, hit in (("hang", out.hung), ("crash", out.crashed), ("oversize", out.oversize),
                                      ("not refused", not out.hung and out.decision != sc.refusal)) if hit]
            for kind in kinds:
                figures[f"start {kind}"] += 1
            if kinds:
                bad.append({"scenario": sc.name, "mutation": label, "kinds": kinds, "seconds": round(out.seconds, 2),
                            "stdout": out.stdout[:300], "log": out.new_log[-400:]})
                if args.v:
                    print(sc.name, label, kinds, f"{out.seconds:.2f}s", out.stdout[:160], file=sys.stderr)
    no_run_seconds: list[float] = []
    for sc in scenarios:
        if args.only and sc.name != args.only:
            continue
        for label, raw in mutations(sc.payload, tmp / "run"):
            out = run_hook(quiet, sc.event, raw, label, timeout=25.0)
            figures["no-run payloads"] += 1
            no_run_seconds.append(out.seconds)
            if out.hung or out.stdout.strip() or out.seconds > SLOW_NO_RUN_SECONDS:
                figures["noisy"] += 1
                bad.append({"scenario": "no-run " + sc.name, "mutation": label, "kinds": ["noisy"],
                            "seconds": round(out.seconds, 2), "stdout": out.stdout[:300]})
                if args.v:
                    print("no-run", sc.name, label, f"{out.seconds:.2f}s", out.stdout[:160], file=sys.stderr)
    no_run_seconds.sort()
    seconds.sort()
    summary = {
        "figures": dict(figures),
        "in-run median s": round(seconds[len(seconds) // 2], 3) if seconds else None,
        "no-run median s": round(no_run_seconds[len(no_run_seconds) // 2], 3) if no_run_seconds else None,
        "no-run max s": round(no_run_seconds[-1], 3) if no_run_seconds else None,
        "wall s": round(time.monotonic() - began, 1),
        "load before": [round(x, 2) for x in load_before],
        "load after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "bad": bad}, indent=1), encoding="utf-8")
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if any(figures[k] for k in ("fail-open", "crash", "hang", "noisy", "oversize", "start hang",
                                         "start crash")) else 0


if __name__ == "__main__":
    sys.exit(main())
