"""scripts/lib/bootstrap.py: the hooks and the web-research command find (or
prepare, once) the same Python environment, safely under concurrency, and fail
open with one actionable message when they cannot."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hook_harness import REPO

TOOLS = ("sh", "cat", "cksum", "find", "mkdir", "mv", "rm", "sleep", "sed", "dirname", "env", "bash", "grep", "tail",
         "cut", "tr")
CORE = "import yaml, frontmatter, jsonschema"
EVERYTHING = "import yaml, frontmatter, jsonschema, trafilatura, pypdf"


def uv_binary() -> str:
    """The uv the test extra installs (tests/run.sh): both installers must be tested."""
    found = Path(sys.executable).with_name("uv")
    if found.is_file():
        return str(found)
    on_path = shutil.which("uv")
    if on_path is None:
        pytest.fail("uv is not installed: `pip install -e '.[fetch,test]'` (tests/run.sh) installs it")
    return on_path


def plugin_copy(tmp: Path) -> Path:
    """The plugin as users install it: no developer .venv."""
    root = tmp / "plugin"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(REPO / "hooks", root / "hooks", ignore=ignore)
    shutil.copytree(REPO / "scripts", root / "scripts", ignore=ignore)
    shutil.copy2(REPO / "requirements.lock", root / "requirements.lock")
    shutil.copy2(REPO / "requirements-fetch.lock", root / "requirements-fetch.lock")
    return root


def tool_bin(tmp: Path, python: str | None = None, uv: bool = False) -> Path:
    """A PATH holding the usual tools and, optionally, `python3` and `uv`."""
    folder = tmp / "bin"
    folder.mkdir(exist_ok=True)
    for name in TOOLS:
        found = shutil.which(name)
        if found and not (folder / name).exists():
            (folder / name).symlink_to(found)
    if python:  # a wrapper, not a symlink: a venv's python must run under its own path
        wrapper = folder / "python3"
        wrapper.write_text(f'#!/bin/sh\nexec "{python}" "$@"\n')
        wrapper.chmod(0o755)
    if uv:
        (folder / "uv").symlink_to(uv_binary())
    return folder


def lock_key(root: Path) -> str:
    locks = (root / "requirements.lock").read_bytes() + (root / "requirements-fetch.lock").read_bytes()
    return hashlib.sha256(locks).hexdigest()[:16]


def base_python() -> str:
    return getattr(sys, "_base_executable", None) or sys.executable


def base_env(tmp: Path, path: Path, **extra: str) -> dict[str, str]:
    # The real HOME keeps the user's pip configuration and cache; everything the
    # finder writes goes to the explicit data and state directories under tmp.
    env = {"PATH": str(path), "HOME": os.environ.get("HOME", str(tmp / "home")),
           "WEB_RESEARCH_STATE_DIR": str(tmp / "user-state")}
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "UV_CACHE_DIR", "PIP_FIND_LINKS", "PIP_INDEX_URL",
                "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "PIP_CERT",
                "PIP_DEFAULT_TIMEOUT", "SSL_CERT_FILE", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra)
    return env


def find_python(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The interpreter the plugin at `root` would use (`bootstrap.py where`, which builds nothing)."""
    return subprocess.run([base_python(), "-I", "-S", str(root / "scripts" / "lib" / "bootstrap.py"), "where"],
                          capture_output=True, text=True, env=env, timeout=300)


def test_explicit_python_comes_first(tmp_path: Path):
    env = base_env(tmp_path, tool_bin(tmp_path), WEB_RESEARCH_PYTHON=sys.executable)
    assert find_python(REPO, env).stdout.strip() == sys.executable


def test_an_explicit_python_that_does_not_exist_is_an_error(tmp_path: Path):
    env = base_env(tmp_path, tool_bin(tmp_path), WEB_RESEARCH_PYTHON=str(tmp_path / "nope"))
    proc = find_python(REPO, env)
    assert proc.returncode == 1 and "WEB_RESEARCH_PYTHON" in proc.stderr


