"""``ligretto.rl``: Ligretto in real time as a multi-agent environment for research.

``pip install 'ligretto[rl]'`` (PettingZoo and Gymnasium).  Learners sit at seats
``0 .. agents - 1``, bots (``opponents``, bot specs) at the others, and whoever is due next
in virtual time acts, on the simulator's own clock (docs/simulator.md, "Research")::

    import ligretto.rl
    env = ligretto.rl.env(players=4, opponents=("smart:expert",), agents=1, seed=1)

- :func:`env`: a PettingZoo AEC environment (:class:`~ligretto.rl.aec.LigrettoEnv`);
- :func:`parallel_env`: a PettingZoo Parallel one (:class:`~ligretto.rl.parallel.LigrettoParallelEnv`);
- :func:`single_agent_env`: a Gymnasium environment, one learner against bots.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium  # noqa: F401 -- checked here, used by the modules below
    import pettingzoo  # noqa: F401
except ImportError as missing:  # pragma: no cover -- the extra is part of the tests' set
    raise ImportError(f"ligretto.rl needs {missing.name}: pip install 'ligretto[rl]'") from missing

from ligretto.rl.aec import LigrettoEnv
from ligretto.rl.parallel import LigrettoParallelEnv
from ligretto.rl.single import SingleAgentEnv
from ligretto.rl.table import RealTimeTable
from ligretto.sim.layout import Layout

__all__ = [
    "Layout",
    "LigrettoEnv",
    "LigrettoParallelEnv",
    "RealTimeTable",
    "SingleAgentEnv",
    "env",
    "parallel_env",
    "single_agent_env",
]


def env(**options: Any) -> LigrettoEnv:
    """The AEC environment: ``players`` (4), ``rules`` (a preset name or a ``RuleSet``,
    ``"classic"``), ``opponents`` (bot specs, one for every bot seat or one per seat,
    ``("smart:expert",)``), ``agents`` (1), ``reaction`` (the learners' level when they
    give no reaction time, ``"expert"``), ``seed``, ``render_mode`` (``"ansi"``)."""
    return LigrettoEnv(**options)


def parallel_env(**options: Any) -> LigrettoParallelEnv:
    """The Parallel environment, with the options of :func:`env`."""
    return LigrettoParallelEnv(**options)


def single_agent_env(**options: Any) -> SingleAgentEnv:
    """One learner (seat 0) against bots, with the options of :func:`env` but ``agents``."""
    return SingleAgentEnv(**options)
