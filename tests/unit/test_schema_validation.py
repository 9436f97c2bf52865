"""schema_validation: jsonschema is the one implementation of the schemas' rules, and every
invalid instance gets messages that name the field and what was expected."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from web_research.run import inputs
from web_research.core import schema_validation
from web_research.core.schema_validation import load_schema, schema_errors, schema_validator

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


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_an_instance_has_messages_exactly_when_jsonschema_finds_it_invalid(data) -> None:
    """No invalid instance passes without a message (an error kind the field mapping drops)."""
    name = data.draw(st.sampled_from(SCHEMAS))
    instance = data.draw(_instances(load_schema(name)))
    errors = schema_errors(name, instance)
    assert (errors == []) == schema_validator(name).is_valid(instance), (name, instance, errors)
    assert all(isinstance(field, str) and what for field, what in errors), errors


GOOD_CITATION = {"title": "T", "url": "https://a.example/", "excerpt": '"q"', "retrieved_at": "2026-04-18"}


def test_jsonschema_alone_judges_every_instance_valid_or_not(monkeypatch) -> None:
    """One implementation: a valid instance too is judged by the compiled jsonschema validator
    (no hand-written fast path beside it decides validity on its own)."""
    asked: list[str] = []

    def spy(name: str):
        asked.append(name)
        return schema_validator(name)

    monkeypatch.setattr(schema_validation, "schema_validator", spy)
    assert schema_errors("citation.schema.json", GOOD_CITATION) == []
    front = {"status": "ok", "subtopic": "S", "brief_hash": "sha256:" + "0" * 64,
             "started_at": "2026-04-18T09:00:00Z", "finished_at": "2026-04-18T09:10:00Z"}
    assert schema_errors("findings-frontmatter.schema.json", front) == []
    assert asked == ["citation.schema.json", "findings-frontmatter.schema.json"]
    monkeypatch.setattr(inputs, "schema_validator", spy)
    assert inputs.validate({"research_question": "What is x?", "auto_proceed": True, "tier": "quick"}).tier == "quick"
    assert asked[-1] == "start-input.schema.json"


def test_messages_name_the_field_and_what_was_expected() -> None:
    errors = dict(schema_errors("citation.schema.json", {**GOOD_CITATION, "retrieved_at": "2026-02-30",
                                                         "colour": "red"}))
    assert errors["retrieved_at"].startswith("is '2026-02-30'; expected ")
    assert errors["colour"] == "is not a known field"
    missing = dict(schema_errors("citation.schema.json", {k: v for k, v in GOOD_CITATION.items() if k != "url"}))
    assert missing == {"url": "is missing (required)"}
    status = dict(schema_errors("findings-frontmatter.schema.json", {"status": "done"}))
    assert status["status"].startswith("is 'done'; expected one of ok, empty, failed"), status
