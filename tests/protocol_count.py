"""Count what a run asks of its models: the "before -> after" table of the move from
numbered footnotes to references.

    .venv/bin/python tests/protocol_count.py [--rev REV] [--protocol numbered|references] [--json]
    .venv/bin/python tests/protocol_count.py --turns [--rev REV] [--json]

A walk is a list of the tool calls a model makes when it follows the prompts on a
standard run (3 subtopics, review gate on, one fix round, one claim check) and on a
deep run (the same plus a second wave of 3 subtopics and two voting checkers). The
walks are written down below, step by step, for the protocol before
(`numbered`: the orchestrator writes `[^n]` footnotes and the Sources section, and
dispatches prompts it copies) and after (`references`: `[^slug:n]` references,
`Brief: <path>` / `Check: <dir>` dispatch, `finish` writes Sources and the return).
The sizes come from the bundled example run (its question, briefs, findings and
report) with a typical absolute run folder, and the prompt files are read at `--rev`
(default: the working tree), so the same walk is counted the same way on two commits.

What is counted, per model:
- tool calls: every tool call of the walk;
- exact-format demands: each shape the prompts it reads require character for
  character (a command line, a file layout, a JSON object, a prompt line); the list
  names the prompt text that makes the demand, and the count fails when that text
  is not in the prompts at `--rev` (so a demand cannot be listed that is not there);
- values copied verbatim: distinct strings taken from a tool result (or a prompt) and
  retyped into a tool call or a file, with their occurrences and total characters;
- output tokens re-emitted: the characters of every copied occurrence / 4;
- instruction tokens: the characters of the prompt files the model reads on the
  walk (for the orchestrator SKILL.md and the references the walk follows; for a
  researcher its agent file and one rendered brief; for the checker its agent file
  and the prompt of the example's claims) / 4.

`--turns` counts what a run costs in model turns and tokens, per role (issue 29). Every
turn re-sends the whole conversation, so a turn's input is the client's own part, the
instructions and everything emitted and returned before it; its output is what the model
emits (tool inputs, file contents, its reply). The walks are the references protocol's,
turned into messages as the prompts at `--rev` allow: a researcher that may send several
searches or page reads in one message does (two at a time); one that writes its findings
file writes it (and a checkpoint, while its agent file asks for one) and then replies a line;
one whose reply is its findings replies them. The researcher reads 3 pages and runs 4
searches (the issue's measure: a standard run's researcher, 3 pages read). Sizes: the example
run's files, fetch's default window (8,000 characters and its header), and the assumptions
named below (CLIENT_TOKENS and the result sizes), the same on both sides of a comparison.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from web_research.checks.citation_entries import parse_citations  # noqa: E402
from web_research.core.slug import slugify  # noqa: E402
from web_research.formats import DISPATCH_BRIEF_PROMPT, DISPATCH_CHECK_PROMPT, dispatch_call  # noqa: E402

EXAMPLE = ROOT / "examples" / "observability-pricing"
QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
RUN_DIR = "/home/user/project/.beagle/research/2026-04-18-" + slugify(QUESTION)
HASH_LINE = "Brief hash: sha256:" + "0" * 64
CHECK_KEY = "0" * 16


def read_at(rev: str | None, rel: str) -> str:
    """A prompt file at `rev` (a git revision) or in the working tree; '' when absent."""
    if rev is None:
        path = ROOT / rel
        return path.read_text(encoding="utf-8") if path.exists() else ""
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{rel}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


# --- the example's sizes ------------------------------------------------------------------------

def example_sizes() -> dict:
    report = (EXAMPLE / "report.md").read_text(encoding="utf-8")
    cites = parse_citations(report)
    fields = [v for c in cites for v in c.fields.values()]
    briefs = sorted((EXAMPLE / "briefs").glob("*.md"))
    findings = sorted((EXAMPLE / "findings").glob("*.md"))
    per_finding_sources = [len(parse_citations(f.read_text(encoding="utf-8"))) for f in findings]
    finding_fields = [v for f in findings for c in parse_citations(f.read_text(encoding="utf-8"))
                      for v in c.fields.values()]
    claims = report.count("[^")  - len(cites)  # markers in prose
    return {
        "run_dir": RUN_DIR,
        "plan": RUN_DIR + "/plan.md", "report": RUN_DIR + "/report.md", "findings_dir": RUN_DIR + "/findings/",
        "brief_paths": [f"{RUN_DIR}/briefs/{b.name}" for b in briefs],
        "findings_paths": [f"{RUN_DIR}/findings/{f.name}" for f in findings],
        "prompts": [b.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + HASH_LINE for b in briefs],
        "subtopics": [b.stem.replace("-", " ").capitalize() for b in briefs],
        "citation_fields": fields, "finding_fields": finding_fields,
        "sources_per_finding": per_finding_sources, "markers": claims, "report_claims": 9,
        "brief_text": briefs[0].read_text(encoding="utf-8"),
    }


def checker_prompt(sizes: dict) -> str:
    """A claim-checker prompt of the example's size: one stanza per cited claim."""
    from web_research.report.claim_checker import PROMPT_HEAD  # noqa: PLC0415
    stanza = f"## Claim {CHECK_KEY} (report.md line 12)\nClaim: " + "x" * 160 + "\n" + \
        'Excerpt [^1] (https://docs.acme.example/logs/pricing): "' + "y" * 110 + '"\n'
    return PROMPT_HEAD + "\n" + stanza * sizes["report_claims"]


