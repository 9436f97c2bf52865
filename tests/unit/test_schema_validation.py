"""schema_validation: `quick_verdict` (which spares verify the import of jsonschema)
never disagrees with jsonschema, and verify of a valid run does not import it."""
from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from example_run import EXAMPLE_DIR, SCRIPTS_DIR
from web_research.schema_validation import load_schema, quick_verdict, schema_errors, schema_validator

SCHEMAS = ("citation.schema.json", "findings-frontmatter.schema.json", "start-input.schema.json",
           "run-metrics.schema.json")

# Values near the schemas' edges: valid ones, and each way to miss a pattern, enum, const or date.
VALUES = st.one_of(
    st.sampled_from(["ok", "empty", "failed", "done", "", " ", "Title", "https://a.example/x", "http://a.example",
                     "ftp://a.example", "https://a.example/ x", '"quoted excerpt"', '"', '""', "\u201cq\u201d",
                     "2026-04-18", "2026-02-30", "2026-4-18", "\u0662\u0660\u0662\u0666-04-18", "official-docs",
                     "vendor", "sha256:" + "a" * 64, "sha256:" + "A" * 64, "2026-04-18T09:00:00Z",
                     "2026-04-18 09:00", "one line", "two\nlines", "quick", "standard", "deep", "question?"]),
    st.text(max_size=12), st.integers(-2, 3), st.booleans(), st.none(), st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _instances(schema: dict) -> st.SearchStrategy[dict]:
    keys = list(schema.get("properties", {})) + ["reason", "unknown_field"]
    return st.dictionaries(st.sampled_from(keys), VALUES, max_size=len(keys))


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_quick_verdict_agrees_with_jsonschema(data) -> None:
    name = data.draw(st.sampled_from(SCHEMAS))
    schema = load_schema(name)
    instance = data.draw(_instances(schema))
    verdict = quick_verdict(schema, instance)
    if verdict is not None:
        assert verdict == schema_validator(name).is_valid(instance), (name, instance)


def test_quick_verdict_decides_our_citation_and_frontmatter_schemas() -> None:
    """It must not simply say "don't know": then verify would import jsonschema after all."""
    good = {"title": "T", "url": "https://a.example/", "excerpt": '"q"', "retrieved_at": "2026-04-18"}
    assert quick_verdict(load_schema("citation.schema.json"), good) is True
    assert quick_verdict(load_schema("citation.schema.json"), {**good, "retrieved_at": "2026-02-30"}) is False
    front = {"status": "ok", "subtopic": "S", "brief_hash": "sha256:" + "0" * 64,
             "started_at": "2026-04-18T09:00:00Z", "finished_at": "2026-04-18T09:10:00Z"}
    assert quick_verdict(load_schema("findings-frontmatter.schema.json"), front) is True
    assert quick_verdict(load_schema("findings-frontmatter.schema.json"), {**front, "reason": "x"}) is False
    assert schema_errors("citation.schema.json", {**good, "retrieved_at": "2026-02-30"})[0][0] == "retrieved_at"


def test_unknown_keywords_are_left_to_jsonschema() -> None:
    assert quick_verdict({"type": "string", "minLength": 2}, "ab") is None
    assert quick_verdict({"enum": [1, 2]}, 1) is None
    assert quick_verdict({"additionalProperties": {"type": "string"}}, {}) is None


def test_verify_of_a_valid_run_does_not_import_jsonschema() -> None:
    probe = ("import sys, contextlib, io\n"
             "from web_research.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    code = main(['verify', {str(EXAMPLE_DIR)!r}])\n"
             "print(code, 'jsonschema' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR))
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["0", "False"], out.stdout + out.stderr


def test_valid_start_input_does_not_import_jsonschema() -> None:
    """`start`'s input is checked in the hooks too (PreToolUse of the start command)."""
    probe = ("import sys\n"
             "from web_research.inputs import from_raw\n"
             "from_raw('research_question: What is x?\\nauto_proceed: true\\ntier: quick')\n"
             "print('jsonschema' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR))
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False"], out.stdout + out.stderr
