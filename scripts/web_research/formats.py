"""The shared vocabulary of a research run: one place for every rule that both
the prompts (skill, agent, reference files) and the code depend on.

Tests read the Markdown prompts and check that they agree with these values,
so a change here that is not mirrored in the prompts fails the suite.
Nothing in this module imports anything heavy: hooks import it on their fast path.
"""
from __future__ import annotations

from pathlib import Path

# --- Files inside a run folder -------------------------------------------
PLAN_FILE = "plan.md"
REPORT_FILE = "report.md"
REPORT_VIEW_FILE = "report.html"  # `web-research view`: the report with its evidence, for people
FINDINGS_DIR = "findings"
BRIEFS_DIR = "briefs"
SOURCES_DIR = "sources"  # page snapshots (web-research fetch)
SCRATCH_DIR = "scratch"  # researchers' own notes, scratch/<slug>/
RUN_STATE_DIR = ".web-research"  # files the hooks keep for the orchestrator and verify
METRICS_FILE = "metrics.json"
CHECKS_DIR = "checks"  # claim-checker verdicts, checks/verdicts-<n>.json; recheck records, checks/recheck-<UTC>.json
RECHECKS_DIR = "rechecks"  # `recheck`: the live text of each cited page, rechecks/<UTC>/, apart from sources/
RECHECK_FILE_PREFIX = "recheck-"  # checks/recheck-<UTC time>.json, one per `recheck` (never overwritten)
ARCHIVE_PREFIX = ".archive-"
# Every top-level name a run creates in its folder. `start --refresh` archives these
# and nothing else: whatever else the folder holds is the user's and stays put.
# Code that writes a new top-level name into a run folder adds it here (a test checks).
RUN_OWNED_NAMES = (
    PLAN_FILE,
    REPORT_FILE,
    REPORT_VIEW_FILE,
    BRIEFS_DIR,
    FINDINGS_DIR,
    SOURCES_DIR,
    SCRATCH_DIR,
    RUN_STATE_DIR,
    METRICS_FILE,
    CHECKS_DIR,
    RECHECKS_DIR,
)
# The run's evidence: what verify reads and the seals cover. A symbolic link at any of these
# names, or directly inside one of these folders, is a failing check (fsutil.evidence_links),
# and no reader follows one (fsutil.read_run_file).
EVIDENCE_NAMES = (PLAN_FILE, REPORT_FILE, BRIEFS_DIR, FINDINGS_DIR, SOURCES_DIR, CHECKS_DIR, RUN_STATE_DIR)
# Files whose presence means "a prior run lives here" (verify's test of a run folder).
PRIOR_RUN_MARKERS = (PLAN_FILE, REPORT_FILE)
# What a new `start` refuses to find in its folder without refresh: any of the run's evidence
# (a page, a findings file, a seal copy, a plan or a report), whoever put it there. A run
# begins with none, so nothing it did not fetch and seal can be mistaken for its own.
START_REFUSES_NAMES = EVIDENCE_NAMES

# --- Default output location ---------------------------------------------
DEFAULT_ROOT = Path(".beagle") / "research"
ROOT_ENV_VAR = "WEB_RESEARCH_ROOT"
SLUG_MAX_LEN = 60
SLUG_FALLBACK = "research"