# --- the walks ------------------------------------------------------------------------------------
# A step: (tool, calls, [(value name, value, occurrences)]). Values are retyped by the model.

def orchestrator_walk(protocol: str, deep: bool, s: dict) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    run, n = s["run_dir"], len(s["prompts"])
    claims_prompt = checker_prompt(s)
    final = json.dumps({"plan": s["plan"], "report": s["report"], "findings_dir": s["findings_dir"]})
    steps: list[tuple[str, int, list[tuple[str, str, int]]]] = [("ToolSearch", 1, []), ("Bash start", 1, [])]
    if protocol == "numbered":
        steps += [("Write plan", 1, [("plan path", s["plan"], 1), ("question", QUESTION, 1), ("tier", "standard", 1)]),
                  ("Bash estimate", 1, [("run dir", run, 1)]),
                  ("Bash briefs", 1, [("run dir", run, 1)]),
                  ("Agent researcher", n, [(f"prompt {i}", p, 1) for i, p in enumerate(s["prompts"])]
                   + [(f"subtopic {i}", t, 1) for i, t in enumerate(s["subtopics"])]),
                  ("Bash status", 1, [("run dir", run, 1)]),
                  ("Bash gaps", 1, [("run dir", run, 1)]),
                  ("Read findings", n, [(f"findings path {i}", p, 1) for i, p in enumerate(s["findings_paths"])]),
                  ("Write report", 1, [("report path", s["report"], 1), ("question", QUESTION, 1)]
                   + [(f"citation field {i}", v, 1) for i, v in enumerate(s["citation_fields"])]),
                  ("Bash verify", 1, [("run dir", run, 1)]),
                  ("Edit report (fix round)", 1, [("report path", s["report"], 1)]),
                  ("Bash verify", 1, [("run dir", run, 1)]),
                  ("Bash claims --prompt", 1, [("run dir", run, 1)]),
                  ("Agent claim-checker", 1, [("claims prompt", claims_prompt, 1)]),
                  ("Bash claims --prompt", 1, [("run dir", run, 1)]),
                  ("Bash verify", 1, [("run dir", run, 1)]),
                  ("final message", 0, [("plan path", s["plan"], 1), ("report path", s["report"], 1),
                                        ("findings dir", s["findings_dir"], 1)])]
        if deep:
            wave_ids = [(f"bullet id {i}", f"{i}.1", 1) for i in range(1, 4)]
            steps += [("Write plan (second wave)", 1, [("plan path", s["plan"], 1)] + wave_ids),
                      ("Bash briefs", 1, [("run dir", run, 1)]),
                      ("Agent researcher (wave 2)", 3, [(f"prompt w2 {i}", p, 1) for i, p in enumerate(s["prompts"])]
                       + [(f"subtopic w2 {i}", t, 1) for i, t in enumerate(s["subtopics"])]),
                      ("Bash status", 1, [("run dir", run, 1)]), ("Bash gaps", 1, [("run dir", run, 1)]),
                      ("Read findings (wave 2)", 3, [(f"findings path w2 {i}", p + "-2", 1) for i, p in enumerate(s["findings_paths"])]),
                      ("Bash claims --prompt (vote)", 2, [("run dir", run, 1)]),
                      ("Agent claim-checker (vote)", 2, [("vote prompt 1", claims_prompt[:900], 1),
                                                         ("vote prompt 2", claims_prompt[:901], 1)])]
        return steps
    steps += [("Write plan", 1, [("plan path", s["plan"], 1)]),
              ("Bash estimate", 1, [("run dir", run, 1)]),
              ("Bash briefs", 1, [("run dir", run, 1)]),
              ("Agent researcher", n, [(f"brief path {i}", p, 1) for i, p in enumerate(s["brief_paths"])]),
              ("Bash briefs (any researcher that did not finish?)", 1, [("run dir", run, 1)]),
              ("Bash gaps", 1, [("run dir", run, 1)]),
              ("Read findings", n, [(f"findings path {i}", p, 1) for i, p in enumerate(s["findings_paths"])]),
              ("Write report", 1, [("report path", s["report"], 1)]),
              ("Bash finish", 1, [("run dir", run, 1)]),
              ("Agent claim-checker", 1, [("run dir", run, 1)]),
              ("Bash finish", 1, [("run dir", run, 1)]),
              ("Edit report (fix round)", 1, [("report path", s["report"], 1)]),
              ("Bash finish", 1, [("run dir", run, 1)]),
              ("final message", 0, [("finish's JSON", final, 1)])]
    if deep:
        steps += [("Write plan (second wave)", 1, [("plan path", s["plan"], 1)] + [(f"bullet id {i}", f"{i}.1", 1) for i in range(1, 4)]),
                  ("Bash briefs", 1, [("run dir", run, 1)]),
                  ("Agent researcher (wave 2)", 3, [(f"brief path w2 {i}", p + "-2", 1) for i, p in enumerate(s["brief_paths"])]),
                  ("Bash briefs (any researcher that did not finish?)", 1, [("run dir", run, 1)]),
                  ("Bash gaps", 1, [("run dir", run, 1)]),
                  ("Read findings (wave 2)", 3, [(f"findings path w2 {i}", p + "-2", 1) for i, p in enumerate(s["findings_paths"])]),
                  ("Agent claim-checker (vote)", 2, [("run dir", run, 1)]),
                  ("Bash finish", 2, [("run dir", run, 1)])]
    return steps


