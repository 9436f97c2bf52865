"""Every subcommand of `web-research`, described once: the one registry the CLI, the hooks and
the sealed room read.

An entry says what a person reads (`summary` in the top-level --help, `description` and
`exit_codes` in its own), how its command line is parsed (`arguments`), which module runs it
(`commands/<module>.py`, whose `run(args)` returns the exit code), and what it may do while a
research run is open: which role runs it (`roles`: the main session, `orchestrator`, or a
`researcher`; `person`: a person's command, refused in a run with its own reason; none: not
recognised in a run at all), which option must stay at its default
(`fixed_options`) and which argument names the run folder (`run_folder`).

- cli.py builds the parser from here and imports the one module the command line names;
- guard/commandline.py parses a Bash call with the same parser (only that subcommand's) and
  holds `roles`, `fixed_options` and `run_folder`;
- guard/rules/room.py tells each role the commands it may run from `roles`;
- tests hold hooks/run's patterns and the command lines of SKILL.md and the agents to it.

Adding a subcommand is one entry here and one module in commands/. argparse is imported only
when a parser is built: the hooks build one only for a Bash call of our program.
"""
from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple, Sequence

from . import __version__
from .exitcodes import (EXIT_BROKEN_PIPE, EXIT_CHECK_FAILED, EXIT_NO_VERDICT, EXIT_OK, EXIT_OLDER_RULES, EXIT_PRIOR_RUN,
                        EXIT_USAGE)

if TYPE_CHECKING:
    from argparse import ArgumentParser

ORCHESTRATOR = "orchestrator"  # the main session, which runs the skill
RESEARCHER = "researcher"  # the plugin's researcher subagent
# A person's command (recheck): never a step of research. The hooks recognise it so that the room
# can say why it is refused in a run, and leave it alone outside one.
PERSON = "person"
PROGRAM = "web-research"
# The subcommand that opens a run: it runs only before one is open (hooks/run sends every call
# of it to Python, in any spelling; guard/commandline.py accepts it only in its heredoc form).
OPENS_A_RUN = "start"


class Subcommand(NamedTuple):
    name: str
    summary: str
    description: str
    exit_codes: tuple[str, ...]
    arguments: Callable[[ArgumentParser], None]
    module: str
    roles: frozenset[str] = frozenset()
    fixed_options: Mapping[str, object] = {}
    run_folder: str | None = "dir"


# What each subcommand does (its --help description) and what its exit codes mean (the epilog).
_USAGE_ERROR = f"{EXIT_USAGE:>3}  bad arguments (one line on stderr)"
# The one rule for a folder that is not a run (commands/verify_cmd.open_run_dir).
_NOT_A_RUN = (f"{EXIT_USAGE:>3}  bad arguments, or DIR is missing, unreadable or not a run folder (it holds "
              "neither plan.md nor report.md); the reason on stderr")
