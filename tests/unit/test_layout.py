"""The package's folders show the design (README "Where things live"): each module sits in
the folder of its concern, the plumbing in `core/` depends on nothing of ours above it, and
the tree README draws is the tree on disk."""
from __future__ import annotations

import re

from test_import_graph import ROOT, import_graph, module_name

REPO = ROOT.parents[1]
# The only modules at the top of the package: the entry point and the shared vocabulary.
TOP_LEVEL = {"web_research", "web_research.__main__", "web_research.cli", "web_research.exitcodes",
             "web_research.formats"}


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
    missing = sorted(f"web_research.{name}" for name in folders() if f"web_research.{name}" not in packages)
    assert missing == []
