# Sourced by scripts/web-research and the hook launcher.
# web_research_python: print the path of a Python that can import the runtime
# dependencies. Placeholder resolution; the hooks issue replaces it with the
# full search-or-prepare logic.
web_research_python() {
    if [ -n "${WEB_RESEARCH_PYTHON:-}" ]; then echo "$WEB_RESEARCH_PYTHON"; return 0; fi
    _root=$(CDPATH= cd -- "$(dirname -- "$here")" && pwd)
    if [ -x "$_root/.venv/bin/python" ]; then echo "$_root/.venv/bin/python"; return 0; fi
    command -v python3
}
