"""The client model is for every client: it imports no UI, no server and no transport."""

from __future__ import annotations

import ast
from pathlib import Path

import ligretto.client

FORBIDDEN = ("ligretto.server", "ligretto.terminal", "ligretto.harness", "textual", "rich", "starlette", "websockets")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
    return names


def test_the_client_package_imports_no_ui_server_or_transport() -> None:
    files = sorted(Path(ligretto.client.__file__).parent.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "mirror.py", "observation.py"}
    for file in files:
        bad = {name for name in imported(file) if name.startswith(FORBIDDEN)}
        assert not bad, f"{file.name} imports {sorted(bad)}"
