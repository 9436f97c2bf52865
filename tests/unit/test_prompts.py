"""The Markdown prompts are product code: their frontmatter, links, agent names and the
vocabulary they share with the core (formats.py) are checked here.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from web_research import formats

ROOT = formats.PLUGIN_ROOT
SKILL = formats.SKILL_DIR / "SKILL.md"
AGENTS_DIR = ROOT / "agents"
AGENT = AGENTS_DIR / f"{formats.RESEARCHER_AGENT}.md"
FAILURE_MODES = formats.REFERENCES_DIR / "failure-modes.md"
CONTRACT = formats.REFERENCES_DIR / "companion-contract.md"

RESEARCHER_TOOLS = {"WebSearch", "Bash"}  # searches, the fetch command and the reply: no file tool
SKILL_TOOLS = {"Read", "Write", "Edit", "Bash", "Agent", "ToolSearch"}


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that also refuses duplicate keys (PyYAML keeps the last one silently)."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def frontmatter(text: str) -> tuple[dict, str]:
    """(frontmatter mapping, body). Raises ValueError/YAMLError on anything malformed."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise ValueError("no frontmatter: the first line must be '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    except StopIteration:
        raise ValueError("frontmatter is never closed with '---'") from None
    data = yaml.load("\n".join(lines[1:end]), Loader=_StrictLoader)
    if not isinstance(data, dict):
        raise ValueError("frontmatter is not a YAML mapping")
    return data, "\n".join(lines[end + 1:])


def prompt_files() -> list[Path]:
    return sorted([*formats.SKILL_DIR.rglob("*.md"), *AGENTS_DIR.glob("*.md")])


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def prose(text: str) -> str:
    """Whitespace collapsed, so that a phrase wrapped over two lines still matches."""
    return re.sub(r"\s+", " ", text)


def fenced_blocks(text: str, info: str) -> list[str]:
    return re.findall(rf"^```{re.escape(info)}[ \t]*\n(.*?)^```[ \t]*$", text, flags=re.S | re.M)


# --- frontmatter -----------------------------------------------------------------------------

def test_frontmatter_parser_is_strict():
    with pytest.raises(yaml.YAMLError):
        frontmatter("---\nname: x\ndescription: Use it: for things\n---\nbody\n")
    with pytest.raises(yaml.YAMLError):
        frontmatter("---\nname: x\nname: y\n---\n")
    with pytest.raises(ValueError):
        frontmatter("name: x\n")
    assert frontmatter('---\nname: x\ndescription: "Use it: for things"\n---\nbody\n')[0]["description"] \
        == "Use it: for things"


def test_skill_frontmatter():
    meta, body = frontmatter(read(SKILL))
    assert meta["name"] == formats.SKILL_NAME
    description = meta["description"]
    assert isinstance(description, str) and 200 <= len(description) <= 1536
    for phrase in ("research", "find sources", "Not for searching the codebase, local files"):
        assert phrase in description, phrase
    assert isinstance(meta["argument-hint"], str) and meta["argument-hint"].strip()
    tools = {t.strip() for t in meta["allowed-tools"].split(",")}
    assert tools == SKILL_TOOLS
    assert "disable-model-invocation" not in meta, "sibling skills must be able to call it"
    assert len(read(SKILL).splitlines()) < 200, "keep SKILL.md lean; detail goes to references/"
    assert body.strip()


def test_agent_frontmatter():
    meta, body = frontmatter(read(AGENT))
    assert meta["name"] == formats.RESEARCHER_AGENT and ":" not in meta["name"]
    assert isinstance(meta["description"], str) and meta["description"].strip()
    assert {t.strip() for t in meta["tools"].split(",")} == RESEARCHER_TOOLS
    assert meta["model"] == "sonnet"
    assert isinstance(meta["maxTurns"], int) and 20 <= meta["maxTurns"] <= 100
    assert body.strip()


