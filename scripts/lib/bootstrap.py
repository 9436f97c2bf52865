"""Find, or the first time prepare, the Python that runs the plugin, then run it.

Run by the launchers with any Python 3 on PATH, isolated and without site-packages
(`python3 -I -S bootstrap.py`), so it uses the standard library only:

    bootstrap.py cli ARGS...             hooks' sibling `scripts/web-research`: `python -m web_research ARGS`
    bootstrap.py hook EVENT SID START    hooks/run in a run: `python -m web_research.guard EVENT`
    bootstrap.py setup                   hooks/run --setup: prepare both steps now, say where
    bootstrap.py where                   print the interpreter it would use (builds nothing)

The interpreter, first hit wins: $WEB_RESEARCH_PYTHON; the checkout's .venv once it has
imported the core; the one remembered in python-<key> (see `trusted`); a private
venv-<key>; a python3 on PATH that has every dependency (not with
WEB_RESEARCH_NO_SYSTEM_PYTHON=1); else, for the command and --setup only, a new private
environment. <key> is a digest of both locks, so new locks get a new environment. The hooks
never build: a build there would be invisible to the person and bounded by the hook's timeout.

The private environment is built in two steps, each saying on stderr (the Bash tool's output,
which the person sees) when it starts and when it is done: the core (requirements.lock) the
first time the command runs, fetch's libraries (requirements-fetch.lock) at the first `fetch`
(or `recheck`).
One process builds under an flock while the others wait; the kernel drops the lock of a
builder that dies, and its half-built folder is removed by the next. Both locks are
hash-pinned; uv installs them when it is on PATH, else venv + pip.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from web_research.core.paths import data_dir, env_dir, user_env_dir  # noqa: E402 - found through the line above

PYTHONS = ("python3", "python3.13", "python3.12", "python3.11", "python3.10")
CORE = "import yaml, frontmatter, jsonschema, markdown_it, filelock"
EVERYTHING = CORE + ", trafilatura, pypdf, warcio"
# The one list of what each step installs, as pyproject.toml names it (README says the same:
# tests/unit/test_package_lists.py); lxml comes with trafilatura and lxml_html_clean.
CORE_NAMES = "PyYAML, python-frontmatter, jsonschema, markdown-it-py, mdit-py-plugins, publicsuffixlist, Jinja2, filelock"
FETCH_NAMES = "trafilatura, lxml, lxml_html_clean, pypdf, warcio"
FETCH_RETRY_SECONDS = 600
# How a lock is installed, by pip and by uv alike: its pins as they are (see Builder.install).
LOCK_INSTALL = ("--no-deps", "--require-hashes", "-r")


def which(name: str, path: str | None) -> str | None:
    import shutil  # lazy: a hook whose environment is remembered searches no PATH

    return shutil.which(name, path=path)


def run(argv: list[str], **options) -> subprocess.CompletedProcess | None:  # noqa: ANN003 - subprocess.run's
    """subprocess.run, None when the program cannot be started or times out."""
    import subprocess  # lazy: a hook whose environment is remembered starts no process

    try:
        return subprocess.run(argv, **options)
    except (OSError, subprocess.SubprocessError):
        return None


def say(message: str) -> None:
    print(f"web-research: {message}", file=sys.stderr, flush=True)


def lock_key(root: Path) -> str:
    digest = hashlib.sha256()
    for name in ("requirements.lock", "requirements-fetch.lock"):
        lock = root / name
        digest.update(lock.read_bytes() if lock.is_file() else b"")
    return digest.hexdigest()[:16]


def imports(python: str, code: str) -> bool:
    """Can `python` (3.10+) import what `code` imports?"""
    check = f"import sys\nif sys.version_info < (3, 10):\n    sys.exit(1)\n{code}"
    done = run([python, "-c", check], capture_output=True, timeout=60)
    return done is not None and done.returncode == 0


def executable_of(python: str) -> str | None:
    done = run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, timeout=60)
    return (done.stdout.strip() or None) if done is not None else None


def write_atomic(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.tmp.{os.getpid()}")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


def first_line(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.readline().strip()
    except OSError:
        return ""


class Finder:
    """The search for one plugin root in one environment (os.environ by default)."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.env = dict(os.environ if env is None else env)
        self.key = lock_key(root)
        self.dirs = list(dict.fromkeys([env_dir(self.env), user_env_dir(self.env)]))
        self.dev = str(root / ".venv" / "bin" / "python")

    def venv(self, folder: Path) -> Path:
        return folder / f"venv-{self.key}"

    def pointer(self, folder: Path) -> Path:
        return folder / f"python-{self.key}"

    def failed_file(self, folder: Path) -> Path:
        return folder / f"python-{self.key}.failed"

    def remember(self, python: str) -> str:
        """Write python-<key> in both folders: the Bash tool has no CLAUDE_PLUGIN_DATA, so the
        pointer is how the command finds what the hooks found, and the other way round."""
        for folder in self.dirs:
            if first_line(self.pointer(folder)) != python:
                write_atomic(self.pointer(folder), python + "\n")
        return python

    def trusted(self, python: str) -> bool:
        """A pointer is a cache of this search, never an authority: whoever can write the user's
        cache could point it at a program of their own, which a later `fetch` would run. So only
        an interpreter the search picks itself is taken: the checkout's .venv, a private venv, or
        a Python on PATH that reports it as its own sys.executable."""
        if python in (self.dev, *(str(self.venv(folder) / "bin" / "python") for folder in self.dirs)):
            return True
        if python == sys.executable:  # the interpreter the launcher chose to run this bootstrap
            return True
        for name in PYTHONS:
            found = which(name, path=self.env.get("PATH"))
            if found and (found == python or executable_of(found) == python):
                return True
        return False

    def find(self, prepare: bool = False) -> str | None:
        """The interpreter to use, or None (the reason said on stderr)."""
        explicit = self.env.get("WEB_RESEARCH_PYTHON")
        if explicit:
            found = explicit if os.access(explicit, os.X_OK) else which(explicit, path=self.env.get("PATH"))
            if found:
                return explicit
            print(f"WEB_RESEARCH_PYTHON={explicit} is not an executable", file=sys.stderr)
            return None
        if os.access(self.dev, os.X_OK):
            if first_line(self.pointer(self.dirs[0])) == self.dev or imports(self.dev, CORE):
                return self.remember(self.dev)
            say(f"{self.dev} cannot import the runtime dependencies ({CORE_NAMES}); not using it. Fix it with: "
                f"\"{self.dev}\" -m pip install --no-deps --require-hashes -r \"{self.root / 'requirements.lock'}\"")
        for folder in self.dirs:
            remembered = first_line(self.pointer(folder))
            if remembered and os.access(remembered, os.X_OK) and self.trusted(remembered):
                return remembered
            private = self.venv(folder) / "bin" / "python"
            if os.access(private, os.X_OK):
                return self.remember(str(private))
        if self.env.get("WEB_RESEARCH_NO_SYSTEM_PYTHON") != "1":
            for name in PYTHONS:
                found = which(name, path=self.env.get("PATH"))
                if found and imports(found, EVERYTHING):
                    return self.remember(executable_of(found) or found)
        if prepare:
            built = Builder(self).core()
            return self.remember(built) if built else None
        print(f"no Python with the plugin's dependencies ({CORE_NAMES}; {FETCH_NAMES}) was found", file=sys.stderr)
        return None

    def problem(self) -> str:
        """Why the last build failed, one line, for the hooks' message ('' when none did)."""
        for folder in self.dirs:
            try:
                text = self.failed_file(folder).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            return " ".join(text.split())[:600]
        return ""


