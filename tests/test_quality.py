"""The code checks the test command runs: mypy --strict and ruff on the package, the tests and
the docs' runnable examples (``docs/examples/``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_strict_is_clean() -> None:
    result = run("mypy", "--strict", "src/ligretto", "docs/examples", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_is_clean() -> None:
    result = run("ruff", "check", "src", "tests", "docs/examples", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = run("ruff", "format", "--check", "src", "tests", "docs/examples", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr
