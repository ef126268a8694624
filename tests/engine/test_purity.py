"""The engine core is pure: standard library only, no I/O, no clock, no global random state.

Every module of ``src/ligretto/engine`` is parsed with :mod:`ast`: its imports must be
``ligretto.engine`` modules or standard-library modules from an allow-list, ``random``
may only be used as a seeded ``random.Random(...)``, and no built-in that does I/O or
runs code (``open``, ``print``, ``input``, ``eval``, ...) is called.  A fresh interpreter
then imports ``ligretto.engine`` and must not load asyncio, socket, threading, sqlite3
and friends, nor any non-standard-library module, nor any other part of ``ligretto``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import ligretto.engine
from ligretto.engine.hand import shuffled

ENGINE_DIR = Path(ligretto.engine.__file__).resolve().parent
SRC_DIR = ENGINE_DIR.parent.parent
MODULES = sorted(ENGINE_DIR.glob("*.py"))
ENGINE = "ligretto.engine"

COMPILER_HINTS = frozenset({"mypy_extensions"})
"""Not standard library, but no behaviour either: ``mypyc_attr`` only tells the compiler
(setup.py) that ``Observation`` may be subclassed by interpreted code (the client model's
``MirrorObservation``); interpreted, it returns the class unchanged."""

ALLOWED_STDLIB = frozenset(
    {
        "__future__",
        "abc",
        "array",
        "bisect",
        "collections",
        "collections.abc",
        "dataclasses",
        "enum",
        "functools",
        "hashlib",
        "heapq",
        "itertools",
        "json",
        "math",
        "operator",
        "random",
        "re",
        "string",
        "types",
        "typing",
    }
)
"""Pure standard-library modules the engine may use."""

FORBIDDEN = frozenset(
    {
        "asyncio",
        "builtins",
        "concurrent",
        "ctypes",
        "datetime",
        "fileinput",
        "glob",
        "http",
        "importlib",
        "io",
        "logging",
        "multiprocessing",
        "os",
        "pathlib",
        "pickle",
        "secrets",
        "select",
        "selectors",
        "shelve",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "uuid",
    }
)
"""Clocks, I/O, processes, threads, networking and the interpreter itself: never in the engine."""

FORBIDDEN_CALLS = frozenset({"open", "print", "input", "eval", "exec", "compile", "__import__", "breakpoint"})

NOT_LOADED = (
    "asyncio",
    "socket",
    "threading",
    "sqlite3",
    "subprocess",
    "selectors",
    "multiprocessing",
    "concurrent",
    "datetime",
    "logging",
    "http",
    "urllib",
    "pathlib",
    "tempfile",
    "shutil",
    "pickle",
    "uuid",
    "secrets",
    "ctypes",
)
"""Modules a plain interpreter (``python -S``) has not loaded: importing the engine must not load them."""


def imports_of(tree: ast.AST, package: str = ENGINE) -> list[str]:
    """Every module a source imports (relative imports resolved within ``package``), at any depth."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                if node.module:
                    found.append(f"{base}.{node.module}")
                else:
                    found += [f"{base}.{alias.name}" for alias in node.names]
            else:
                assert node.module is not None
                found.append(node.module)
    return found


def import_problems(tree: ast.AST) -> list[str]:
    problems = []
    for name in imports_of(tree):
        top = name.partition(".")[0]
        if name == ENGINE or name.startswith(ENGINE + "."):
            continue
        if top in FORBIDDEN or name in FORBIDDEN:
            problems.append(f"forbidden import {name}")
        elif name not in ALLOWED_STDLIB and name not in COMPILER_HINTS:
            problems.append(f"import {name} is neither ligretto.engine nor an allowed standard-library module")
    return problems


def random_problems(tree: ast.AST) -> list[str]:
    """Uses of ``random`` other than a seeded ``random.Random(seed)``."""
    aliases: set[str] = set()
    bound_random: set[str] = set()
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {alias.asname or alias.name for alias in node.names if alias.name == "random"}
        elif isinstance(node, ast.ImportFrom) and node.module == "random":
            for alias in node.names:
                if alias.name != "Random":
                    problems.append(f"from random import {alias.name}: module-level random state")
                bound_random.add(alias.asname or alias.name)
    seeded_calls: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            is_random_class = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in aliases
                and func.attr == "Random"
            ) or (isinstance(func, ast.Name) and func.id in bound_random)
            if is_random_class:
                seeded_calls.add(id(func))
                if not node.args and not node.keywords:
                    problems.append(f"line {node.lineno}: Random() without a seed draws from the OS and clock")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr != "Random":
                problems.append(f"line {node.lineno}: random.{node.attr} uses the global random state")
            elif id(node) not in seeded_calls:
                problems.append(f"line {node.lineno}: random.Random used other than by calling it with a seed")
        elif (
            isinstance(node, ast.Name)
            and node.id in bound_random
            and id(node) not in seeded_calls
            and not isinstance(node.ctx, ast.Store)
        ):
            problems.append(f"line {node.lineno}: Random used other than by calling it with a seed")
    return problems