# How long a set-up step takes, as measured on the path a person takes and quoted in README: uv 1 to
# 16 s, pip 9 to 52 s by the machine's load (65 s in issue 45's first run).
UV_HOW = "with uv; takes 2 to 20 s"
PIP_HOW = "with pip; takes 10 s to about a minute"


class Builder:
    """Builds the private environment in the hooks' environment folder, one step at a time."""

    def __init__(self, finder: Finder) -> None:
        self.finder = finder
        self.env = finder.env
        self.folder = finder.dirs[0]
        self.uv = which("uv", path=self.env.get("PATH"))
        self.how = UV_HOW if self.uv else PIP_HOW

    def wait_for(self, lock: Path, what: str, done) -> int | None:
        """An open descriptor holding `lock`; None when another process finished meanwhile
        (`done()`) or after WEB_RESEARCH_ENV_WAIT seconds (170 by default) of waiting."""
        fd = os.open(lock, os.O_CREAT | os.O_RDWR | getattr(os, "O_NOFOLLOW", 0), 0o600)
        deadline = time.monotonic() + float(self.env.get("WEB_RESEARCH_ENV_WAIT") or 170)
        said = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                pass
            if done() or time.monotonic() >= deadline:
                os.close(fd)
                return None
            if not said:
                say(f"waiting for another process to {what}...")
                said = True
            time.sleep(0.5)

    def base_python(self) -> str | None:
        """A Python 3.10+ to build from (with the venv module, unless uv builds)."""
        needs = "import sys" if self.uv else "import sys, venv, ensurepip"
        for name in (self.env.get("WEB_RESEARCH_BASE_PYTHON"), *PYTHONS):
            found = name and which(name, path=self.env.get("PATH"))
            if found and imports(found, needs):
                return executable_of(found)
        return None

    def index_url(self, *pythons: str) -> str:
        """uv's own setting, pip's environment or configuration (uv is given the same), else PyPI."""
        for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"):
            if self.env.get(name):
                return self.env[name]
        for python in pythons:  # the first that has pip (a venv made by uv has none)
            listed = run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, env=self.env,
                         timeout=60)
            if listed is not None and listed.returncode == 0:
                urls = [line.split("=", 1)[1].strip("'") for line in listed.stdout.splitlines()
                        if line.startswith(("global.index-url=", "install.index-url="))]
                return urls[-1] if urls else "https://pypi.org/simple"
        return "https://pypi.org/simple"

    def logged(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> bool:
        with log.open("a", encoding="utf-8") as out:
            done = run(argv, stdout=out, stderr=out, env=env or self.env)
            if done is None:
                out.write(f"error: cannot run {argv[0]}\n")
            return done is not None and done.returncode == 0

    def install(self, python: str, lock: Path, index: str, log: Path) -> bool:
        """Install a lock as the complete resolution it is: exactly its pins, each checked against
        its hashes, and nothing resolved again (--no-deps); then a check that every installed
        package has what it requires (`pip check`, `uv pip check`), which catches a lock with a
        hole. Resolving again made the outcome depend on the installer's version and on what the
        index published since the lock was made: pip before 24 read justext's `lxml[html_clean]`
        as a new, unpinned requirement once lxml 6.2.0 was out, and refused the whole lock.
        uv is given pip's index and trusts what pip trusts: the system's certificates and PIP_CERT."""
        if self.uv:
            env = {**self.env, "UV_INDEX_URL": index, "UV_PYTHON_DOWNLOADS": "never"}
            if not (env.get("UV_NATIVE_TLS") or env.get("UV_SYSTEM_CERTS")):
                env.update(UV_NATIVE_TLS="1", UV_SYSTEM_CERTS="1")
            if not env.get("SSL_CERT_FILE") and env.get("PIP_CERT"):
                env["SSL_CERT_FILE"] = env["PIP_CERT"]
            return (self.logged([self.uv, "pip", "install", "--quiet", "--python", python, *LOCK_INSTALL, str(lock)],
                                log, env)
                    and self.logged([self.uv, "pip", "check", "--quiet", "--python", python], log, env))
        # --no-compile, as uv does: Python compiles what it imports, once.
        quiet = ["--disable-pip-version-check", "--no-input", "--quiet"]
        return (self.logged([python, "-m", "pip", "install", *quiet, "--no-compile", *LOCK_INSTALL, str(lock)], log)
                and self.logged([python, "-m", "pip", "check", "--disable-pip-version-check"], log))

    def core(self) -> str | None:
        """Build venv-<key> with the core lock; its python, or None (the reason on stderr and
        in python-<key>.failed)."""
        import shutil  # lazy: only a build removes folders

        finder, final = self.finder, self.finder.venv(self.folder)
        python = final / "bin" / "python"
        try:
            (self.folder / "logs").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            say(f"cannot create {self.folder / 'logs'}: {exc.strerror}")
            return None
        fd = self.wait_for(self.folder / f"venv-{finder.key}.lock", f"prepare its Python environment in {final}",
                           lambda: os.access(python, os.X_OK))
        if fd is None:
            if os.access(python, os.X_OK):
                return str(python)
            return self.fail(f"timed out waiting for another process to prepare {final}")
        try:
            if os.access(python, os.X_OK):
                return str(python)
            for leftover in self.folder.glob(f".venv-{finder.key}.tmp.*"):  # of a builder that was killed
                shutil.rmtree(leftover, ignore_errors=True)
            base = self.base_python()
            if base is None:
                return self.fail("no Python 3.10 or newer with the venv module was found on PATH; install one, or "
                                 "set WEB_RESEARCH_PYTHON to a Python 3.10+ that has PyYAML, python-frontmatter "
                                 "and jsonschema")
            say(f"preparing its Python environment once ({CORE_NAMES}; fetch's libraries come at the first "
                f"fetch) in {final} {self.how}...")
            began = time.monotonic()
            index = self.index_url(base)
            log = self.folder / "logs" / f"venv-{finder.key}.log"
            log.write_text("", encoding="utf-8")
            finder.failed_file(self.folder).unlink(missing_ok=True)
            temporary = self.folder / f".venv-{finder.key}.tmp.{os.getpid()}"
            make = ([self.uv, "venv", "--quiet", "--python", base, str(temporary)] if self.uv
                    else [base, "-m", "venv", str(temporary)])
            if (self.logged(make, log, {**self.env, "UV_PYTHON_DOWNLOADS": "never"})
                    and self.install(str(temporary / "bin" / "python"), finder.root / "requirements.lock", index, log)
                    and imports(str(temporary / "bin" / "python"), CORE)):
                temporary.rename(final)
                say(f"Python environment ready in {time.monotonic() - began:.0f} s: {final}")
                return str(python)
            shutil.rmtree(temporary, ignore_errors=True)
            return self.fail(f"could not prepare the plugin's Python environment: "
                             f"{install_failure(log, finder.root / 'requirements.lock', index, finder.root)}. "
                             "Or set WEB_RESEARCH_PYTHON to a Python 3.10+ that has PyYAML, python-frontmatter "
                             "and jsonschema")
        finally:
            os.close(fd)

    def fail(self, message: str) -> None:
        print(message, file=sys.stderr)
        write_atomic(self.finder.failed_file(self.folder), message + "\n")

    def fetch(self, python: str, force: bool = False) -> bool:
        """Before `fetch`: give the plugin's own environment fetch's libraries, once, by one
        process while the others wait. Any other Python is the person's: `fetch` says what is
        missing there and how to fix it. After a failure (fetch.failed) it tries again only after
        10 minutes, or at once with `force` (hooks/run --setup)."""
        venv = Path(python).parent.parent
        lock = self.finder.root / "requirements-fetch.lock"
        ready, failed = venv / "fetch.ready", venv / "fetch.failed"
        if ready.exists() or not venv.name.startswith("venv-") or not (venv / "pyvenv.cfg").is_file() \
                or not lock.is_file():
            return True
        if not force and failed.is_file() and time.time() - failed.stat().st_mtime < FETCH_RETRY_SECONDS:
            return False
        fd = self.wait_for(venv.with_name(venv.name + ".fetch.lock"), f"install fetch's libraries into {venv}",
                           ready.exists)
        if fd is None:
            if not ready.exists():
                say(f"timed out waiting for another process to install fetch's libraries into {venv}")
            return ready.exists()
        try:
            if ready.exists():
                return True
            log = venv.parent / "logs" / f"{venv.name}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            say(f"installing fetch's page-extraction libraries ({FETCH_NAMES}) once, into {venv} "
                f"{self.how}...")
            began = time.monotonic()
            index = self.index_url(python, sys.executable)
            if self.install(python, lock, index, log) and imports(python, EVERYTHING):
                failed.unlink(missing_ok=True)
                ready.touch()
                say(f"fetch's libraries installed in {time.monotonic() - began:.0f} s")
                return True
            reason = (f"could not install the libraries of web-research fetch ({FETCH_NAMES}): "
                      f"{install_failure(log, lock, index, self.finder.root)}")
            write_atomic(failed, reason + "\n")
            say(f"the hooks and verify work, but fetch will not: {reason}")
            return False
        finally:
            os.close(fd)


