"""Run the real Claude Code CLI once, sandboxed, and collect what happened.

Each run gets a private HOME, tmp dir and project folder, the plugin loaded
from the working tree with `--plugin-dir`, and a fresh network namespace
(`unshare -n -m` as root, `unshare -r -n -m` otherwise or as a fallback) in which
`harness.inside` starts the fake servers and the CLI. The environment starts
empty (as `env -i` would), so nothing from the developer's shell (API keys,
proxies, a real ~/.claude) leaks into a test.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .request_view import RequestView
from .stream import StreamLog
from .tls import TlsFiles

E2E_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = E2E_DIR.parent.parent
PAGES_HOST = "docs.example.test"
# Public-looking, so that `fetch` (which refuses loopback and private addresses)
# treats the fake web like the real one. It exists only on the sandbox's loopback.
WEB_ADDRESS = "203.0.114.10"
# Replaced in a RunSpec's prompt by the session's project folder (absolute paths in prompts).
CWD_TOKEN = "@CWD@"


@dataclass
class RunSpec:
    """What one CLI session should do."""

    prompt: str
    scenario: str  # "module:factory", importable from tests/e2e
    scenario_args: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)  # merged into ~/.claude/settings.json
    plugin_dirs: list[Path] = field(default_factory=lambda: [REPO_ROOT])
    extra_env: dict[str, str] = field(default_factory=dict)
    extra_args: list[str] = field(default_factory=list)
    timeout: float = 90.0
    # The fake web's port; 0 picks a free one. Two sessions that must see the same URLs (a run,
    # then a later session that fetches its cited pages again) give the same port: each session
    # has a network namespace of its own, so a fixed port never collides.
    pages_port: int = 0


@dataclass
class RunResult:
    workdir: Path
    home: Path
    cwd: Path
    exit_code: int
    timed_out: bool
    duration_s: float
    wall_s: float
    interfaces: list[str]
    pages_origin: str
    errors: list[dict[str, Any]]
    matched: list[dict[str, Any]]
    stream: StreamLog
    stderr: str
    sandbox_stderr: str

    @property
    def requests(self) -> list[RequestView]:
        path = self.workdir / "requests.jsonl"
        if not path.exists():
            return []
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            out.append(RequestView(rec["body"], rec["headers"], rec["seq"]))
        return out

    @property
    def page_hits(self) -> list[dict[str, Any]]:
        path = self.workdir / "pages.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []

    def describe(self) -> str:
        """Everything a failing assertion needs, in one string."""
        return (f"exit={self.exit_code} timed_out={self.timed_out} workdir={self.workdir}\n"
                f"scenario errors: {json.dumps(self.errors, indent=1)[:6000]}\n"
                f"rules matched: {[m['rule'] for m in self.matched]}\n"
                f"hook decisions: {self.stream.hook_summaries()[:40]}\n"
                f"final result: {self.stream.final_text()[:2000]!r}\n"
                f"stderr: {self.stderr[-2000:]}\n{self.sandbox_stderr[-2000:]}")


def _interpreter_dirs() -> list[str]:
    """Directories holding a real python3 (not a pyenv shim, which needs the real HOME)."""
    dirs = [str(Path(sys.executable).parent)]
    base = Path(os.path.realpath(sys.executable)).parent
    if str(base) not in dirs:
        dirs.append(str(base))
    return dirs


def cli_env(home: Path, tmp: Path, tls: TlsFiles) -> dict[str, str]:
    path = ":".join(_interpreter_dirs() + ["/usr/local/bin", "/usr/bin", "/bin"])
    env = {
        "HOME": str(home),
        "PATH": path,
        "LANG": "C.UTF-8",
        "TMPDIR": str(tmp),
        "CLAUDE_CODE_TMPDIR": str(tmp),
        "XDG_RUNTIME_DIR": str(tmp / "xdg"),
        "ANTHROPIC_API_KEY": "sk-ant-e2e-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "NODE_EXTRA_CA_CERTS": str(tls.ca_cert),
        "SSL_CERT_FILE": str(tls.bundle),
    }
    env["IS_SANDBOX"] = "1"  # the CLI runs as (namespace) root: let bypassPermissions start
    return env


_UNSHARE_CHOICES = (["unshare", "-n", "-m"], ["unshare", "-r", "-n", "-m"])


@functools.lru_cache(maxsize=1)
def unshare_prefix() -> list[str]:
    """The first way of making a private network+mount namespace that works here.

    Root gets a plain namespace; others (and root in a container that forbids it)
    map themselves to root in a user namespace first (the CLI then sees uid 0,
    hence IS_SANDBOX=1 in every environment).
    """
    choices = _UNSHARE_CHOICES if os.geteuid() == 0 else _UNSHARE_CHOICES[1:]
    for prefix in choices:
        if subprocess.run(prefix + ["true"], capture_output=True).returncode == 0:
            return list(prefix)
    return list(choices[-1])


def run_cli(spec: RunSpec, workdir: Path, tls: TlsFiles, claude_bin: str,
            project_setup: Any = None, cwd: Path | None = None, home: Path | None = None) -> RunResult:
    """Run one session. `project_setup(cwd)` may pre-populate the project folder;
    `cwd` reuses an existing project folder (a second session on the same project), `home` an
    existing home folder (the same user: Claude Code's plugin data and conversations)."""
    workdir.mkdir(parents=True, exist_ok=True)
    home, tmp = home or workdir / "home", workdir / "tmp"
    cwd = cwd or workdir / "project"
    for d in (home / ".claude", tmp / "xdg", cwd):
        d.mkdir(parents=True, exist_ok=True)
    settings = {"skipWebFetchPreflight": True, **spec.settings}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=1))
    if project_setup:
        project_setup(cwd)

    env = cli_env(home, tmp, tls)
    env.update(spec.extra_env)
    argv = [claude_bin, "-p", spec.prompt.replace(CWD_TOKEN, str(cwd)), "--output-format", "stream-json", "--verbose",
            "--include-hook-events", "--permission-mode", "bypassPermissions"]
    for plugin in spec.plugin_dirs:
        argv += ["--plugin-dir", str(plugin)]
    argv += spec.extra_args
    inside = {
        "workdir": str(workdir), "cwd": str(cwd), "home": str(home), "plugin_root": str(REPO_ROOT),
        "argv": argv, "env": env, "timeout": spec.timeout, "pages_host": PAGES_HOST,
        "web_address": WEB_ADDRESS, "pages_port": spec.pages_port,
        "tls_cert": str(tls.cert), "tls_key": str(tls.key),
        "scenario": spec.scenario, "scenario_args": spec.scenario_args,
    }
    spec_path = workdir / "spec.json"
    spec_path.write_text(json.dumps(inside, indent=1))
    # tests/ for prompt_commands.py, scripts/ for web_research.formats (the scripted model uses both).
    pythonpath = ":".join(str(p) for p in (E2E_DIR, REPO_ROOT / "tests", REPO_ROOT / "scripts"))
    wrapper_env = {"PATH": env["PATH"], "PYTHONPATH": pythonpath, "LANG": "C.UTF-8",
                   "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    done = subprocess.run(unshare_prefix() + [sys.executable, "-m", "harness.inside", str(spec_path)],
                          env=wrapper_env, cwd=str(E2E_DIR), capture_output=True, text=True,
                          timeout=spec.timeout + 30)
    wall = time.monotonic() - started
    result_path = workdir / "result.json"
    if not result_path.exists():
        raise RuntimeError(f"sandbox wrapper failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    res = json.loads(result_path.read_text())
    return RunResult(
        workdir=workdir, home=home, cwd=cwd, exit_code=res["exit_code"], timed_out=res["timed_out"],
        duration_s=res["duration_s"], wall_s=round(wall, 3), interfaces=res["interfaces"],
        pages_origin=res["pages_origin"], errors=res["errors"], matched=res["matched"],
        stream=StreamLog.read(workdir / "stdout.jsonl"),
        stderr=(workdir / "stderr.txt").read_text(errors="replace"),
        sandbox_stderr=done.stderr,
    )


def claude_available() -> str | None:
    """The pinned CLI from WEB_RESEARCH_CLAUDE_BIN, if set and executable."""
    path = os.environ.get("WEB_RESEARCH_CLAUDE_BIN", "")
    if path and os.access(path, os.X_OK):
        return path
    return None


def sandbox_available() -> tuple[bool, str]:
    if not shutil.which("unshare"):
        return False, "unshare not found"
    probe = subprocess.run(unshare_prefix() + ["true"], capture_output=True, text=True)
    return probe.returncode == 0, probe.stderr.strip()