# --- plan.md ---------------------------------------------------------------
PLAN_SECTION_QUESTION = "Research question"
PLAN_SECTION_SUBTOPICS = "Subtopics"
PLAN_SECTION_SYNTHESIS = "Synthesis approach"
PLAN_SECTION_BUDGET = "Budget"
PLAN_SECTIONS = (
    PLAN_SECTION_QUESTION,
    PLAN_SECTION_SUBTOPICS,
    PLAN_SECTION_SYNTHESIS,
    PLAN_SECTION_BUDGET,
)
# Optional, after Budget: follow-up subtopics aimed at bullets the first wave left
# uncovered (skills/web-research/references/second-wave.md). Each of its bullets
# starts with the id of the first-wave bullet it targets.
PLAN_SECTION_SECOND_WAVE = "Second wave"
MAX_SECOND_WAVE_SUBTOPICS = 3
# Budget line `Deepen: yes` grants a second wave to a tier without one (the caller's `deepen: true`).
PLAN_DEEPEN_LINE = "Deepen"
# A bullet's id: `<subtopic number>.<bullet number>` in plan order, both from 1 (e.g. `2.1`).
BULLET_ID_PATTERN = r"[1-9][0-9]?\.[1-9][0-9]?"
# Optional: the user's answers to clarifying questions, between the question and the subtopics.
PLAN_SECTION_SCOPE_NOTES = "Scope notes"
PLAN_OPTIONAL_SECTIONS = (PLAN_SECTION_SCOPE_NOTES,)
# Clarifying questions the skill may ask before writing the plan (one AskUserQuestion call).
MAX_CLARIFYING_QUESTIONS = 3
PLAN_BUDGET_LINE = "Searches per subagent"
PLAN_RESEARCHERS_LINE = "Researchers"  # how many researchers run at once (at most MAX_PARALLEL_RESEARCHERS)
DEFAULT_SEARCH_BUDGET = 5
MIN_SUBTOPICS = 1
MAX_SUBTOPICS = 5
MAX_PARALLEL_RESEARCHERS = 3
# Claude Code (seen in 2.1.328) refuses a subagent's Write to any `.md` file
# whose name starts, in any case, with one of these words ("Subagents should
# return findings as text"). A findings file is named after its subtopic's
# slug, so the plan refuses subtopic names whose slug starts with one.
CLIENT_REFUSED_FILE_PREFIXES = ("report", "summary", "findings", "analysis")

# --- Findings files --------------------------------------------------------
STATUS_OK = "ok"
STATUS_EMPTY = "empty"
STATUS_FAILED = "failed"
STATUSES = (STATUS_OK, STATUS_EMPTY, STATUS_FAILED)
FINDINGS_FIELDS = ("status", "subtopic", "brief_hash", "started_at", "finished_at", "reason")
# What a researcher writes in that frontmatter itself; the plugin fills in the rest
# (findings_stub.py: at dispatch a stub, at the researcher's stop the completed fields).
FINDINGS_RESEARCHER_FIELDS = ("status", "reason")
FINDINGS_PLUGIN_FIELDS = tuple(f for f in FINDINGS_FIELDS if f not in FINDINGS_RESEARCHER_FIELDS)
# The reason of the stub findings file the SubagentStart hook writes for a researcher
# (status failed until the researcher writes its own): a file still holding it means
# the researcher never finished, so `briefs` lists its brief again.
# What every researcher prompt, refusal and block says of its reply (tests hold them to it).
REPLY_IS_FINDINGS = "your final reply is your findings"
FINDINGS_STUB_REASON = "the researcher did not finish: this is the stub the plugin wrote when it started"
FINDINGS_SOURCES_HEADING = "Sources"
BRIEF_HASH_PREFIX = "sha256:"
# The body of a findings file, `##` sections in this order (the brief shows the skeleton).
# Claims holds one `###` heading per point the brief asks to establish.
FINDINGS_SECTION_CLAIMS = "Claims"
FINDINGS_SECTIONS = (FINDINGS_SECTION_CLAIMS, "Not established", "Contradictions",
                     "Searched and not found", "Exit reason", FINDINGS_SOURCES_HEADING)
FINDINGS_SECTION_NOT_ESTABLISHED = "Not established"
FINDINGS_SECTION_EXIT = "Exit reason"
EXIT_REASONS = ("saturated", "budget spent", "not found", "error")
FINDINGS_MAX_WORDS = 1200  # words before "## Sources"; verify warns above
# The largest findings file or report.md the checks parse: a larger one is refused. Parsing is
# linear, 1 to 10 us a byte on the 2-core development machine as hostile input varies (most
# for many short lines or table rows): at most ~5 s a file under load, well inside the Stop
# hook's 120 s for a report and five findings files. A real file is tens of KB; the 500-citation
# report of the speed test is 165 KB.
MAX_MARKDOWN_BYTES = 512 * 1024
# Wording that betrays a claim taken from the model's memory instead of a page.
MEMORY_PHRASES = ("from memory", "training data", "my knowledge", "knowledge cutoff",
                  "as far as i know", "as an ai")

