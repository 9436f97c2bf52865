"""Record what every package pinned in the locks requires, for tests/unit/test_locks.py.

Run by .ci/update-locks after it regenerates the locks (needs the package index):

    python tests/lock_metadata.py [--index URL]    writes tests/fixtures/lock-metadata.json

The locks are installed without resolving (`--no-deps`), so each must hold every dependency of
every package it pins, extras included, for every Python it claims. Checking that needs each
pinned version's own `Requires-Dist`, also for versions pinned only for another Python than the
one running the tests. This reads it from the package's wheel on the index: only the wheel's
zip directory and its METADATA member are downloaded (HTTP range requests), from a file whose
sha256 is one of the lock's hashes for that pin, so the record is of the locked files.
Standard library only.
"""
from __future__ import annotations

import argparse
import email.parser
import io
import json
import re
import sys
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCKS = ("requirements.lock", "requirements-fetch.lock", "requirements-test.lock")
OUTPUT = REPO / "tests" / "fixtures" / "lock-metadata.json"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


def pins_with_hashes(lock: Path) -> dict[str, set[str]]:
    """`name==version` -> the sha256 hashes the lock allows for it (over all its marker lines)."""
    pins: dict[str, set[str]] = {}
    current = ""
    for line in lock.read_text(encoding="utf-8").splitlines():
        found = PIN.match(line)
        if found:
            current = f"{found.group(1).lower()}=={found.group(2)}"
            pins.setdefault(current, set())
        if current:
            pins[current].update(HASH.findall(line))
        if not line.rstrip().endswith("\\"):
            current = ""
    return pins


class RangeFile(io.RawIOBase):
    """A remote file read by HTTP range requests, seekable, so zipfile reads only the directory
    at its end and the members it opens."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.position = url, size, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = 0) -> int:
        self.position = {0: offset, 1: self.position + offset, 2: self.size + offset}[whence]
        return self.position

    def read(self, count: int = -1) -> bytes:
        end = self.size if count is None or count < 0 else min(self.size, self.position + count)
        if end <= self.position:
            return b""
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={self.position}-{end - 1}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            data = response.read()
            if response.status != 206:  # the server ignored the range: keep the part asked for
                data = data[self.position:end]
        self.position += len(data)
        return data

    def readinto(self, buffer) -> int:  # noqa: ANN001 - io's protocol
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def wheel_requirements(index: str, pin: str, hashes: set[str]) -> tuple[str, list[str]]:
    """(wheel file name, its Requires-Dist) for one pinned version."""
    name, version = pin.split("==")
    request = urllib.request.Request(f"{index.rstrip('/')}/{name}/", headers={"Accept": SIMPLE_JSON})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    candidates = [f for f in files if f["filename"].endswith(".whl") and f["hashes"].get("sha256") in hashes
                  and f"-{version}-" in f["filename"]]
    if not candidates:
        raise SystemExit(f"{pin}: no wheel on {index} with one of the lock's hashes")
    chosen = min(candidates, key=lambda f: (not f["filename"].endswith("-any.whl"), f.get("size") or 0))
    size = chosen.get("size")
    if not size:
        head = urllib.request.Request(chosen["url"], method="HEAD")
        with urllib.request.urlopen(head, timeout=60) as response:
            size = int(response.headers["Content-Length"])
    with zipfile.ZipFile(io.BufferedReader(RangeFile(chosen["url"], size), buffer_size=1 << 16)) as wheel:
        member = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        metadata = email.parser.BytesParser().parsebytes(wheel.read(member), headersonly=True)
    return chosen["filename"], sorted(metadata.get_all("Requires-Dist") or [])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", default="https://pypi.org/simple")
    args = parser.parse_args(argv)
    pins: dict[str, set[str]] = {}
    for lock in LOCKS:
        for pin, hashes in pins_with_hashes(REPO / lock).items():
            pins.setdefault(pin, set()).update(hashes)
    record: dict[str, object] = {"index": args.index, "packages": {}}
    for pin in sorted(pins):
        wheel, requires = wheel_requirements(args.index, pin, pins[pin])
        record["packages"][pin] = {"wheel": wheel, "requires_dist": requires}  # type: ignore[index]
        print(f"{pin}: {len(requires)} requirements ({wheel})", file=sys.stderr)
    OUTPUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