def log_reason(log: Path) -> str:
    """Why an install failed, in one line: its last error line, with the deepest cause when
    uv reports a chain of them."""
    try:
        lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    except OSError:
        lines = []
    errors = [line for line in lines if line.lower().startswith("error")]
    causes = [line for line in lines if line.lower().startswith(("cause:", "caused by:"))]
    plain = [line for line in lines if line and not line.lower().startswith(("warning", "hint"))]
    last = causes[-1] if causes else (plain[-1] if plain else "")
    if errors and errors[-1] != last:
        last = f"{errors[-1]} ({last})"
    return (last or "no output")[:400]


def pinned_names(lock: Path) -> list[str]:
    """The package names a lock pins, normalised (PEP 503)."""
    try:
        text = lock.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    names = (line.split("==", 1)[0].strip() for line in text.splitlines() if "==" in line and line[:1].isalnum())
    return list(dict.fromkeys(normalised(name) for name in names))


def normalised(name: str) -> str:
    """A package name as PEP 503 compares them: runs of `-`, `_` and `.` are one `-`, lower case."""
    import re  # lazy: only a failed install reads names

    return re.sub(r"[-_.]+", "-", name).lower()


def failed_package(lines: list[str], pins: list[str]) -> str:
    """The package an install failed on, from the installer's own words: the requirement a check
    found missing (pip check, uv pip check), else the first pinned package named on the last
    error line that names one (a requirement, a `name==version`, an index URL); '' when none is."""
    import re  # lazy: only a failed install reads its log

    for line in lines:
        missing = re.search(r"`?([\w.-]+)`?(?: [\w.]+)? requires `?([^`,\s]+)`?,? (?:but it's|which is) not installed",
                            line)
        if missing:
            return f"{missing.group(2)} (which {missing.group(1)} requires)"
    for line in reversed(lines):
        for token in re.findall(r"[^\s`'\"(),:;]+", line):
            name = re.split(r"[\[<>=!~]", token.rstrip("/").rsplit("/simple/", 1)[-1], maxsplit=1)[0]
            if name and normalised(name) in pins and (token != name or "/simple/" in token
                                                      or line.lower().startswith(("error", "caused by", "cause"))):
                return token.rsplit("/simple/", 1)[-1].rstrip("/")
    return ""