_HELP: dict[str, tuple[str, tuple[str, ...]]] = {
    "slug": ("Print the slug of a research question, or with --date the dated run-folder name.",
             (f"{EXIT_OK:>3}  the slug is printed", _USAGE_ERROR)),
    "start": ("Validate the research input and open its run folder, refusing to overwrite a prior run "
              "unless --refresh archives it; with --resume, reopen an interrupted run. Prints one JSON "
              "object either way.",
              (f"{EXIT_OK:>3}  the run folder is ready", f"{EXIT_USAGE:>3}  invalid input (`invalid-input`), "
               "or on --resume a folder with no run (`not-a-run`) or a plan changed since it was approved "
               "(`plan-changed`)",
               f"{EXIT_PRIOR_RUN:>3}  a prior run is present and --refresh is off (`prior-run-present`); "
               "nothing written")),
    "briefs": ("Render briefs/<slug>.md for every subtopic of DIR/plan.md (second wave included), record "
               "the plan as approved, and print the briefs as JSON.",
               (f"{EXIT_OK:>3}  the briefs are written", _NOT_A_RUN,
                f"{EXIT_USAGE:>3}  plan.md cannot be used (file:line: message on stderr)")),
    "verify": ("Run the verification checklist on a run folder and change nothing. Prints the failing "
               "checks and a one-line summary; --verbose prints every check; --deep also extracts every page "
               "again from its archived WARC and reports any whose text differs from the stored one.",
               (f"{EXIT_OK:>3}  no error-severity check failed (warnings allowed)",
                f"{EXIT_CHECK_FAILED:>3}  an error-severity check failed", _NOT_A_RUN,
                f"{EXIT_OLDER_RULES:>3}  the run was made under older rules and lacks only the current rules' round "
                "(claims to judge, checks added since); no evidence fails")),
    "finish": ("Number report.md's [^<subtopic-slug>:<n>] references by first use, write its Sources section "
               "from the findings files, run the verification checklist, and print the skill's return object "
               "(or the claim-checker to dispatch, or what to fix first). Counts the rounds of fixes; once they are "
               'spent the object says "verified": false.',
               (f"{EXIT_OK:>3}  the return object is printed (stdout holds it alone), or the claim-checker's "
                "dispatch (claims need a verdict)",
                f"{EXIT_CHECK_FAILED:>3}  report.md needs work first: stdout says what, failures first", _NOT_A_RUN)),
    "gaps": ("List every bullet of the plan by id with its coverage state: covered, partly, "
             "not-established or missing, the references that cite its sources, and what its findings say "
             "is missing (the researcher's words).", (f"{EXIT_OK:>3}  the bullets are listed", _NOT_A_RUN,
                          f"{EXIT_USAGE:>3}  plan.md cannot be used")),
    "claims": ("List every cited claim of the report and the findings files with its excerpts and whether "
               "its figures are grounded (use verify to gate); with --prompt, print the next "
               "claim-checker's prompt.",
               (f"{EXIT_OK:>3}  the claims are listed (with --prompt: the prompt, or nothing and why "
                "on stderr)", _NOT_A_RUN,
                f"{EXIT_USAGE:>3}  a file of the run exists but cannot be read (too large, not UTF-8, a "
                "link...; --prompt: plan.md or report.md)")),
    "estimate": ("Print the upper bounds of the plan's budget and a token and wall-clock range for the run.",
                 (f"{EXIT_OK:>3}  the estimate is printed", _NOT_A_RUN,
                  f"{EXIT_USAGE:>3}  plan.md cannot be used")),
    "status": ("Print a table of a run's subtopics (status, sources, claims), whether report.md passes "
               "verify, the date and summary of its latest recheck, and what the run spent (live during a run); "
               "--json gives the same as JSON.",
               (f"{EXIT_OK:>3}  the table is printed", _NOT_A_RUN)),
    "view": ("Write DIR/report.html: the report with each footnote's source (the excerpt highlighted in the "
             "stored page, its seal, the claim-checker's verdict), the plan's coverage, what the run spent and "
             "the verification result; one self-contained file. --open shows it in a browser.",
             (f"{EXIT_OK:>3}  the page is written (its path on stdout), whatever the run's state", _NOT_A_RUN)),
    "abandon": ("Give up on a run when the person asks to stop: record when and why in "
                "DIR/.web-research/abandoned.json and print it as JSON. An abandoned run never passes verify.",
                (f"{EXIT_OK:>3}  the run is recorded as abandoned (or already was)", _USAGE_ERROR)),
    "unavailable": ("Print the skill's answer when web search is not among the model's tools: the "
                    "web-tools-unavailable JSON object naming the absent tools. Reads and writes nothing.",
                    (f"{EXIT_OK:>3}  the object is printed", _USAGE_ERROR)),
    "recheck": ("Fetch each page report.md cites once more (as fetch does: same address policy, size and time "
                "limits) and say for each footnote whether its excerpt still stands: unchanged, changed (with the "
                "closest live passage and the words and figures that differ), moved, gone or unreachable. A "
                "person's command, never part of a run: the run's evidence is not touched; the live texts go to "
                "DIR/rechecks/<UTC time>/ and the record to DIR/checks/recheck-<UTC time>.json (under FOLDER "
                "instead with --out FOLDER). Only an answer from the site (HTTP 404, 410) is gone; a name that does "
                "not resolve is unreachable (offline, or a resolver that does not know it).",
                (f"{EXIT_OK:>3}  every citation rechecked is unchanged",
                 f"{EXIT_CHECK_FAILED:>3}  at least one citation changed, moved or is gone",
                 f"{EXIT_USAGE:>3}  bad arguments, DIR is not a run folder, report.md is missing or cites "
                 "nothing, or the fetch extra is missing",
                 f"{EXIT_NO_VERDICT:>3}  no verdict: nothing changed, moved or is gone, but some pages could not be "
                 "reached (network error, a name that does not resolve, timeout, refused address, too large); run it "
                 "again later")),
    "export": ("Write the report's evidence for other tools, with the run's outcome (verify's verdict) first. "
               "--format csl-json: the sources as CSL-JSON for a reference manager (title, URL, accessed date, the "
               "site's name and publication date as the page states them, an id derived from the URL); "
               "--format annotations: a W3C AnnotationPage, one annotation per claim and excerpt (the claim and the "
               "claim-checker's verdict on the passage as the page shows it, with the time it was fetched and the "
               "stored copies). A run that fails verify is exported only with --unverified, and then says so. Prints "
               "JSON, or writes --output FILE; changes nothing in the run.",
               (f"{EXIT_OK:>3}  the JSON is printed or written",
                f"{EXIT_CHECK_FAILED:>3}  the run does not pass verify and --unverified was not given: nothing is "
                "written", _NOT_A_RUN,
                f"{EXIT_USAGE:>3}  report.md is missing or cannot be read, or --output cannot be written")),
    "fetch": ("Snapshot a page's main text under DIR/sources/ (or serve the stored snapshot) and print a "
              "window of it to quote from.",
              (f"{EXIT_OK:>3}  the text is printed", f"{EXIT_USAGE:>3}  the URL is refused, the page cannot be "
               "fetched or read, the arguments are wrong, or the fetch extra is missing")),
}


