"""The compiled build (setup.py, mypyc) must match its sources.

An editable install compiles the hot modules next to their sources; Python then imports
the compiled file, so an edit to the ``.py`` would silently not run until the next
``pip install -e .``.  These tests catch that.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _compiled_sources() -> list[str]:
    """setup.py's ``COMPILED`` list, read without running setup.py."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPILED" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py has no COMPILED list")


COMPILED = _compiled_sources()


def _module_name(source: str) -> str:
    return source.removeprefix("src/").removesuffix(".py").replace("/", ".")


@pytest.mark.parametrize("source", COMPILED)
def test_a_compiled_module_is_newer_than_its_source(source: str) -> None:
    module = importlib.import_module(_module_name(source))
    loaded = Path(module.__file__ or "")
    if loaded.suffix == ".py":
        return  # interpreted (LIGRETTO_PURE_PYTHON=1, or no compiler): the source itself runs
    assert loaded.parent == (ROOT / source).parent, f"{loaded} is not the build of {source}"
    assert loaded.stat().st_mtime >= (ROOT / source).stat().st_mtime, (
        f"{source} changed after it was compiled: run `pip install -e .` again"
    )


def test_every_compiled_module_exists() -> None:
    for source in COMPILED:
        assert (ROOT / source).is_file(), source
