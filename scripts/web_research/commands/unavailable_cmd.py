"""`web-research unavailable TOOL...`: print the answer of a session without web search.

The skill's first step finds out whether WebSearch (and WebFetch) are among the
model's tools; only the model can see that. When WebSearch is absent the model
runs this command with the absent tools' names and returns what it prints, so it
never types the error object (companion-contract.md, "Web search unavailable").
It reads and writes nothing. Exit 0.
"""
from __future__ import annotations

import argparse
import json
import sys

from .. import formats
from ..exitcodes import EXIT_OK, EXIT_USAGE

WEB_TOOLS = ("WebSearch", "WebFetch")


def answer(absent: list[str]) -> dict[str, str]:
    """The error object for these absent tools, named once each, in WEB_TOOLS' order."""
    named = [tool for tool in WEB_TOOLS if tool in absent]
    return {"error": formats.ERROR_WEB_TOOLS_UNAVAILABLE, "detail": "missing: " + ", ".join(named)}


def run(args: argparse.Namespace) -> int:
    named = [part for tool in args.tools for part in tool.replace(",", " ").split()]  # `WebSearch, WebFetch` too
    unknown = [tool for tool in named if tool not in WEB_TOOLS]
    if unknown or not named:
        print(f"web-research unavailable: {', '.join(unknown) or 'no tool named'}: expected the absent web tools, "
              f"{' and/or '.join(WEB_TOOLS)}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(answer(named), ensure_ascii=False))
    return EXIT_OK
