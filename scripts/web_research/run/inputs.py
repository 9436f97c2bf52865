"""What `web-research start` was asked to do, from flags or from raw skill arguments.

The skill hands over its raw argument text untouched (a quoted heredoc), so the
decision "is this the companion contract or a bare question?" is made here,
mechanically, and the result is validated against
`schemas/start-input.schema.json` (the contract's single source of truth).

Raw text is the contract only when it parses as a YAML mapping holding at least
one contract key; anything else is the question itself, optionally preceded by
`--auto`, `--refresh`, `--out DIR` and `--tier TIER` (`--` ends the options), or
`--resume DIR` alone (with `--auto` at most): reopen that run, whose plan holds the question. So a question
such as `Kubernetes: how do pods schedule?` stays a question even though YAML
would read it as a mapping.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Mapping

import yaml

from .budget import DEFAULT_TIER
from ..core.text import strip_invisible
from ..core.schema_validation import load_schema, schema_validator

SCHEMA_NAME = "start-input.schema.json"
QUESTION_KEY = "research_question"
FLAG_AUTO = "--auto"
FLAG_REFRESH = "--refresh"
FLAG_OUT = "--out"
FLAG_TIER = "--tier"
FLAG_RESUME = "--resume"
END_OF_OPTIONS = "--"


class InputError(ValueError):
    """Invalid start input; the message names the field and what was expected."""


@dataclass(frozen=True)
class StartInput:
    question: str
    output_dir: str | None = None
    auto_proceed: bool = False
    refresh: bool = False
    tier: str = DEFAULT_TIER
    deepen: bool = False  # a second wave allowed whatever the tier (plan.md's `Deepen: yes`)
    resume: bool = False  # reopen the run in output_dir; the question then comes from its plan.md
    from_contract: bool = field(default=False, compare=False)  # given as the companion contract's YAML mapping (another skill calling)

    @property
    def may_clarify(self) -> bool:
        """Clarifying questions are for a person at the review gate: never with auto_proceed,
        never to a calling skill, never on resume (the plan is already written)."""
        return not (self.auto_proceed or self.from_contract or self.resume)


def contract_keys() -> tuple[str, ...]:
    """The companion-contract keys, in schema order."""
    return tuple(load_schema(SCHEMA_NAME)["properties"])


# --- the raw argument text ---------------------------------------------------

BOOL_TAG = "tag:yaml.org,2002:bool"
# YAML 1.2's core-schema booleans. PyYAML follows YAML 1.1, where yes/no/on/off/y/n
# are booleans too, so `auto_proceed: yes` would skip the review gate unseen.
_STRICT_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")


@lru_cache(maxsize=1)
def _strict_bool_loader() -> type:
    """A safe loader whose only booleans are true/false: every other spelling stays a
    string, which the schema then rejects for a boolean field with a clear message."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("StrictBoolSafeLoader", (base,), {})
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != BOOL_TAG]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(BOOL_TAG, _STRICT_BOOL, list("tTfF"))
    return loader


def _yaml_mapping(text: str) -> dict[Any, Any] | None:
    try:
        data = yaml.load(text, Loader=_strict_bool_loader())  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def _take_token(text: str, option: str) -> tuple[str, str]:
    """Split off the first token of `text` (a quoted one may hold spaces)."""
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        if end == -1:
            raise InputError(f"arguments: the value of {option} opens a {text[0]} quote that is never closed")
        return text[1:end], text[end + 1:]
    parts = text.split(None, 1)
    if not parts:
        return "", ""
    return parts[0], parts[1] if len(parts) > 1 else ""


_OPTION = re.compile(r"--[^\s=]*")


def _flagged_question(text: str) -> dict[str, Any]:
    """Parse `[--auto] [--refresh] [--out DIR|--out=DIR] [--tier TIER|--tier=TIER] [--] question`."""
    result: dict[str, Any] = {}
    rest = text.strip()
    while rest.startswith("--"):
        name = _OPTION.match(rest).group(0)  # type: ignore[union-attr]
        after = rest[len(name):]
        if name == END_OF_OPTIONS and not after[:1] == "=":
            rest = after
            break
        if name in (FLAG_AUTO, FLAG_REFRESH) and not after[:1] == "=":
            result["auto_proceed" if name == FLAG_AUTO else "refresh"] = True
            rest = after.lstrip()
            continue
        if name == FLAG_TIER:
            if "tier" in result:
                raise InputError(f"arguments: {FLAG_TIER} given twice; expected one tier")
            result["tier"], rest = _take_token(after[1:] if after[:1] == "=" else after.lstrip(), FLAG_TIER)
            if not result["tier"].strip():
                raise InputError(f"arguments: {FLAG_TIER} needs a tier; expected {FLAG_TIER} TIER before the question")
            rest = rest.lstrip()
            continue
        if name == FLAG_RESUME:
            if "output_dir" in result:
                raise InputError(f"arguments: {FLAG_RESUME} and {FLAG_OUT} both name a folder; expected {FLAG_RESUME} DIR alone")
            value, rest = _take_token(after[1:] if after[:1] == "=" else after.lstrip(), FLAG_RESUME)
            if not value.strip():
                raise InputError(f"arguments: {FLAG_RESUME} needs the run folder; expected {FLAG_RESUME} DIR")
            result["resume"], result["output_dir"] = True, value
            rest = rest.lstrip()
            continue
        if name != FLAG_OUT:
            raise InputError(
                f"arguments: unknown option '{rest.split(None, 1)[0]}'; expected {FLAG_AUTO}, {FLAG_REFRESH}, "
                f"{FLAG_OUT} DIR, {FLAG_TIER} TIER or {FLAG_RESUME} DIR before the question (put '{END_OF_OPTIONS}' before a question "
                "that starts with '--')"
            )
        if "output_dir" in result:
            raise InputError(f"arguments: {FLAG_OUT} given twice, or with {FLAG_RESUME}; expected one run folder")
        value, rest = _take_token(after[1:] if after[:1] == "=" else after.lstrip(), FLAG_OUT)
        if not value.strip():
            raise InputError(f"arguments: {FLAG_OUT} needs a folder; expected {FLAG_OUT} DIR before the question")
        result["output_dir"] = value
        rest = rest.lstrip()
    if rest.strip() or not result.get("resume"):
        result[QUESTION_KEY] = rest.strip()
    return result


