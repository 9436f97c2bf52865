"""Time the real hooks of two checkouts, interleaved: `python tests/benchmarks/hook_timings.py
[--runs N] NAME=CHECKOUT ...` (e.g. `before=/tmp/before after=.`; each checkout needs a `.venv`,
a link to this one's will do).

For each checkout, a recorded run (started with the real CLI and its own hooks, briefs rendered,
one researcher dispatched and started), then each case below through that checkout's `hooks/run`,
N rounds, the checkouts and a bare `python -c pass` taking turns within a round so that the
machine's load hits them alike. Prints the median wall and CPU (user + system, the hook and its
children) time in ms per case and checkout, and the load average before and after. Used for
issue 38's figures (docs/hooks/cost.md); not a test: timings on a shared machine assert nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from hook_harness import CLI, SCRIPT_OF, SUBTOPICS, Harness, _hash_of, plan_text  # noqa: E402

PAYLOAD_MB = 10


class TreeHarness(Harness):
    """A Harness whose hooks are another checkout's."""

    def __init__(self, tmp: Path, root: Path):
        super().__init__(tmp)
        self.root = root

    def env(self, **extra: str) -> dict[str, str]:
        return super().env(CLAUDE_PLUGIN_ROOT=str(self.root), **extra)

    def render_briefs(self, subtopics: list[str]) -> list[dict[str, Any]]:
        """`briefs` and its PostToolUse as in the unit harness, without asserting what the hook
        tells the orchestrator: a checkout from before issue 38 tells it nothing there."""
        (self.run_dir / "plan.md").write_text(plan_text(subtopics), encoding="utf-8")
        command = self.core_command("briefs")
        proc = self.shell(command)
        assert proc.returncode == 0, proc.stderr
        assert self.hook(self.bash("PostToolUse", command, proc.stdout)).returncode == 0
        return [{**item, "slug": Path(item["brief_path"]).stem, "brief_hash": _hash_of(item["brief_path"])}
                for item in json.loads(proc.stdout)]

    def start_command(self, output_dir: Path | None = None, refresh: bool = False) -> str:
        return super().start_command(output_dir, refresh).replace(str(CLI), str(self.cli), 1)

    def core_command(self, sub: str, directory: Path | None = None) -> str:
        return super().core_command(sub, directory).replace(str(CLI), str(self.cli), 1)

    @property
    def cli(self) -> Path:
        return self.root / "scripts" / "web-research"

    def hook(self, payload: dict[str, Any], launcher: Path | None = None, **env: str):  # type: ignore[override]
        return super().hook(payload, launcher or self.root / "hooks" / "run", **env)


def cases(h: TreeHarness, infos: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The frequent hooks of a run."""
    fetch = f'"{h.cli}" fetch "https://example.com/p" --run "{h.run_dir}"'
    return {
        "PreToolUse Bash, orchestrator's status": h.bash("PreToolUse", h.core_command("status")),
        "PreToolUse Bash, orchestrator's ls (denied)": h.bash("PreToolUse", "ls -la /"),
        "PreToolUse Read, orchestrator": h.payload("PreToolUse", tool_name="Read",
                                                   tool_input={"file_path": str(h.run_dir / "plan.md")},
                                                   tool_use_id="toolu_r"),
        "PreToolUse Write, orchestrator's report": h.write_call(None, str(h.run_dir / "report.md")),
        "PreToolUse Write, researcher (denied)": h.write_call("agentA", infos[0]["findings_path"]),
        "PreToolUse Bash, researcher's fetch": h.bash("PreToolUse", fetch, agent_id="agentA"),
        "PostToolUse Bash, researcher's fetch": h.bash("PostToolUse", fetch, stdout="no snapshot line",
                                                       agent_id="agentA"),
        "PreToolUse WebSearch, researcher": h.payload("PreToolUse", "agentA", tool_name="WebSearch",
                                                      tool_input={"query": "logs pricing"}, tool_use_id="toolu_s"),
        "PostToolUse WebSearch, researcher": h.payload("PostToolUse", "agentA", tool_name="WebSearch",
                                                       tool_input={"query": "logs pricing"}, tool_response={},
                                                       tool_use_id="toolu_s"),
    }


def no_run_payload(sid: str) -> dict[str, Any]:
    """A Bash result that names our program in a session with no run (so Python starts), 10 MB."""
    return {"session_id": sid, "hook_event_name": "PostToolUse", "cwd": "/tmp", "tool_name": "Bash",
            "tool_input": {"command": "cat notes.txt"}, "tool_use_id": "toolu_big",
            "tool_response": {"stdout": "web-research verify\n" + "x" * (PAYLOAD_MB * 1024 * 1024), "stderr": ""}}


def timed(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of one process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
    wall = (time.perf_counter() - began) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr[-2000:]!r}")
    return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="NAME=CHECKOUT")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--only", default="", help="time only the cases whose name contains this")
    args = parser.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.trees)}
    tmp = Path(tempfile.mkdtemp(prefix="hook-timings-"))
    setups: dict[str, tuple[TreeHarness, dict[str, bytes]]] = {}
    for name, root in trees.items():
        h = TreeHarness(tmp / name, root)
        h.start_run()
        infos = h.render_briefs(SUBTOPICS[:2])
        assert "allow" in h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0")).stdout
        h.start_agent("agentA", h.prompt_for(infos[0]))
        payloads = {case: json.dumps(p).encode() for case, p in cases(h, infos).items()}
        payloads[f"PostToolUse Bash, no run, {PAYLOAD_MB} MB"] = json.dumps(
            no_run_payload("no-run-session-1111")).encode()
        setups[name] = h, {k: v for k, v in payloads.items() if args.only in k}
    names = list(next(iter(setups.values()))[1])
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    print(f"load before: {os.getloadavg()}", flush=True)
    for _ in range(args.runs):
        for case in names:
            for tree, (h, payloads) in setups.items():
                payload = json.loads(payloads[case]) if len(payloads[case]) < 1_000_000 else None
                event = payload["hook_event_name"] if payload else "PostToolUse"
                wall, cpu = timed([str(h.root / "hooks" / "run"), SCRIPT_OF[event]], payloads[case], h.env(),
                                  h.project)
                walls.setdefault((case, tree), []).append(wall)
                cpus.setdefault((case, tree), []).append(cpu)
        wall, cpu = timed([sys.executable, "-c", "pass"], b"", os.environ.copy(), tmp)
        walls.setdefault(("python -c pass", ""), []).append(wall)
        cpus.setdefault(("python -c pass", ""), []).append(cpu)
    print(f"load after: {os.getloadavg()}; {args.runs} rounds; median wall / CPU ms")
    print("| hook | " + " | ".join(trees) + " |")
    for case in [*names, "python -c pass"]:
        cells = [f"{statistics.median(walls[case, t]):.0f} / {statistics.median(cpus[case, t]):.0f}"
                 for t in (trees if case != "python -c pass" else [""])]
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
