"""docs/architecture.md stays true: every module has one row, and the names it traces exist.

A module is each ``.py`` under ``src/ligretto`` (a package's ``__init__.py`` only when it
holds code of its own: a row for the package, ``rulebook/``, names it) and each ES module
of the browser client (``server/static/js/*.js``).  The table's first column names them as
paths (``engine/state.py``, ``static/js/main.js``, a path under ``src/ligretto`` or under
``server/``), or in a grouped row whose later names share the first one's folder
(`` `terminal/app.py`, `widgets.py` ``).  The table fails on a module missing, on a module
named by two rows (the table is one row per module, not an append log) and on a row
naming no file that exists.

The section that traces an act (:data:`FLOW`) names code as `` `Class.method` `` or
`` `module.function` ``: each must exist in the package (read with :mod:`ast`: a class of
that name with that attribute of its own, or a module whose dotted name ends so, with that
name defined or imported at its top level).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ligretto"
DOC = ROOT / "docs" / "architecture.md"
BASES = (PACKAGE, PACKAGE / "server")
"""Where a path in the table starts: the package, or the server (``static/js/...``)."""


def holds_code(init: Path) -> bool:
    """Whether an ``__init__.py`` does more than re-export (docstring, imports, ``__all__``)."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        return True
    return False


def modules() -> set[str]:
    """Every module that must have a row, as a path relative to the package."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py" or (path.parent != PACKAGE and holds_code(path)):
            found.add(path.relative_to(PACKAGE).as_posix())
    found |= {path.relative_to(PACKAGE).as_posix() for path in (PACKAGE / "server" / "static" / "js").glob("*.js")}
    return found


def table_cells(text: str) -> list[str]:
    """The first cell of every row of the Modules table."""
    section = text.split("\n## Modules\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [row.split("|")[1] for row in rows]


def listed(cell: str) -> set[str]:
    """The paths a cell names, relative to the package; a folder ``x/`` names ``x/__init__.py``."""
    names = re.findall(r"`([^`]+)`", cell)
    folder = names[0].rpartition("/")[0] if names else ""
    found = set()
    for name in names:
        written = name if "/" in name else f"{folder}/{name}" if folder else name
        for base in BASES:
            path = base / written
            if written.endswith("/"):
                path = path / "__init__.py"
            if path.is_file():
                found.add(path.relative_to(PACKAGE).as_posix())
                break
    return found


def missing_modules(text: str) -> list[str]:
    """The modules no row of the Modules table names."""
    named = set().union(*(listed(cell) for cell in table_cells(text)))
    return sorted(modules() - named)


def test_every_module_has_a_row_in_the_modules_table() -> None:
    missing = missing_modules(DOC.read_text(encoding="utf-8"))
    assert not missing, f"docs/architecture.md's Modules table lacks {missing}"


def duplicated_rows(text: str) -> dict[str, list[str]]:
    """The modules named by more than one row's first cell, with those cells."""
    rows: dict[str, list[str]] = {}
    for cell in table_cells(text):
        for path in listed(cell):
            rows.setdefault(path, []).append(cell.strip())
    return {path: cells for path, cells in sorted(rows.items()) if len(cells) > 1}


def test_every_module_has_one_row_only() -> None:
    twice = duplicated_rows(DOC.read_text(encoding="utf-8"))
    assert not twice, f"modules described by several rows of docs/architecture.md: {twice}"


def names_something(cell: str) -> bool:
    """Whether a cell names a module, or a folder that exists (``server/static/``)."""
    folders = [name for name in re.findall(r"`([^`]+/)`", cell) if any((base / name).is_dir() for base in BASES)]
    return bool(listed(cell) or folders)


def test_every_row_names_a_file_that_exists() -> None:
    cells = table_cells(DOC.read_text(encoding="utf-8"))
    stale = [cell.strip() for cell in cells if not names_something(cell)]
    assert not stale, f"rows of docs/architecture.md naming no file: {stale}"


# --- the names of the flow ---------------------------------------------------------------

FLOW = "The path of an act"
"""The heading of the section that traces one ``act`` through the code."""

FILE_ENDINGS = frozenset({"py", "js", "md", "json", "css", "html", "svg", "toml"})
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def section(text: str, heading: str) -> str:
    """The text of the ``## heading`` section (empty if there is none)."""
    parts = text.split(f"\n## {heading}\n", 1)
    return parts[1].split("\n## ", 1)[0] if len(parts) == 2 else ""


def code_names(text: str) -> list[str]:
    """Every `` `a.b` `` (a trailing ``()`` dropped) written in ``text``; file names are not code."""
    found = []
    for written in re.findall(r"`([^`]+)`", text):
        name = written.removesuffix("()")
        if DOTTED.fullmatch(name) and name.rpartition(".")[2] not in FILE_ENDINGS:
            found.append(name)
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _defined(body: list[ast.stmt]) -> set[str]:
    """The names a block of statements defines or imports (a module's, or a class's own)."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
    return names


def _class_attributes(node: ast.ClassDef) -> set[str]:
    """A class's own attributes: its methods and class-level names, and ``self.x`` set in it."""
    return _defined(node.body) | {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute)
        and isinstance(sub.ctx, ast.Store)
        and isinstance(sub.value, ast.Name)
        and sub.value.id == "self"
    }