def test_a_developer_checkout_uses_its_venv(tmp_path: Path):
    root = plugin_copy(tmp_path)
    fake = root / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a venv's python runs under its own path
    fake.chmod(0o755)
    env = base_env(tmp_path, tool_bin(tmp_path), WEB_RESEARCH_NO_SYSTEM_PYTHON="1")
    assert find_python(root, env).stdout.strip() == str(fake)


def test_hooks_and_the_command_share_the_interpreter_they_find(tmp_path: Path):
    """Hooks have CLAUDE_PLUGIN_DATA, the Bash tool does not: the pointer in the
    per-user directory makes the command find what the hooks found."""
    root = plugin_copy(tmp_path)
    data, user = tmp_path / "plugin-data", tmp_path / "user-state"
    with_python = tool_bin(tmp_path, sys.executable)  # sys.executable has every dependency
    hook_env = base_env(tmp_path, with_python, CLAUDE_PLUGIN_DATA=str(data), WEB_RESEARCH_STATE_DIR=str(user))
    found = find_python(root, hook_env)
    assert found.returncode == 0, found.stderr
    chosen = found.stdout.strip()
    assert chosen == sys.executable
    pointers = sorted(p.name for p in data.glob("env/python-*")) + sorted(p.name for p in user.glob("env/python-*"))
    assert len(pointers) == 2 and pointers[0] == pointers[1]

    # The command (no CLAUDE_PLUGIN_DATA, the same PATH) is not to search PATH itself: the
    # per-user pointer gives it the hooks' interpreter, which PATH's python3 vouches for.
    cli_env = base_env(tmp_path, with_python, WEB_RESEARCH_STATE_DIR=str(user), WEB_RESEARCH_NO_SYSTEM_PYTHON="1")
    assert find_python(root, cli_env).stdout.strip() == chosen
    proc = subprocess.run([str(root / "scripts" / "web-research"), "slug", "Pricing of logs?"],
                          capture_output=True, text=True, env=cli_env, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, "pricing-of-logs"), proc.stderr


