"""Fixtures for every test package."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest


@pytest.fixture
def arun() -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run one scenario coroutine to the end, within a hard time limit (90 s unless given)."""

    def run(scenario: Coroutine[Any, Any, Any], timeout: float = 90.0) -> Any:
        async def bounded() -> Any:
            return await asyncio.wait_for(scenario, timeout)

        return asyncio.run(bounded())

    return run
