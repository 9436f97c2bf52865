"""scripts/lib/bootstrap.py: when installing a lock fails, the person is told which package, the
installer's cause in one line, and the one command that fixes it. The logs are the installers'
own words (pip 23.2.1 and uv 0.13, recorded here)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hook_harness import REPO

spec = importlib.util.spec_from_file_location("bootstrap_under_test", REPO / "scripts" / "lib" / "bootstrap.py")
bootstrap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bootstrap)

INDEX = "https://pypi.org/simple"
SETUP = f'"{REPO}/hooks/run" --setup'
LOGS = {
    "pip 23 re-resolving an extra": (
        "ERROR: In --require-hashes mode, all requirements must have their versions pinned with ==. These do not:\n"
        "    lxml[html_clean]>=4.4.2 from https://files.pythonhosted.org/packages/fd/lxml-6.2.0-cp311-cp311-"
        "manylinux_2_28_x86_64.whl (from justext==3.0.2->-r requirements-fetch.lock (line 224))\n",
        "lxml[html_clean]>=4.4.2", "PIP_INDEX_URL"),
    "pip, index unreachable": (
        "WARNING: Retrying (Retry(total=0...)) after connection broken by 'NewConnectionError'\n"
        "ERROR: Could not find a version that satisfies the requirement pyyaml==6.0.3 (from versions: none)\n"
        "ERROR: No matching distribution found for pyyaml==6.0.3\n",
        "pyyaml==6.0.3", "PIP_INDEX_URL"),
    "uv, index unreachable": (
        "error: Failed to fetch: `http://127.0.0.1:9/simple/pyyaml/`\n"
        "  Caused by: Request failed after 0 retries\n"
        "  Caused by: tcp connect error: Connection refused (os error 111)\n",
        "pyyaml", "PIP_INDEX_URL"),
    "uv, a failed build": (
        "error: Failed to build `lxml==6.1.3`\n  Caused by: The build backend returned an error\n",
        "lxml==6.1.3", "libxml2"),
    "pip, hashes": (
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n"
        "    lxml==6.1.3 from https://mirror.example/lxml-6.1.3.whl:\n"
        "        Expected sha256 0123\n             Got        4567\n",
        "lxml==6.1.3", "PIP_INDEX_URL=https://pypi.org/simple"),
    "pip check, a hole in the lock": (
        "justext 3.0.2 requires lxml-html-clean, which is not installed.\n",
        "lxml-html-clean (which justext requires)", "please report it"),
    "uv pip check, a hole in the lock": (
        "Found 1 incompatibility\nThe package `justext` requires `lxml[html-clean]>=4.4.2`, but it's not installed\n",
        "lxml[html-clean]>=4.4.2 (which justext requires)", "please report it"),
}


@pytest.mark.parametrize("case", sorted(LOGS))
def test_the_failure_names_the_package_the_cause_and_the_fix(tmp_path: Path, case: str):
    text, package, fix = LOGS[case]
    log = tmp_path / "install.log"
    log.write_text(text)
    message = bootstrap.install_failure(log, REPO / "requirements-fetch.lock", INDEX, REPO)
    assert message.startswith(f"{package} from the package index {INDEX}: "), message
    assert "\n" not in message and f"(full log: {log})" in message
    named, fixed = message.split(". Fix: ", 1)
    assert fix in fixed and fixed.endswith(SETUP), fixed
    assert bootstrap.log_reason(log) in named


def test_a_log_that_names_no_package_still_gives_the_cause_and_the_fix(tmp_path: Path):
    log = tmp_path / "install.log"
    log.write_text("error: No space left on device (os error 28)\n")
    message = bootstrap.install_failure(log, REPO / "requirements.lock", INDEX, REPO)
    assert message.startswith(f"from the package index {INDEX}: error: No space left on device"), message
    assert message.endswith(SETUP)
