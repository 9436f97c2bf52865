"""The orchestrator's next dispatch says "one more try" only for a brief whose researcher was
dispatched and did not finish, never for a first dispatch (issue 42; guard/effects/next_step.py)."""
from __future__ import annotations

from pathlib import Path

from web_research import formats
from web_research.guard.effects.next_step import researchers_returned
from web_research.guard.state import RenderedBrief, Run


def _run(tmp_path: Path, dispatches: dict[str, int]) -> Run:
    (tmp_path / formats.FINDINGS_DIR).mkdir()
    briefs = [RenderedBrief(slug, str(tmp_path / "briefs" / f"{slug}.md"), "sha256:" + "0" * 64, name,
                            str(tmp_path / formats.FINDINGS_DIR / f"{slug}.md"))
              for slug, name in (("billing-units", "Billing units"), ("retention-tiers", "Retention tiers"))]
    return Run(str(tmp_path), briefs=briefs, dispatches=dispatches)


def test_a_plain_second_batch_has_no_retry_words(tmp_path: Path):
    told = researchers_returned(_run(tmp_path, {}))
    assert told.startswith("Some briefs still need a researcher. Dispatch 2 researcher(s)")
    assert "try" not in told


def test_a_researcher_that_did_not_finish_is_named_as_a_retry(tmp_path: Path):
    told = researchers_returned(_run(tmp_path, {"billing-units": 1}))
    assert '("Billing units": the researcher did not finish, so it gets one more try)' in told
    assert '"Retention tiers"' not in told.split("Dispatch", 1)[0]