class CodeIndex:
    """The package's modules and classes, as :mod:`ast` reads them."""

    def __init__(self) -> None:
        self.modules: dict[str, set[str]] = {}
        self.classes: dict[str, list[set[str]]] = {}
        for path in sorted(PACKAGE.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            self.modules[_module_name(path)] = _defined(tree.body)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append(_class_attributes(node))

    def has_attribute(self, cls: str, attribute: str) -> bool:
        """Whether some class named ``cls`` has ``attribute`` of its own (a name it inherits
        is written where it is defined: `` `Plays.act` ``, not `` `Table.act` ``)."""
        return any(attribute in attributes for attributes in self.classes.get(cls, []))

    def _attribute_of(self, rest: list[str]) -> bool:
        return len(rest) == 2 and self.has_attribute(rest[0], rest[1])

    def exists(self, name: str) -> bool:
        """Whether ``Class.attribute``, ``module``, ``module.name`` or ``module.Class.attribute``
        names code of the package."""
        parts = name.split(".")
        if any(module == name or module.endswith(f".{name}") for module in self.modules):
            return True  # a module itself: `engine.tally`
        for cut in range(len(parts) - 1, 0, -1):
            prefix, rest = ".".join(parts[:cut]), parts[cut:]
            for module, names in self.modules.items():
                named = module == prefix or module.endswith(f".{prefix}")
                if named and rest[0] in names and (len(rest) == 1 or self._attribute_of(rest)):
                    return True
        return len(parts) == 2 and self.has_attribute(parts[0], parts[1])


def unknown_flow_names(text: str, index: CodeIndex) -> list[str]:
    """The code names of the flow section that name nothing in the package."""
    return sorted({name for name in code_names(section(text, FLOW)) if not index.exists(name)})


def test_every_name_of_the_flow_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    flow = section(text, FLOW)
    assert len(code_names(flow)) >= 10, f"docs/architecture.md has no section {FLOW!r} naming the code"
    unknown = unknown_flow_names(text, CodeIndex())
    assert not unknown, f"docs/architecture.md's {FLOW!r} names code that does not exist: {unknown}"


def test_each_check_catches_a_bad_doc() -> None:
    """Control: a missing module, a module in two rows and a name of no code all fail."""
    rows = "".join(f"| `{path}` | x |\n" for path in sorted(modules()))
    good = f"intro\n## Modules\n\n| module | owns |\n|---|---|\n{rows}\n## {FLOW}\n\n"
    flow = "`Plays.take_effect` calls `Round.apply`; `dispatch.dispatch`, `ligretto.client.Mirror`, `sockets.py`.\n"
    assert not missing_modules(good) and not duplicated_rows(good)
    assert missing_modules(good.replace("| `engine/state.py` | x |\n", "")) == ["engine/state.py"]
    twice = good.replace("| `engine/state.py` | x |", "| `engine/state.py` | x |\n| `engine/hand.py`, `state.py` | y |")
    assert list(duplicated_rows(twice)) == ["engine/hand.py", "engine/state.py"]
    index = CodeIndex()
    assert code_names(flow) == ["Plays.take_effect", "Round.apply", "dispatch.dispatch", "ligretto.client.Mirror"]
    assert unknown_flow_names(good + flow, index) == []
    stale = good + flow + "`Seating._take_effect`, `Round.nothing`, `dispatch.nowhere`, `nomodule.dispatch`\n"
    wrong = ["Round.nothing", "Seating._take_effect", "dispatch.nowhere", "nomodule.dispatch"]
    assert unknown_flow_names(stale, index) == wrong
    assert index.has_attribute("Round", "log") and index.has_attribute("Source", "ROW")
    assert not index.exists("Seating.take_effect") and index.exists("engine.tally.check_entry")
    assert index.exists("engine.tally") and index.exists("records.store.Store.after_commit")


def test_the_reader_of_the_table() -> None:
    """Control: grouped rows share the first name's folder; the static files sit under the server."""
    assert listed(" `terminal/app.py`, `widgets.py`, `nothing.py` ") == {"terminal/app.py", "terminal/widgets.py"}
    assert listed(" `static/js/main.js` ") == {"server/static/js/main.js"}
    assert listed(" `rulebook/` ") == {"rulebook/__init__.py"}
    assert listed(" `engine/gone.py` ") == set()
    assert names_something(" `server/static/` ") and not names_something(" `engine/gone/` ")
    text = "intro\n## Modules\n\n| module | owns |\n|---|---|\n| `cli.py` | x |\n\n## Next\n| `demo.py` | y |\n"
    assert table_cells(text) == [" `cli.py` "]
    assert "engine/state.py" in modules() and "server/static/js/mirror.js" in modules()
    assert "rulebook/__init__.py" in modules() and "engine/__init__.py" not in modules()