# --- report.md -------------------------------------------------------------
REPORT_TITLE_PREFIX = "# Research: "
REPORT_SECTIONS = ("TL;DR", "Findings", "Gaps & Limitations", "Sources")
TLDR_MIN_BULLETS = 3
TLDR_MAX_BULLETS = 5
REPORT_NO_SOURCES = "No sources are cited."  # what `finish` writes under Sources when nothing is cited
# The Markdown a report or findings file is written in (checks/markdown_form.py refuses every
# other form at its line; report-template.md names these, and tests hold it to them).
MARKDOWN_MAX_DEPTH = 3  # lists and quotes around a paragraph, at most
MARKDOWN_ALLOWED_FORMS = (
    "paragraphs",
    f"bullet and numbered lists (at most {MARKDOWN_MAX_DEPTH} deep, quotes counted)",
    "tables",
    "`>` quotes",
    "`code spans`",
    "*emphasis*",
    "**bold**",
    "inline links to a cited page",
)


# A `###` heading of Findings is a label, not a statement (checks/headings.py holds it; report-template.md
# states HEADING_RULE word for word, and every refusal quotes it). A heading cites nothing and no
# checker reads it, so it may only be words nobody wrote after reading a page: a first-wave
# subtopic's name, as plan.md gives it (the code folds case and runs of spaces, nothing else).
HEADING_RULE = "Each `###` heading is a subtopic's name as plan.md's `## Subtopics` gives it, and nothing else."


def allowed_forms() -> str:
    """The allowed forms as one phrase, as report-template.md and every refusal give it."""
    return ", ".join(MARKDOWN_ALLOWED_FORMS[:-1]) + " and " + MARKDOWN_ALLOWED_FORMS[-1]

# --- Citations (report and findings) --------------------------------------
# Label as written in Markdown -> field name in citation.schema.json.
CITATION_LABELS = {
    "Title": "title",
    "URL": "url",
    "Excerpt": "excerpt",
    "Retrieved": "retrieved_at",
    "Published": "published_at",
    "Source type": "source_type",
}
CITATION_REQUIRED = ("title", "url", "excerpt")
SOURCE_TYPES = ("official-docs", "vendor", "blog", "forum", "news", "other")
# An excerpt with omission marks (`…`): each part at least this many words,
# all parts within one passage of the page of at most this many characters
# (from the start of the first part to the end of the last, whitespace collapsed).
EXCERPT_MIN_PART_WORDS = 4
EXCERPT_MAX_SPAN_CHARS = 600

# --- Dispatch by reference (guard/briefs_match.py, guard/rules/checker_gate.py) ----
# The orchestrator's Agent prompt names what to run; the PreToolUse hook puts the
# rendered prompt in its place, so no model ever copies a brief or a checker prompt.
DISPATCH_BRIEF_LABEL = "Brief:"  # a researcher: `Brief: <brief_path>`
DISPATCH_CHECK_LABEL = "Check:"  # a claim-checker: `Check: <output_dir>`
DISPATCH_BRIEF_PROMPT = f"{DISPATCH_BRIEF_LABEL} <brief_path>"
DISPATCH_CHECK_PROMPT = f"{DISPATCH_CHECK_LABEL} <output_dir>"


def dispatch_call(prompt: str) -> str:
    """The one way to dispatch a researcher or the claim-checker, as SKILL.md, every refusal and
    finish give it: an Agent call of a short description and this prompt. The hook completes it
    (the agent type and the foreground, from the prompt's form: guard/events.dispatch_fields)."""
    return f'`Agent {{"description": "<a few words>", "prompt": "{prompt}"}}`'

# --- Plugin names ----------------------------------------------------------
PLUGIN_NAME = "web-research"
SKILL_NAME = "web-research"
RESEARCHER_AGENT = "researcher"
RESEARCHER_SUBAGENT_TYPE = f"{PLUGIN_NAME}:{RESEARCHER_AGENT}"
CHECKER_AGENT = "claim-checker"
CHECKER_SUBAGENT_TYPE = f"{PLUGIN_NAME}:{CHECKER_AGENT}"

# --- Claim check (verdicts.py, agents/claim-checker.md) ----------------------
VERDICT_SUPPORTED = "supported"
VERDICT_PARTIAL = "partial"
VERDICT_UNSUPPORTED = "unsupported"
VERDICTS = (VERDICT_SUPPORTED, VERDICT_PARTIAL, VERDICT_UNSUPPORTED)
VERDICTS_FILE_PREFIX = "verdicts-"  # checks/verdicts-<n>.json, n = 1, 2, ... in order of dispatch
MAX_VERDICT_REASON_CHARS = 300

