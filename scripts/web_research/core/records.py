"""`Record`: the base of the verifier's small mutable records, instead of dataclasses.

`dataclasses` imports inspect, ast and dis, and generates each class's methods
with `exec` at import: together tens of milliseconds of every `verify`, which
the hooks and the skill run after each report edit. Records that never change
after they are built are `typing.NamedTuple`s; the ones a parser fills in
(a citation, a parsed run) derive from `Record`, which gives them equality and
a readable repr over their `__slots__`, like a dataclass's. Each subclass
writes its own `__init__` (fast, and its signature is plain to read).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing only for the checker: the hooks' usage records derive from Record too
    from typing import Any


class Record:
    """Equality (same class, equal fields), no hash (mutable), and a repr, over `__slots__`."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable, as an unfrozen dataclass

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"
