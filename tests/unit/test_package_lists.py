"""One package list (issue 45): what the set-up messages name is what pyproject.toml installs and
what README says, for the core and for fetch's libraries."""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))

import bootstrap  # noqa: E402

tomllib = __import__("tomllib") if sys.version_info >= (3, 11) else None


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def _listed(text: str) -> set[str]:
    return {name.strip().lower() for name in text.split(",")}


def test_the_set_up_lists_are_pyprojects_and_readmes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`requirements.lock` ({bootstrap.CORE_NAMES}:" in readme
    assert f"`requirements-fetch.lock` ({bootstrap.FETCH_NAMES})" in readme
    if tomllib is None:
        return
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert _listed(bootstrap.CORE_NAMES) == _names(project["dependencies"])
    assert _listed(bootstrap.FETCH_NAMES) - {"lxml"} == _names(project["optional-dependencies"]["fetch"])


def test_the_set_up_line_says_how_long_as_readme_measured_it() -> None:
    """The time the set-up line gives is the one README's measurements support, quoted there word for word."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f'"{bootstrap.PIP_HOW}"' in readme and f'"{bootstrap.UV_HOW}"' in readme
    assert "about a minute" not in bootstrap.UV_HOW