def test_a_pointer_redirected_to_another_program_is_ignored(tmp_path: Path):
    """Rewriting the pointer under the user's cache must not choose the interpreter a later
    `fetch` runs. Only an interpreter the search itself would pick is taken from it."""
    root = plugin_copy(tmp_path)
    user = tmp_path / "user-state"
    with_python = tool_bin(tmp_path, sys.executable)
    env = base_env(tmp_path, with_python, WEB_RESEARCH_STATE_DIR=str(user))
    assert find_python(root, env).stdout.strip() == sys.executable
    planted = tmp_path / "planted-python"
    marker = tmp_path / "planted-ran"
    planted.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec "{sys.executable}" "$@"\n')
    planted.chmod(0o755)
    pointer = user / "env" / f"python-{lock_key(root)}"
    pointer.write_text(f"{planted}\n")
    found = find_python(root, env)
    assert found.returncode == 0 and found.stdout.strip() == sys.executable, found
    proc = subprocess.run([str(root / "scripts" / "web-research"), "slug", "Pricing of logs?"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0 and not marker.exists()
    # A private environment of the plugin's own is still found through its pointer.
    venv = user / "env" / f"venv-{lock_key(root)}" / "bin" / "python"
    venv.parent.mkdir(parents=True)
    venv.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    venv.chmod(0o755)
    pointer.write_text(f"{venv}\n")
    assert find_python(root, env).stdout.strip() == str(venv)


def test_a_python_without_the_dependencies_is_not_chosen(tmp_path: Path):
    root = plugin_copy(tmp_path)
    bare = shutil.which("python3.11", path="/usr/bin") or shutil.which("python3", path="/usr/bin")
    if bare is None or subprocess.run([bare, "-c", EVERYTHING],
                                      capture_output=True).returncode == 0:
        pytest.skip("no interpreter without the dependencies on this machine")
    env = base_env(tmp_path, tool_bin(tmp_path, bare), CLAUDE_PLUGIN_DATA=str(tmp_path / "d"))
    proc = find_python(root, env)
    assert proc.returncode == 1 and "no Python with the plugin's dependencies" in proc.stderr


def test_no_python_at_all_fails_open_and_says_so_once_per_session(tmp_path: Path):
    root = plugin_copy(tmp_path)
    data = tmp_path / "plugin-data"
    env = base_env(tmp_path, tool_bin(tmp_path), CLAUDE_PLUGIN_DATA=str(data), WEB_RESEARCH_NO_SYSTEM_PYTHON="1")
    command = f"\"{root}/scripts/web-research\" start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS"

    def hook(session: str) -> subprocess.CompletedProcess:
        payload = {"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}, "cwd": str(tmp_path), "transcript_path": "/dev/null"}
        return subprocess.run([str(root / "hooks" / "run"), "pre_tool_use"], input=json.dumps(payload),
                              capture_output=True, text=True, env=env, timeout=120)

    # The command (the Bash tool has no CLAUDE_PLUGIN_DATA) says what is missing and the fix.
    command_env = {key: value for key, value in env.items() if key != "CLAUDE_PLUGIN_DATA"}
    cli = subprocess.run([str(root / "scripts" / "web-research"), "slug", "x"], capture_output=True, text=True,
                         env=command_env, timeout=120)
    assert cli.returncode == 2 and "hooks/run\" --setup" in cli.stderr
    assert "no Python 3.10 or newer" in cli.stderr and "WEB_RESEARCH_PYTHON" in cli.stderr

    # The hooks tell the person, once per session, the cause and the fix, and decide nothing.
    first = hook("session-1")
    assert first.returncode == 0
    message = json.loads(first.stdout)["systemMessage"]
    assert f'"{root}/hooks/run" --setup' in message
    assert "no Python 3.10 or newer" in message and "WEB_RESEARCH_PYTHON" in message  # the cause and the fix
    assert "permissionDecision" not in first.stdout
    again = hook("session-1")
    assert (again.returncode, again.stdout) == (0, "")
    assert "systemMessage" in hook("session-2").stdout
    assert not (data / "env").exists()
    setup = subprocess.run([str(root / "hooks" / "run"), "--setup"], capture_output=True, text=True, env=env,
                           timeout=60)
    assert setup.returncode == 1 and "no Python 3.10 or newer" in setup.stderr


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_two_processes_preparing_at_once_build_one_environment(tmp_path: Path, installer: str):
    """The first time, hooks and the command may race to build the private venv
    (and a killed builder may have left its lock and temporary folder). With uv on
    PATH uv builds it (no pip inside); without, venv + pip."""
    root = plugin_copy(tmp_path)
    data = tmp_path / "plugin-data"
    env = base_env(tmp_path, tool_bin(tmp_path, uv=installer == "uv"), CLAUDE_PLUGIN_DATA=str(data),
                   WEB_RESEARCH_NO_SYSTEM_PYTHON="1", WEB_RESEARCH_BASE_PYTHON=base_python())
    cache = data / "env"
    # A builder that was killed earlier left its lock file (which no process holds) and its
    # half-built folder behind.
    key = lock_key(root)
    (cache / f".venv-{key}.tmp.12345" / "bin").mkdir(parents=True)
    (cache / f"venv-{key}.lock").write_text("")
    procs = [subprocess.Popen([str(root / "hooks" / "run"), "--setup"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [proc.communicate(timeout=600) for proc in procs]
    for proc, (_out, err) in zip(procs, outputs):
        if proc.returncode != 0 and "could not prepare" in err:
            log = next(cache.glob("logs/venv-*.log")).read_text()
            if "No matching distribution" in log or "Could not find a version" in log:
                if os.environ.get("WEB_RESEARCH_REQUIRE_INDEX") == "1":  # CI: the index is reachable there
                    pytest.fail(f"the environment could not be built from the package index: {log}")
                pytest.skip("the package index is unreachable from here")
        assert proc.returncode == 0, err
    announced = [err for _, err in outputs if "preparing its Python environment once" in err]
    assert len(announced) == 1 and f"with {installer};" in announced[0]  # one line, by the builder
    pythons = {out.strip().rsplit(": ", 1)[-1] for out, _ in outputs}
    assert len(pythons) == 1
    assert sorted(p.name for p in data.iterdir()) == ["env"]  # the cache lives apart from run records
    venvs = sorted(p.name for p in cache.iterdir() if p.is_dir() and "venv" in p.name)
    assert venvs == [f"venv-{key}"], venvs  # no temp folder left
    python = pythons.pop()
    assert python == str(cache / venvs[0] / "bin" / "python")
    check = subprocess.run([python, "-c", EVERYTHING], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert not (cache / venvs[0] / "fetch.failed").exists()
    assert (cache / venvs[0] / "bin" / "pip").exists() == (installer == "pip")
    assert (tmp_path / "user-state" / "env" / f"python-{key}").read_text().strip() == python


def test_the_core_comes_first_and_fetchs_libraries_at_the_first_fetch_each_announced(tmp_path: Path):
    """What start, verify, status and the hooks need is built the first time the command runs; lxml,
    trafilatura and pypdf only at the first fetch, by one process while the others wait. Each step
    says on stderr (the Bash tool's output, which the person sees) that it starts and that it is done;
    no hook builds anything."""
    root = plugin_copy(tmp_path)
    data = tmp_path / "plugin-data"
    env = base_env(tmp_path, tool_bin(tmp_path, uv=True), WEB_RESEARCH_NO_SYSTEM_PYTHON="1",
                   WEB_RESEARCH_BASE_PYTHON=base_python())
    cli = str(root / "scripts" / "web-research")
    hook_env = {**env, "CLAUDE_PLUGIN_DATA": str(data)}
    command = f"\"{cli}\" start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS"
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "cwd": str(tmp_path), "transcript_path": "/dev/null"}
    hook = subprocess.run([str(root / "hooks" / "run"), "pre_tool_use"], input=json.dumps(payload),
                          capture_output=True, text=True, env=hook_env, timeout=60)
    assert (hook.returncode, hook.stdout) == (0, "")
    assert not list((tmp_path / "user-state").glob("env/venv-*")) and not (data / "env").exists()

    first = subprocess.run([cli, "slug", "x"], capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0 and first.stdout.strip() == "x", first.stderr
    assert "preparing its Python environment once" in first.stderr and "with uv;" in first.stderr
    assert re.search(r"Python environment ready in \d+ s", first.stderr), first.stderr
    venv = tmp_path / "user-state" / "env" / f"venv-{lock_key(root)}"
    python = str(venv / "bin" / "python")
    assert subprocess.run([python, "-c", CORE]).returncode == 0
    assert subprocess.run([python, "-c", "import trafilatura"], capture_output=True).returncode != 0
    assert not (venv / "fetch.ready").exists()

    again = subprocess.run([cli, "slug", "y"], capture_output=True, text=True, env=env, timeout=60)
    assert (again.returncode, again.stderr) == (0, "")  # found, not built again

    run = tmp_path / "run"
    run.mkdir()
    (run / "plan.md").write_text("# Research plan\n")
    fetches = [subprocess.Popen([cli, "fetch", "http://127.0.0.1:9/", "--run", str(run), "--allow-loopback"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [proc.communicate(timeout=600) for proc in fetches]
    errors = [err for _out, err in outputs]
    assert sum("installing fetch's page-extraction libraries" in err for err in errors) == 1, errors
    assert sum(bool(re.search(r"fetch's libraries installed in \d+ s", err)) for err in errors) == 1, errors
    for err in errors:  # both got past the libraries to the page (nothing listens on port 9)
        assert "cannot connect to http://127.0.0.1:9/" in err and "are missing from the Python" not in err, err
    assert (venv / "fetch.ready").exists()
    assert subprocess.run([python, "-c", EVERYTHING]).returncode == 0
    later = subprocess.run([cli, "fetch", "http://127.0.0.1:9/", "--run", str(run), "--allow-loopback"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert "installing" not in later.stderr and "waiting" not in later.stderr


def test_the_lock_of_a_builder_that_dies_is_released_and_the_waiter_builds(tmp_path: Path):
    """A builder killed mid-build holds the lock no longer (the kernel drops an flock with its
    holder): the process that waited for it says so, then builds the environment itself."""
    root = plugin_copy(tmp_path)
    data = tmp_path / "plugin-data"
    env = base_env(tmp_path, tool_bin(tmp_path, uv=True), CLAUDE_PLUGIN_DATA=str(data),
                   WEB_RESEARCH_NO_SYSTEM_PYTHON="1", WEB_RESEARCH_BASE_PYTHON=base_python())
    key = lock_key(root)
    (data / "env").mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time\n"
        f"handle = open({str(data / 'env' / f'venv-{key}.lock')!r}, 'w')\n"
        "fcntl.flock(handle, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        waiter = subprocess.Popen([str(root / "hooks" / "run"), "--setup"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(2)
        assert waiter.poll() is None  # still waiting for the lock
    finally:
        holder.kill()
        holder.wait()
    out, err = waiter.communicate(timeout=600)
    assert waiter.returncode == 0, err
    assert "waiting for another process to prepare" in err and "preparing its Python environment once" in err
    assert out.strip().endswith(str(data / "env" / f"venv-{key}" / "bin" / "python"))


def test_a_failed_fetch_install_leaves_the_hooks_and_verify_working(tmp_path: Path):
    """lxml may fail to build: the core stays, only `fetch` says what is missing and
    how to fix it, and `hooks/run --setup` installs the missing part later."""
    root = plugin_copy(tmp_path)
    data = tmp_path / "plugin-data"
    path = tool_bin(tmp_path)
    broken = tmp_path / "lxml-build-fails"
    broken.touch()
    (path / "uv").write_text(  # the real uv, failing like a broken lxml build while `broken` exists
        "#!/bin/sh\n"
        f'case "$*" in *requirements-fetch.lock*) if [ -e "{broken}" ]; then\n'
        '  echo "error: Failed to build lxml==6.1.3 (simulated: libxml2 headers missing)" >&2; exit 1; fi;; esac\n'
        f'exec "{uv_binary()}" "$@"\n')
    (path / "uv").chmod(0o755)
    env = base_env(tmp_path, path, CLAUDE_PLUGIN_DATA=str(data), WEB_RESEARCH_NO_SYSTEM_PYTHON="1",
                   WEB_RESEARCH_BASE_PYTHON=base_python())
    cli = str(root / "scripts" / "web-research")

    setup = subprocess.run([str(root / "hooks" / "run"), "--setup"], capture_output=True, text=True, env=env,
                           timeout=300)
    assert setup.returncode == 0, setup.stderr
    assert "fetch will not" in setup.stderr and "libxml2 headers missing" in setup.stderr
    venv = data / "env" / f"venv-{lock_key(root)}"
    assert (venv / "fetch.failed").is_file()

    command = f"\"{cli}\" start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS"
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "cwd": str(tmp_path), "transcript_path": "/dev/null"}
    hook = subprocess.run([str(root / "hooks" / "run"), "pre_tool_use"], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(hook.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow", hook.stdout
    verify = subprocess.run([cli, "verify", str(REPO / "examples" / "observability-pricing")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr

    run = tmp_path / "run"
    run.mkdir()
    (run / "plan.md").write_text("# Research plan\n")
    fetch = subprocess.run([cli, "fetch", "https://example.org/", "--run", str(run)], capture_output=True,
                           text=True, env=env, timeout=60)
    assert fetch.returncode == 2 and fetch.stdout == ""
    assert fetch.stderr.count("\n") == 1 and "Traceback" not in fetch.stderr
    for words in ("page-extraction libraries", "libxml2 headers missing", f'"{root}/hooks/run" --setup',
                  "PIP_INDEX_URL", "WEB_RESEARCH_PYTHON"):
        assert words in fetch.stderr

    broken.unlink()
    again = subprocess.run([str(root / "hooks" / "run"), "--setup"], capture_output=True, text=True, env=env,
                           timeout=300)
    assert again.returncode == 0 and again.stdout.strip().endswith(str(venv / "bin" / "python")), again.stderr
    assert not (venv / "fetch.failed").exists()
    assert subprocess.run([str(venv / "bin" / "python"), "-c", EVERYTHING]).returncode == 0


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_an_unreachable_index_is_named_with_the_installers_error(tmp_path: Path, installer: str):
    """Not "Python 3.10+ is required" when Python is fine: the index tried, the
    installer's own error, and the variables that fix it. uv honours PIP_INDEX_URL."""
    root = plugin_copy(tmp_path)
    index = "http://127.0.0.1:9/simple"  # nothing listens on the discard port
    env = base_env(tmp_path, tool_bin(tmp_path, uv=installer == "uv"), WEB_RESEARCH_NO_SYSTEM_PYTHON="1",
                   WEB_RESEARCH_BASE_PYTHON=base_python(), PIP_INDEX_URL=index, PIP_RETRIES="0",
                   UV_HTTP_RETRIES="0")
    cli = subprocess.run([str(root / "scripts" / "web-research"), "slug", "x"], capture_output=True, text=True,
                         env=env, timeout=300)
    assert cli.returncode == 2
    assert f"with {installer};" in cli.stderr  # the one line saying what is being prepared
    reason = next(line for line in cli.stderr.splitlines() if line.startswith("could not prepare"))
    assert f"from the package index {index}:" in reason
    assert ("Connection refused" in reason) if installer == "uv" else ("ERROR: " in reason)
    assert "PIP_INDEX_URL" in reason and "WEB_RESEARCH_PYTHON" in reason
    assert "venv module" not in cli.stderr
    # From then on the hooks, start's own included, tell the person that reason once a session.
    command = f"\"{root}/scripts/web-research\" start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS"
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "cwd": str(tmp_path), "transcript_path": "/dev/null"}
    hooks = [subprocess.run([str(root / "hooks" / "run"), "pre_tool_use"], input=json.dumps(payload),
                            capture_output=True, text=True, env={**env, "CLAUDE_PLUGIN_DATA": str(tmp_path / "d")},
                            timeout=60) for _ in range(2)]
    message = json.loads(hooks[0].stdout)["systemMessage"]
    assert f"from the package index {index}:" in message and f'"{root}/hooks/run" --setup' in message
    assert (hooks[1].returncode, hooks[1].stdout) == (0, "")


def test_uv_takes_the_index_from_pip_configuration(tmp_path: Path):
    root = plugin_copy(tmp_path)
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nindex-url = http://127.0.0.1:9/from-pip-conf\n")
    env = base_env(tmp_path, tool_bin(tmp_path, uv=True), WEB_RESEARCH_NO_SYSTEM_PYTHON="1",
                   WEB_RESEARCH_BASE_PYTHON=base_python(), PIP_CONFIG_FILE=str(config), UV_HTTP_RETRIES="0")
    env.pop("PIP_INDEX_URL", None)
    proc = subprocess.run([str(root / "scripts" / "web-research"), "slug", "x"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 2
    assert "from the package index http://127.0.0.1:9/from-pip-conf:" in proc.stderr
    assert "Connection refused" in proc.stderr


def test_the_per_user_cache_is_under_xdg_cache_home(tmp_path: Path):
    """Without CLAUDE_PLUGIN_DATA or WEB_RESEARCH_STATE_DIR, pointers (and venvs) go to
    ${XDG_CACHE_HOME}/web-research, not next to the run records in XDG_DATA_HOME."""
    root = plugin_copy(tmp_path)
    env = base_env(tmp_path, tool_bin(tmp_path, sys.executable), XDG_CACHE_HOME=str(tmp_path / "cache"),
                   XDG_DATA_HOME=str(tmp_path / "share"))
    env.pop("WEB_RESEARCH_STATE_DIR")
    found = find_python(root, env)
    assert found.returncode == 0, found.stderr
    pointer = tmp_path / "cache" / "web-research" / f"python-{lock_key(root)}"
    assert pointer.read_text().strip() == found.stdout.strip()
    assert not (tmp_path / "share").exists()


def _pins(lock: Path) -> dict[str, list[str]]:
    """name==version ; marker -> its hashes, for every requirement of a lock."""
    pins: dict[str, list[str]] = {}
    current = None
    for line in lock.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            current = line.rstrip(" \\")
            pins[current] = []
        elif line.strip().startswith("--hash=sha256:") and current:
            pins[current].append(line.strip().rstrip(" \\"))
    return pins


def _name(requirement: str) -> str:
    return re.split(r"[=<>;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_locks_are_hash_pinned_and_agree_with_each_other_and_pyproject():
    """pip --require-hashes and uv need every requirement pinned with hashes; the
    core lock's pins are the fetch lock's (installing fetch changes no core package);
    the core lock holds no fetch library. Regenerate with .ci/update-locks."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core, full = _pins(REPO / "requirements.lock"), _pins(REPO / "requirements-fetch.lock")
    for pins in (core, full):
        assert all("==" in pin and hashes for pin, hashes in pins.items()), pins
    assert all(full.get(pin) == hashes for pin, hashes in core.items())
    core_names, full_names = {_name(p) for p in core}, {_name(p) for p in full}
    assert {_name(r) for r in project["dependencies"]} <= core_names
    fetch_names = {_name(r) for r in project["optional-dependencies"]["fetch"]}
    assert fetch_names <= full_names and not fetch_names & core_names
    assert {"lxml", "trafilatura", "pypdf"} <= full_names - core_names
    test = _pins(REPO / "requirements-test.lock")
    assert all("==" in pin and hashes for pin, hashes in test.items()), test
    assert all(test.get(pin) == hashes for pin, hashes in full.items()), "the test lock must pin what users get"
    assert {_name(r) for r in project["optional-dependencies"]["test"]} <= {_name(p) for p in test}


def test_the_development_environment_runs_the_locked_versions():
    """The suite runs on what users run: every package of requirements-test.lock that applies to
    this Python is installed at its pinned version (tests/run.sh installs .venv from the lock)."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.markers import Marker

    wrong = []
    for pin in _pins(REPO / "requirements-test.lock"):
        requirement, _, marker = pin.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        name, _, pinned = requirement.strip().partition("==")
        try:
            found = version(name)
        except PackageNotFoundError:
            found = None
        if found != pinned:
            wrong.append(f"{name}: {found or 'not installed'}, locked {pinned}")
    assert not wrong, f"{sys.prefix} differs from requirements-test.lock (run tests/run.sh): {wrong}"



def test_a_developer_venv_without_the_dependencies_is_named_and_skipped(tmp_path: Path):
    root = plugin_copy(tmp_path)
    broken = root / ".venv" / "bin" / "python"
    broken.parent.mkdir(parents=True)
    broken.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')  # -S: no site-packages, no deps
    broken.chmod(0o755)
    data = tmp_path / "d"
    env = base_env(tmp_path, tool_bin(tmp_path), WEB_RESEARCH_NO_SYSTEM_PYTHON="1", CLAUDE_PLUGIN_DATA=str(data))
    proc = find_python(root, env)
    assert proc.returncode == 1
    assert f"{broken} cannot import the runtime dependencies" in proc.stderr and "pip install --no-deps --require-hashes -r" in proc.stderr
    cli = subprocess.run([str(root / "scripts" / "web-research"), "slug", "x"], capture_output=True, text=True,
                         env=base_env(tmp_path, tool_bin(tmp_path, sys.executable)), timeout=120)
    assert "Traceback" not in cli.stderr and "ModuleNotFoundError" not in cli.stderr
    assert (cli.returncode, cli.stdout.strip()) == (0, "x"), cli.stderr  # fell through to a python3 with deps
    assert f"{broken} cannot import" in cli.stderr


def test_a_good_developer_venv_is_checked_once_then_remembered(tmp_path: Path):
    root = plugin_copy(tmp_path)
    counter = tmp_path / "checks"
    dev = root / ".venv" / "bin" / "python"
    dev.parent.mkdir(parents=True)
    dev.write_text(f'#!/bin/sh\necho x >> "{counter}"\nexec "{sys.executable}" "$@"\n')
    dev.chmod(0o755)
    env = base_env(tmp_path, tool_bin(tmp_path), WEB_RESEARCH_NO_SYSTEM_PYTHON="1",
                   CLAUDE_PLUGIN_DATA=str(tmp_path / "d"))
    for _ in range(3):
        assert find_python(root, env).stdout.strip() == str(dev)
    assert counter.read_text().count("x") == 1
