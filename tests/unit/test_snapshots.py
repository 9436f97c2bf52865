"""Snapshot storage: file names from URLs, round trips, lookups by requested or final URL."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from web_research.evidence.snapshots import (
    SnapshotError,
    SnapshotIndex,
    find_snapshot,
    load_snapshot,
    snapshot_id,
    store_snapshot,
    text_sha256,
    url_key,
)


def _store(run: Path, url: str = "https://docs.acme.example/pricing?plan=ent", final: str | None = None,
           text: str = "Enterprise plans start at $20,000 per year.", title: str = "Pricing - Acme"):
    return store_snapshot(
        run, requested_url=url, final_url=final or url, title=title, other_titles=("Pricing",),
        status=200, content_type="text/html", retrieved_at="2026-11-30T08:00:00+00:00",
        text=text, extractor="test",
    )


@pytest.mark.parametrize("a, b", [
    ("HTTPS://Docs.Acme.Example/pricing", "https://docs.acme.example/pricing"),
    ("https://docs.acme.example:443/pricing", "https://docs.acme.example/pricing"),
    ("https://docs.acme.example/pricing#tiers", "https://docs.acme.example/pricing"),
    ("https://docs.acme.example/pricing/", "https://docs.acme.example/pricing"),
    ("https://docs.acme.example", "https://docs.acme.example/"),
])
def test_spellings_of_one_page_share_a_key(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)
    assert snapshot_id(a) == snapshot_id(b)


@pytest.mark.parametrize("a, b", [
    ("https://docs.acme.example/pricing", "http://docs.acme.example/pricing"),
    ("https://docs.acme.example/pricing", "https://docs.acme.example/Pricing"),
    ("https://docs.acme.example/pricing?plan=a", "https://docs.acme.example/pricing?plan=b"),
    ("https://docs.acme.example:8443/pricing", "https://docs.acme.example/pricing"),
])
def test_different_pages_have_different_keys(a: str, b: str) -> None:
    assert url_key(a) != url_key(b)
    assert snapshot_id(a) != snapshot_id(b)


def test_store_writes_text_and_metadata_named_from_the_url_hash(tmp_path: Path) -> None:
    url = "https://docs.acme.example/pricing?plan=ent"
    snap = _store(tmp_path, url)
    stem = snapshot_id(url)
    assert len(stem) == 16
    assert snap.text_path == tmp_path / "sources" / f"{stem}.txt"
    assert snap.text_path.read_text(encoding="utf-8") == "Enterprise plans start at $20,000 per year."
    meta = json.loads((tmp_path / "sources" / f"{stem}.json").read_text(encoding="utf-8"))
    assert meta["requested_url"] == url
    assert meta["sha256"] == text_sha256("Enterprise plans start at $20,000 per year.")
    assert meta["status"] == 200 and meta["content_type"] == "text/html"
    assert meta["retrieved_at"] == "2026-11-30T08:00:00+00:00"
    assert load_snapshot(snap.meta_path) == snap
    assert snap.text_is_intact(snap.text())
    assert not snap.text_is_intact(snap.text() + " edited")


def test_find_by_requested_or_final_url(tmp_path: Path) -> None:
    _store(tmp_path, "https://acme.example/go/pricing", final="https://docs.acme.example/pricing")
    by_requested = find_snapshot(tmp_path, "https://acme.example/go/pricing")
    by_final = find_snapshot(tmp_path, "https://docs.acme.example/pricing/")
    assert by_requested is not None and by_final is not None
    assert by_requested.meta_path == by_final.meta_path
    assert find_snapshot(tmp_path, "https://docs.acme.example/other") is None
    assert find_snapshot(tmp_path / "no-such-run", "https://docs.acme.example/pricing") is None


def test_index_keeps_broken_records_as_problems(tmp_path: Path) -> None:
    good = _store(tmp_path)
    (tmp_path / "sources" / "0000000000000000.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "sources" / "1111111111111111.json").write_text(json.dumps({"requested_url": 3}), encoding="utf-8")
    index = SnapshotIndex.build(tmp_path)
    assert len(index) == 1
    assert index.find(good.requested_url) == good
    problems = {path.name: message for path, message in index.problems}
    assert "not a readable snapshot record" in problems["0000000000000000.json"]
    assert "field 'requested_url' must be a string" in problems["1111111111111111.json"]


def test_a_record_cannot_point_outside_its_folder(tmp_path: Path) -> None:
    snap = _store(tmp_path)
    meta = json.loads(snap.meta_path.read_text(encoding="utf-8"))
    meta["text_file"] = "../plan.md"
    snap.meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(SnapshotError, match="'text_file' must name a file beside it"):
        load_snapshot(snap.meta_path)


def test_a_text_file_that_is_a_link_is_resolved_before_it_is_trusted(tmp_path: Path) -> None:
    """Only a symbolic link can take a bare file name out of its folder: one to a file
    outside the sources folder is refused, one to a file beside the record is not."""
    run = tmp_path / "run"
    snap = _store(run)
    outside = tmp_path / "secret.txt"
    outside.write_text("not a page", encoding="utf-8")
    snap.text_path.unlink()
    snap.text_path.symlink_to(outside)
    with pytest.raises(SnapshotError, match="'text_file' must name a file beside it"):
        load_snapshot(snap.meta_path)
    snap.text_path.unlink()
    beside = snap.text_path.with_name("kept.txt")
    beside.write_text("Enterprise plans start at $20,000 per year.", encoding="utf-8")
    snap.text_path.symlink_to(beside)
    assert load_snapshot(snap.meta_path).text_path == snap.text_path


def test_refuses_a_sources_folder_that_leads_outside_the_run(tmp_path: Path) -> None:
    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run.mkdir()
    elsewhere.mkdir()
    (run / "sources").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(SnapshotError, match="leads outside the run folder"):
        _store(run)
    assert list(elsewhere.iterdir()) == []


def test_the_record_says_whether_the_text_was_truncated(tmp_path: Path) -> None:
    snap = _store(tmp_path)
    meta = json.loads(snap.meta_path.read_text(encoding="utf-8"))
    assert meta["truncated"] is False and not load_snapshot(snap.meta_path).truncated
    del meta["truncated"]  # a record written before the field existed
    snap.meta_path.write_text(json.dumps(meta), encoding="utf-8")
    assert not load_snapshot(snap.meta_path).truncated
    meta["truncated"] = "yes"
    snap.meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(SnapshotError, match="'truncated' must be true or false"):
        load_snapshot(snap.meta_path)
