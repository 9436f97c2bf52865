"""The plugin's JSON Schemas (`schemas/*.json`): loading, validating, and naming the field at fault.

One module for every schema user (citations, findings frontmatter, the start input,
run metrics), so each file is parsed and compiled once per process. jsonschema
(draft 2020-12, `format` asserted) is the one implementation of the rules: every
instance, valid or not, is judged by it, and the schema files are the one source
of truth. Importing it costs a process about 0.1 s of CPU, paid only by what
validates (verify, start, the findings gate), never by a light hook.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Mapping

from jsonschema import Draft202012Validator

from ..formats import SCHEMAS_DIR


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    """A JSON Schema from `SCHEMAS_DIR`, parsed once per process."""
    return json.loads((SCHEMAS_DIR / name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def schema_validator(name: str) -> Any:
    """A compiled validator for a schema file, checking `format` keywords too."""
    schema = load_schema(name)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_errors(name: str, instance: Mapping[str, object]) -> list[tuple[str, str]]:
    """Validate `instance` and return `(field, what is wrong)` pairs.

    The field comes from the error's path, or for `required`,
    `additionalProperties` and `not` errors (which sit on the object) from the
    keys involved, so every message can name the field the user must fix.
    """
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
