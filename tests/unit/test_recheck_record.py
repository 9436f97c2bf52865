"""The recheck record: written atomically under checks/, never over an earlier one, read back
as types by `latest_recheck`, and refused with the file and field named when it was tampered with."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from web_research import formats
from web_research.recheck.record import (CHANGED, UNCHANGED, UNREACHABLE, Change, CitationRecheck, PageRecheck,
                                         RecheckRecord, RecheckRecordError, free_stamp, latest_recheck,
                                         read_record, record_files, write_record)

MOMENT = datetime(2026, 5, 2, 10, 15, 0, tzinfo=timezone.utc)


def _record(name: str, states: tuple[str, ...] = (UNCHANGED, CHANGED)) -> RecheckRecord:
    citations = tuple(
        CitationRecheck(number=n, url=f"https://docs.acme.example/{n}", state=state, status=200,
                        checked_at="2026-05-02T10:15:01Z", note=f"footnote {n} is {state}",
                        excerpt_found=state == UNCHANGED,
                        closest=None if state == UNCHANGED else "billed at 1.8x the rate",
                        similarity=None if state == UNCHANGED else 0.93,
                        differences=() if state == UNCHANGED else (Change("1.6x", "1.8x"),),
                        figures=() if state == UNCHANGED else (Change("1.6x", "1.8x"),),
                        snapshot="sources/0123456789abcdef.txt", in_snapshot=True)
        for n, state in enumerate(states, start=1))
    pages = (PageRecheck(url="https://docs.acme.example/1", outcome="answered", status=200,
                         final_url="https://docs.acme.example/1", fetched_at="2026-05-02T10:15:01Z", seconds=0.25,
                         error=None, live_text=f"rechecks/{name}/0123456789abcdef.txt",
                         sha256="sha256:" + "0" * 64, truncated=False),)
    return RecheckRecord(plugin_version="0.1.0", started_at="2026-05-02T10:15:00Z",
                         finished_at="2026-05-02T10:15:02Z", report_sha256="sha256:" + "a" * 64,
                         live_dir=f"{formats.RECHECKS_DIR}/{name}", only=None, pages=pages, citations=citations)


def test_a_written_record_reads_back_as_the_same_types(tmp_path: Path) -> None:
    name = free_stamp(tmp_path, MOMENT)
    assert name == "20260502T101500Z"
    path = write_record(tmp_path, _record(name), name)
    assert path == tmp_path / "checks" / "recheck-20260502T101500Z.json"
    read = latest_recheck(tmp_path)
    assert read is not None and read.path == path
    assert read.citations == _record(name).citations and read.pages == _record(name).pages
    assert read.by_number()[2].figures == (Change("1.6x", "1.8x"),)
    assert read.date == "2026-05-02"
    assert read.summary_line() == "2 citations: 1 unchanged, 1 changed, 0 moved, 0 gone, 0 unreachable"
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert on_disk["summary"] == {"citations": 2, "unchanged": 1, "changed": 1, "moved": 0, "gone": 0,
                                  "unreachable": 0}
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_second_recheck_in_the_same_second_keeps_both_and_the_latest_wins(tmp_path: Path) -> None:
    first = free_stamp(tmp_path, MOMENT)
    write_record(tmp_path, _record(first), first)
    second = free_stamp(tmp_path, MOMENT)
    assert second == "20260502T101500Z-2"
    write_record(tmp_path, _record(second, (UNREACHABLE,)), second)
    later = free_stamp(tmp_path, MOMENT.replace(minute=16))
    assert [p.name for p in record_files(tmp_path)] == ["recheck-20260502T101500Z.json",
                                                       "recheck-20260502T101500Z-2.json"]
    latest = latest_recheck(tmp_path)
    assert latest is not None and [c.state for c in latest.citations] == [UNREACHABLE]
    assert later == "20260502T101600Z"
    with pytest.raises(RecheckRecordError, match="never overwrites"):
        write_record(tmp_path, _record(first), first)


def test_a_live_folder_left_by_an_unfinished_recheck_takes_its_name_too(tmp_path: Path) -> None:
    (tmp_path / formats.RECHECKS_DIR / "20260502T101500Z").mkdir(parents=True)
    assert free_stamp(tmp_path, MOMENT) == "20260502T101500Z-2"


def test_no_record_is_none(tmp_path: Path) -> None:
    assert latest_recheck(tmp_path) is None
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "verdicts-1.json").write_text("{}", encoding="utf-8")
    assert latest_recheck(tmp_path) is None


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["citations"][0].update(state="fine"), "'citations'"),
    (lambda d: d.pop("report_sha256"), "'report_sha256' is missing"),
    (lambda d: d["citations"][0].update(note="x" * 5000), "'citations'"),
    (lambda d: d.update(version=2), "'version'"),
])
def test_a_tampered_record_is_refused_naming_the_file_and_field(tmp_path: Path, edit, words) -> None:
    name = free_stamp(tmp_path, MOMENT)
    path = write_record(tmp_path, _record(name), name)
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecheckRecordError) as raised:
        latest_recheck(tmp_path)
    assert str(raised.value).startswith("checks/recheck-20260502T101500Z.json: field ")
    assert words in str(raised.value)


def test_a_linked_or_huge_record_is_refused_without_reading_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(_record("20260502T101500Z").to_json()), encoding="utf-8")
    run = tmp_path / "run"
    (run / "checks").mkdir(parents=True)
    os.symlink(outside, run / "checks" / "recheck-20260502T101500Z.json")
    with pytest.raises(RecheckRecordError, match="symbolic link"):
        latest_recheck(run)
    huge = run / "checks" / "recheck-20260502T101501Z.json"
    with huge.open("wb") as handle:
        handle.truncate(9 * 1024 * 1024)
    with pytest.raises(RecheckRecordError, match="recheck-20260502T101501Z.json"):
        read_record(huge, run)
    with pytest.raises(RecheckRecordError, match="not a JSON"):
        huge.write_text("{", encoding="utf-8")
        read_record(huge, run)


def test_a_record_that_is_not_utf8_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    name = free_stamp(tmp_path, MOMENT)
    path = write_record(tmp_path, _record(name), name)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([*lines[:2], b"\xff" + lines[2], *lines[3:]]))
    with pytest.raises(RecheckRecordError) as raised:
        latest_recheck(tmp_path)
    assert str(raised.value).startswith(f"checks/recheck-{name}.json: is not UTF-8 text: line 3, column 1 "), raised.value


def test_a_checks_folder_that_is_a_link_is_never_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    os.symlink(elsewhere, run / "checks")
    with pytest.raises(RecheckRecordError, match="refusing to write there"):
        write_record(run, _record("20260502T101500Z"), "20260502T101500Z")
    assert list(elsewhere.iterdir()) == []
