"""Property: a refusal that holds for a clean payload holds under every mutation of that
payload while the run is open, and with no run anywhere the same payloads are quiet
and fast. Real runs (real `start` and `briefs`), every call through `hooks/run`.
The mutations and scenarios are tests/fuzz/payload_mutations.py's; run_fuzz.py there
runs the whole deterministic list and prints the figures."""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

from payload_mutations import SURROGATE, Harness, build_run, run_hook  # noqa: E402

EXAMPLES = 30  # two hook runs each (in a run, then with none): about 40 s at load 20 on 2 cores
NO_RUN_SECONDS = 2.0
OUTPUT_LIMIT = 10_000


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    h, scenarios = build_run(tmp / "run")
    keep = tmp / "pristine"
    for name, folder in (("data", h.data), ("project", h.project), ("transcripts", h.transcripts)):
        shutil.copytree(folder, keep / name, symlinks=True)
    quiet = Harness(tmp / "norun")
    return h, scenarios, keep, quiet


def _restore(h: Harness, keep: Path) -> None:
    for name, folder in (("data", h.data), ("project", h.project), ("transcripts", h.transcripts)):
        shutil.rmtree(folder)
        shutil.copytree(keep / name, folder, symlinks=True)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                       max_size=3), max_leaves=8)


def _fields(payload: dict) -> list[str]:
    return [k for k in payload if k != "tool_input"] + [f"tool_input.{k}" for k in payload.get("tool_input", {})]


def _get(payload: dict, key: str):
    return payload["tool_input"][key[11:]] if key.startswith("tool_input.") else payload[key]


def _set(payload: dict, key: str, value) -> dict:
    copy = json.loads(json.dumps(payload))
    if key.startswith("tool_input."):
        copy["tool_input"][key[11:]] = value
    else:
        copy[key] = value
    return copy


@st.composite
def mutated(draw, payload: dict) -> bytes:
    """Raw stdin: the payload with one field of the wrong type or with a lone surrogate
    (or a NUL in a path or name), an unknown key with any value, a duplicate key, deep
    nesting, a byte-order mark, trailing bytes, or cut short."""
    kind = draw(st.sampled_from(["type", "surrogate", "nul", "extra", "duplicate", "nesting", "bom", "trailing",
                                 "truncated"]))
    key = draw(st.sampled_from(_fields(payload)))
    text = json.dumps(payload)
    if kind == "type":
        current = _get(payload, key)
        value = draw(json_values.filter(lambda v: type(v) is not type(current) and not (
            isinstance(current, (int, float)) and isinstance(v, (int, float)) and not isinstance(v, bool))))
        return json.dumps(_set(payload, key, value)).encode()
    if kind in ("surrogate", "nul") and isinstance(_get(payload, key), str):
        current = _get(payload, key)
        at = draw(st.integers(0, len(current)))
        odd = SURROGATE if kind == "surrogate" else "\x00"
        if kind == "nul" and key.rsplit(".", 1)[-1] not in (
                "session_id", "transcript_path", "agent_transcript_path", "cwd", "file_path", "agent_id",
                "agent_type", "tool_name", "tool_use_id", "hook_event_name"):
            odd = SURROGATE  # a NUL is ordinary text in a command or a message
        return json.dumps(_set(payload, key, current[:at] + odd + current[at:])).encode("utf-8", "surrogatepass")
    if kind == "extra":
        name = draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in payload))
        value = draw(json_values)
        return (text[:-1] + f", {json.dumps(name)}: {json.dumps(value)}}}").encode("utf-8", "surrogatepass")
    if kind == "duplicate":
        top = key.split(".")[0]
        value = draw(json_values)
        pair = f"{json.dumps(top)}: {json.dumps(value)}"
        if draw(st.booleans()):
            return (text[:-1] + ", " + pair + "}").encode("utf-8", "surrogatepass")
        return ("{" + pair + ", " + text[1:]).encode("utf-8", "surrogatepass")
    if kind == "nesting":
        depth = draw(st.integers(33, 20_000))
        return (text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}").encode()
    if kind == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if kind == "trailing":
        return text.encode() + draw(st.binary(min_size=1, max_size=40).filter(lambda b: b.strip(b" \t\r\n")))
    return text.encode()[: draw(st.integers(0, len(text.encode()) - 1))]


@st.composite
def cases(draw, scenarios):
    scenario = draw(st.sampled_from(scenarios))
    return scenario, draw(mutated(scenario.payload))


def test_refusals_hold_under_any_payload_and_no_run_hooks_stay_quiet(world):
    h, scenarios, keep, quiet = world

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases(scenarios))
    def check(case):
        scenario, raw = case
        out = run_hook(h, scenario.event, raw, timeout=60)
        _restore(h, keep)
        assert not out.hung, (scenario.name, raw[:200])
        feedback = scenario.event == "SubagentStop" and out.decision == "block"  # exit 2, text on stderr
        assert out.returncode == (2 if feedback else 0) and len(out.stdout) <= OUTPUT_LIMIT
        assert out.decision == scenario.refusal, (scenario.name, raw[:300], out.stdout[:300], out.new_log[-500:])
        began = time.monotonic()
        idle = run_hook(quiet, scenario.event, raw, timeout=30)
        assert (idle.returncode, idle.stdout) == (0, ""), (scenario.name, raw[:300], idle.stdout[:300])
        assert time.monotonic() - began < NO_RUN_SECONDS

    check()
