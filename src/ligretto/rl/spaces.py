"""The Gymnasium spaces of one seat, and its observation as their value."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from gymnasium import spaces

from ligretto.rl.table import RealTimeTable
from ligretto.sim.layout import Layout


def observation_space(layout: Layout) -> spaces.Dict:
    """``observation``: the public features (float32); ``action_mask``: 1 for each action
    the seat may choose now (int8), PettingZoo's convention for masked actions."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, np.array(layout.highs(), dtype=np.float32), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (layout.size,), dtype=np.int8),
        }
    )


def action_space(layout: Layout) -> spaces.Discrete:
    return spaces.Discrete(layout.size)


class SeatSpaces:
    """The spaces of a multi-agent environment: one observation and one action space object,
    the same for every agent (PettingZoo asks for one object per agent), from its table's
    :class:`Layout`."""

    table: RealTimeTable

    def _make_spaces(self) -> None:
        self._observation_space = observation_space(self.table.layout)
        self._action_space = action_space(self.table.layout)

    @functools.cache  # noqa: B019 -- one space object per agent, as PettingZoo asks
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space


def observe(table: RealTimeTable, seat: int) -> dict[str, Any]:
    """What ``seat`` sees now, as a value of :func:`observation_space`."""
    mask = np.zeros(table.layout.size, dtype=np.int8)
    mask[table.legal(seat)] = 1
    return {"observation": np.array(table.features(seat), dtype=np.float32), "action_mask": mask}


def split_action(action: Any) -> tuple[int, float | None]:
    """An action as given: a number, or (number, reaction seconds)."""
    if isinstance(action, tuple | list):
        if len(action) != 2:
            raise ValueError(f"a timed action is (action, reaction_s), not {action!r}")
        return _number(action[0]), float(action[1])
    return _number(action), None


def _number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"an action is a whole number, not {value!r}")
    return int(value)
