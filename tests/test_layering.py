"""The layers of the whole package (docs/architecture.md), read from every module's imports.

Every module under ``src/ligretto`` is parsed with :mod:`ast` and each import it makes of
another part of ``ligretto``, at any depth (inside functions and ``TYPE_CHECKING`` blocks
too), is checked against :data:`MAY_IMPORT`: engine <- bots <- simulator; the server and
the clients depend on the protocol and the engine; the client model imports no UI and no
server; the protocol imports only the engine and libraries.  The terminal reaches the
server's internals only through its in-process transport (:data:`IN_PROCESS`).  The
server is folders of layers (:data:`SERVER_LAYERS`: ops <- table <- db <- records <- cluster
<- web), each a part of its own that imports only the layers below it; the table's layer
imports no web framework, database driver or Redis; no module imports another's private
name.

The rules say where the package is going; known exceptions would be listed once in
:data:`KNOWN_VIOLATIONS` (and an entry that no longer happens fails too, so the list only
shrinks).  The harness (``ligretto loadtest``, ``ligretto stress``) and the test kit it
shares with the tests are parts no part of the product may import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ligretto"

# --- the rules, as data ------------------------------------------------------------------

SERVER_LAYERS = ("ops", "table", "db", "records", "cluster", "web")
"""The server's layers, bottom to top (docs/architecture.md): each a folder of
``ligretto/server``, each importing only the layers before it."""

_OUTSIDE: dict[str, frozenset[str]] = {
    # the parts outside the server each server layer may import
    "ops": frozenset(),
    "table": frozenset({"engine", "bots", "protocol"}),
    "db": frozenset(),
    "records": frozenset({"engine", "protocol", "ratings", "replay", "tournament"}),
    "cluster": frozenset({"protocol"}),
    "web": frozenset({"engine", "bots", "protocol", "rulebook", "ratings", "replay", "tournament"}),
}

MAY_IMPORT: dict[str, frozenset[str]] = {
    # part: the other parts of ligretto it may import
    "engine": frozenset(),
    "rulebook": frozenset(),
    "bots": frozenset({"engine"}),
    "sim": frozenset({"engine", "bots", "ratings"}),
    "rl": frozenset({"engine", "bots", "sim"}),
    "protocol": frozenset({"engine"}),
    "client": frozenset({"engine", "protocol"}),
    # the server's package itself (its __init__) and its layers, each over those below
    "server": frozenset(),
    **{
        f"server.{layer}": _OUTSIDE[layer] | {f"server.{below}" for below in SERVER_LAYERS[:i]}
        for i, layer in enumerate(SERVER_LAYERS)
    },
    "terminal": frozenset({"engine", "protocol", "client", "rulebook", "replay"}),
    "replay": frozenset({"engine"}),
    # out of the product's way: the load test and stress harness (commands of their own),
    # and the kit it shares with the tests (real server processes, the hidden-card model);
    # no part of the product imports either
    "harness": frozenset({"engine", "bots", "protocol", "client", "sim", "ratings", "testkit", "server.records"}),
    "testkit": frozenset({"engine", "protocol", "server.records"}),
    # the command line and the modules of its commands, which assemble the parts
    "cli": frozenset(
        {
            "engine",
            "bots",
            "sim",
            "protocol",
            "server.table",
            "server.web",
            "terminal",
            "harness",
            "rulebook",
            "demo",
            "bench",
            "replay",
        }
    ),
    "__main__": frozenset({"cli"}),
    "__init__": frozenset(),
    "demo": frozenset({"engine", "bots"}),
    "bench": frozenset({"engine", "bots", "sim"}),
    "ratings": frozenset(),
    "tournament": frozenset(),
}
"""Which parts of ligretto each part may import; a part is a subpackage, a top-level
module, or one layer of the server (``server.table``: the folder ``server/table``)."""


UI = frozenset({"textual", "rich"})
WEB_SERVER = frozenset({"starlette", "uvicorn", "segno", "prometheus_client"})
WEB_CLIENT = frozenset({"websockets"})
DATABASE = frozenset({"sqlite3", "psycopg"})
REDIS = frozenset({"redis"})

MAY_NOT_USE: dict[str, frozenset[str]] = {
    # part: third-party libraries it must not import (the engine's purity has its own test)
    "bots": UI | WEB_SERVER | WEB_CLIENT | {"msgspec", "matplotlib"},
    "sim": WEB_SERVER | WEB_CLIENT | {"textual", "msgspec"},
    "rl": UI | WEB_SERVER | WEB_CLIENT | {"msgspec"},
    "protocol": UI | WEB_SERVER | WEB_CLIENT,
    "client": UI | WEB_SERVER,
    "server": UI | WEB_CLIENT,
    **{f"server.{layer}": UI | WEB_CLIENT for layer in SERVER_LAYERS},
    # the authority of a table: no web framework, database driver or Redis
    "server.table": UI | WEB_CLIENT | WEB_SERVER | DATABASE | REDIS,
    "server.ops": UI | WEB_CLIENT | DATABASE | REDIS | {"uvicorn", "segno"},
    "server.db": UI | WEB_CLIENT | WEB_SERVER | REDIS,
    "server.records": UI | WEB_CLIENT | WEB_SERVER | REDIS,
}
"""No UI in the client model, the protocol or the server; no WebSocket client in the server."""
RELAY = ("ligretto.server.cluster.relay", "websockets")
"""The one exception: the cluster's relay, which carries a client's WebSocket to the
process that owns its table (issue 16, docs/deploy.md), is a WebSocket client by nature;
no other server module may use one."""
SANS_IO = ("ligretto.server.web.wsprotocol", "websockets")
"""And the server's own WebSocket protocol, which extends uvicorn's (built on websockets'
sans-I/O server): it frames a message once for all its recipients with websockets' own
``Frame`` and reads the connection's ``State``; no client."""

