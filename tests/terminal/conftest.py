"""Fixtures of the terminal client's tests (helpers are in ``tui_support``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from realserver import ServerProcess, running


@pytest.fixture
def arun() -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run one scenario coroutine to the end, within a hard time limit."""

    def run(scenario: Coroutine[Any, Any, Any], timeout: float = 90.0) -> Any:
        async def bounded() -> Any:
            return await asyncio.wait_for(scenario, timeout)

        return asyncio.run(bounded())

    return run


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A started ``ligretto serve``; stopped at the end; a traceback in its log fails the test."""
    with running(ServerProcess.in_folder(tmp_path)) as process:
        yield process
