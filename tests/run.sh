#!/usr/bin/env bash
# Set up everything the tests need and run them all. README's test command.
#  - a virtualenv in .venv with the hash-pinned requirements-test.lock (the core,
#    fetch's libraries and the test tools, at the versions the plugin's own locks
#    give users; uv among them: the tests build the plugin's environment with uv
#    and with pip), then the package itself, editable
#  - lint: ruff (configured in pyproject.toml) on the Python code, shellcheck
#    (settings in .shellcheckrc) on every shell script; a finding fails the run
#  - the pinned Claude Code CLI from npm (for the end-to-end tests), cached
#    under ~/.cache/web-research-cli unless WEB_RESEARCH_CLI_PREFIX says otherwise
# Extra arguments go to pytest; `--setup-only` stops after the set-up (the venv and the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.328"
PY="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# A lock is installed as the complete set it is (see scripts/lib/bootstrap.py, Builder.install).
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements-test.lock
.venv/bin/python -m pip check --disable-pip-version-check >/dev/null
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .

prefix="${WEB_RESEARCH_CLI_PREFIX:-$HOME/.cache/web-research-cli}"
bin="$prefix/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if [ -z "${WEB_RESEARCH_CLAUDE_BIN:-}" ]; then
    if [ ! -x "$bin" ] || ! "$bin" --version 2>/dev/null | grep -q "^$CLAUDE_CODE_VERSION "; then
        if command -v npm >/dev/null 2>&1; then
            mkdir -p "$prefix"
            npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
                "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" || echo "warning: could not install the Claude Code CLI" >&2
        else
            echo "warning: npm not found; end-to-end tests need the Claude Code CLI" >&2
        fi
    fi
    if [ -x "$bin" ]; then export WEB_RESEARCH_CLAUDE_BIN="$bin"; fi
fi

if [ "${1:-}" = "--setup-only" ]; then exit 0; fi

.venv/bin/ruff check --quiet scripts tests
.venv/bin/shellcheck -x hooks/run scripts/web-research .ci/* tests/run.sh

set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "error: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
