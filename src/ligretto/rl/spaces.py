"""The Gymnasium spaces of one seat, and its observation as their value."""

from __future__ import annotations

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