IN_PROCESS: dict[str, frozenset[str]] = {
    # local play (`ligretto play`) runs a server Table in the client's own process: the
    # in-process transport may import the table and the bot specifications it is given
    # and hands the person's messages to the server's one dispatcher (with the person's
    # connection-less round trips, a `server.latency.Latency`)
    "ligretto.terminal.local": frozenset(
        {
            "ligretto.server.table.table",
            "ligretto.server.table.dispatch",
            "ligretto.server.table.timing",
            "ligretto.server.table.latency",
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
    """The part a module of ligretto belongs to: its subpackage, or itself if top-level;
    in the server, its layer (``server.table``)."""
    parts = name.split(".")
    if len(parts) > 2 and parts[1] == "server":
        return f"server.{parts[2]}"
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
        elif top in MAY_NOT_USE.get(part, ()) and (name, top) not in (RELAY, SANS_IO):
            found.append((name, top))
    return found


ALL_PROBLEMS = {problem for name in MODULES for problem in problems_of(name)}


def private_imports(name: str, tree: ast.AST) -> list[tuple[str, str]]:
    """(module, name) pairs where a module imports a private name (``_x``) of another
    module of ligretto: what is shared between modules has a public name."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ligretto"):
            found += [(name, f"{node.module}.{alias.name}") for alias in node.names if alias.name.startswith("_")]
    return found


# --- the tests ---------------------------------------------------------------------------


def test_the_server_is_folders_of_layers() -> None:
    """No module stays flat in ``server/``, but its ``__init__.py``; each layer is a folder
    that exists, and nothing of the server lies outside its layers."""
    server = PACKAGE / "server"
    flat = sorted(path.name for path in server.glob("*.py") if path.name != "__init__.py")
    assert not flat, f"modules flat in server/: {flat}"
    folders = {path.name for path in server.iterdir() if (path / "__init__.py").exists()}
    assert folders == set(SERVER_LAYERS), f"server folders {sorted(folders)} are not the layers {SERVER_LAYERS}"


def test_no_module_imports_a_private_name_of_another() -> None:
    found = sorted(p for name, path in MODULES.items() for p in private_imports(name, ast.parse(path.read_text())))
    assert not found, f"private names imported across modules: {found}"


def test_every_module_belongs_to_a_part_of_the_rules() -> None:
    unknown = sorted(name for name in MODULES if part_of(name) not in MAY_IMPORT)
    assert not unknown, f"modules of no part in MAY_IMPORT: {unknown}"


def test_every_part_of_the_rules_exists() -> None:
    """A misspelt part would check nothing: each part has modules."""
    present = {part_of(name) for name in MODULES}
    missing = sorted(set(MAY_IMPORT) - present)
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
    product = set(MAY_IMPORT) - {"harness", "testkit", "cli", "__main__"}
    for part in product:
        assert not MAY_IMPORT[part] & {"harness", "testkit"}, f"{part} may import the harness"
    assert "server" not in MAY_IMPORT["terminal"], "the terminal reaches the server only through IN_PROCESS"


def test_the_command_line_is_one_part() -> None:
    """The package ``cli`` (a module per command) is the part ``cli`` whole, and
    ``python -m ligretto`` (``__main__``) goes through it."""
    commands = [name for name in MODULES if name.startswith("ligretto.cli.")]
    assert commands, "the command line is a package of a module per command"
    assert {part_of(name) for name in commands} == {"cli"}
    assert "ligretto.cli" in IMPORTS["ligretto.__main__"]


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
    assert part_of("ligretto.cli.serve") == "cli"
    assert part_of("ligretto") == "__init__"
    assert part_of("ligretto.server.table.plays") == "server.table"
    assert part_of("ligretto.server") == "server"
    tree = ast.parse("from ligretto.server import table\nfrom . import cards\nimport textual.app\n")
    assert list(imports("ligretto.engine.state", tree)) == [
        "ligretto.server.table",
        "ligretto.engine.cards",
        "textual.app",
    ]
    assert problems_of("ligretto.bots.spec", ["ligretto.engine.cards", "ligretto.server.table.table"]) == [
        ("ligretto.bots.spec", "ligretto.server.table.table")
    ]
    assert problems_of("ligretto.engine.cards", ["ligretto.sim.table"]) == [
        ("ligretto.engine.cards", "ligretto.sim.table")
    ]
    assert problems_of("ligretto.terminal.app", ["ligretto.server.table.table"]) == [
        ("ligretto.terminal.app", "ligretto.server.table.table")
    ]
    assert problems_of("ligretto.terminal.local", ["ligretto.server.table.table"]) == []  # the in-process transport
    assert problems_of("ligretto.server.web.app", ["rich.text", "msgspec"]) == [("ligretto.server.web.app", "rich")]
    # a lower layer of the server may not import a higher one, nor the table a web framework
    assert problems_of("ligretto.server.table.plays", ["ligretto.server.records.store"]) == [
        ("ligretto.server.table.plays", "ligretto.server.records.store")
    ]
    assert problems_of("ligretto.server.cluster.relay", ["ligretto.server.web.admission"]) == [
        ("ligretto.server.cluster.relay", "ligretto.server.web.admission")
    ]
    assert problems_of("ligretto.server.web.app", ["ligretto.server.records.store"]) == []
    assert problems_of("ligretto.server.table.seats", ["starlette.requests", "redis"]) == [
        ("ligretto.server.table.seats", "starlette"),
        ("ligretto.server.table.seats", "redis"),
    ]
    assert private_imports("ligretto.server.web.sheets", ast.parse("from ligretto.server.web.http import _body")) == [
        ("ligretto.server.web.sheets", "ligretto.server.web.http._body")
    ]
    assert _cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert _cycle({"a": ["b"], "b": []}) is None
