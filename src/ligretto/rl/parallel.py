"""The PettingZoo Parallel environment: every learner each step, only the due one decides.

Real time has no rounds of simultaneous moves: one learner is due at a time, exactly as in
the AEC environment (:mod:`ligretto.rl.aec`).  Each step takes an action from every live
learner, uses the due learner's and ignores the others' (they are in the middle of a
reaction: their action masks allow only wait), then lets the bots act until a learner is
due again.  ``infos[agent]["due"]`` says which learner is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import ParallelEnv

from ligretto.rl import spaces as rl_spaces
from ligretto.rl.aec import agent_name, render_text
from ligretto.rl.table import RealTimeTable


class LigrettoParallelEnv(rl_spaces.SeatSpaces, ParallelEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """Ligretto in real time for learners at seats ``0 .. agents - 1`` and bots at the others."""

    metadata: ClassVar[dict[str, Any]] = {"name": "ligretto_v0", "render_modes": ["ansi"]}

    def __init__(self, *, render_mode: str | None = None, **table: Any) -> None:
        self.table = RealTimeTable(**table)
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(self.table.agents)]
        self.agents = list(self.possible_agents)
        self._make_spaces()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.table.deal(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        table = self.table
        if table.over:
            raise ValueError("the round is over: reset")
        due = agent_name(table.due)
        if due not in actions:
            raise ValueError(f"no action for {due}, the learner whose decision is due")
        index, reaction_s = rl_spaces.split_action(actions[due])
        table.act(index, reaction_s)
        observations, infos = self._observations(), self._infos()
        if not table.over:
            zero = dict.fromkeys(self.agents, False)
            return observations, dict.fromkeys(self.agents, 0.0), zero, dict(zero), infos
        scores = table.scores()
        truncated = table.truncated
        rewards = {agent: float(scores[seat]) for seat, agent in enumerate(self.agents)}
        terminations = dict.fromkeys(self.agents, not truncated)
        truncations = dict.fromkeys(self.agents, truncated)
        self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Any]:
        return {agent: rl_spaces.observe(self.table, seat) for seat, agent in enumerate(self.agents)}

    def _infos(self) -> dict[str, dict[str, Any]]:
        due = self.table.due
        return {agent: {"due": seat == due} for seat, agent in enumerate(self.agents)}

    def render(self) -> str | None:
        return render_text(self.table) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass
