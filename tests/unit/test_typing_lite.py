"""typing_lite.NamedTuple makes the class typing.NamedTuple makes from the same class body,
so the hooks' modules can use the class syntax without importing typing."""
from __future__ import annotations

import subprocess
import sys
import typing

import pytest

from hook_harness import REPO
from web_research import typing_lite

BODY = '''
class Verdict(NamedTuple):
    """Whether a call may go ahead, and why not."""
    allowed: bool
    reason: str = ""
    spent: int = 0
    LIMIT = 3

    def denied(self) -> bool:
        return not self.allowed

    @property
    def label(self) -> str:
        return "allow" if self.allowed else "deny"
'''


def _make(named_tuple) -> type:
    namespace = {"NamedTuple": named_tuple, "__name__": "probe_module"}
    exec("from __future__ import annotations\n" + BODY, namespace)
    return namespace["Verdict"]


def test_the_class_matches_typing_namedtuple():
    ours, theirs = _make(typing_lite.NamedTuple), _make(typing.NamedTuple)
    assert issubclass(ours, tuple) and ours._fields == theirs._fields == ("allowed", "reason", "spent")
    assert ours._field_defaults == theirs._field_defaults == {"reason": "", "spent": 0}
    assert list(ours.__annotations__) == list(theirs.__annotations__)  # typing wraps the strings in ForwardRef
    assert ours.__annotations__["reason"] == "str"
    assert ours.__doc__ == theirs.__doc__ and ours.__module__ == theirs.__module__ == "probe_module"
    assert (ours.__name__, ours.__qualname__) == (theirs.__name__, theirs.__qualname__)
    a, b = ours(False, "over budget"), theirs(False, "over budget")
    assert a == b == (False, "over budget", 0) and repr(a) == repr(b)
    assert a._replace(allowed=True).label == b._replace(allowed=True).label == "allow"
    assert a.denied() and ours.LIMIT == theirs.LIMIT == 3
    assert ours._make([True, "x", 1])._asdict() == theirs._make([True, "x", 1])._asdict()
    with pytest.raises(TypeError):
        ours()  # `allowed` has no default


@pytest.mark.parametrize("body", [
    "class Bad(NamedTuple):\n    a: int = 1\n    b: int\n",  # a field without a default after one with
    "class Bad(NamedTuple):\n    a: int\n    def _replace(self): pass\n",  # a namedtuple's own method
])
def test_what_typing_refuses_is_refused(body):
    for named_tuple in (typing_lite.NamedTuple, typing.NamedTuple):
        with pytest.raises((TypeError, AttributeError)):
            exec("from __future__ import annotations\n" + body, {"NamedTuple": named_tuple})


def test_only_the_class_syntax_is_supported():
    with pytest.raises(TypeError):
        typing_lite.NamedTuple("Point", [("x", int)])


def test_importing_it_does_not_import_typing():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from web_research.typing_lite import NamedTuple\n"
            "class P(NamedTuple):\n    x: int\nprint('typing' in sys.modules, P(1))")
    out = subprocess.run([sys.executable, "-c", code, str(REPO / "scripts")], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "P(x=1)"]