def researcher_walk(s: dict, rev: str | None) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    """One researcher of the example (3 sources, 5 searches, 4 page reads), as its prompts at `rev`
    ask: a stub write first and the brief hash copied only while they still say so."""
    run = s["run_dir"]
    brief, agent = read_at(rev, REF + "subagent-brief.md"), read_at(rev, "agents/researcher.md")
    copies_hash = 'the value on the "Brief hash:" line' in brief
    writes_stub = "Your first action is to write the findings file" in " ".join(agent.split())
    fields = s["finding_fields"][: len(s["finding_fields"]) // 2]  # one findings file's entries
    head = [("findings path", s["findings_paths"][0], 1)]
    if copies_hash:
        head += [("brief hash", HASH_LINE[12:], 1), ("subtopic", s["subtopics"][0], 1),
                 ("started_at", "2026-04-18T09:02:11Z", 1), ("finished_at", "2026-04-18T09:09:47Z", 1)]
    steps = [("WebSearch", 5, []), ("Bash fetch", 4, [("run dir", run, 4)])]
    if writes_stub:
        steps.append(("Write stub", 1, head[:3]))
    steps += [("Write findings", 1, head + [(f"source field {i}", v, 1) for i, v in enumerate(fields)]),
              ("reply", 0, [("findings path", s["findings_paths"][0], 1)])]
    return steps


def checker_walk(s: dict, rev: str | None) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    """The checker as its agent file at `rev` asks: a verdicts file with each claim's key copied,
    or (answering by number) one reply line per claim, nothing copied."""
    verdicts = s["run_dir"] + "/checks/verdicts-1.json"
    if "each key copied exactly" in " ".join(read_at(rev, "agents/claim-checker.md").split()):
        keys = [(f"claim key {i}", f"{i:016x}", 1) for i in range(s["report_claims"])]
        return [("Write verdicts", 1, [("verdicts path", verdicts, 1)] + keys),
                ("reply", 0, [("verdicts path", verdicts, 1)])]
    return [("reply: one line per claim number", 0, [])]


# --- exact-format demands: (what, prompt file, text that makes the demand) -----------------------

# (what, prompt file, text that makes the demand, strict): strict when a deviation is refused or fails
# a check; not strict when code tolerates it (a hook that rewrites a near-miss, a check that reads
# only the words, not the shape).
SKILL = "skills/web-research/SKILL.md"
REF = "skills/web-research/references/"
DEMANDS = {
    "numbered": {
        "orchestrator": [
            ("error JSON for missing web tools", SKILL, '"web-tools-unavailable"', True),
            ("start command with heredoc", SKILL, "start --args-file -", True),
            ("plan.md layout", SKILL, "Write the file at `plan` in exactly this shape", True),
            ("Budget lines", SKILL, "Researchers: 3", True),
            ("estimate/briefs/status/gaps/verify command lines", SKILL, '" estimate "<output_dir>"', True),
            ("researcher Agent call fields", SKILL, "`subagent_type`: `web-research:researcher`", True),
            ("researcher prompt unchanged", SKILL, "never retyped, shortened or extended", True),
            ("report skeleton and headings", REF + "report-template.md", "keep the headings character for character",
             True),
            ("citation entry layout", REF + "citation-schema.md", "Layout: the entry starts at the left margin", True),
            ("footnote numbering by first use", SKILL, "number footnotes globally", True),
            ("Gaps bullet shape", REF + "report-template.md", "**Subtopic \"<name>\"**", False),
            ("bullet id label", REF + "report-template.md", "Write an id as a leading", False),
            ("claim-checker prompt unchanged", SKILL, "the command's whole output, unchanged", True),
            ("final JSON object", SKILL, "exactly one JSON object", True),
        ],
        "researcher": [
            ("frontmatter fields", REF + "subagent-brief.md", "Start it with this YAML frontmatter", True),
            ("brief hash copied", REF + "subagent-brief.md", 'the value on the "Brief hash:" line', True),
            ("fetch command line", REF + "subagent-brief.md", 'fetch "<url>" --run', True),
            ("findings body sections", REF + "subagent-brief.md", "these sections in this order", False),
            ("### <id> headings", REF + "subagent-brief.md", "### <a point under Establish", True),
            ("citation entry layout", REF + "subagent-brief.md", "[^1]: **Title**", True),
            ("reply line", REF + "subagent-brief.md", "reply with exactly this one line", False),
        ],
        "checker": [
            ("verdicts JSON", "agents/claim-checker.md", '{"verdicts": [{"claim": "<key>"', True),
            ("claim keys copied", "agents/claim-checker.md", "each key copied exactly", True),
            ("reply", "agents/claim-checker.md", "reply with the file's path", False),
        ],
    },
    "references": {
        "orchestrator": [
            # every command line is one shape: unavailable, the start heredoc, estimate, briefs, gaps,
            # finish, abandon (the error JSON is printed by `unavailable`, no longer typed)
            ("command lines, the start heredoc among them", SKILL,
             ("Run its command lines exactly as shown", "start --args-file -", '" unavailable WebSearch',
              '" finish "<output_dir>"'), True),
            ("subtopic heading and bullets in plan.md", SKILL, "each a `### <name>` heading and `- ` bullets", True),
            # the hook sets subagent_type and run_in_background from the prompt's form
            ("Agent call: description and prompt Brief: <brief_path> or Check: <output_dir>", SKILL,
             (dispatch_call(DISPATCH_BRIEF_PROMPT), dispatch_call(DISPATCH_CHECK_PROMPT)), False),
            ("report skeleton and headings", REF + "report-template.md", "keep the headings character for character",
             True),
            ("reference [^<subtopic-slug>:<n>]", SKILL, "[^<subtopic-slug>:<n>]", True),
            ("final message is the printed object (finish's, or an error)", SKILL,
             "your final message is that object, unchanged", False),
        ],
        "checker": [
            ("one reply line per claim number", "agents/claim-checker.md", "one line per claim number", True),
        ],
    },
}


# Demands the references protocol moved into code: their text must be gone from the prompts, so a
# demand cannot leave the count while the prompts still make it.
RETIRED = [
    ("error JSON typed by the model", SKILL, '{"error": "web-tools-unavailable"'),
    ("Agent call field subagent_type", SKILL, "`subagent_type`"),
    ("Agent call field run_in_background", SKILL, "`run_in_background`"),
    ("Gaps bullet shapes the model writes", REF + "report-template.md", "in the shapes above"),
    ("Gaps bullet of a failed subtopic in SKILL.md", SKILL, "**Subtopic"),
]


def demands(protocol: str, model: str, rev: str | None) -> list[tuple[str, bool]]:
    """(demand, strict) for a model; the researcher's and the checker's come from the helper that
    owns their prompts: when the list below has none for this protocol, they are read from the
    prompts as the numbered protocol's list with the anchors still present."""
    table = DEMANDS[protocol].get(model)
    if model != "orchestrator":  # the researcher's and checker's prompts: the demands still made at `rev`
        candidates = DEMANDS["numbered"][model] + DEMANDS["references"].get(model, [])
        table = [d for d in candidates if _present(rev, d[1], d[2])]
        return [(what, strict) for what, _, _, strict in table]
    missing = [what for what, rel, anchor, _ in table if not _present(rev, rel, anchor)]
    if missing:
        raise SystemExit(f"protocol_count: the prompts at {rev or 'the working tree'} no longer make these "
                         f"{model} demands (update the list): {missing}")
    if protocol == "references":
        still = [what for what, rel, anchor in RETIRED if _present(rev, rel, anchor)]
        if still:
            raise SystemExit(f"protocol_count: the prompts at {rev or 'the working tree'} still make these "
                             f"demands the references protocol moved into code (list them again): {still}")
    return [(what, strict) for what, _, _, strict in table]


def _present(rev: str | None, rel: str, anchor: str | tuple[str, ...]) -> bool:
    """Whether the prompt file holds the anchor (every one of a tuple), whitespace folded."""
    text = " ".join(read_at(rev, rel).split())
    return all(" ".join(a.split()) in text for a in ((anchor,) if isinstance(anchor, str) else anchor))


# --- instruction files the walk reads -------------------------------------------------------------

ORCHESTRATOR_READS = {
    False: ["skills/web-research/SKILL.md", "skills/web-research/references/report-template.md",
            "skills/web-research/references/citation-schema.md", "skills/web-research/references/failure-modes.md"],
    True: ["skills/web-research/references/second-wave.md"],
}


# The orchestrator's standard-run instructions as issue 42 measured them (33,660 characters at
# 09cf003): SKILL.md and the references a standard run may open, by characters (Python `len`).
# Second wave, resume and the companion contract belong to other paths and are not counted.
STANDARD_RUN_INSTRUCTIONS = [SKILL] + [REF + name for name in (
    "budget-tiers.md", "citation-schema.md", "clarifying-questions.md", "failure-modes.md", "report-template.md")]
MAX_STANDARD_RUN_INSTRUCTION_CHARS = 25_000  # issue 42: when you add a sentence there, take one out


def standard_run_instruction_chars(rev: str | None) -> dict[str, int]:
    """Characters of each file of the standard run's instructions at `rev`, and their total."""
    sizes = {rel: len(read_at(rev, rel)) for rel in STANDARD_RUN_INSTRUCTIONS}
    return {**sizes, "total": sum(sizes.values())}


def count(protocol: str, rev: str | None) -> dict:
    s = example_sizes()
    out: dict = {}
    for run_name, deep in (("standard", False), ("deep", True)):
        steps = orchestrator_walk(protocol, deep, s)
        reads = ORCHESTRATOR_READS[False] + (ORCHESTRATOR_READS[True] if deep else [])
        if protocol == "references":
            reads = [r for r in reads if r != "skills/web-research/references/citation-schema.md"]
        out[run_name] = tally(steps, sum(len(read_at(rev, r)) for r in reads),
                              demands(protocol, "orchestrator", rev))
    brief = s["brief_text"] + ("\n\n" + HASH_LINE if protocol == "numbered" else "")
    out["researcher"] = tally(researcher_walk(s, rev), len(read_at(rev, "agents/researcher.md")) + len(brief),
                              demands(protocol, "researcher", rev))
    out["checker"] = tally(checker_walk(s, rev), len(read_at(rev, "agents/claim-checker.md"))
                           + len(checker_prompt(s)), demands(protocol, "checker", rev))
    return out


def tally(steps, instruction_chars: int, demand_list: list[tuple[str, bool]]) -> dict:
    distinct: dict[str, str] = {}
    occurrences = 0
    chars = 0
    for _tool, _calls, values in steps:
        for name, value, times in values:
            distinct.setdefault(name + "\0" + value, value)
            occurrences += times
            chars += len(value) * times
    longest = max((len(v) for v in distinct.values()), default=0)
    return {"tool_calls": sum(c for _, c, _ in steps), "exact_format_demands": len(demand_list),
            "strict_demands": sum(1 for _, strict in demand_list if strict),
            "values_copied": len(distinct), "copies": occurrences, "copied_chars": chars,
            "longest_copied": longest, "output_tokens_reemitted": chars // 4,
            "instruction_tokens": instruction_chars // 4, "demands": [what for what, _ in demand_list]}


# --- turns and tokens ------------------------------------------------------------------------------
# Assumptions (the same for every revision compared): the pinned client's own part of each
# request (its system prompt and tool schemas), and the size of what a tool returns.
CLIENT_TOKENS = 5_000
SEARCH_RESULT_CHARS = 3_000  # a WebSearch result: about ten titles, URLs and snippets
FETCH_RESULT_CHARS = 8_000 + 400  # fetch's default window (--max-chars 8000) and its header
BASH_RESULT_CHARS = 600  # one of the orchestrator's commands: a JSON object or a list of checks
CALL_CHARS = 200  # one tool call's input as the model emits it (a query, a command line, a path)
RETURN_FRAME_CHARS = 600  # the client's frame around a subagent's reply in the Agent result
PARALLEL_ANCHOR = "Send several searches, or several page reads, in one message"
REPLY_ANCHOR = "your final reply is your findings"
RESULTS_ANCHOR = "read no findings file"  # SKILL.md: the report is written from the researchers' results
HOOKS_ANCHOR = "the plugin tells you each next step"  # SKILL.md: the hooks run the commands only read (issue 38)
DEFERRED_ANCHOR = "named in the list of deferred tools"  # SKILL.md: web search availability needs no ToolSearch
ONE_MESSAGE_FIX_ANCHOR = "make every fix and run `finish` in one message"
# SKILL.md: finish's answer quotes each failing line as report.md holds it, and the Edits are written
# from it (issue 42). Without it the model Reads report.md before the fix (finish renumbered it): a turn.
NO_READ_ANCHOR = "write your edits from them, with no read"
QUOTED_LINES_CHARS = 2 * 220  # the two failing lines finish's answer quotes in the walk's fix round
# Commands whose output the hooks give as context on the turn before (HOOKS_ANCHOR): the turn is saved.
HOOKED = ("Bash estimate", "Bash gaps", "Bash briefs (any researcher that did not finish?)")

# A turn: (what, calls, characters emitted, characters returned).
Turn = tuple[str, int, int, int]


def _folded(text: str) -> str:
    return " ".join(text.split()).lower()


def _agent_tools(text: str) -> set[str]:
    line = next((row for row in text.splitlines() if row.startswith("tools:")), "tools:")
    return {t.strip() for t in line.split(":", 1)[1].split(",") if t.strip()}


def researcher_turns(s: dict, rev: str | None) -> list[Turn]:
    """The researcher's messages on the standard walk (4 searches, 3 page reads), as its prompts at
    `rev` ask: two calls to a message where the brief invites it, else one; then its findings
    (written, with a checkpoint while the agent file asks for one, then a reply line; or replied)."""
    brief, agent = read_at(rev, REF + "subagent-brief.md"), read_at(rev, "agents/researcher.md")
    findings = len((EXAMPLE / "findings").glob("*.md").__next__().read_text(encoding="utf-8"))
    calls = [("WebSearch", SEARCH_RESULT_CHARS)] * 2 + [("fetch", FETCH_RESULT_CHARS)] * 2 \
        + [("WebSearch", SEARCH_RESULT_CHARS)] * 2 + [("fetch", FETCH_RESULT_CHARS)]
    per_message = 2 if _folded(PARALLEL_ANCHOR) in _folded(brief) else 1
    turns: list[Turn] = []
    index = 0
    while index < len(calls):
        tool = calls[index][0]
        group = [c for c in calls[index:index + per_message] if c[0] == tool]
        turns.append((f"{len(group)} {tool}", len(group), CALL_CHARS * len(group), sum(r for _, r in group)))
        index += len(group)
    if "Write" in _agent_tools(agent):
        if "checkpoint" in agent.lower():
            turns.append(("Write checkpoint", 1, findings, 100))
        turns += [("Write findings", 1, findings, 100), ("reply line", 0, 120, 0)]
    else:
        turns.append(("reply: the findings", 0, findings, 0))
    return turns


def orchestrator_turns(deep: bool, s: dict, rev: str | None) -> list[Turn]:
    """The orchestrator's messages on the references walk: one per step, the researchers of a wave
    in one message; what a researcher returns is a line, or its findings where they are its reply.
    The findings files are read, one per message, unless SKILL.md at `rev` has the report written
    from the researchers' results."""
    n = len(s["prompts"])
    findings = [len(f.read_text(encoding="utf-8")) for f in sorted((EXAMPLE / "findings").glob("*.md"))]
    replied = REPLY_ANCHOR in _folded(read_at(rev, REF + "subagent-brief.md"))
    from_results = replied and RESULTS_ANCHOR in _folded(read_at(rev, "skills/web-research/SKILL.md"))
    returned = sum(findings) + n * RETURN_FRAME_CHARS if replied else n * (150 + RETURN_FRAME_CHARS)
    report = len((EXAMPLE / "report.md").read_text(encoding="utf-8"))
    skill = _folded(read_at(rev, "skills/web-research/SKILL.md"))
    hooked, deferred = HOOKS_ANCHOR in skill, DEFERRED_ANCHOR in skill
    one_message_fix = ONE_MESSAGE_FIX_ANCHOR in skill
    no_read = NO_READ_ANCHOR in skill
    out: list[Turn] = []
    for name, calls, _values in orchestrator_walk("references", deep, s):
        if name == "ToolSearch" and deferred:
            continue
        if name.startswith("Edit report") and no_read:  # the failing lines came quoted in finish's answer
            what, n_calls, emitted, returned = out[-1]
            out[-1] = (what, n_calls, emitted, returned + QUOTED_LINES_CHARS)
        elif name.startswith("Edit report"):  # finish rewrote report.md: Read it before the Edit
            out.append(("Read report.md (finish renumbered it)", 1, CALL_CHARS, report + report // 10))
        if hooked and out and (name in HOOKED or (name == "Bash finish" and not out[-1][0].startswith("Edit"))):
            what, n_calls, emitted, returned = out[-1]  # the hook's answer follows that turn's result
            out[-1] = (f"{what} + {name} (hook)", n_calls, emitted, returned + BASH_RESULT_CHARS * calls)
            continue
        if one_message_fix and out and name == "Bash finish" and out[-1][0].startswith("Edit"):
            what, n_calls, emitted, returned = out[-1]  # the Edits and finish in one message
            out[-1] = (f"{what} + {name}", n_calls + 1, emitted + CALL_CHARS, returned + BASH_RESULT_CHARS)
            continue
        if name.startswith("Agent researcher"):
            out.append((name, calls, CALL_CHARS * calls, returned))
        elif name.startswith("Read findings"):
            out += [] if from_results else [(name, 1, CALL_CHARS, size) for size in findings]
        elif name.startswith("Agent claim-checker"):
            out += [(name, 1, CALL_CHARS, 80 * s["report_claims"])] * calls
        elif name == "Write plan":
            out.append((name, 1, 1_500, 100))
        elif name.startswith("Write"):
            out.append((name, 1, report if "report" in name else 800, 100))
        elif name == "final message":
            out.append((name, 0, 300, 0))
        else:
            out += [(name, 1, CALL_CHARS, BASH_RESULT_CHARS)] * calls
    return out


def checker_turns(s: dict) -> list[Turn]:
    return [("reply: one line per claim", 0, 80 * s["report_claims"], 0)]


def cost(turns: list[Turn], instruction_chars: int) -> dict:
    """Model turns, input tokens (each turn re-sends the client's part, the instructions and the
    conversation so far) and output tokens."""
    sent = 0
    input_tokens = 0
    for _what, _calls, emitted, returned in turns:
        input_tokens += CLIENT_TOKENS + (instruction_chars + sent) // 4
        sent += emitted + returned
    return {"turns": len(turns), "input_tokens": input_tokens,
            "output_tokens": sum(t[2] for t in turns) // 4, "tool_calls": sum(t[1] for t in turns)}


def count_turns(rev: str | None) -> dict:
    s = example_sizes()
    out: dict = {}
    for run_name, deep in (("orchestrator, standard", False), ("orchestrator, deep", True)):
        reads = [r for r in ORCHESTRATOR_READS[False] + (ORCHESTRATOR_READS[True] if deep else [])
                 if r != "skills/web-research/references/citation-schema.md"]
        out[run_name] = cost(orchestrator_turns(deep, s, rev), sum(len(read_at(rev, r)) for r in reads))
    out["researcher"] = cost(researcher_turns(s, rev), len(read_at(rev, "agents/researcher.md")) + len(s["brief_text"]))
    out["checker"] = cost(checker_turns(s), len(read_at(rev, "agents/claim-checker.md")) + len(checker_prompt(s)))
    researchers = len(s["prompts"])
    out["standard run, all roles"] = {
        key: out["orchestrator, standard"][key] + researchers * out["researcher"][key] + out["checker"][key]
        for key in ("turns", "input_tokens", "output_tokens", "tool_calls")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", help="read the prompts at this git revision (default: the working tree)")
    parser.add_argument("--protocol", choices=("numbered", "references"), default="references")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--turns", action="store_true", help="model turns and tokens per role instead")
    parser.add_argument("--instructions", action="store_true",
                        help="characters of the orchestrator's standard-run instructions, per file")
    args = parser.parse_args()
    if args.instructions:
        sizes = standard_run_instruction_chars(args.rev)
        print(json.dumps(sizes, indent=2) if args.json else
              "\n".join(f"{n:>7,}  {rel}" for rel, n in sizes.items()))
        return
    if args.turns:
        turns = count_turns(args.rev)
        if args.json:
            print(json.dumps(turns, indent=2))
            return
        print("| | " + " | ".join(turns) + " |")
        print("|---" * (len(turns) + 1) + "|")
        for key in ("turns", "tool_calls", "input_tokens", "output_tokens"):
            print(f"| {key} | " + " | ".join(f"{turns[m][key]:,}" for m in turns) + " |")
        return
    result = count(args.protocol, args.rev)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    keys = ("tool_calls", "exact_format_demands", "strict_demands", "values_copied", "copies", "copied_chars", "longest_copied",
            "output_tokens_reemitted", "instruction_tokens")
    print("| | " + " | ".join(result) + " |")
    print("|---" * (len(result) + 1) + "|")
    for k in keys:
        print(f"| {k} | " + " | ".join(str(result[m][k]) for m in result) + " |")


if __name__ == "__main__":
    main()