def _slug_arguments(p: ArgumentParser) -> None:
    p.add_argument("--date", metavar="YYYY-MM-DD", help="prefix the slug with this date")
    p.add_argument("question", help="the research question")


def _start_arguments(p: ArgumentParser) -> None:
    p.add_argument("--question", help="the research question, verbatim")
    p.add_argument("--output-dir", help="run folder to use instead of the default")
    p.add_argument("--auto-proceed", action="store_true", help="skip the plan review gate")
    p.add_argument("--refresh", action="store_true", help="archive a prior run in the folder first")
    p.add_argument("--tier", help="cost tier: quick, standard (default) or deep")
    p.add_argument("--deepen", action="store_true", help="allow one second wave whatever the tier")
    p.add_argument("--resume", action="store_true",
                   help="reopen the interrupted run in --output-dir (keeps its approved plan and intact findings)")
    p.add_argument("--args", dest="raw_args", metavar="TEXT",
                   help="the raw argument text the skill received (YAML mapping or question)")
    p.add_argument("--args-file", metavar="PATH",
                   help="read the raw argument text from PATH ('-' for standard input)")


def _briefs_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")


def _verify_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument("--verbose", "-v", action="store_true", help="print every check, not only the failing ones")
    p.add_argument("--deep", action="store_true",
                   help="also extract every page again from its WARC and compare with the stored text (slow)")


def _finish_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")


def _gaps_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the bullets as JSON")


