"""docs/architecture.md lists every module of the package in its Modules table.

A module is each ``.py`` under ``src/ligretto`` (a package's ``__init__.py`` only when it
holds code of its own: a row for the package, ``rulebook/``, names it) and each ES module
of the browser client (``server/static/js/*.js``).  The table's first column names them as
paths (``engine/state.py``, ``static/js/main.js``, a path under ``src/ligretto`` or under
``server/``), or in a grouped row whose later names share the first one's folder
(`` `terminal/app.py`, `widgets.py` ``).  A row naming no file that exists fails too.
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


def test_every_module_has_a_row_in_the_modules_table() -> None:
    cells = table_cells(DOC.read_text(encoding="utf-8"))
    named = set().union(*(listed(cell) for cell in cells))
    missing = sorted(modules() - named)
    assert not missing, f"docs/architecture.md's Modules table lacks {missing}"


def names_something(cell: str) -> bool:
    """Whether a cell names a module, or a folder that exists (``server/static/``)."""
    folders = [name for name in re.findall(r"`([^`]+/)`", cell) if any((base / name).is_dir() for base in BASES)]
    return bool(listed(cell) or folders)


def test_every_row_names_a_file_that_exists() -> None:
    cells = table_cells(DOC.read_text(encoding="utf-8"))
    stale = [cell.strip() for cell in cells if not names_something(cell)]
    assert not stale, f"rows of docs/architecture.md naming no file: {stale}"


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
