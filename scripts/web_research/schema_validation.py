"""The plugin's JSON Schemas (`schemas/*.json`): loading, validating, and naming the field at fault.

One module for every schema user (citations, findings frontmatter, the start input,
run metrics), so each file is parsed and compiled once per process.

Speed: importing jsonschema costs about as much as verifying 500 citations, and
a valid instance needs none of its messages. So `quick_verdict` first decides
validity itself for the few keywords our schemas use, exactly, and answers
"don't know" for anything else; jsonschema is imported only to explain an
invalid instance (or to judge one `quick_verdict` cannot). The schema files stay
the one source of truth for both.
"""
from __future__ import annotations

import datetime
import json
import re
from functools import lru_cache
from typing import Any, Mapping

from .formats import SCHEMAS_DIR


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    """A JSON Schema from `SCHEMAS_DIR`, parsed once per process."""
    return json.loads((SCHEMAS_DIR / name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def schema_validator(name: str) -> Any:
    """A compiled validator for a schema file, checking `format` keywords too."""
    from jsonschema import Draft202012Validator  # lazy: jsonschema costs ~0.1 s to import

    schema = load_schema(name)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# Keywords that only annotate: they never change validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default"})
_ASCII_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def quick_verdict(schema: Any, instance: Any) -> bool | None:
    """True or False when `instance` is (not) valid against `schema` (draft 2020-12,
    `format` asserted), or None when the schema uses a keyword or value this reader
    does not judge exactly; then only jsonschema may decide."""
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        return None
    verdict = True
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS or keyword in ("then", "else"):
            continue
        result = _keyword_verdict(schema, keyword, value, instance)
        if result is None:
            return None
        verdict = verdict and result
    return verdict


def _all(results: Any) -> bool | None:
    """False if any is False, else None if any is None, else True (all are computed)."""
    outcome: bool | None = True
    for result in results:
        if result is False:
            outcome = False
        elif result is None and outcome is True:
            outcome = None
    return outcome


def _keyword_verdict(schema: dict, keyword: str, value: Any, instance: Any) -> bool | None:
    is_object = isinstance(instance, dict)
    if keyword == "type":
        kinds = {"string": str, "object": dict, "boolean": bool}
        if not isinstance(value, str) or value not in kinds:
            return None  # a list of types, or a type this reader does not judge
        return isinstance(instance, kinds[value])
    if keyword == "pattern":
        return bool(re.search(value, instance)) if isinstance(instance, str) else True
    if keyword in ("enum", "const"):
        options = value if keyword == "enum" else [value]
        if not all(type(option) is str for option in options):
            return None
        return type(instance) is str and instance in options
    if keyword == "format":
        if value != "date":
            return None
        if not isinstance(instance, str):
            return True
        if not _ASCII_DATE.fullmatch(instance):
            return False
        try:
            datetime.date.fromisoformat(instance)
        except ValueError:
            return False
        return True
    if keyword == "required":
        return all(key in instance for key in value) if is_object else True
    if keyword == "properties":
        if not is_object:
            return True
        return _all(quick_verdict(sub, instance[key]) for key, sub in value.items() if key in instance)
    if keyword == "additionalProperties":
        if value is not False or "patternProperties" in schema:
            return None
        return set(instance) <= set(schema.get("properties", {})) if is_object else True
    if keyword == "allOf":
        return _all(quick_verdict(sub, instance) for sub in value)
    if keyword == "not":
        inner = quick_verdict(value, instance)
        return None if inner is None else not inner
    if keyword == "if":
        condition = quick_verdict(value, instance)
        if condition is None:
            return None
        branch = schema.get("then" if condition else "else", True)
        return quick_verdict(branch, instance)
    return None


def schema_errors(name: str, instance: Mapping[str, object]) -> list[tuple[str, str]]:
    """Validate `instance` and return `(field, what is wrong)` pairs.

    The field comes from the error's path, or for `required`,
    `additionalProperties` and `not` errors (which sit on the object) from the
    keys involved, so every message can name the field the user must fix.
    """
    if quick_verdict(load_schema(name), dict(instance)) is True:
        return []  # valid: no need to import jsonschema for its messages
    found: list[tuple[str, str]] = []
    for error in sorted(schema_validator(name).iter_errors(dict(instance)), key=lambda e: list(e.path)):
        kind = error.validator
        if kind == "required":
            for missing in error.validator_value:
                if missing not in error.instance:
                    found.append((missing, "is missing (required)"))
        elif kind == "additionalProperties":
            allowed = set(error.schema.get("properties", {}))
            for extra in error.instance:
                if extra not in allowed:
                    found.append((extra, "is not a known field"))
        elif kind == "not" and not error.path:
            for forbidden in error.validator_value.get("required", []):
                found.append((forbidden, error.schema.get("description", "not allowed here")))
        else:
            name_ = str(error.path[0]) if error.path else ""
            if kind == "enum":
                expected = "one of " + ", ".join(str(v) for v in error.validator_value)
            else:
                expected = error.schema.get("description") or error.message
            found.append((name_, f"is {error.instance!r}; expected {expected}"))
    # One message per field: jsonschema reports each missing key once per
    # `required` error, and a value may break both `pattern` and `format`.
    seen: set[str] = set()
    unique = []
    for field_name, what in found:
        if field_name not in seen:
            seen.add(field_name)
            unique.append((field_name, what))
    return unique
