"""The locks can be installed as they are, without resolving (`--no-deps --require-hashes`, as
scripts/lib/bootstrap.py and tests/run.sh install them): every line pins one version with `==`
and hashes, and every dependency of every pinned package, extras included, is pinned in the
same lock at a version it accepts, for every Python the locks claim (3.10 and up) on Linux,
macOS and Windows. What each pinned version requires is recorded from its wheel by
tests/lock_metadata.py (run by .ci/update-locks) in tests/fixtures/lock-metadata.json; where
this Python has the same version installed, the record must equal its installed metadata."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from hook_harness import REPO

tomllib = pytest.importorskip("tomllib")

RECORD = REPO / "tests" / "fixtures" / "lock-metadata.json"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
PLATFORMS = {  # sys_platform -> the markers that go with it
    "linux": {"platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64"},
    "darwin": {"platform_system": "Darwin", "os_name": "posix", "platform_machine": "arm64"},
    "win32": {"platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"},
}
REGENERATE = "regenerate with .ci/update-locks (it runs tests/lock_metadata.py)"


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    marker: Marker | None
    hashes: int
    line: int


@cache
def read_lock(lock: Path) -> tuple[Pin, ...]:
    """Every requirement of a lock, with the line it starts on; a line that is not `name==version`
    with at least one hash fails here, naming the lock and the line."""
    pins: list[Pin] = []
    logical, start = "", 0
    for number, line in enumerate(lock.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if not logical and (not stripped or stripped.startswith("#")):
            continue
        if not logical:
            start = number
        logical += " " + stripped.removesuffix("\\")
        if stripped.endswith("\\"):
            continue
        text, logical = logical.strip(), ""
        options = re.findall(r"--hash=sha256:[0-9a-f]{64}", text)
        requirement_text = re.sub(r"--hash=\S+", "", text).strip()
        assert not requirement_text.startswith("-"), f"{lock.name}:{start}: an option line ({requirement_text})"
        requirement = Requirement(requirement_text)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==" and "*" not in specifiers[0].version, \
            f"{lock.name}:{start}: {requirement_text!r} is not pinned to one version with =="
        assert not requirement.extras and not requirement.url, f"{lock.name}:{start}: extras or a URL in a lock"
        assert options, f"{lock.name}:{start}: {requirement.name} has no --hash"
        pins.append(Pin(canonicalize_name(requirement.name), specifiers[0].version, requirement.marker,
                        len(options), start))
    return tuple(pins)


def recorded() -> dict[str, list[Requirement]]:
    packages = json.loads(RECORD.read_text(encoding="utf-8"))["packages"]
    return {key: [Requirement(text) for text in value["requires_dist"]] for key, value in packages.items()}


def roots() -> dict[str, list[Requirement]]:
    """What each lock was compiled from (.ci/update-locks): the core, + fetch, + test."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = [Requirement(text) for text in project["dependencies"]]
    fetch = [Requirement(text) for text in project["optional-dependencies"]["fetch"]]
    test = [Requirement(text) for text in project["optional-dependencies"]["test"]]
    return {"requirements.lock": core, "requirements-fetch.lock": core + fetch,
            "requirements-test.lock": core + fetch + test}


def environments() -> Iterator[dict[str, str]]:
    for python in PYTHONS:
        for platform, markers in PLATFORMS.items():
            yield {**default_environment(), **markers, "sys_platform": platform, "python_version": python,
                   "python_full_version": f"{python}.0", "implementation_name": "cpython",
                   "platform_python_implementation": "CPython"}


def applies(marker: Marker | None, environment: dict[str, str], extras: frozenset[str] = frozenset()) -> bool:
    if marker is None:
        return True
    return any(marker.evaluate({**environment, "extra": extra}) for extra in (extras or {""}))


def holes(lock: str, environment: dict[str, str], requires: dict[str, list[Requirement]]) -> list[str]:
    """The dependencies, reached from the lock's roots in `environment`, that the lock does not pin
    at a version they accept."""
    pinned: dict[str, str] = {}
    for pin in read_lock(REPO / lock):
        if applies(pin.marker, environment):
            assert pin.name not in pinned, f"{lock}:{pin.line}: {pin.name} pinned twice for {environment['python_version']}"
            pinned[pin.name] = pin.version
    found: list[str] = []
    seen: set[tuple[str, frozenset[str]]] = set()
    queue: list[tuple[Requirement, str]] = [(root, "pyproject.toml") for root in roots()[lock]]
    while queue:
        requirement, wanted_by = queue.pop()
        name = canonicalize_name(requirement.name)
        version = pinned.get(name)
        if version is None:
            found.append(f"{requirement} (wanted by {wanted_by}) is not pinned")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            found.append(f"{requirement} (wanted by {wanted_by}) does not accept the pinned {name}=={version}")
        extras = frozenset(canonicalize_name(extra) for extra in requirement.extras)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        key = f"{name}=={version}"
        assert key in requires, f"{key} is pinned in {lock} but not in {RECORD.name}: {REGENERATE}"
        for dependency in requires[key]:
            if applies(dependency.marker, environment, extras):
                queue.append((dependency, key + (f"[{','.join(sorted(extras))}]" if extras else "")))
    return found


@pytest.mark.parametrize("lock", sorted(roots()))
def test_every_line_of_the_lock_pins_one_version_with_hashes(lock: str):
    pins = read_lock(REPO / lock)
    assert pins and all(pin.hashes for pin in pins)


@pytest.mark.parametrize("lock", sorted(roots()))
def test_the_lock_holds_every_dependency_of_what_it_pins_for_every_python_it_claims(lock: str):
    requires = recorded()
    problems = {f"Python {env['python_version']} on {env['sys_platform']}": holes(lock, env, requires)
                for env in environments()}
    problems = {where: found for where, found in problems.items() if found}
    assert not problems, f"{lock} cannot be installed with --no-deps ({REGENERATE}): {problems}"


def test_the_record_covers_exactly_the_pinned_versions():
    pinned = {f"{pin.name}=={pin.version}" for lock in roots() for pin in read_lock(REPO / lock)}
    assert set(recorded()) == pinned, f"{RECORD.name} is stale: {REGENERATE}"


def test_the_record_agrees_with_the_installed_metadata():
    """The record is checked where it can be: every pinned version installed here has the
    requirements the record says."""
    compared = 0
    for key, requirements in recorded().items():
        name, version = key.split("==")
        try:
            installed = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if installed.version != version:
            continue
        compared += 1
        assert sorted(map(str, requirements)) == sorted(str(Requirement(r)) for r in (installed.requires or [])), key
    assert compared >= 30  # the test lock's packages for this Python are installed (tests/run.sh)


def test_a_lock_with_a_hole_is_caught():
    """The check can fail: justext's lxml[html_clean] needs lxml-html-clean, which the fetch
    lock pins; without it the fetch lock has a hole on every Python."""
    requires = recorded()
    environment = next(environments())
    assert not holes("requirements-fetch.lock", environment, requires)
    lxml = next(pin for pin in read_lock(REPO / "requirements-fetch.lock") if pin.name == "lxml")
    without = {key: value for key, value in requires.items()}
    without[f"lxml=={lxml.version}"] = [*requires[f"lxml=={lxml.version}"], Requirement("no-such-package; extra == 'html-clean'")]
    found = holes("requirements-fetch.lock", environment, without)
    assert found == [f"no-such-package; extra == \"html-clean\" (wanted by lxml=={lxml.version}[html-clean]) is not pinned"], found
