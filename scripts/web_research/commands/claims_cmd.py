"""`web-research claims DIR [--json | --prompt]`: list every cited claim and its grounding.

One stanza per claim of report.md and of each findings file: file:line, the
claim hash, its footnotes and the verdict of the figures rule, then the claim
text and each cited excerpt with its URL. Mechanical on purpose: it is the
input of the claim checker. `--json` also lists report.md's statements of
absence (`absences`: each with the passages shown against it and its state,
verdicts.absence_states).

`--prompt` prints exactly the prompt of the next `claim-checker` agent
(report/claim_checker.py): the report's claims that still need a verdict and
the one verdicts file the checker writes. The hooks accept a checker only with
that text. When no checker is needed it prints nothing and says why on stderr.
Exit 0 once listed (use `verify` to gate), 2 when the folder is not a run
(`verify_cmd.open_run_dir`) or one of its files exists but cannot be read (too large,
not UTF-8, a link, ...: the reasons verify gives), named on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterable, Mapping

from ..exitcodes import EXIT_OK, EXIT_USAGE
from ..formats import PLAN_FILE, REPORT_FILE
from .verify_cmd import display_path, open_run_dir
from ..checks.checklist import parse_and_check
from ..checks.claims import ClaimRecord, footnote_list, run_claims
from ..checks.verdicts import absence_states, check_key
from ..report.claim_checker import prompt_for_run


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "claims")
    if run_dir is None:
        return EXIT_USAGE
    if getattr(args, "prompt", False):
        return _prompt(args, run_dir)
    try:
        parsed, _checks = parse_and_check(run_dir, extra=())
        if _unusable(parsed):
            return EXIT_USAGE
        records = run_claims(parsed)
    except BrokenPipeError:
        raise
    except OSError as exc:
        print(f"web-research claims: {args.dir}: cannot read the run ({exc})", file=sys.stderr)
        return EXIT_USAGE
    shown = {r.path: display_path(str(r.path)) for r in records}
    if args.json:
        payload = {"output_dir": str(run_dir),
                   "claims": [{**r.as_dict(shown[r.path]), "check": check_key(r)} for r in records],
                   "absences": absence_states(run_dir, parsed, display_path(str(run_dir / REPORT_FILE)))}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        absences = absence_states(run_dir, parsed, display_path(str(run_dir / REPORT_FILE)))
        if records or absences:
            print("\n".join(filter(None, [render_text(records, shown), render_absences(absences)])))
    return EXIT_OK


def _prompt(args: argparse.Namespace, run_dir) -> int:
    if args.json:
        print("web-research claims: --prompt prints text; drop --json", file=sys.stderr)
        return EXIT_USAGE
    try:
        parsed, _checks = parse_and_check(run_dir, extra=())
        if _unusable(parsed, only=(run_dir / PLAN_FILE, run_dir / REPORT_FILE)):  # the prompt needs no findings
            return EXIT_USAGE
        prompt, why = prompt_for_run(run_dir, parsed)
    except BrokenPipeError:  # printing the reasons above: cli.main ends quietly
        raise
    except OSError as exc:
        print(f"web-research claims: {args.dir}: cannot read the run ({exc})", file=sys.stderr)
        return EXIT_USAGE
    if prompt is None:
        print(f"web-research claims: no claim-checker to dispatch: {why}.", file=sys.stderr)
        return EXIT_OK
    print(prompt.text)
    return EXIT_OK


def _unusable(parsed, only: tuple | None = None) -> bool:
    """Say on stderr which of the run's files (of `only`, when given) exist but cannot be read
    (the reasons verify gives), and whether there was any: claims drawn from part of a run
    would look complete."""
    found = [(path, error) for path, error in parsed.unreadable.items() if only is None or path in only]
    for path, error in found:
        print(f"web-research claims: {display_path(str(path))}: {error.reason}; its claims cannot be read",
              file=sys.stderr)
    return bool(found)


def render_absences(absences: Iterable[Mapping]) -> str:
    """report.md's statements of absence, one stanza each: file:line, key, state, the statement and
    the passages shown against it."""
    out = []
    for a in absences:
        out.append(f"{a['file']}:{a['line']} {a['check']} absence {a['state']}"
                   + (f" ({a['reason']})" if a.get("reason") else ""))
        out.append(f"  statement: {a['text']}")
        for n, p in enumerate(a["passages"], start=1):
            out.append(f"  passage {n} {p['url']} \"{p['text']}\"")
    return "\n".join(out)


def render_text(records: Iterable[ClaimRecord], display: Mapping[Path, str]) -> str:
    """The compact, line-oriented listing of `web-research claims` (one stanza per claim)."""
    out = []
    for r in records:
        g = r.grounding
        verdict = "unchecked" if not g.checked else ("grounded" if g.ok else "UNGROUNDED")
        line = f"{display.get(r.path, str(r.path))}:{r.claim.line} {r.claim.hash} {footnote_list(r.claim.footnotes)} {verdict}"
        if g.missing:
            line += " missing=" + "|".join(q.text for q in g.missing)
        if r.excerpts:
            line += f" sites={len(r.sites)}"
        out.append(line)
        out.append(f"  claim: {r.claim.text}")
        for n, url, excerpt in r.excerpts:
            out.append(f"  [^{n}] {url or '-'} \"{' '.join(excerpt.split())}\"")
    return "\n".join(out)