@pytest.mark.parametrize("path", sorted(AGENTS_DIR.glob("*.md")) + sorted(formats.SKILL_DIR.glob("*/SKILL.md"))
                         + [SKILL], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_skill_and_agent_frontmatter_parses_strictly(path):
    meta, _ = frontmatter(read(path))
    assert {"name", "description"} <= set(meta)
    assert all(isinstance(value, (str, int, bool, list)) for value in meta.values())


# --- links and agent names -------------------------------------------------------------------

_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def heading_anchors(text: str) -> set[str]:
    """GitHub-style anchors of every Markdown heading."""
    anchors = set()
    for line in text.splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
            anchors.add(slug)
    return anchors


def relative_links(path: Path) -> list[tuple[str, str]]:
    links = []
    for target in _LINK.findall(read(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I) or target.startswith("#"):
            continue
        file_part, _, anchor = target.partition("#")
        links.append((file_part, anchor))
    return links


@pytest.mark.parametrize("path", prompt_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    for file_part, anchor in relative_links(path):
        target = (path.parent / file_part).resolve()
        assert target.exists(), f"{path.relative_to(ROOT)}: link to {file_part} does not resolve"
        if anchor:
            assert anchor in heading_anchors(read(target)), \
                f"{path.relative_to(ROOT)}: {file_part} has no heading for #{anchor}"


def test_skill_links_its_references():
    targets = {file_part for file_part, _ in relative_links(SKILL)}
    for name in ("failure-modes.md", "companion-contract.md", "report-template.md",
                 "second-wave.md", "resume.md", "clarifying-questions.md"):
        assert f"references/{name}" in targets, name


_SUBAGENT_TYPE = re.compile(r"subagent_type[`\"']?\s*[:=]\s*[`\"']?([\w.:-]+)")


def test_every_subagent_type_is_namespaced_and_names_an_existing_agent():
    """The hook sets subagent_type from the prompt's form (guard/events.py dispatch_fields): the
    types it sets name agents of this plugin, and no prompt asks the model for one."""
    agents = {frontmatter(read(p))[0]["name"] for p in AGENTS_DIR.glob("*.md")}
    for value in (formats.RESEARCHER_SUBAGENT_TYPE, formats.CHECKER_SUBAGENT_TYPE):
        plugin, sep, agent = value.partition(":")
        assert sep and plugin == formats.PLUGIN_NAME and agent in agents, value
    for path in prompt_files():
        assert _SUBAGENT_TYPE.findall(read(path)) == [], path.name


# --- agreement with formats.py ---------------------------------------------------------------

def code_spans(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


@pytest.mark.parametrize("path", [SKILL, AGENT], ids=lambda p: p.name)
def test_statuses_are_named_exactly(path):
    text = read(path)
    assert set(formats.STATUSES) <= code_spans(text)
    for value in re.findall(r"status: ?`?([A-Za-z_-]+)", text):
        assert value in formats.STATUSES, f"{path.name}: unknown status {value!r}"


def test_researcher_writes_only_its_fields_and_the_skill_names_the_ones_it_reads():
    """The researcher writes status and reason; the plugin fills in FINDINGS_PLUGIN_FIELDS, so the
    researcher's prompt names none of them."""
    text = read(AGENT)
    assert not any(f"`{field}`" in text for field in formats.FINDINGS_PLUGIN_FIELDS)
    assert "status: failed" in text
    assert "status" in code_spans(read(SKILL))
    # The skill never asks the orchestrator to carry a researcher's `reason` into the report (issue 43).
    assert "reason`)" not in read(SKILL) and "with its `reason`" not in read(SKILL)


def test_skill_names_the_report_sections_in_order():
    text = read(SKILL)
    named = [span[3:] for span in re.findall(r"`(## [^`]+)`", text) if span[3:] in formats.REPORT_SECTIONS]
    assert named == list(formats.REPORT_SECTIONS)
    for path in prompt_files():
        assert not re.search(r"Gaps and Limitations|Gaps & limitations|TLDR|TL; DR", read(path)), path.name


def test_skill_names_the_plan_sections_it_fills_and_writes_no_skeleton():
    """The model creates plan.md with the sections it decides (no Read first: start wrote no
    skeleton); the hook adds the question and the tier (run/plan.complete_plan). The skill names
    those sections and the Budget lines it may add, and shows no plan of its own to copy."""
    text = read(SKILL)
    assert not fenced_blocks(text, "markdown"), "SKILL.md shows no plan skeleton"
    for section in formats.PLAN_SECTIONS[1:3]:
        assert f"`## {section}`" in text, section
    assert f"`## {formats.PLAN_SECTION_BUDGET}`" in text and "the plugin adds the question and the tier" in prose(text)
    assert f"`## {formats.PLAN_SECTION_QUESTION}`" not in text  # never the model's to write


def test_skill_reads_the_tiers_caps_from_starts_output():
    """Issue 38: no reference file is read to write the plan: `start` prints the tier's caps under
    `budget`, and the skill names the keys it prints."""
    from web_research.commands.start_cmd import _budget

    text = prose(read(SKILL))
    printed = _budget("standard", False)
    named = set(re.findall(r"`budget\.(\w+)`", text)) | set(re.findall(r"`(max_subtopics)`", text))
    assert named and named <= set(printed), named
    assert "`caller`" in text and "`budget`" in text


def test_researcher_is_told_the_stub_stands_for_it_until_it_replies():
    assert "the plugin's stub tells the orchestrator you did not finish" in prose(read(AGENT))


def test_no_prompt_a_researcher_reads_offers_webfetch_for_pages():
    """Researchers read pages only with `fetch` (a WebFetch result is a model's summary and their
    WebFetch is denied in a run): neither the brief template nor the researcher's page names it."""
    for path in (formats.REFERENCES_DIR / "subagent-brief.md", AGENT):
        assert "WebFetch" not in path.read_text(encoding="utf-8"), path


def test_skill_names_the_file_name_words_the_client_refuses():
    match = re.search(r"No name starts with ([^:]+):", prose(read(SKILL)))
    assert match, "SKILL.md must tell which subtopic names the plan refuses"
    words = [w.strip().lower() for w in re.split(r",|\bor\b", match.group(1)) if w.strip()]
    assert words == list(formats.CLIENT_REFUSED_FILE_PREFIXES)


def test_numbers_in_the_skill_match_the_limits():
    text = prose(read(SKILL)) + " " + prose(read(FAILURE_MODES))
    counts = re.findall(r"(\d+) researchers", text)
    assert counts and set(counts) == {str(formats.MAX_PARALLEL_RESEARCHERS)}
    assert f"at most {formats.MAX_PARALLEL_RESEARCHERS} researchers at once" in text
    assert re.findall(r"(\d+) to `budget\.max_subtopics` subtopics", text) == [str(formats.MIN_SUBTOPICS)]
    assert re.findall(r"[Ww]ith (\d+) or (\d+) subtopics", text) == [
        (str(formats.MAX_PARALLEL_RESEARCHERS + 1), str(formats.MAX_SUBTOPICS))]
    assert f"the rest are given when the first {formats.MAX_PARALLEL_RESEARCHERS} return" in text


def test_skill_dispatches_each_researcher_by_reference():
    text = prose(read(SKILL))
    assert formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT) in text
    assert formats.dispatch_call(formats.DISPATCH_CHECK_PROMPT) in text
    assert "Brief hash" not in text and "unchanged (the brief" not in text  # nothing long is copied
    # The hook sets the agent type and the foreground from the prompt's form
    # (test_hooks.py::test_a_brief_prompt_alone_names_a_foreground_researcher): the skill asks for neither.
    assert "subagent_type" not in text and "run_in_background" not in text
    assert "sets the agent type and the foreground run" in text
    assert "ONE message" in text


def test_skill_error_and_return_shapes_match_the_contract():
    text = read(SKILL)
    for code in (formats.ERROR_PRIOR_RUN_PRESENT, formats.ERROR_INVALID_INPUT):
        assert code in text, code
    # No JSON shape to type: the web-tools error is printed by `unavailable`
    # (test_unavailable_cmd.py), the return object by `finish`.
    assert [json.loads(block) for block in fenced_blocks(text, "json")] == []
    assert '"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" unavailable WebSearch' in text
    # The return object is finish's: the skill returns it unchanged and never composes one.
    assert "your final message is that object, unchanged" in prose(text)
    assert '"plan":' not in text


# --- the companion contract ------------------------------------------------------------------

def test_contract_examples_are_valid_start_input():
    from web_research.run.inputs import contract_keys, from_raw

    text = read(CONTRACT)
    examples = fenced_blocks(text, "yaml")
    assert len(examples) >= 4
    for block in examples:
        mapping = yaml.safe_load(block)
        assert set(mapping) <= set(contract_keys())
        request = from_raw(block)  # the parser `start` uses; raises InputError when invalid
        assert request.question == mapping["research_question"]
    table_keys = re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M)
    assert table_keys == list(contract_keys())


def test_contract_skill_tool_call_example():
    from web_research.run.inputs import from_raw

    calls = [b for b in map(json.loads, fenced_blocks(read(CONTRACT), "json")) if "skill" in b]
    assert calls
    for call in calls:
        assert set(call) == {"skill", "args"}  # the Skill tool's input schema
        assert call["skill"] == f"{formats.PLUGIN_NAME}:{formats.SKILL_NAME}"
        assert from_raw(call["args"]).question.startswith("How do")


def test_contract_says_what_a_caller_can_do_while_its_run_is_open():
    """The room denies a caller's own moves until the run ends: the contract says so, and when."""
    text = prose(read(CONTRACT))
    assert "While the run is open" in text and "abandon" in text and "Stop hook" in text
    assert "the caller's own writes and commands, other skills and MCP tools are denied" in text


def test_contract_return_shapes():
    text = read(CONTRACT)
    shapes = [b for b in map(json.loads, fenced_blocks(text, "json")) if "skill" not in b]
    errors = {shape["error"] for shape in shapes if "error" in shape}
    assert errors == {formats.ERROR_WEB_TOOLS_UNAVAILABLE, formats.ERROR_PRIOR_RUN_PRESENT, formats.ERROR_INVALID_INPUT,
                      formats.ERROR_NOT_A_RUN, formats.ERROR_PLAN_CHANGED}
    assert all(set(shape) == {"error", "detail"} for shape in shapes if "error" in shape)
    success, unverified = [shape for shape in shapes if "error" not in shape]
    # The shapes `finish` prints for the run folder /abs/run, verified and not.
    from web_research.run.return_object import return_object
    from web_research.commands.start_cmd import prior_run_detail

    assert success == return_object(Path("/abs/run"))
    assert unverified == return_object(Path("/abs/run"), unverified[formats.RETURN_FAILED_CHECKS_KEY])
    assert unverified[formats.RETURN_FAILED_CHECKS_KEY] and all(
        re.fullmatch(r"[a-z_]+(\.[a-z0-9_<>-]+)+", c) for c in unverified[formats.RETURN_FAILED_CHECKS_KEY])
    prior = next(shape for shape in shapes if shape.get("error") == formats.ERROR_PRIOR_RUN_PRESENT)
    assert prior["detail"] == prior_run_detail(Path("/abs/run"), ["plan.md", "findings/"])
    assert set(success) == set(formats.RETURN_PATH_KEYS)
    assert success["plan"].endswith("/" + formats.PLAN_FILE)
    assert success["report"].endswith("/" + formats.REPORT_FILE)
    assert success["findings_dir"].rstrip("/").endswith("/" + formats.FINDINGS_DIR)
    assert success["view"].endswith("/" + formats.REPORT_VIEW_FILE)
    assert "web-research:web-research" in text
    assert formats.DEFAULT_ROOT.as_posix() in text and formats.ROOT_ENV_VAR in text
    assert formats.ARCHIVE_PREFIX in text


def test_failure_modes_maps_every_kind_of_verify_failure():
    text = read(FAILURE_MODES)
    assert "## Verification failures" in text
    for word in ("Partial success", "Researchers that do not finish", "Refusals", "Fail fast"):
        assert word in text, word
    assert formats.ARCHIVE_PREFIX in text
    assert "findings file" in text and "Gaps & Limitations" in text


# --- failure-modes.md covers every check verify can fail --------------------------------------

def table_check_patterns(text: str) -> list[str]:
    """Check-id patterns named in the verification table; `.x` continues the row's first id."""
    section = text.split("## Verification failures", 1)[1]
    patterns = []
    for row in re.findall(r"^\| (.+?) \|", section, flags=re.M):
        spans = re.findall(r"`([^`]+)`", row)
        base = None
        for span in spans:
            if span.startswith("."):
                if base is None:
                    raise AssertionError(f"shorthand {span} without a full id first: {row}")
                patterns.append(base + span)
            elif re.match(r"^(run|plan|findings|report|sources|citations|provenance|checks)\.", span):
                patterns.append(span)
                base = span.rsplit(".", 1)[0]
    return patterns


def broken_runs(tmp_path: Path) -> list[Path]:
    """The bundled example run, and copies broken so that most checks fail somewhere."""
    import shutil

    example = ROOT / "examples" / "observability-pricing"
    runs = [example]
    broken = tmp_path / "broken"
    shutil.copytree(example, broken)
    findings = sorted((broken / formats.FINDINGS_DIR).glob("*.md"))
    findings[0].unlink()
    text = findings[1].read_text(encoding="utf-8")
    findings[1].write_text(text.replace("status: ok", "status: done").replace("[^1]", "[^9]", 1)
                           + "\n\n## Extra\n\n[^7]: **Title**: x\n", encoding="utf-8")
    (broken / formats.FINDINGS_DIR / "stray.md").write_text("---\nstatus: ok\n---\n", encoding="utf-8")
    report = (broken / formats.REPORT_FILE).read_text(encoding="utf-8")
    (broken / formats.REPORT_FILE).write_text(
        report.replace("# Research:", "# Report:").replace("## TL;DR", "## Summary")
        + "\n## Extra\n\nUnsourced claim.\n\n[^99]: **Title**: t\n      **URL**: ftp://x\n", encoding="utf-8")
    runs.append(broken)
    empty = tmp_path / "empty"
    empty.mkdir()
    runs.append(empty)
    return runs


def check_groups():
    """The extra check groups verify runs; page-snapshot integrity when it is not yet joined."""
    from web_research.checks import checklist

    if checklist.EXTRA_CHECK_GROUPS:
        return tuple(checklist.EXTRA_CHECK_GROUPS)
    try:
        from web_research.checks.integrity import citation_integrity_checks
    except ImportError:
        return ()
    return (lambda run_dir, parsed: citation_integrity_checks(run_dir, parsed.cited),)


def add_mismatching_snapshot(run: Path) -> None:
    """Store a page snapshot that contradicts the first URL cited in report.md."""
    try:
        from web_research.evidence.snapshots import store_snapshot
    except ImportError:
        return
    url = re.search(r"\*\*URL\*\*: (\S+)", (run / formats.REPORT_FILE).read_text(encoding="utf-8")).group(1)
    store_snapshot(run, requested_url=url, final_url=url, title="Another page entirely", status=200,
                   content_type="text/html", retrieved_at="2026-04-18T09:00:00Z",
                   text="Nothing on this page matches any excerpt.", extractor="test")


def test_failure_modes_table_names_real_checks_and_covers_every_check(tmp_path):
    from fnmatch import fnmatchcase

    from web_research.checks.checklist import parse_and_check
    from web_research.run.plan import load_plan

    patterns = table_check_patterns(read(FAILURE_MODES))
    assert patterns
    runs = broken_runs(tmp_path)
    add_mismatching_snapshot(runs[1])
    seen: set[str] = set()
    for run in runs:
        slugs = set()
        if (run / formats.PLAN_FILE).is_file():
            slugs = {s.slug for s in load_plan(run / formats.PLAN_FILE).subtopics}
        if (run / formats.FINDINGS_DIR).is_dir():
            slugs |= {p.stem for p in (run / formats.FINDINGS_DIR).glob("*.md")}
        for check in parse_and_check(run, extra=check_groups())[1]:
            seen.add(".".join("<slug>" if part in slugs else part for part in check.id.split(".")))
    uncovered = sorted(i for i in seen if not any(fnmatchcase(i, p) for p in patterns))
    assert not uncovered, f"failure-modes.md does not say what to do for: {uncovered}"
    # Every id the table names is one the core knows: seen here, or named in the core's source.
    core_source = "\n".join(path.read_text(encoding="utf-8")
                             for path in (formats.PACKAGE_DIR).rglob("*.py"))
    for pattern in patterns:
        if any(fnmatchcase(i, pattern) for i in seen):
            continue
        rule = pattern.rsplit(".", 1)[1]
        assert rule != "*" and re.search(rf"\b{re.escape(rule)}\b", core_source), \
            f"failure-modes.md names a check the core does not have: {pattern}"
