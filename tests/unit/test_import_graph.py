"""The package's import graph has no cycles, counting every import statement.

A cycle makes the import order matter (a module can see its partner half-built)
and usually means a concern sits in the wrong module. An import inside a function
(`# lazy: ...`) or under `if TYPE_CHECKING:` still says that
one module depends on the other, so it counts as an edge: a lazy import inside a
circle hides the circle, it does not break it. Imports inside functions must say
why they are there (`# lazy: ...` or the like).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = "web_research"
ROOT = Path(__file__).resolve().parents[2] / "scripts" / PACKAGE


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """Absolute names `from ... import ...` refers to (the module and any imported submodules)."""
    if node.level:
        base = importer.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports executed when the module is imported: top level, and inside top-level
    if/try blocks other than `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and not _is_type_checking(node):
            pending.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend(node.body + node.orelse + node.finalbody
                           + [stmt for handler in node.handlers for stmt in handler.body])
    return found


def every_import(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of the module: top level, in functions, under `if TYPE_CHECKING:`."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def import_graph(root: Path = ROOT, lazy: bool = True) -> dict[str, set[str]]:
    """Module -> the package modules it imports: with `lazy`, by any import statement
    (every_import), else only at module level (module_level_imports). Importing `a.b.c`
    also runs `a` and `a.b` (their `__init__`), so those count as edges too."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets: set[str] = set()
        for node in (every_import(tree) if lazy else module_level_imports(tree)):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else _resolve(name, path.name == "__init__.py", node))
            for target in names:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    candidate = ".".join(parts[:i])
                    if candidate in modules and candidate != name and not name.startswith(candidate + "."):
                        targets.add(candidate)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle_even_counting_lazy_and_type_checking_imports():
    graph = import_graph()
    assert len(graph) > 20 and "web_research.core.result" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle (lazy and TYPE_CHECKING imports count): " + " -> ".join(cycle or [])


def test_the_cycle_finder_sees_a_cycle(tmp_path):
    package = tmp_path / PACKAGE
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
                                  "def f():\n    from . import a\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import thing\n")
    assert find_cycle(import_graph(package, lazy=False)) is None  # module level only: no cycle
    assert find_cycle(import_graph(package)) == [f"{PACKAGE}.a", f"{PACKAGE}.b", f"{PACKAGE}.a"]  # lazy ones count
    (package / "b.py").write_text("from . import c\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import T\n")
    assert find_cycle(import_graph(package)) == [f"{PACKAGE}.a", f"{PACKAGE}.b", f"{PACKAGE}.c", f"{PACKAGE}.a"]
    (package / "c.py").write_text("")
    assert find_cycle(import_graph(package)) is None
    (package / "b.py").write_text("try:\n    from .sub.c import x\nexcept ImportError:\n    pass\n")
    assert find_cycle(import_graph(package)) == [f"{PACKAGE}.a", f"{PACKAGE}.b", f"{PACKAGE}.sub.c", f"{PACKAGE}.a"]


def test_each_import_inside_a_function_says_why():
    """Modules import at their top. An import inside a function is one of the few left for a
    reason (a light hook's module reaching the checker's side or filelock, an optional extra);
    a comment on the line says which."""
    unexplained = []
    for path in sorted(ROOT.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines), str(path))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    end = node.end_lineno or node.lineno
                    comments = [lines[i - 1].partition("#")[2] for i in range(node.lineno, end + 1)]
                    reasons = [text for text in comments if re.sub(r"noqa(: *[A-Z0-9, ]+)?", "", text).strip(" -")]
                    if not reasons:
                        unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not unexplained, "function-level imports without a reason comment:\n" + "\n".join(unexplained)


def test_the_standard_library_is_used_as_it_is():
    """No module reaches into a private module of the interpreter (`_sha2`, `_sha256`, ...)
    or makes its own replacement of a standard one (a NamedTuple not from `typing`): a hook
    in a run may cost ~100 ms, and plain standard code is worth more than the last few."""
    private, own_named_tuple = [], []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(ROOT)
        for node in every_import(tree):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            else:
                roots = [] if node.level else [(node.module or "").split(".")[0]]
                if any(alias.name == "NamedTuple" for alias in node.names) and (node.level or node.module != "typing"):
                    own_named_tuple.append(f"{rel}:{node.lineno}")
            private += [f"{rel}:{node.lineno}: {name}" for name in roots if name.startswith("_") and name != "__future__"]
    assert not private, "imports of the interpreter's private modules: " + ", ".join(private)
    assert not own_named_tuple, "NamedTuple from elsewhere than typing: " + ", ".join(own_named_tuple)


def test_typing_and_temporary_files_come_from_the_standard_library():
    """`TYPE_CHECKING` is typing's (not a module's own `TYPE_CHECKING = False`, once written to
    spare the hooks importing typing, which they import anyway), and atomic writes take their
    temporary file from `tempfile` (not a hand-made `os.open` with `O_EXCL`, once written to
    spare them tempfile's imports)."""
    own_flag, own_temporary = [], []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
        rel = path.relative_to(ROOT)
        own_flag += [f"{rel}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "TYPE_CHECKING" for t in node.targets)]
        for func in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)):
            body = ast.get_source_segment(text, func) or ""
            if "O_EXCL" in body and (".tmp" in body or "urandom" in body):  # a new, randomly named file
                own_temporary.append(f"{rel}:{func.lineno} {func.name}")
    assert not own_flag, "TYPE_CHECKING assigned instead of imported from typing: " + ", ".join(own_flag)
    assert not own_temporary, "temporary files made by hand instead of with tempfile: " + ", ".join(own_temporary)


RECORD_METHODS = {"__eq__", "__repr__", "__hash__", "__slots__"}


def test_records_are_dataclasses_or_named_tuples():
    """No class writes a record's equality, repr or slots by hand (as the `Record` base of
    `core/records.py` once did, to avoid importing dataclasses): `@dataclass(slots=True)` and
    `typing.NamedTuple` generate them."""
    hand_made = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            names = {target.id for stmt in cls.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
                     for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                     if isinstance(target, ast.Name)}
            names |= {stmt.name for stmt in cls.body if isinstance(stmt, ast.FunctionDef)}
            if names & RECORD_METHODS:
                hand_made.append(f"{path.relative_to(ROOT)}:{cls.lineno}: {cls.name} ({', '.join(sorted(names & RECORD_METHODS))})")
    assert not hand_made, "hand-made record methods (use @dataclass or NamedTuple): " + ", ".join(hand_made)
