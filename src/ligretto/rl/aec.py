"""The PettingZoo AEC environment: one learner's decision per step, in virtual-time order.

``agent_selection`` is always the learner whose decision the table's clock says is due;
bots act inside :meth:`LigrettoEnv.step` until it is.  An action is a number of the
:class:`~ligretto.sim.layout.Layout`, or ``(number, reaction_s)`` to give its reaction time.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from ligretto.rl import spaces as rl_spaces
from ligretto.rl.table import RealTimeTable


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class LigrettoEnv(rl_spaces.SeatSpaces, AECEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """Ligretto in real time for learners at seats ``0 .. agents - 1`` and bots at the others."""

    metadata: ClassVar[dict[str, Any]] = {"name": "ligretto_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, *, render_mode: str | None = None, **table: Any) -> None:
        super().__init__()
        self.table = RealTimeTable(**table)
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(self.table.agents)]
        self._seat = {name: seat for seat, name in enumerate(self.possible_agents)}
        self._make_spaces()
        self._start()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.deal(seed)
        self._start()

    def _start(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._after_step()

    def observe(self, agent: str) -> dict[str, Any]:
        return rl_spaces.observe(self.table, self._seat[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index, reaction_s = rl_spaces.split_action(action)
        self._cumulative_rewards[agent] = 0.0
        self.table.act(index, reaction_s)
        self._after_step()

    def _after_step(self) -> None:
        """Name the due learner; at the round's end, every learner's score and its end."""
        table = self.table
        if not table.over:
            self.agent_selection = agent_name(table.due)
            self._clear_rewards()
            return
        scores = table.scores()
        truncated = table.truncated
        for agent in self.agents:
            self.rewards[agent] = float(scores[self._seat[agent]])
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return render_text(self.table)

    def close(self) -> None:
        pass


def render_text(table: RealTimeTable) -> str:
    """The table as any seat sees it (public information only), at its virtual time."""
    seen = table.seen[0]
    lines = [f"t = {table.clock.now:.3f} s   center: " + " ".join(f"{'rgyb'[c]}{top}" for c, top in seen.pile_tops())]
    for seat in range(table.players):
        row = " ".join(str(card) for card in seen.row(seat))
        stack, discard = seen.stack_top(seat), seen.discard_top(seat)
        lines.append(
            f"seat {seat}: row {row} | stack {stack or '-'} ({seen.stack_size(seat)}) "
            f"| discard {discard or '-'} ({seen.discard_size(seat)}) | hand {seen.hand_size(seat)}"
            + (" | voted" if seen.voted(seat) else "")
        )
    return "\n".join(lines)
