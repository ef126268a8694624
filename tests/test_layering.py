"""The layers of the whole package (docs/architecture.md), read from every module's imports.

Every module under ``src/ligretto`` is parsed with :mod:`ast` and each import it makes of
another part of ``ligretto``, at any depth (inside functions and ``TYPE_CHECKING`` blocks
too), is checked against :data:`MAY_IMPORT`: engine <- bots <- simulator; the server and
the clients depend on the protocol and the engine; the client model imports no UI and no
server; the protocol imports only the engine and libraries.  The terminal reaches the
server's internals only through its in-process transport (:data:`IN_PROCESS`).

The rules say where the package is going; today's known exceptions, which other points of
issue 12 remove, are listed once in :data:`KNOWN_VIOLATIONS` (and an entry that no longer
happens fails too, so the list only shrinks).  Parts named in the table that do not exist
yet (``client``, ``protocol``, ``loadtest``) have no modules to check; every part that does
exist is checked in full.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ligretto"

# --- the rules, as data ------------------------------------------------------------------

MAY_IMPORT: dict[str, frozenset[str]] = {
    # part: the other parts of ligretto it may import
    "engine": frozenset(),
    "rulebook": frozenset(),
    "bots": frozenset({"engine"}),
    "sim": frozenset({"engine", "bots", "ratings"}),
    "protocol": frozenset({"engine"}),
    "client": frozenset({"engine", "protocol"}),
    "server": frozenset({"engine", "bots", "protocol", "rulebook", "ratings", "replay"}),
    "terminal": frozenset({"engine", "protocol", "client", "rulebook", "replay"}),
    "replay": frozenset({"engine"}),
    "loadtest": frozenset({"engine", "bots", "protocol", "client", "sim"}),
    # the command line and the modules of its commands, which assemble the parts
    "cli": frozenset(
        {"engine", "bots", "sim", "protocol", "server", "terminal", "loadtest", "rulebook", "demo", "bench", "replay"}
    ),
    "__main__": frozenset({"cli"}),
    "__init__": frozenset(),
    "demo": frozenset({"engine", "bots"}),
    "bench": frozenset({"engine", "bots", "sim"}),
    "ratings": frozenset(),
}
"""Which parts of ligretto each part may import; a part is a subpackage or a top-level module."""

PLANNED = frozenset({"client", "protocol", "loadtest"})
"""Parts issue 12 adds: listed in the rules already, with no modules to check until they land."""

UI = frozenset({"textual", "rich"})
WEB_SERVER = frozenset({"starlette", "uvicorn", "segno", "prometheus_client"})
WEB_CLIENT = frozenset({"websockets"})

MAY_NOT_USE: dict[str, frozenset[str]] = {
    # part: third-party libraries it must not import (the engine's purity has its own test)
    "bots": UI | WEB_SERVER | WEB_CLIENT | {"msgspec", "matplotlib"},
    "sim": WEB_SERVER | WEB_CLIENT | {"textual", "msgspec"},
    "protocol": UI | WEB_SERVER | WEB_CLIENT,
    "client": UI | WEB_SERVER,
    "server": UI | WEB_CLIENT,
}
"""No UI in the client model, the protocol or the server; no WebSocket client in the server."""
RELAY = ("ligretto.server.cluster.relay", "websockets")
"""The one exception: the cluster's relay, which carries a client's WebSocket to the
process that owns its table (issue 16, docs/deploy.md), is a WebSocket client by nature;
no other server module may use one."""

IN_PROCESS: dict[str, frozenset[str]] = {
    # local play (`ligretto play`) runs a server Table in the client's own process: the
    # in-process transport may import the table and the bot specifications it is given
    # and hands the person's messages to the server's one dispatcher (with the person's
    # connection-less round trips, a `server.latency.Latency`)
    "ligretto.terminal.local": frozenset(
        {
            "ligretto.server.table",
            "ligretto.server.dispatch",
            "ligretto.server.timing",
            "ligretto.server.latency",
            "ligretto.bots.spec",
        }
    ),
    # the command line of `ligretto play` checks the --bots it hands to that transport
    "ligretto.terminal.commands": frozenset({"ligretto.bots.spec"}),
}
"""Single modules allowed an import their part may not make, each named exactly."""

KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset()
"""(module, what it imports) pairs that break the rules and are being removed: none since
issue 12 (an entry here must name the issue that removes it)."""


# --- reading the package -----------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def part_of(name: str) -> str:
    """The part a module of ligretto belongs to: its subpackage, or itself if top-level."""
    parts = name.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def imports(name: str, tree: ast.AST) -> Iterator[str]:
    """Every module a module imports, at any depth; ``from package import module`` names
    the module, relative imports are resolved."""
    package = name if is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in MODULES else base


IMPORTS = {
    name: sorted(set(imports(name, ast.parse(path.read_text(encoding="utf-8"))))) for name, path in MODULES.items()
}


def problems_of(name: str, targets: list[str] | None = None) -> list[tuple[str, str]]:
    """(module, import) pairs of one module (importing ``targets``, by default what it
    does import) that break the rules."""
    part = part_of(name)
    found = []
    for target in IMPORTS[name] if targets is None else targets:
        top = target.partition(".")[0]
        if top == "ligretto":
            other = part_of(target)
            if other != part and other not in MAY_IMPORT[part] and target not in IN_PROCESS.get(name, ()):
                found.append((name, target))
        elif top in MAY_NOT_USE.get(part, ()) and (name, top) != RELAY:
            found.append((name, top))
    return found


ALL_PROBLEMS = {problem for name in MODULES for problem in problems_of(name)}


# --- the tests ---------------------------------------------------------------------------


def test_every_module_belongs_to_a_part_of_the_rules() -> None:
    unknown = sorted(name for name in MODULES if part_of(name) not in MAY_IMPORT)
    assert not unknown, f"modules of no part in MAY_IMPORT: {unknown}"


def test_every_part_of_the_rules_exists_or_is_planned() -> None:
    """A misspelt part would check nothing: each part has modules, unless issue 12 adds it."""
    present = {part_of(name) for name in MODULES}
    missing = sorted(set(MAY_IMPORT) - present - PLANNED)
    assert not missing, f"parts with no modules: {missing}"
    for name, targets in IN_PROCESS.items():
        assert name in MODULES, f"IN_PROCESS names {name}, which does not exist"
        for target in targets:
            assert target in IMPORTS[name], f"{name} no longer imports {target}: remove it from IN_PROCESS"


@pytest.mark.parametrize("part", sorted(MAY_IMPORT))
def test_a_part_imports_only_what_the_rules_allow(part: str) -> None:
    problems = sorted(p for name in MODULES if part_of(name) == part for p in problems_of(name))
    unexpected = [p for p in problems if p not in KNOWN_VIOLATIONS]
    assert not unexpected, f"{part} breaks the layering: {unexpected}"


def test_every_known_violation_still_happens() -> None:
    """The allow-list only shrinks: an entry that no longer happens must be removed."""
    gone = sorted(KNOWN_VIOLATIONS - ALL_PROBLEMS)
    assert not gone, f"fixed, remove from KNOWN_VIOLATIONS: {gone}"


def test_the_engine_bots_and_simulator_are_layered() -> None:
    """engine <- bots <- simulator, read from the rules themselves (not only from the code)."""
    assert MAY_IMPORT["engine"] == frozenset()
    assert MAY_IMPORT["bots"] == {"engine"}
    assert MAY_IMPORT["sim"] == {"engine", "bots", "ratings"}  # ratings: the bots' calibration
    assert MAY_IMPORT["ratings"] == frozenset()
    for part in ("client", "protocol"):
        assert "server" not in MAY_IMPORT[part] and not MAY_IMPORT[part] & {"terminal", "cli"}
    assert MAY_NOT_USE["client"] >= UI
    assert "server" not in MAY_IMPORT["terminal"], "the terminal reaches the server only through IN_PROCESS"


def _cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle among modules, or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_module_of_the_package_imports_itself_back() -> None:
    """No import cycle anywhere (``TYPE_CHECKING`` imports included): e.g. the round and the
    stalemate proof both read areas from ``engine/area.py`` instead of each other."""
    graph = {
        name: [t for t in targets if t in MODULES and t != name and not (is_package(t) and name.startswith(t + "."))]
        for name, targets in IMPORTS.items()
    }
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_the_checks_catch_a_violation() -> None:
    """Control: the reader and the rules do report imports that break them."""
    assert part_of("ligretto.engine.state") == "engine"
    assert part_of("ligretto.cli") == "cli"
    assert part_of("ligretto") == "__init__"
    tree = ast.parse("from ligretto.server import table\nfrom . import cards\nimport textual.app\n")
    assert list(imports("ligretto.engine.state", tree)) == [
        "ligretto.server.table",
        "ligretto.engine.cards",
        "textual.app",
    ]
    assert problems_of("ligretto.bots.spec", ["ligretto.engine.cards", "ligretto.server.table"]) == [
        ("ligretto.bots.spec", "ligretto.server.table")
    ]
    assert problems_of("ligretto.engine.cards", ["ligretto.sim.table"]) == [
        ("ligretto.engine.cards", "ligretto.sim.table")
    ]
    assert problems_of("ligretto.terminal.app", ["ligretto.server.table"]) == [
        ("ligretto.terminal.app", "ligretto.server.table")
    ]
    assert problems_of("ligretto.terminal.local", ["ligretto.server.table"]) == []  # the in-process transport
    assert problems_of("ligretto.server.app", ["rich.text", "msgspec"]) == [("ligretto.server.app", "rich")]
    assert _cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert _cycle({"a": ["b"], "b": []}) is None