def _claims_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the claims as JSON")
    p.add_argument("--prompt", action="store_true",
                   help="print the next claim-checker's prompt (nothing when every claim has a verdict)")


def _estimate_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the estimate as JSON")


def _status_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the status as JSON")


def _view_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--open", action="store_true", help="open the page in a browser, where one is available")


def _abandon_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--reason", required=True, metavar="TEXT", help="why the run is abandoned (the person's words)")


def _unavailable_arguments(p: ArgumentParser) -> None:
    p.add_argument("tools", nargs="+", metavar="TOOL", help="an absent web tool: WebSearch, WebFetch")


def _fetch_arguments(p: ArgumentParser) -> None:
    p.add_argument("url", metavar="URL",
                   help="the page's http(s) address (a page the run already read is served from its snapshot)")
    p.add_argument("--run", required=True, metavar="DIR", help="the run folder")
    p.add_argument("--offset", type=int, default=0, metavar="N", help="first character to print")
    p.add_argument("--max-chars", type=int, default=8000, metavar="N", help="characters to print")
    p.add_argument("--find", metavar="WORDS", default=None,
                   help="print the windows of the page around these words instead (at most 5, best first)")
    p.add_argument("--allow-loopback", action="store_true", help=argparse.SUPPRESS)


def _export_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--format", required=True, choices=("csl-json", "annotations"),
                   help="csl-json: the sources, for a reference manager; annotations: W3C Web Annotations")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of printing")
    p.add_argument("--unverified", action="store_true",
                   help="export a run that does not pass verify, marked as unverified in the output")


def footnote_numbers(raw: str) -> list[int]:
    """`--only 3,7,12` (or `[^3],[^7]`): footnote numbers, each 1 or more; a bad one is exit 2."""
    numbers = []
    for item in raw.split(","):
        item = item.strip().removeprefix("[^").removesuffix("]")
        if not item.isascii() or not item.isdigit() or int(item) < 1:
            raise argparse.ArgumentTypeError(f"expected footnote numbers such as 3,7,12, got {raw!r}")
        numbers.append(int(item))
    return numbers


