"""The claim-checker's protocol: the prompt it is dispatched with, and its answer read.

What the checker judges and how verdicts add up is the verify rule's (checks/verdicts.py).
This module is what runs the checker: `claims DIR --prompt` prints `render_prompt`'s text
(the report's claims that still need a verdict, numbered, each with its excerpts and each
excerpt's context in its stored page, and the one verdicts file the plugin will write), the PreToolUse hook accepts a checker dispatch
only with that text, and when the checker stops the hooks read its reply (`parse_answer`)
and write the verdicts file (`verdicts_json`), which only the plugin writes.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from .. import formats
from ..checks.absence import AbsenceItem, run_items as run_absence_items
from ..checks.absence import prompt_lines as absence_prompt_lines
from ..checks.claims import ClaimRecord, run_excerpt_contexts
from ..evidence.conditions import Condition, dropped_conditions
from ..evidence.excerpt_context import ExcerptContext
from ..checks.parsed_run import ParsedRun
from ..checks.verdicts import (VerdictFile, decide, judged_records, next_file_number, unique_by_key, verdict_files,
                               verdicts_by_claim)
from ..run.budget import effective_budget
from ..core.clip import clip

ROUND_CHECK = "check"
ROUND_VOTE = "vote"
VERDICTS_LINE = "Recorded by the plugin in: "  # the checker answers in its reply; the hook writes this file
PROMPT_HEAD = "Check each claim below against the excerpts it cites, as your instructions say."


class CheckerPrompt(NamedTuple):
    round: str  # ROUND_CHECK | ROUND_VOTE
    verdicts_path: str  # absolute
    keys: tuple[str, ...]
    text: str

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.text.strip().encode("utf-8")).hexdigest()


def pending(records: Sequence[ClaimRecord], files: Sequence[VerdictFile], voting: bool,
            absences: Sequence[AbsenceItem] = ()) -> tuple[str, list[tuple[str, ClaimRecord | AbsenceItem]]]:
    """(round, items) the next checker judges: claims and statements of absence (checks/absence.py)
    with no verdict yet; else, when voting, those still short of votes; else none."""
    known = verdicts_by_claim(files)
    unique: list[tuple[str, ClaimRecord | AbsenceItem]] = list(unique_by_key(records))
    for item in absences:  # the same statement twice is judged once
        if all(item.key != key for key, _r in unique):
            unique.append((item.key, item))
    unchecked = [(k, r) for k, r in unique if k not in known]
    if unchecked:
        return ROUND_CHECK, unchecked
    short = [(k, r) for k, r in unique if decide(known[k], voting).votes_needed]
    return ROUND_VOTE, short


def render_prompt(run_dir: Path, records: Sequence[ClaimRecord], files: Sequence[VerdictFile],
                  voting: bool,
                  contexts: Callable[[Sequence[tuple[str, str]]], list[ExcerptContext | None]] | None = None,
                  absences: Sequence[AbsenceItem] = ()) -> CheckerPrompt | None:
    """The exact prompt of the next claim-checker, or None when every claim is decided.

    The claims are numbered 1..n and the checker answers by number (`parse_answer`); the
    numbers map to `keys` in order, which the dispatch record keeps, so no model copies a key.
    `contexts([(url, excerpt)])`: each excerpt's context in its stored page (claims.run_excerpt_contexts,
    all at once: one read of each page's structure), shown under it with the conditions around it
    the claim leaves out, so the checker judges the excerpt as its page says it. `absences`: the
    statements of absence, numbered after the claims, each with its closest passages (checks/absence.py)."""
    round_, claims = pending(records, files, voting, absences)
    if not claims:
        return None
    run_dir = Path(run_dir)
    target = run_dir / formats.CHECKS_DIR / f"{formats.VERDICTS_FILE_PREFIX}{next_file_number(files, run_dir)}.json"
    lines = [PROMPT_HEAD, "",
             f"Report: {run_dir / formats.REPORT_FILE}",
             f"{VERDICTS_LINE}{target}",
             f"Round: {round_}" + (" (other checkers found these claims partial or unsupported; judge them afresh)"
                                   if round_ == ROUND_VOTE else ""),
             f"Claims: {len(claims)}", ""]
    pairs = [(url, excerpt) for _key, r in claims if not isinstance(r, AbsenceItem)
             for _footnote, url, excerpt in r.excerpts]
    found = iter(contexts(pairs) if contexts is not None else [None] * len(pairs))
    for number, (_key, r) in enumerate(claims, start=1):
        if isinstance(r, AbsenceItem):
            lines += absence_prompt_lines(number, r)
            continue
        lines.append(f"## Claim {number} (report.md line {r.claim.line})")
        lines.append(f"Claim: {r.claim.text}")
        for footnote, url, excerpt in r.excerpts:
            lines.append(f"Excerpt [^{footnote}] ({url or 'no URL'}): \"{' '.join(excerpt.split())}\"")
            context = next(found)
            if contexts is not None:
                lines += context_lines(context if url else None)
                lines += condition_lines(dropped_conditions(r.claim.text, excerpt, context if url else None))
        lines += computed_lines(r)
        lines.append("")
    lines.append(answer_instruction(len(claims)))
    return CheckerPrompt(round_, str(target), tuple(k for k, _ in claims), "\n".join(lines))


CONTEXT_NAMES = {"heading": "Headings", "notice": "Notice", "term": "Term", "lead_in": "Lead-in",
                 "columns": "Columns", "column": "Column", "row": "Row", "before": "Before",
                 "paragraph": "Paragraph", "sentence": "Sentence", "after": "After"}  # in the order shown
CONDITIONS_LABEL = "Conditions the claim leaves out"
NO_CONTEXT = "  Context: none (no stored page holds this excerpt)"


def context_lines(context: ExcerptContext | None) -> list[str]:
    """The lines that show an excerpt's context under it (each piece only when there is one): the
    headings above it, notices around it, the term it describes, its list's lead-in, its table's
    header row, column and row label, and the paragraph (else the sentence) it stands in between
    the text before and after it."""
    if context is None:
        return [NO_CONTEXT]
    shown = context._asdict()
    if shown["before"] and shown["before"] in (shown["heading"], shown["term"], shown["lead_in"]):
        shown["before"] = None  # the line above is the heading, the term or the lead-in: shown once
    if shown["paragraph"]:
        shown["sentence"] = None  # the paragraph holds it
    return [f"  {label}: \"{shown[name]}\"" for name, label in CONTEXT_NAMES.items() if shown[name]]


def condition_lines(conditions: Sequence[Condition]) -> list[str]:
    """One line naming the page's conditions around the excerpt that the claim does not state."""
    if not conditions:
        return []
    said = "; ".join(", ".join(f"\"{phrase}\"" for phrase in c.phrases) + f" in \"{c.clause}\"" for c in conditions)
    return [f"  {CONDITIONS_LABEL}: {said}"]