def fix_for(lowered: str, index: str, setup: Path) -> str:
    """The one command that fixes the cause found in the log (lower case)."""
    again = f'"{setup}" --setup'
    if any(mark in lowered for mark in ("do not match the hashes", "hash mismatch", "hash of")):
        return f"the index served files other than the locked ones; use PyPI: PIP_INDEX_URL=https://pypi.org/simple {again}"
    if any(mark in lowered for mark in ("failed to build", "failed building wheel", "subprocess-exited-with-error",
                                        "error: command", "build backend")):
        return (f"no ready-built wheel for this Python and platform, and building one failed; install a C "
                f"compiler and the libxml2 and libxslt headers (Debian: apt-get install build-essential "
                f"libxml2-dev libxslt1-dev), then run: {again}")
    if "requires" in lowered and "not installed" in lowered:
        return f"the lock misses a package (please report it); then run: {again}"
    return f"set PIP_INDEX_URL to a package index that is reachable (uv uses it too), then run: {again}"


def install_failure(log: Path, lock: Path, index: str, root: Path) -> str:
    """Why installing `lock` failed, for a person: the package, the installer's cause in one line,
    and the one command that fixes it."""
    try:
        lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    except OSError:
        lines = []
    package = failed_package([line for line in lines if line], pinned_names(lock))
    lowered = "\n".join(lines).lower()
    what = f"{package} from the package index {index}" if package else f"from the package index {index}"
    return f"{what}: {log_reason(log)} (full log: {log}). Fix: {fix_for(lowered, index, root / 'hooks' / 'run')}"


