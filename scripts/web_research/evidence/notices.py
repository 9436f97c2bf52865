"""What reads as a notice by its words, for the checker's context: "Note:", "Warning!",
"Deprecated since ...:", or a short block saying the thing is withdrawn. One definition, read by
the HTML structure (page_structure.py, in the bounded child) and by the stored-text fallback
(excerpt_context.py), so both name the same notices."""
from __future__ import annotations

import re

NOTICE_START = re.compile(
    r"^\W{0,3}(?:note|notice|warning|caution|important|attention|update[d]?|correction|editor'?s note|deprecated|"
    r"withdrawn|discontinued|obsolete|retired|danger)\b[^.!?]{0,60}?[:!\u2014]", re.IGNORECASE)
WITHDRAWN = re.compile(
    r"\b(?:withdrawn|discontinued|retracted|superseded|obsolete|deprecated|out of date|outdated|end[- ]of[- ]life|"
    r"no longer (?:available|offered|supported|valid|true|maintained|sold|applies|apply))\b", re.IGNORECASE)