COMPUTED_LABEL = "Computed"  # issue 44 (helper F): a figure the claim computes, and from what


def computed_lines(record: ClaimRecord) -> list[str]:
    """A line naming each figure the claim computes from its excerpts' figures, and the arithmetic
    the figure rule checked (checks/figure_arithmetic.py): the checker judges whether the claim
    means that computation (which figure came first, of what the share is)."""
    derived = record.grounding.derived
    return [f"{COMPUTED_LABEL}: {'; '.join(derived)}"] if derived else []


def answer_instruction(count: int) -> str:
    """The prompt's last lines: the answer format, one line per claim number."""
    shown = "\n".join(f"{n} {formats.VERDICT_SUPPORTED}: <one-line reason>" for n in range(1, min(count, 2) + 1))
    return (f"Reply with one line per claim, 1 to {count}: its number, its verdict "
            f"({' | '.join(formats.VERDICTS)}), a colon and a one-line reason. Nothing else, for example:\n{shown}")


# One answer line: `3 partial: reason`, `Claim 3: **unsupported** - reason`, `| 3 | supported | reason |`.
_ANSWER_LINE = re.compile(
    r"^[\s>*_|#-]*(?:claim\s*)?#?\s*(\d{1,4})\s*[).:\-\u2013\u2014|]*\s*[*_`]*\s*(" + "|".join(formats.VERDICTS)
    + r")\b[*_`]*\s*[:\-\u2013\u2014|,.]*\s*(.*?)[\s|]*$", re.IGNORECASE)