def _recheck_arguments(p: ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the run folder")
    p.add_argument("--json", action="store_true", help="print the recheck record as JSON")
    p.add_argument("--only", type=footnote_numbers, metavar="N,...", help="recheck only these footnotes of report.md")
    p.add_argument("--out", metavar="FOLDER", help="write the record and the live texts under FOLDER (created if "
                   "missing) instead of DIR, e.g. for a folder you do not own such as the bundled example")
    p.add_argument("--allow-loopback", action="store_true", help=argparse.SUPPRESS)


# In the order the top-level --help lists them.
_ENTRIES = (
    ("slug", "print the slug of a question", _slug_arguments, (), {}, None),
    ("start", "open a run folder (re-run protection, archiving)", _start_arguments, (), {}, None),
    ("briefs", "render one brief per subtopic of DIR/plan.md", _briefs_arguments, (ORCHESTRATOR,), {}, "dir"),
    ("verify", "run the verification checklist on a run folder", _verify_arguments, (ORCHESTRATOR,),
     {"deep": False}, "dir"),
    ("finish", "number the report's references, write Sources, verify, answer", _finish_arguments,
     (ORCHESTRATOR,), {}, "dir"),
    ("gaps", "list every bullet of the plan with its coverage state", _gaps_arguments, (ORCHESTRATOR,), {}, "dir"),
    ("claims", "list every cited claim with its excerpts and grounding", _claims_arguments,
     (ORCHESTRATOR,), {}, "dir"),
    ("estimate", "print the run's upper bounds and a token and time range", _estimate_arguments,
     (ORCHESTRATOR,), {}, "dir"),
    ("status", "print a table of a run's subtopics, report and spending", _status_arguments,
     (ORCHESTRATOR,), {}, "dir"),
    ("view", "write DIR/report.html: the report with its evidence", _view_arguments, (ORCHESTRATOR,), {}, "dir"),
    # --allow-loopback is for tests only (guard/commandline.ALLOW_LOOPBACK_ENV lifts it there).
    ("fetch", "snapshot a page's main text under DIR/sources/", _fetch_arguments, (RESEARCHER,),
     {"allow_loopback": False}, "run"),
    ("abandon", "give up on a run: it never counts as verified", _abandon_arguments, (ORCHESTRATOR,), {}, "dir"),
    ("unavailable", "print the answer when web search is absent", _unavailable_arguments, (), {}, None),
    ("recheck", "are the report's citations still on the live pages?", _recheck_arguments, (PERSON,),
     {"allow_loopback": False}, "dir"),
    ("export", "the report's sources as CSL-JSON, its claims as Web Annotations", _export_arguments, (), {}, "dir"),
)

SUBCOMMANDS: dict[str, Subcommand] = {
    name: Subcommand(name, summary, _HELP[name][0], _HELP[name][1], arguments, f"{name}_cmd",
                     frozenset(roles), dict(fixed), run_folder)
    for name, summary, arguments, roles, fixed, run_folder in _ENTRIES
}


# The commands a person runs on a run folder (the top-level --help lists them first); the rest
# are run by the skill and its agents.
FOR_PEOPLE = ("status", "view", "verify", "recheck", "export", "claims", "estimate", "gaps")


def run_by(role: str) -> tuple[str, ...]:
    """The subcommands `role` runs while a run is open, in the registry's order."""
    return tuple(name for name, spec in SUBCOMMANDS.items() if role in spec.roles)


def build_parser(only: str | None = None) -> ArgumentParser:
    """The command line's parser. With `only` (a subcommand's name) it has that subcommand
    alone: it parses a command line of that subcommand exactly as the whole parser does
    (same definitions, same messages), and costs a hook a ninth of the building."""
    if only is not None and only not in SUBCOMMANDS:
        raise ValueError(f"no subcommand {only!r}; the subcommands are {', '.join(SUBCOMMANDS)}")
    parser = argparse.ArgumentParser(prog=PROGRAM, description=_top_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="one of the commands above")
    for name, spec in SUBCOMMANDS.items():
        if only is None or name == only:
            spec.arguments(sub.add_parser(name))
    _describe(sub.choices)
    return parser


def _top_help() -> str:
    """The top-level --help's list of commands, those for people first."""
    def rows(names: Sequence[str]) -> str:
        return "\n".join(f"  {name:<13}{SUBCOMMANDS[name].summary}" for name in names)

    for_skill = [name for name in SUBCOMMANDS if name not in FOR_PEOPLE]
    return ("The web-research plugin's command: open, check, read and cost research runs.\n\n"
            f"commands for people (the skill also runs estimate and gaps):\n{rows(FOR_PEOPLE)}\n\n"
            f"commands the skill and its agents run:\n{rows(for_skill)}\n\n"
            "`web-research COMMAND --help` says what a command does and what its exit codes mean.")


def parser_for(argv: Sequence[str]) -> ArgumentParser:
    """The parser for this command line: when it starts with a subcommand's name, the
    parser of that subcommand alone (see `build_parser`), else the whole one (whose
    top-level --help and unknown-subcommand error list every subcommand)."""
    return build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)


def _describe(parsers: Mapping[str, ArgumentParser]) -> None:
    """Give every subcommand's --help its description and its exit codes (a table, kept as written)."""
    for name, parser in parsers.items():
        spec = SUBCOMMANDS[name]
        parser.description = textwrap.fill(spec.description, 79)
        rows = [*spec.exit_codes, f"{EXIT_BROKEN_PIPE}  the reader of the output went away"]
        parser.epilog = "exit codes:\n" + "\n".join(
            textwrap.fill(row, 79, initial_indent="  ", subsequent_indent=" " * 7) for row in rows)
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
