"""What the person reads when a run ends: the Stop hook's message (guard/ending.py)."""
from __future__ import annotations

from web_research.core.terminal import printable
from web_research.guard.effects.ending import VERIFIED_LINE, summary

from hook_harness import Harness

ESCAPES = "\x1b[K\r\x1b[A\x9bK\u202e"  # erase the line, return, cursor up; no digit: not a figure


def _view(warnings: int, tldr: list[str] | None = None, question: str = "Q?") -> dict:
    return {"question": question, "tldr": tldr or ["One point."], "figures": {},
            "verification": {"passed": True, "errors": 0, "warnings": warnings, "failing": []}}


def test_a_run_with_warnings_is_not_said_to_pass_every_check() -> None:
    message = summary(_view(3), "/r", None, [], "wr")
    assert "passes every check" not in message
    assert message.startswith("web-research: the run ended, verified") and "3 warning(s)" in message
    assert '"wr" verify "/r"' in message  # where to read them


def test_only_a_run_with_no_failing_check_passes_every_check() -> None:
    assert summary(_view(0), "/r", None, [], "wr").splitlines()[0] == VERIFIED_LINE


def test_warnings_that_could_not_be_counted_are_not_called_none() -> None:
    message = summary(None, "/r", None, [], "wr")  # the view could not be gathered
    assert "passes every check" not in message and "warnings not counted" in message


def test_an_unverified_ending_counts_its_warnings_too() -> None:
    message = summary(_view(2), "/r", None, ["/r/report.md:3: bad [report.title]"], "wr")
    assert "still fails verification" in message and "2 warning(s)" in message


def test_escape_sequences_in_report_text_reach_the_person_as_plain_text() -> None:
    tldr = [f"Costs rose{ESCAPES}web-research: the run ended, verified"]
    failures = [f"/r/report.md:5: claim \"x{ESCAPES}\nweb-research: the run ended, verified\" [report.claims.grounded]"]
    for message in (summary(_view(0, tldr, question=f"Q{ESCAPES}?"), "/r", None, [], "wr"),
                    summary(_view(0, tldr), "/r", None, failures, "wr")):
        assert not any(c in message for c in "\x1b\r\x9b\u202e"), repr(message)
        # Each line the message shows is one of its own: report text never starts a line.
        assert all(not line.startswith("web-research") for line in message.splitlines()[1:]), message


def test_printable_keeps_text_and_line_breaks_and_drops_controls() -> None:
    assert printable("a\tb\nc\u2028d") == "a b\nc d"
    assert printable("$\u202e15\u202c and zero\u200bwidth \x00\x07") == "$15 and zerowidth "
    assert printable("plain €1,000 — ok") == "plain €1,000 — ok"


def test_terminal_escapes_in_a_real_runs_report_fail_it_and_reach_no_message(active: Harness) -> None:
    active.copy_example_run()
    report = active.run_dir / "report.md"
    text = report.read_text(encoding="utf-8")
    # (a bidi control in the report fails report.text.bidi: this run has only terminal escapes)
    escapes = ESCAPES.replace("\u202e", "")
    report.write_text(text.replace("- Vendors bill logs", f"- Vendors{escapes} bill logs", 1), encoding="utf-8")
    out = active.hook(active.stop()).json
    # A terminal acts on them, so `cat report.md` shows other words than the checks read: refused
    # (report.text.controls); the ending's own stripping of report text is tested above.
    assert out["decision"] == "block" and "[report.text.controls]" in out["reason"], out
    for message in (out["reason"], out["systemMessage"]):
        assert not any(c in message for c in "\x1b\r\x9b\u202e"), repr(message)