def call_problems(tree: ast.AST) -> list[str]:
    return [
        f"line {node.lineno}: calls {node.func.id}()"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
    ]


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_every_engine_module_is_scanned() -> None:
    names = {path.stem for path in MODULES}
    assert {"__init__", "state", "cards", "rules", "hand", "stalemate", "views", "serial"} <= names, names


def test_allow_list_is_standard_library() -> None:
    assert not ALLOWED_STDLIB & FORBIDDEN
    for name in ALLOWED_STDLIB | FORBIDDEN:
        assert name.partition(".")[0] in sys.stdlib_module_names, f"{name} is not a standard-library module"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_module_imports_only_engine_and_pure_stdlib(path: Path) -> None:
    problems = import_problems(parse(path))
    assert not problems, f"{path.name}: {problems}"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_module_uses_only_seeded_random(path: Path) -> None:
    problems = random_problems(parse(path))
    assert not problems, f"{path.name}: {problems}"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_module_calls_no_io_builtins(path: Path) -> None:
    problems = call_problems(parse(path))
    assert not problems, f"{path.name}: {problems}"


def test_engine_shuffles_only_by_keys_derived_from_the_seed() -> None:
    """The engine does shuffle (RULES.md §2, §3), always through ``hand.shuffled`` with a key
    made from the round's seed: a pure function of its key, so no generator state exists."""
    callers = set()
    for path in MODULES:
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "shuffled":
                callers.add(path.name)
    assert {"state.py", "hand.py"} <= callers
    cards = list(range(0, 40, 2))
    first = shuffled(cards, "ligretto:7:deal:0")
    assert sorted(first) == cards
    assert shuffled(list(reversed(cards)), "ligretto:7:deal:0") == first
    assert shuffled(cards, "ligretto:8:deal:0") != first


BAD_SOURCE = """
import os
import time as clock
from random import shuffle
from . import state
from ..engine import cards
import random
import requests

def f(xs):
    random.shuffle(xs)
    r = random.Random()
    g = random.Random
    ok = random.Random("seed")
    print(xs)
    return open("x")
"""


def test_the_checks_catch_impure_code() -> None:
    """The scanners themselves: a module full of impurities is reported line by line."""
    tree = ast.parse(BAD_SOURCE)
    assert imports_of(tree) == ["os", "time", "random", f"{ENGINE}.state", ENGINE, "random", "requests"]
    imports = import_problems(tree)
    assert any("os" in p for p in imports) and any("time" in p for p in imports)
    assert any("requests" in p for p in imports)
    assert not any("state" in p or "cards" in p for p in imports)
    randoms = random_problems(tree)
    assert any("import shuffle" in p for p in randoms)
    assert any("random.shuffle" in p for p in randoms)
    assert any("without a seed" in p for p in randoms)
    assert any("other than by calling" in p for p in randoms)
    assert len(randoms) == 4, randoms
    assert sorted(p.split(": ")[1] for p in call_problems(tree)) == ["calls open()", "calls print()"]


def _modules_loaded(code: str) -> tuple[list[str], list[str], str]:
    """Run ``code`` in a fresh interpreter without site (so only what it imports is loaded)."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(SRC_DIR)!r})\n"
        "before = sorted(sys.modules)\n"
        f"{code}\n"
        "print(before)\n"
        "print(sorted(sys.modules))\n"
        "print(ligretto.engine.__file__)\n"
    )
    done = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, timeout=60, check=True)
    before, after, where = done.stdout.strip().splitlines()
    return ast.literal_eval(before), ast.literal_eval(after), where


def test_importing_the_engine_loads_no_io_thread_or_network_module() -> None:
    before, after, where = _modules_loaded("import ligretto.engine")
    assert Path(where).resolve().parent == ENGINE_DIR, f"imported the engine from {where}"
    assert "ligretto.engine.state" in after
    for name in NOT_LOADED:
        assert name not in before, f"{name} is loaded before the engine: the check cannot tell"
        assert name not in after, f"importing ligretto.engine loads {name}"
    new = sorted(set(after) - set(before))
    # A compiled build (setup.py) adds mypyc's runtime for our own modules: ours, not a dependency.
    outside = [
        m
        for m in new
        if m.partition(".")[0] not in (*sys.stdlib_module_names, "ligretto") and not m.endswith("__mypyc")
    ]
    assert not outside, f"importing ligretto.engine loads non-standard-library modules {outside}"
    ours = [m for m in new if m.partition(".")[0] == "ligretto"]
    assert [m for m in ours if m != "ligretto" and not m.startswith(ENGINE)] == [], ours


def test_the_subprocess_check_would_see_a_loaded_module() -> None:
    """Control: the same measurement does report asyncio when the code imports it."""
    _, after, _ = _modules_loaded("import ligretto.engine, asyncio")
    assert "asyncio" in after and "socket" in after
