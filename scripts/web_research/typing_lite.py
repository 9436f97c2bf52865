"""`NamedTuple` for the modules every hook imports, without importing `typing`.

`typing` costs a hook several milliseconds to import, and the hooks need nothing
of it at run time but `NamedTuple`'s class syntax: every other name they use is in
annotations (strings, with `from __future__ import annotations`) and is imported
under `if TYPE_CHECKING:`. Type checkers see `typing.NamedTuple` itself (they take
the TYPE_CHECKING branch); at run time a class written

    class Verdict(NamedTuple):
        allowed: bool
        reason: str = ""

becomes the same `collections.namedtuple` that `typing.NamedTuple` makes: the
annotated names are its fields in order, their values their defaults, and the
class body's docstring, methods and constants are copied onto it.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple

    # Names a namedtuple defines itself (typing.NamedTuple refuses them too).
    _RESERVED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                           "_make", "_replace", "_asdict", "_source"})
    _NOT_COPIED = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMaker(type):
        """Turns a class statement with base `NamedTuple` into a namedtuple class."""

        def __new__(cls, name, bases, namespace):
            annotations = dict(namespace.get("__annotations__", {}))
            fields = list(annotations)
            with_default = [field for field in fields if field in namespace]
            if fields[len(fields) - len(with_default):] != with_default:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            made = namedtuple(name, fields, defaults=[namespace[field] for field in with_default],
                              module=namespace.get("__module__"))
            made.__annotations__ = made.__new__.__annotations__ = annotations
            for key, value in namespace.items():
                if key in _RESERVED:
                    raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
                if key not in _NOT_COPIED and key not in annotations:
                    setattr(made, key, value)
            return made

    _NamedTupleBase = type.__new__(_NamedTupleMaker, "NamedTuple", (), {})

    def NamedTuple(*_args, **_kwargs):
        """Only the class syntax is supported (the functional form would need `typing`)."""
        raise TypeError("write a NamedTuple as a class: class Name(NamedTuple): field: type")

    NamedTuple.__mro_entries__ = lambda _bases: (_NamedTupleBase,)
