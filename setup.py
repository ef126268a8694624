"""Build hook: compile the simulator's hot path with mypyc (see docs/benchmarks.md).

The package is plain typed Python and runs without this step.  ``pip install`` compiles
the modules below to C extensions when it can (gcc and the Python headers); if compiling
fails, or ``LIGRETTO_PURE_PYTHON=1`` is set, the same modules run interpreted.  An
editable install builds the extensions next to their sources: after editing one of these
modules, run ``pip install -e .`` again (tests/test_compiled.py fails on stale builds).
"""

import os

from setuptools import setup

COMPILED = [
    "src/ligretto/engine/actions.py",
    "src/ligretto/engine/area.py",
    "src/ligretto/engine/cards.py",
    "src/ligretto/engine/events.py",
    "src/ligretto/engine/hand.py",
    "src/ligretto/engine/match.py",
    "src/ligretto/engine/scoring.py",
    "src/ligretto/engine/stalemate.py",
    "src/ligretto/engine/state.py",
    "src/ligretto/engine/observation.py",
    "src/ligretto/bots/driver.py",
    "src/ligretto/bots/reaction.py",
    "src/ligretto/bots/strategies.py",
    "src/ligretto/sim/table.py",
]


def extensions() -> list:
    if os.environ.get("LIGRETTO_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 -- a build requirement, absent when reading this file
    except ImportError:
        return []
    modules = mypycify(COMPILED, opt_level="3")
    for module in modules:
        module.optional = True  # no compiler: the interpreted modules serve
    return modules


setup(ext_modules=extensions())
