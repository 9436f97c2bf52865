"""The README's recheck example: the bundled run rechecked against a local copy of its web.

The bundled example cites invented `.example` sites, so its "live web" here is the page server
(page_server.py) on this machine: each cited page is served with the text of its snapshot,
except that since the run one retention multiplier changed (1.6x to 1.8x), one help page moved,
one forum thread is gone and one documentation host stalls past the time limit. Each URL is
fetched by recheck's own `fetch_live` (the real transport) at the server, under a path named
after its host, and the answers are named back by their original URLs. The output is what
`web-research recheck examples/observability-pricing --out /tmp/example-recheck` would print
(stdout) against that web, with its clock fixed; the record and live texts go to a temporary folder.

    python tests/unit/recheck_example.py      # prints it, and the exit code
"""
from __future__ import annotations

import re
import shutil
import sys
import tempfile
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from page_server import PageServer  # noqa: E402
from web_research.commands.recheck_cmd import exit_code, report_lines  # noqa: E402
from web_research.evidence.extraction import ExtractLimits  # noqa: E402
from web_research.evidence.snapshots import SnapshotIndex  # noqa: E402
from web_research.evidence.transport import FetchLimits  # noqa: E402
from web_research.recheck.live import LivePage, Transport, fetch_live  # noqa: E402
from web_research.recheck.session import recheck_run  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "observability-pricing"
SHOWN = "examples/observability-pricing"
OUT = "/tmp/example-recheck"  # where README's command writes (--out): nothing goes into the example
WHEN = datetime(2026, 5, 2, 10, 15, tzinfo=timezone.utc)
CHANGED = "https://docs.acme.example/logs/retention"
MOVED = ("https://help.lumenlogs.example/billing/true-up", "/billing/true-up-and-overages")
GONE = "https://forum.sreguild.example/t/observability-renewals-2026/4182"
STALLS = "https://docs.northwind.example/limits/committed-ingestion"


def _local_path(url: str) -> str:
    parts = urlsplit(url)
    return f"/{parts.hostname}{parts.path}"


def serve_the_web(server: PageServer, run_dir: Path) -> None:
    """Every page the example cites, as its snapshot has it, with the changes since the run."""
    index = SnapshotIndex.build(run_dir)
    for snap in {id(s): s for s in index.by_key.values()}.values():
        text = snap.text()
        path = _local_path(snap.final_url)
        if snap.final_url == CHANGED:
            text = text.replace("1.6x", "1.8x")
        if snap.final_url == MOVED[0]:
            host = urlsplit(MOVED[0]).hostname
            server.serve(f"/{host}{MOVED[1]}", text)
            server.serve(path, b"", status=301, headers={"Location": f"/{host}{MOVED[1]}"})
            continue
        if snap.final_url == GONE:
            server.serve(path, "<html><body>This thread was removed.</body></html>", status=404,
                         content_type="text/html")
            continue
        if snap.final_url == STALLS:
            server.serve(path, 10.0)
            continue
        server.serve(path, text)


def fetch_through(server: PageServer):
    """recheck's `fetch_live` at the local server, the answer named by the cited URL."""
    local = re.compile(re.escape(f"http://127.0.0.1:{server.port}/") + r"([^/\s]+)")

    def named_back(text: str | None) -> str | None:
        return None if text is None else local.sub(r"https://\1", text)

    def fetch(url: str, transport: Transport) -> LivePage:
        page = fetch_live(server.url(_local_path(url)), transport)
        return replace(page, url=url, final_url=named_back(page.final_url), error=named_back(page.error))
    return fetch


def example_output(example: Path = EXAMPLE) -> tuple[str, int]:
    """(what recheck prints for the bundled example, or a copy of it, against its changed web, its exit code)."""
    with tempfile.TemporaryDirectory() as tmp, PageServer() as server:
        run_dir = Path(tmp) / "observability-pricing"
        shutil.copytree(example, run_dir)
        serve_the_web(server, run_dir)
        transport = Transport(FetchLimits(timeout_s=4), ExtractLimits(), allow_loopback=True)
        result = recheck_run(run_dir, transport, fetch=fetch_through(server), clock=lambda: WHEN,
                             out_dir=Path(tmp) / "out")
        return "\n".join(report_lines(result.record, SHOWN, result.skipped, OUT)), exit_code(result.record)


if __name__ == "__main__":
    text, code = example_output()
    print(text)
    print(f"(exit {code})")
