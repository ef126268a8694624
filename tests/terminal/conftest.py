"""Fixtures of the terminal client's tests (helpers are in ``tui_support``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from realserver import ServerProcess, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One started ``ligretto serve`` per module (each test makes its own tables and its
    devices their own profiles); stopped at the end; a traceback in its log fails the module."""
    with running(ServerProcess.in_folder(tmp_path_factory.mktemp("terminal-server"))) as process:
        yield process
