"""Build hook: compile the simulator's hot path with mypyc (see docs/benchmarks.md).

The package is plain typed Python and runs without this step.  ``pip install`` compiles
the modules below to C extensions when it can (gcc and the Python headers); if compiling
fails, or ``LIGRETTO_PURE_PYTHON=1`` is set, the same modules run interpreted.  An
editable install builds the extensions next to their sources: after editing one of these
modules, run ``pip install -e .`` again (tests/test_compiled.py fails on stale builds).
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup
from setuptools.command.build_ext import build_ext

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
    "src/ligretto/engine/races.py",
    "src/ligretto/engine/tempo.py",
    "src/ligretto/bots/driver.py",
    "src/ligretto/bots/reaction.py",
    "src/ligretto/bots/strategies.py",
    "src/ligretto/sim/table.py",
    "src/ligretto/sim/layout.py",
]


METADATA_ONLY = {"egg_info", "dist_info"}
"""The commands pip runs before the build to read the requirements and the metadata: they
need no extension, and mypycify type-checks every module to list them (2 s each)."""
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def extensions() -> list:
    if os.environ.get("LIGRETTO_PURE_PYTHON") == "1":
        return []
    if METADATA_ONLY & set(sys.argv) and not BUILDS & set(sys.argv):
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 -- a build requirement, absent when reading this file
    except ImportError:
        return []
    # One C file per module (not one of 5 MB): compiled side by side (ParallelBuildExt),
    # 27 s -> 14 s of a fresh set-up on 2 cores; one shared library still, and the same
    # speed (``ligretto bench --only sim``, both builds alternated: docs/benchmarks.md).
    modules = mypycify(COMPILED, opt_level="3", multi_file=True)
    for module in modules:
        module.optional = True  # no compiler: the interpreted modules serve
    return modules


class ParallelBuildExt(build_ext):
    """setuptools compiles an extension's C files one after the other: these go to a gcc
    each, one per core."""

    def build_extension(self, ext) -> None:
        compiler = self.compiler
        one_by_one = compiler.compile

        def compile_side_by_side(sources, output_dir=None, *args, **kwargs):
            for obj in compiler.object_filenames(sources, output_dir=output_dir or ""):
                os.makedirs(os.path.dirname(obj) or ".", exist_ok=True)  # (mkpath races in threads)
            with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
                done = pool.map(lambda source: one_by_one([source], output_dir, *args, **kwargs), sources)
                return [obj for objs in done for obj in objs]

        compiler.compile = compile_side_by_side
        try:
            super().build_extension(ext)
        finally:
            compiler.compile = one_by_one


setup(ext_modules=extensions(), cmdclass={"build_ext": ParallelBuildExt})
