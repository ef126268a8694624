"""Fixtures of the terminal client's tests (helpers are in ``tui_support``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from realserver import ServerProcess, running


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A started ``ligretto serve``; stopped at the end; a traceback in its log fails the test."""
    with running(ServerProcess.in_folder(tmp_path)) as process:
        yield process
