"""`web-research fetch` as the researcher runs it: output, snapshots, refusals, paging."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from page_server import TLS_CA, PageServer
from web_research import formats
from web_research.cli import main
from web_research.exitcodes import EXIT_OK, EXIT_USAGE
from web_research.evidence.snapshots import find_snapshot, snapshot_id

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "scripts" / "web-research"


def fetch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["fetch", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_title_final_url_and_text_and_stores_the_snapshot(http_server, run_dir, capsys) -> None:
    url = http_server.url("/redirect/2")
    code, out, err = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback")
    assert (code, err) == (EXIT_OK, "")
    lines = out.splitlines()
    seal = json.loads(lines[0].removeprefix("web-research snapshot: "))
    assert seal == {"snapshot_id": snapshot_id(url), "origin": "fetched", "chars": seal["chars"],
                    "sha256": seal["sha256"]}
    assert lines[1] == "Title: Enterprise Pricing \u2014 Acme Docs"
    assert lines[2] == f"URL: {http_server.url('/article')}"
    assert lines[3] == f"Requested URL: {url}"
    assert f"Snapshot: {formats.SOURCES_DIR}/{snapshot_id(url)}.txt (fetched now" in out
    assert "(end of text)" in out
    assert "Enterprise plans start at $20,000 per year" in out
    assert "BOILERPLATE" not in out

    meta = json.loads((run_dir / "sources" / f"{snapshot_id(url)}.json").read_text(encoding="utf-8"))
    assert (meta["sha256"], meta["chars"]) == (seal["sha256"], seal["chars"])
    assert meta["requested_url"] == url
    assert meta["final_url"] == http_server.url("/article")
    assert meta["title"] == "Enterprise Pricing \u2014 Acme Docs"
    assert meta["status"] == 200 and meta["content_type"] == "text/html"
    assert meta["retrieved_at"].endswith("+00:00")
    text = (run_dir / "sources" / f"{snapshot_id(url)}.txt").read_text(encoding="utf-8")
    assert text in out  # the researcher saw exactly the stored text
    assert find_snapshot(run_dir, http_server.url("/article")) is not None  # found by its final URL too


def test_paging_serves_the_stored_snapshot_without_refetching(http_server, run_dir, capsys) -> None:
    url = http_server.url("/article")
    code, first, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback", "--max-chars", "100")
    assert code == EXIT_OK
    assert "Showing characters 0-100 of " in first and "continue with --offset 100" in first
    requests_after_first = len(http_server.requests)

    code, second, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback", "--offset", "100",
                            "--max-chars", "100")
    assert code == EXIT_OK
    assert len(http_server.requests) == requests_after_first
    assert "stored earlier in this run" in second
    text = (run_dir / "sources" / f"{snapshot_id(url)}.txt").read_text(encoding="utf-8")
    body = second.split("----- BEGIN PAGE TEXT -----\n", 1)[1].split("\n----- END PAGE TEXT -----", 1)[0]
    assert body == text[100:200]


def test_outside_the_hooks_a_first_read_may_start_at_an_offset(http_server, run_dir, capsys) -> None:
    """The command serves a person as well as a researcher: with no run's hooks around it, a page
    not read yet may be read from --offset N on (it is downloaded and snapshotted whole). Inside a
    run the hooks refuse a researcher that first read (rules/budgets.OFFSET_FIRST)."""
    url = http_server.url("/article")
    code, out, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback", "--offset", "100",
                         "--max-chars", "100")
    assert code == EXIT_OK and "fetched now" in out
    text = (run_dir / "sources" / f"{snapshot_id(url)}.txt").read_text(encoding="utf-8")
    body = out.split("----- BEGIN PAGE TEXT -----\n", 1)[1].split("\n----- END PAGE TEXT -----", 1)[0]
    assert body == text[100:200]


def test_a_tampered_snapshot_is_fetched_again(http_server, run_dir, capsys) -> None:
    url = http_server.url("/article")
    assert fetch(capsys, url, "--run", str(run_dir), "--allow-loopback")[0] == EXIT_OK
    text_path = run_dir / "sources" / f"{snapshot_id(url)}.txt"
    text_path.write_text("Enterprise plans are free forever.", encoding="utf-8")
    code, out, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback")
    assert code == EXIT_OK and "fetched now" in out
    assert "free forever" not in text_path.read_text(encoding="utf-8")


def test_offset_past_the_end_is_a_usage_error(http_server, run_dir, capsys) -> None:
    code, out, err = fetch(capsys, http_server.url("/plain.txt"), "--run", str(run_dir), "--allow-loopback",
                           "--offset", "100000")
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("web-research fetch: --offset 100000 is past the end of the text (")


@pytest.mark.parametrize("extra, words", [
    (["--offset", "-1"], "--offset must be 0 or more"),
    (["--max-chars", "0"], "--max-chars must be 1 or more"),
])
def test_bad_window_arguments(http_server, run_dir, capsys, extra, words) -> None:
    code, _, err = fetch(capsys, http_server.url("/article"), "--run", str(run_dir), *extra)
    assert code == EXIT_USAGE and words in err


def test_a_missing_run_folder_is_a_usage_error(http_server, tmp_path, capsys) -> None:
    code, _, err = fetch(capsys, http_server.url("/article"), "--run", str(tmp_path / "nope"), "--allow-loopback")
    assert code == EXIT_USAGE and "the run folder does not exist" in err
    assert not (tmp_path / "nope").exists()


def test_a_folder_without_a_plan_is_not_a_run(http_server, tmp_path, capsys) -> None:
    code, _, err = fetch(capsys, http_server.url("/article"), "--run", str(tmp_path), "--allow-loopback")
    assert code == EXIT_USAGE and "not a run folder (no plan.md)" in err
    assert not (tmp_path / formats.SOURCES_DIR).exists()


@pytest.mark.parametrize("path, words", [
    ("/status/500", "answered HTTP 500"),
    ("/image.png", "cannot extract text"),
    ("/redirect-to?url=http%3A%2F%2F169.254.169.254%2Flatest%2Fmeta-data%2F", "link-local"),
])
def test_failures_are_one_line_on_stderr_with_exit_2(http_server, run_dir, capsys, path, words) -> None:
    code, out, err = fetch(capsys, http_server.url(path), "--run", str(run_dir), "--allow-loopback")
    assert code == EXIT_USAGE and out == ""
    assert err.count("\n") == 1 and err.startswith("web-research fetch: ") and words in err
    assert not (run_dir / "sources").exists() or not any((run_dir / "sources").iterdir())


def test_a_truncated_page_says_so_in_the_output_and_the_record(http_server, run_dir, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WEB_RESEARCH_MAX_TEXT_CHARS", "120")
    url = http_server.url("/article")
    code, out, err = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback")
    assert (code, err) == (EXIT_OK, "")
    assert "Truncated: the page has more text than the 120 characters stored" in out
    meta = json.loads((run_dir / "sources" / f"{snapshot_id(url)}.json").read_text(encoding="utf-8"))
    assert meta["truncated"] is True and meta["chars"] == 120
    assert find_snapshot(run_dir, url).truncated
    code, again, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback")  # served from the snapshot
    assert "stored earlier in this run" in again and "Truncated:" in again

    other = http_server.url("/plain.txt")
    monkeypatch.delenv("WEB_RESEARCH_MAX_TEXT_CHARS")
    code, out, _ = fetch(capsys, other, "--run", str(run_dir), "--allow-loopback")
    assert code == EXIT_OK and "Truncated" not in out
    meta = json.loads((run_dir / "sources" / f"{snapshot_id(other)}.json").read_text(encoding="utf-8"))
    assert meta["truncated"] is False


def test_a_pathological_page_is_one_clear_line(http_server, run_dir, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WEB_RESEARCH_EXTRACT_TIMEOUT", "3")
    code, out, err = fetch(capsys, http_server.url("/many-elements?count=200000"), "--run", str(run_dir),
                           "--allow-loopback")
    assert code == EXIT_USAGE and out == ""
    assert err.count("\n") == 1 and "took longer than 3 s" in err


def test_limits_from_the_environment_are_clamped() -> None:
    from web_research.commands.fetch_cmd import limits_from_env

    fetch_limits, extract = limits_from_env({})
    assert (fetch_limits.timeout_s, extract.timeout_s, extract.max_chars) == (20.0, 20.0, 2_000_000)
    fetch_limits, extract = limits_from_env({
        "WEB_RESEARCH_FETCH_TIMEOUT": "5", "WEB_RESEARCH_MAX_TEXT_CHARS": "999999999",
        "WEB_RESEARCH_EXTRACT_TIMEOUT": "100000", "WEB_RESEARCH_EXTRACT_MEMORY_MB": "nan",
        "WEB_RESEARCH_MAX_PDF_PAGES": "oops"})
    assert fetch_limits.timeout_s == 5.0
    assert extract.max_chars == 2_000_000 and extract.timeout_s == 120.0
    assert extract.memory_bytes == 1024 * 1024 * 1024 and extract.max_pdf_pages == 500


def _launch(*argv: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEB_RESEARCH_")}
    env["WEB_RESEARCH_PYTHON"] = sys.executable
    env.update(env_extra or {})
    return subprocess.run([str(LAUNCHER), *argv], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/",                  # loopback without the test-only option
    "http://169.254.169.254/latest/meta-data/iam/",
    "http://localhost:9/admin",             # a name that resolves to loopback
    "file:///etc/passwd",
])
def test_the_launcher_refuses_private_targets_without_a_traceback(run_dir, url) -> None:
    result = _launch("fetch", url, "--run", str(run_dir))
    assert result.returncode == EXIT_USAGE
    assert result.stdout == ""
    assert result.stderr.startswith(f"web-research fetch: refused {url}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_launcher_fetches_over_https(run_dir) -> None:
    with PageServer(tls=True) as tls_server:
        result = _launch("fetch", tls_server.url("/doc.pdf"), "--run", str(run_dir), "--allow-loopback",
                         env_extra={"SSL_CERT_FILE": str(TLS_CA)})
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout.startswith("web-research snapshot: {")
    assert result.stdout.splitlines()[1] == "Title: Quarterly Infrastructure Report"
    assert "Median page load time fell to 840 milliseconds" in result.stdout


def test_verify_side_modules_do_not_import_the_extractors() -> None:
    code = ("import sys; import web_research.checks.integrity, web_research.evidence.snapshots, web_research.evidence.excerpts; "
            "import web_research.commands.fetch_cmd; "
            "print(sorted(m for m in ('trafilatura', 'pypdf', 'lxml') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "scripts")}, check=True)
    assert result.stdout.strip() == "[]"


def test_a_refused_url_is_refused_before_any_extraction_library_loads(run_dir) -> None:
    """The address policy comes first and costs milliseconds: importing trafilatura costs seconds."""
    code = ("import sys; from web_research.cli import main; "
            f"rc = main(['fetch', 'http://10.0.0.1/admin', '--run', {str(run_dir)!r}]); "
            "print(rc, sorted(m for m in ('trafilatura', 'pypdf', 'lxml', 'justext') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "scripts")})
    assert result.stdout.strip() == f"{EXIT_USAGE} []", result.stdout + result.stderr
    assert "refused http://10.0.0.1/admin: 10.0.0.1 is a private address" in result.stderr


@pytest.mark.parametrize("kind", ["plugin-env", "developer-venv", "uv-venv"])
def test_missing_libraries_name_the_fix_for_the_environment_in_use(tmp_path, monkeypatch, kind) -> None:
    import importlib.util

    from web_research.commands import fetch_cmd

    real = importlib.util.find_spec
    absent = {"trafilatura", "pypdf"} | ({"pip"} if kind == "uv-venv" else set())
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in absent else real(name, *a))
    prefix = tmp_path / ("venv-1234" if kind == "plugin-env" else ".venv")
    prefix.mkdir()
    if kind == "plugin-env":
        (prefix / "fetch.failed").write_text("could not install lxml (simulated)\n")
    monkeypatch.setattr(sys, "prefix", str(prefix))
    message = fetch_cmd.missing_extractors()
    assert "no module trafilatura, pypdf" in message and "WEB_RESEARCH_PYTHON" in message
    lock = ROOT / "requirements-fetch.lock"
    if kind == "plugin-env":
        assert f'"{ROOT / "hooks" / "run"}" --setup' in message and "could not install lxml" in message
    elif kind == "developer-venv":
        assert f'"{sys.executable}" -m pip install --no-deps --require-hashes -r "{lock}"' in message
        assert "hooks/run" not in message
    else:
        assert f'uv pip install --python "{sys.executable}" --no-deps --require-hashes -r "{lock}"' in message


LONG_PAGE = "\n\n".join(f"Section {i}: the vendor's notes on item {i} say nothing in particular." for i in range(600))
FACT = "The retention tiers figure published for 2026 is 45 units per month."


def test_find_prints_the_windows_around_the_words_from_the_stored_text(http_server, run_dir, capsys) -> None:
    url = http_server.serve("/long", LONG_PAGE + "\n\n" + FACT + "\n\n" + LONG_PAGE)
    code, out, err = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback", "--find", "retention tiers figure")
    assert (code, err) == (EXIT_OK, "")
    lines = out.splitlines()
    assert lines[0].startswith("web-research snapshot: ") and '"origin": "fetched"' in lines[0]
    assert 'Found "retention tiers figure": 1 window(s), best first' in out
    text = (run_dir / "sources" / f"{snapshot_id(url)}.txt").read_text(encoding="utf-8")
    position = next(line for line in lines if line.startswith("Window 1: characters "))
    start, end = map(int, position.split("characters ", 1)[1].split(" of", 1)[0].split("-"))
    body = out.split("----- BEGIN PAGE TEXT -----\n", 1)[1].split("\n----- END PAGE TEXT -----", 1)[0]
    assert body == text[start:end] and FACT in body and len(body) < 2000 < len(text)

    code, again, _ = fetch(capsys, url, "--run", str(run_dir), "--allow-loopback", "--find", "kubernetes")
    assert code == EXIT_OK and "stored earlier in this run" in again
    assert 'No match for "kubernetes"' in again and "BEGIN PAGE TEXT" not in again


@pytest.mark.parametrize("extra,words", [
    (["--find", "x", "--offset", "10"], "--find and --offset read different windows"),
    (["--find", "  "], "--find needs the words"),
])
def test_find_with_an_offset_or_without_words_is_a_usage_error(http_server, run_dir, capsys, extra, words) -> None:
    code, _, err = fetch(capsys, http_server.url("/article"), "--run", str(run_dir), "--allow-loopback", *extra)
    assert code == EXIT_USAGE and words in err
