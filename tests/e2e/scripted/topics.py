"""The subtopics a scripted run plans, and the page each one's fact lives on."""
from __future__ import annotations

from dataclasses import dataclass, field

from web_research.core.slug import slugify


@dataclass
class Subtopic:
    name: str
    establish: list[str]
    # ok | failed | silent | stray (first tries to write and run outside its scope) | greedy (four
    # different searches, then fetch) | repeat (the same search twice, the same fetch twice) |
    # unfetched (cites a search result it never read; fetches it once the stop hook says so) |
    # split (its findings reply comes as two text blocks of one message, Sources in the second) |
    # long (its page is long, the fact deep in it: read on with --offset until found) | long-find
    # (the same page, looked into with --find) | sources-list (ends its reply with the client's
    # "Sources:" list of links, as the WebSearch tool tells every agent to) | partly (its quotes'
    # claims go under its second point, which its Not established section says is found in part)
    behaviour: str = "ok"
    # Sentences its page also states, as real pages write them (typographic apostrophes and
    # quotes), each with the claim a report makes of it: [page sentence, claim (code spans and all)].
    # The researcher quotes each as a model retypes it (straight apostrophes and quotes).
    quotes: list[list[str]] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return slugify(self.name)

    def fact(self) -> str:
        return f"The {self.name.lower()} figure published for 2026 is {len(self.name) * 3} units per month."

    def find_words(self) -> str:
        """What a researcher looks for in a long page: the subject of its fact."""
        return f"{self.name.lower()} figure"

    def page_text(self) -> str:
        """The text of its page: the fact and its quotes, or for a long page the fact after some
        20,000 characters of other notes (three windows of the fetch command in), then more."""
        if not self.behaviour.startswith("long"):
            return "\n\n".join([self.fact(), *(q[0] for q in self.quotes), "This page is maintained by the example vendor."])
        items = ("ingestion", "storage", "queries", "alerts", "seats", "support", "exports", "archives")
        notes = [f"Section {i}: the notes on {items[i % 8]} for plan {i // 8} describe how the console groups "
                 f"{items[(i * 3) % 8]} by team and by region." for i in range(240)]
        return "\n\n".join(notes[:200] + [self.fact()] + notes[200:])


RENAME_PREFIX = "Topic: "


def renamed(name: str) -> str:
    """How the scripted orchestrator renames a subtopic that `briefs` refuses."""
    return RENAME_PREFIX + name


def original_name(name: str) -> str:
    return name[len(RENAME_PREFIX):] if name.startswith(RENAME_PREFIX) else name


DEFAULT_SUBTOPICS = [
    {"name": "Billing units", "establish": ["Which unit each vendor bills log ingestion by"]},
    {"name": "Retention tiers", "establish": ["How retention length changes the price per GB"]},
    {"name": "Commitment discounts", "establish": ["What discount a committed annual volume earns"]},
]
