"""Where the plugin keeps its own files, outside any run folder: the one place these rules live.

    data folder   $CLAUDE_PLUGIN_DATA (the hooks' environment), else the per-user folder:
                  $WEB_RESEARCH_STATE_DIR, else ${XDG_DATA_HOME:-~/.local/share}/web-research
      sessions/   <session_id>.json while that session has a run open (hooks/run tests this
                  file's existence to stay on the shell fast path), .history.json, .lock
      logs/       the hooks' log and their once-per-session notices
      ledgers/, metrics/   (evidence/ledger.py, the hooks' metrics)
    env folders   Python environments: $CLAUDE_PLUGIN_DATA/env, else the per-user cache,
                  $WEB_RESEARCH_STATE_DIR/env, else ${XDG_CACHE_HOME:-~/.cache}/web-research

hooks/run repeats the data folder's rule in shell (it must decide before Python starts);
tests/unit/test_paths.py holds the two to the same answers.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

SESSIONS_DIR = "sessions"
LOGS_DIR = "logs"
ENV_DIR = "env"
PRODUCT = "web-research"

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def valid_session_id(session_id: object) -> bool:
    """Session ids become file names: only the characters Claude Code uses, at most 128."""
    return isinstance(session_id, str) and bool(_SESSION_ID.fullmatch(session_id))


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def user_data_dir(env: Mapping[str, str]) -> Path:
    """The per-user data folder, used when CLAUDE_PLUGIN_DATA is unset (the Bash tool's
    environment, a person at a terminal)."""
    if env.get("WEB_RESEARCH_STATE_DIR"):
        return Path(env["WEB_RESEARCH_STATE_DIR"])
    base = env.get("XDG_DATA_HOME") or str(_home(env) / ".local" / "share")
    return Path(base) / PRODUCT


def data_dir(env: Mapping[str, str]) -> Path:
    """Where the hooks keep run records, ledgers, metrics and logs."""
    value = env.get("CLAUDE_PLUGIN_DATA")
    return Path(value) if value else user_data_dir(env)


def user_env_dir(env: Mapping[str, str]) -> Path:
    """The per-user folder of Python environments (a cache: safe to delete)."""
    if env.get("WEB_RESEARCH_STATE_DIR"):
        return Path(env["WEB_RESEARCH_STATE_DIR"]) / ENV_DIR
    return Path(env.get("XDG_CACHE_HOME") or str(_home(env) / ".cache")) / PRODUCT


def env_dir(env: Mapping[str, str]) -> Path:
    """The folder of Python environments the hooks use: under the data folder when the client
    gives one, else the per-user cache."""
    value = env.get("CLAUDE_PLUGIN_DATA")
    return Path(value) / ENV_DIR if value else user_env_dir(env)


def cache_dir(env: Mapping[str, str]) -> Path:
    """The per-user cache folder (${XDG_CACHE_HOME:-~/.cache}/web-research)."""
    return Path(env.get("XDG_CACHE_HOME") or str(_home(env) / ".cache")) / PRODUCT


def logs_dir(env: Mapping[str, str]) -> Path:
    return data_dir(env) / LOGS_DIR


def sessions_dir(data: Path) -> Path:
    return Path(data) / SESSIONS_DIR


def session_record(data: Path, session_id: str) -> Path:
    """`<data>/sessions/<session_id>.json`: exists exactly while the session has a run open."""
    if not valid_session_id(session_id):
        raise ValueError(f"invalid session id: {session_id!r}")
    return sessions_dir(data) / f"{session_id}.json"


def any_run_open(data: Path) -> bool:
    """Whether any session has a run open (a record `<session>.json`; histories aside)."""
    try:
        with os.scandir(sessions_dir(data)) as entries:
            return any(e.name.endswith(".json") and not e.name.endswith(".history.json") for e in entries)
    except (FileNotFoundError, NotADirectoryError):
        return False