def run_module(python: str, module: str, args: list[str]) -> None:
    """`python -m module args`, in place of this process. When `python` is the interpreter already
    running this bootstrap (in a hook, the launcher starts the environment's own python), the
    module runs here with site-packages added, which saves a second interpreter start."""
    if python == sys.executable and sys.flags.no_site:
        import runpy  # lazy: only this branch runs a module in process
        import site  # lazy: -S left it out, so that the search above ran on the standard library

        site.main()
        sys.argv = [python, *args]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        sys.exit(0)
    os.execv(python, [python, "-m", module, *args])


def hook(finder: Finder, event: str, session_id: str, is_start: bool) -> int:
    """Run the hook's Python; with none, tell the person once per session the cause and the fix,
    and decide nothing (a session is never blocked by our own failure)."""
    python = finder.find()
    if python:
        run_module(python, "web_research.guard", [event])
    problem = finder.problem()
    if is_start and not problem:
        return 0  # the start command is about to build the environment; `start` applies the same rules
    mark = data_dir(finder.env) / "logs" / f"no-python-{session_id or 'unknown'}"
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        with mark.open("x"):
            pass
    except OSError:
        return 0
    why = f" ({problem})" if problem else ""
    setup = finder.root / "hooks" / "run"
    print(json.dumps({"systemMessage": f"web-research hooks are inactive: no Python environment could be "
                                       f"prepared{why}. Fix it, then run: \"{setup}\" --setup"}))
    return 0


def main(argv: list[str]) -> int:
    mode, rest = (argv[0], argv[1:]) if argv else ("", [])
    finder = Finder(ROOT)
    setup = finder.root / "hooks" / "run"
    if mode == "hook" and len(rest) == 3:
        return hook(finder, rest[0], rest[1], rest[2] == "1")
    if mode == "setup":
        python = finder.find(prepare=True)
        if python is None:
            say("could not prepare a Python environment (see above).")
            return 1
        Builder(finder).fetch(python, force=True)
        print(f"web-research: Python environment ready: {python}")
        return 0
    if mode == "where":
        python = finder.find()
        if python is None:
            return 1
        print(python)
        return 0
    if mode == "cli":
        python = finder.find(prepare=True)
        if python is None:
            say(f"no usable Python environment (the reason is above). Once it is fixed, run: \"{setup}\" --setup")
            return 2
        if rest[:1] in (["fetch"], ["recheck"]):  # they fetch pages
            Builder(finder).fetch(python)  # on failure the command itself says what is missing and how to fix it
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "scripts"), os.environ.get("PYTHONPATH")]))
        run_module(python, "web_research", rest)
        return 0
    print("usage: bootstrap.py cli ARGS... | hook EVENT SESSION_ID IS_START | setup | where", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
