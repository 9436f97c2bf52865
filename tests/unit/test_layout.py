"""The package's folders show the design (README "Where things live"): each module sits in
the folder of its concern, the plumbing in `core/` depends on nothing of ours above it, and
the tree README draws is the tree on disk."""
from __future__ import annotations

import re

from test_import_graph import ROOT, import_graph, module_name

REPO = ROOT.parents[1]
# The only modules at the top of the package: the entry point and the shared vocabulary.
TOP_LEVEL = {"web_research", "web_research.__main__", "web_research.cli", "web_research.exitcodes",
             "web_research.formats", "web_research.subcommands"}

# The layers, bottom up (README "Where things live"): a module imports only from its own folder
# and from layers below; core/ and the vocabulary share the bottom layer, run/, evidence/ and
# metrics/ the next, and may use each other there.
LAYERS = {
    "core": 0, "formats": 0, "exitcodes": 0, "subcommands": 0, "": 0,
    "run": 1, "evidence": 1, "metrics": 1,
    "checks": 2,
    "report": 3,  # writes into report.md and runs the claim-checker on what the checks judged
    "recheck": 3,  # judges a finished report again with the checks' rules
    "view": 4,  # shows the checks' and the rechecks' results
    "commands": 5, "guard": 5,
    "cli": 6,
    "__main__": 7,
}
SHARED_LAYERS = {0, 1}


def folders() -> list[str]:
    """The package's sub-packages (folders with an `__init__.py`)."""
    return sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))


def test_every_module_but_the_entry_point_and_the_vocabulary_sits_in_a_folder():
    loose = sorted(module_name(p) for p in ROOT.glob("*.py") if module_name(p) not in TOP_LEVEL)
    assert loose == [], f"modules with no folder: {loose} (README 'Where things live' says where each kind goes)"


def test_core_depends_on_nothing_of_ours_but_the_vocabulary():
    allowed = ("web_research.core", "web_research.formats")
    graph = import_graph()
    wrong = sorted(f"{module} imports {target}" for module, targets in graph.items()
                   if module.startswith("web_research.core.")
                   for target in targets if target != "web_research" and not target.startswith(allowed))
    assert wrong == []


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports (lazy and TYPE_CHECKING ones count) from a module to a folder in a higher layer,
    or sideways between two folders of a layer that does not share."""
    found = []
    packages = {f"web_research.{name}" for name in folders()}
    for module, targets in graph.items():
        here = LAYERS[_folder(module)]
        for target in targets:
            if _folder(target) == _folder(module) or target == "web_research" or target in packages:
                continue  # a package's __init__ comes with its module, which is the edge that counts
            there = LAYERS[_folder(target)]
            if there > here or (there == here and here not in SHARED_LAYERS):
                found.append((module, target))
    return sorted(found)


def test_every_folder_has_a_layer():
    assert sorted(set(folders()) - set(LAYERS)) == []


def test_layers_only_point_down():
    wrong = upward_imports(import_graph())
    assert wrong == [], "imports that point up a layer: " + ", ".join(f"{a} -> {b}" for a, b in wrong)


def test_the_layer_test_sees_an_import_that_points_up():
    graph = {"web_research.core.paths": {"web_research.guard.state"}, "web_research.guard.state": set(),
             "web_research.commands.status_cmd": {"web_research.guard.budgets", "web_research.core.paths"},
             "web_research.run.plan": {"web_research.evidence.ledger"}}
    assert upward_imports(graph) == [("web_research.commands.status_cmd", "web_research.guard.budgets"),
                                     ("web_research.core.paths", "web_research.guard.state")]


def test_nothing_but_the_entry_point_imports_the_command_line():
    graph = import_graph()
    assert sorted(module for module, targets in graph.items() if "web_research.cli" in targets) == [
        "web_research.__main__"]


def test_only_the_command_line_reaches_the_commands():
    """`commands/` is the top of the design: each module there is one subcommand, reached from
    `cli.py`. A hook or a rule that needs what a command knows (the seal line fetch prints, the
    object finish returns) takes it from the module of that concern, which the command uses too."""
    graph = import_graph()
    wrong = sorted(f"{module} imports {target}" for module, targets in graph.items()
                   if module not in ("web_research.cli",) and not module.startswith("web_research.commands")
                   for target in targets if target.startswith("web_research.commands"))
    assert wrong == []


def test_readme_draws_the_package_tree_as_it_is():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Where things live"):]
    tree = section[section.index("```"):section.index("```", section.index("```") + 3)]
    drawn = sorted(set(re.findall(r"^\s+(?:[\w.]+, )?(\w+)/", tree, re.MULTILINE)))
    on_disk = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert drawn == on_disk


def test_every_folder_is_a_package_a_normal_install_ships():
    # pyproject.toml's [tool.setuptools] packages list (test_wheel_install builds and installs it)
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    listed = text[text.index("packages = ["):]
    packages = set(re.findall(r'"([\w.]+)"', listed[:listed.index("]")]))
    nested = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("*/__init__.py")}
    assert {f"web_research.{name}" for name in folders()} <= nested and "web_research.guard.rules" in nested
    missing = sorted(name for name in nested if name not in packages)
    assert missing == []
