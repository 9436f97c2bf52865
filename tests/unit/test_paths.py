"""The plugin's folders are resolved by one set of rules (core/paths.py); the launcher, which
must decide in shell before Python starts, finds run records exactly where those rules put them."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hook_harness import LAUNCHER, Harness, recording_interpreter
from web_research.core import paths


def _variants(tmp: Path) -> dict[str, dict[str, str]]:
    home = str(tmp / "home")
    return {
        "plugin data": {"HOME": home, "CLAUDE_PLUGIN_DATA": str(tmp / "plugin-data"),
                        "WEB_RESEARCH_STATE_DIR": str(tmp / "state")},
        "state dir": {"HOME": home, "WEB_RESEARCH_STATE_DIR": str(tmp / "state"), "XDG_DATA_HOME": str(tmp / "xdg")},
        "xdg": {"HOME": home, "XDG_DATA_HOME": str(tmp / "xdg")},
        "home": {"HOME": home},
    }


def test_each_environment_has_its_own_data_folder(tmp_path: Path):
    found = {name: paths.data_dir(env) for name, env in _variants(tmp_path).items()}
    assert found == {"plugin data": tmp_path / "plugin-data", "state dir": tmp_path / "state",
                     "xdg": tmp_path / "xdg" / "web-research",
                     "home": tmp_path / "home" / ".local" / "share" / "web-research"}
    assert paths.user_data_dir(_variants(tmp_path)["plugin data"]) == tmp_path / "state"
    assert paths.env_dir(_variants(tmp_path)["plugin data"]) == tmp_path / "plugin-data" / "env"
    assert paths.env_dir(_variants(tmp_path)["xdg"]) == tmp_path / "home" / ".cache" / "web-research"


@pytest.mark.parametrize("variant", ["plugin data", "state dir", "xdg", "home"])
def test_the_launcher_finds_a_run_record_where_core_puts_it_and_nowhere_else(tmp_path: Path, variant: str):
    h = Harness(tmp_path)
    fake, mark = recording_interpreter(tmp_path)
    variants = _variants(tmp_path)
    env = {"PATH": "/usr/bin:/bin", "WEB_RESEARCH_PYTHON": str(fake), **variants[variant]}
    payload = json.dumps(h.write_call(None, str(h.project / "notes.md")))

    def launch() -> bool:
        mark.unlink(missing_ok=True)
        subprocess.run([str(LAUNCHER), "pre_tool_use"], input=payload, text=True, env=env, check=True,
                       capture_output=True, cwd=h.project)
        return mark.exists()

    elsewhere = [paths.data_dir(e) for name, e in variants.items() if paths.data_dir(e) != paths.data_dir(env)]
    for folder in elsewhere:  # a record in another variant's folder is not this session's run
        record = paths.session_record(folder, h.sid)
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text("{}")
    assert not launch()
    record = paths.session_record(paths.data_dir(env), h.sid)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("{}")
    assert launch()
    assert paths.any_run_open(paths.data_dir(env))


def test_session_ids_that_are_no_file_name_are_refused(tmp_path: Path):
    assert paths.valid_session_id("5650be0e-2909-4fcc-bf5a-3f789e9bb873")
    for bad in ("", "../x", "a/b", "x" * 129, None, 7, "a b"):
        assert not paths.valid_session_id(bad)
    with pytest.raises(ValueError):
        paths.session_record(tmp_path, "../escape")
    assert not paths.any_run_open(tmp_path / "nothing-here")
