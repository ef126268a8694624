"""A Gymnasium environment for one learner against bots (seat 0; every other seat a bot)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from ligretto.rl import spaces as rl_spaces
from ligretto.rl.aec import render_text
from ligretto.rl.table import RealTimeTable


class SingleAgentEnv(gymnasium.Env[dict[str, Any], Any]):
    """One learner at seat 0; each step is its next decision, the bots acting in between;
    the reward is its round score at the round's end.  ``action_masks()`` for masked
    learners (sb3-contrib's ``MaskablePPO``)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 -- Gymnasium declares it an instance variable

    def __init__(self, *, render_mode: str | None = None, **table: Any) -> None:
        self.table = RealTimeTable(agents=1, **table)
        self.render_mode = render_mode
        self.observation_space = rl_spaces.observation_space(self.table.layout)
        self.action_space = rl_spaces.action_space(self.table.layout)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.table.deal(seed)
        return rl_spaces.observe(self.table, 0), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        table = self.table
        index, reaction_s = rl_spaces.split_action(action)
        table.act(index, reaction_s)
        observation = rl_spaces.observe(table, 0)
        if not table.over:
            return observation, 0.0, False, False, {}
        truncated = table.truncated
        return observation, float(table.scores()[0]), not truncated, truncated, {"scores": table.scores()}

    def action_masks(self) -> np.ndarray:
        mask: np.ndarray = rl_spaces.observe(self.table, 0)["action_mask"].astype(bool)
        return mask

    def render(self) -> str | None:
        return render_text(self.table) if self.render_mode == "ansi" else None