NO_REASON = "no reason given"


def parse_answer(text: str, keys: Sequence[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """A checker's reply -> ([(key, verdict, reason)] in claim order, problems).

    One line per claim, `<number> <verdict>: <reason>`, read leniently (bullets, bold, a
    `Claim` word, a table row, any text around the lines), and in no other form: the reply is
    hostile (it read the pages' excerpts), so nothing in it, a JSON object of verdicts quoted in
    a reason least of all, stands in for its numbered lines. Quotes inside a reason are just
    characters. Problems: claims without a verdict, numbers the prompt does not have, a claim
    judged twice two different ways."""
    count = len(keys)
    found: dict[int, tuple[str, str]] = {}
    problems: list[str] = []
    for number, verdict, reason in _answer_items(text):
        if not 1 <= number <= count:
            problems.append(f"there is no claim {number}; the claims are numbered 1 to {count}")
            continue
        if number in found and found[number][0] != verdict:
            problems.append(f"claim {number} is judged twice, {found[number][0]} and {verdict}; give it one verdict")
            continue
        found.setdefault(number, (verdict, _one_line(reason)))
    missing = [str(n) for n in range(1, count + 1) if n not in found]
    if missing:
        problems.insert(0, f"no verdict for claim(s) {', '.join(missing)}")
    return [(keys[n - 1], v, r) for n, (v, r) in sorted(found.items())], problems


def _one_line(reason: str) -> str:
    text = " ".join(str(reason).split()) or NO_REASON
    limit = formats.MAX_VERDICT_REASON_CHARS
    return clip(text, limit)


def _answer_items(text: str) -> list[tuple[int, str, str]]:
    out = []
    for line in str(text).splitlines()[:2000]:
        match = _ANSWER_LINE.match(line)
        if match:
            out.append((int(match.group(1)), match.group(2).lower(), match.group(3)))
    return out


def verdicts_json(verdicts: Sequence[tuple[str, str, str]]) -> str:
    """The verdicts file the plugin writes from a checker's answer (schemas/verdicts.schema.json)."""
    return json.dumps({"verdicts": [{"claim": k, "verdict": v, "reason": r} for k, v, r in verdicts]},
                      ensure_ascii=False, indent=1) + "\n"


def verdicts_path_of(prompt: str) -> str | None:
    """The verdicts file a rendered prompt names."""
    for line in prompt.splitlines()[:8]:
        if line.startswith(VERDICTS_LINE):
            return line[len(VERDICTS_LINE):].strip()
    return None


def prompt_for_run(run_dir: Path, parsed: ParsedRun) -> tuple[CheckerPrompt | None, str]:
    """(the next checker's prompt, or None and why none) for a run folder, given the run as
    `checklist.parse_and_check(run_dir, extra=())` read it (the caller has parsed it already)."""
    if parsed.plan is None:
        problem = parsed.unreadable.get(Path(run_dir) / formats.PLAN_FILE)
        return None, (f"{formats.PLAN_FILE} {problem.reason}" if problem is not None
                      else f"{formats.PLAN_FILE} is missing or does not parse; run verify")
    budget = effective_budget(parsed.plan)
    if parsed.report is None:
        problem = parsed.unreadable.get(Path(run_dir) / formats.REPORT_FILE)
        return None, (f"{formats.REPORT_FILE} {problem.reason}" if problem is not None
                      else f"{formats.REPORT_FILE} is missing; write it first")
    prompt = render_prompt(Path(run_dir), judged_records(parsed), verdict_files(Path(run_dir)), budget.voting,
                           run_excerpt_contexts(parsed), run_absence_items(parsed)[0])
    if prompt is None:
        if not budget.claim_check:
            tier = f"tier {budget.tier}" if budget.tier else "no Tier: line"
            return None, (f"this run's plan ({tier}) judges no cited claim, and every statement of absence of "
                          f"{formats.REPORT_FILE} has a current verdict")
        return None, "every cited claim and statement of absence of report.md has a current verdict"
    return prompt, ""