def _contract_mapping(text: str) -> dict[Any, Any] | None:
    """The YAML mapping of the companion contract, when the text is one."""
    mapping = _yaml_mapping(text)
    keys = contract_keys()
    if mapping is not None and any(isinstance(key, str) and key in keys for key in mapping):
        return mapping
    return None


def mapping_from_raw(text: str) -> dict[Any, Any]:
    """The unvalidated contract mapping that raw skill arguments stand for."""
    mapping = _contract_mapping(text)
    return mapping if mapping is not None else _flagged_question(text)


# --- validation -----------------------------------------------------------

def _describe(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _error_detail(error: Any, mapping: Mapping[Any, Any], schema: dict[str, Any]) -> str:
    properties: dict[str, Any] = schema["properties"]
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in mapping)
        return f"{missing}: missing; expected {properties[missing]['description']}"
    if error.validator == "additionalProperties":
        unknown = sorted(str(key) for key in mapping if key not in properties)
        allowed = ", ".join(properties)
        return f"unknown key {', '.join(repr(k) for k in unknown)}; expected only {allowed}"
    field = str(error.absolute_path[0]) if error.absolute_path else "input"
    expected = properties.get(field, {}).get("description", error.message)
    got = _describe(error.instance)
    return f"{field}: got {got}; expected {expected}"


def validate(mapping: Mapping[Any, Any]) -> StartInput:
    """Check a contract mapping against the schema and return the typed input."""
    schema = load_schema(SCHEMA_NAME)
    plain = {str(key) if not isinstance(key, str) else key: value for key, value in mapping.items()}
    errors = sorted(
        schema_validator(SCHEMA_NAME).iter_errors(plain),
        key=lambda e: (e.validator not in ("additionalProperties", "required"), list(map(str, e.absolute_path))),
    )
    if errors:
        raise InputError(_error_detail(errors[0], plain, schema))
    resume = bool(plain.get("resume", False))
    if resume and QUESTION_KEY in plain:
        raise InputError(f"{QUESTION_KEY}: given with resume; expected no question: a resumed run keeps "
                         "the question its plan.md holds")
    if resume and "tier" in plain:
        raise InputError("tier: given with resume; expected no tier: a resumed run keeps the Tier line of its plan.md")
    if resume and plain.get("refresh"):
        raise InputError("refresh: true with resume; expected one of them: refresh archives the run that "
                         "resume would continue")
    # Without the characters that show as nothing (core/text.py): the question becomes the report's
    # title, which may hold none of them, and it says what it said (a zero-width space or a braille
    # blank pasted with it is no word of it).
    question = strip_invisible(str(plain.get(QUESTION_KEY, ""))).strip()
    if QUESTION_KEY in plain and not question:
        raise InputError(f"{QUESTION_KEY}: holds only characters that show as nothing; expected a question")
    return StartInput(
        question=question,
        resume=resume,
        output_dir=plain.get("output_dir"),
        auto_proceed=bool(plain.get("auto_proceed", False)),
        refresh=bool(plain.get("refresh", False)),
        tier=plain.get("tier", DEFAULT_TIER),
        deepen=bool(plain.get("deepen", False)),
    )


def from_raw(text: str) -> StartInput:
    """Raw skill arguments -> validated input."""
    contract = _contract_mapping(text)
    return replace(_validated_raw(text), from_contract=contract is not None)


def _validated_raw(text: str) -> StartInput:
    mapping = mapping_from_raw(text)
    if QUESTION_KEY not in mapping:
        # Read as the contract because a line starts with a contract key; say how to
        # research such text instead (e.g. "refresh: what changed in v2?").
        try:
            return validate(mapping)
        except InputError as error:
            raise InputError(
                f"{error} (the arguments were read as a YAML mapping of the companion contract; "
                f"to research text that starts with a contract key, put '{END_OF_OPTIONS} ' before it)"
            ) from None
    return validate(mapping)


def from_flags(
    question: str | None, output_dir: str | None, auto_proceed: bool, refresh: bool, tier: str | None = None,
    resume: bool = False, deepen: bool = False,
) -> StartInput:
    """Command-line flags -> validated input (same schema as the raw route)."""
    mapping: dict[str, Any] = {}
    if question is not None:
        mapping[QUESTION_KEY] = question
    if output_dir is not None:
        mapping["output_dir"] = output_dir
    if auto_proceed:
        mapping["auto_proceed"] = True
    if refresh:
        mapping["refresh"] = True
    if tier is not None:
        mapping["tier"] = tier
    if deepen:
        mapping["deepen"] = True
    if resume:
        mapping["resume"] = True
    return validate(mapping)