# --- Verify-and-fix loop ---------------------------------------------------
# The orchestrator fixes report.md at most this many rounds; then it returns its
# paths with "verified": false (companion-contract.md).
MAX_VERIFY_ROUNDS = 3
RETURN_VERIFIED_KEY = "verified"
# `web-research finish` (commands/finish_cmd.py) assembles the report's Sources, runs the
# checklist and prints the skill's return object; it counts the rounds of fixes in this
# file of <run>/.web-research/. Once they are spent, the object carries "verified": false
# and the failing check ids under RETURN_FAILED_CHECKS_KEY.
FINISH_RECORD_FILE = "finish.json"
RETURN_FAILED_CHECKS_KEY = "failed_checks"
# The report as it stood before `finish` last rewrote it (kept in <run>/.web-research/).
REPORT_BEFORE_FINISH_FILE = "report-before-finish.md"
# The paths a successful run returns (SKILL.md's final JSON, start's output, the companion contract).
RETURN_PATH_KEYS = ("plan", "report", "findings_dir", "view")

# --- Companion contract ----------------------------------------------------
ERROR_WEB_TOOLS_UNAVAILABLE = "web-tools-unavailable"
ERROR_PRIOR_RUN_PRESENT = "prior-run-present"
ERROR_INVALID_INPUT = "invalid-input"
ERROR_NOT_A_RUN = "not-a-run"  # start --resume on a folder that holds no run
ERROR_PLAN_CHANGED = "plan-changed"  # start --resume on a plan edited after it was approved
# start --resume: the record that the plan was approved, in <run>/.web-research/.
APPROVAL_FILE = "approval.json"
PROGRESS_FILE = "progress.json"  # <run>/.web-research/: what each agent has spent, for `status` (hooks write it)
# What `start` was given (the question verbatim, tier, deepen), in <run>/.web-research/:
# `estimate` and `briefs` refuse a plan whose question differs from it.
START_RECORD_FILE = "start.json"
# `abandon`: the record that the run was given up on (never verified), in <run>/.web-research/.
ABANDONED_FILE = "abandoned.json"

# --- Locations of the files the code shares with the prompts --------------
PACKAGE_DIR = Path(__file__).resolve().parent
SCHEMAS_DIR = PACKAGE_DIR / "schemas"
PLUGIN_ROOT = PACKAGE_DIR.parent.parent
SKILL_DIR = PLUGIN_ROOT / "skills" / SKILL_NAME
REFERENCES_DIR = SKILL_DIR / "references"
# The figure rule as the check reads it (checks/quantities.py reads a figure, checks/claims.py
# grounds it). The researcher's brief carries it (`{{figure_rule}}`) and report-template.md states
# it word for word; test_figure_rule checks both, and that the code reads each example as it says.
FIGURE_RULE = (
    "A figure is any number in digits (0-9 only): a price, a percentage, a multiplier such as 3x, a count, "
    "a range, a version such as 3.11, a year or a date; a number in words that counts or measures something "
    "(\"two free plans\", \"a year\", \"a dozen hosts\"); a share or multiple in words (\"half\", \"a tenth\", "
    "\"doubled\"); and a number inside `code`. Each figure a claim states appears, with the same value, sign, "
    "unit and currency (a count is no duration; 10 cents is $0.10), in an excerpt the claim cites, or is "
    "computed from figures there, one stated beside it (\"twice\", \"40% of\"); a version, year or date, or a "
    "number in a name (Python 3.11), may instead be in the title or address of the page it cites, an amount "
    "or count never. Identifiers such as S3, p99 or HTTP/2 are not figures.")
BRIEF_TEMPLATE = REFERENCES_DIR / "subagent-brief.md"
REPORT_TEMPLATE = REFERENCES_DIR / "report-template.md"
CITATION_SCHEMA_DOC = REFERENCES_DIR / "citation-schema.md"


def reference_file(name: str) -> Path:
    """A file of the skill's references/ as this installation has it: the package's own copy
    (`web_research/references/`, package data of a wheel: pip, uv tool, pipx) when the package
    has that folder, else the plugin checkout's `skills/web-research/references/` (the plugin, an editable
    install, tests). The path is returned even when missing, so that the reader names it."""
    import importlib.resources  # lazy: every hook imports formats, none reads a reference file

    packaged = importlib.resources.files(__package__).joinpath("references")
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged / name
    return REFERENCES_DIR / name
