"""Random masked steps per second of the research environment, beside the bare engine and
PettingZoo's classic environments, in the same run and the same loop (docs/benchmarks.md).

    python tests/rl/bench_rl.py --steps 100000 --repeats 5

Every environment is stepped by PettingZoo's usual AEC loop (``agent_iter``, ``last``,
``step``) with a uniformly random action among those its mask allows; a step is one agent's
action (the steps of a finished round's agents, ``None``, are not counted), resets
included; the Parallel row: one step a due learner's action, every learner observing.
``ligretto`` rows: 4 seats under ``classic``, all learners (no bots), or one
learner against 3 ``smart:expert`` bots (the bots' decisions inside ``step``, not counted);
``engine``: ``ligretto bench``'s random play (``Round.legal_actions`` and ``apply`` alone).
PettingZoo's ``connect_four_v3`` and ``texas_holdem_v4`` need ``pettingzoo[classic]``
(pygame, rlcard); without them their rows say so.  One core; the median repeat.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import ligretto.rl
from ligretto.bench import compiled, random_play


def aec_steps(make: Callable[[], Any], steps: int, seed: int) -> tuple[float, int]:
    """Random masked steps per second of the AEC environment ``make()``, and rounds played."""
    env = make()
    draw = random.Random(seed).random
    done = rounds = 0
    start = time.perf_counter()
    while done < steps:
        env.reset(seed=seed + rounds)
        rounds += 1
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[int(draw() * len(legal))]))
            done += 1
    return done / (time.perf_counter() - start), rounds


def parallel_steps(make: Callable[[], Any], steps: int, seed: int) -> tuple[float, int]:
    """The same for a Parallel environment: each step, every live agent's action drawn from
    its mask (the one ``infos[agent]["due"]`` is the one used)."""
    env = make()
    draw = random.Random(seed).random
    done = rounds = 0
    start = time.perf_counter()
    while done < steps:
        observations, _infos = env.reset(seed=seed + rounds)
        rounds += 1
        while env.agents:
            actions = {}
            for agent in env.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                actions[agent] = int(legal[int(draw() * len(legal))])
            observations = env.step(actions)[0]
            done += 1
    return done / (time.perf_counter() - start), rounds


def classic(name: str) -> Callable[[], Any] | str:
    try:
        if name == "connect_four_v3":
            from pettingzoo.classic import connect_four_v3 as module
        else:
            from pettingzoo.classic import texas_holdem_v4 as module
    except ImportError as missing:
        return f"not installed ({missing.name}): pip install 'pettingzoo[classic]'"
    return module.env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps per repeat (default 100000)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    envs: dict[str, Callable[[], Any] | str] = {
        "ligretto 4 learners": lambda: ligretto.rl.env(players=4, agents=4),
        "ligretto 1 learner + 3 smart:expert": lambda: ligretto.rl.env(players=4, agents=1),
        "ligretto parallel, 4 learners": lambda: ligretto.rl.parallel_env(players=4, agents=4),
        "connect_four_v3": classic("connect_four_v3"),
        "texas_holdem_v4": classic("texas_holdem_v4"),
    }
    rates: dict[str, list[float]] = {name: [] for name in ["engine (random play)", *envs]}
    rounds: dict[str, int] = dict.fromkeys(rates, 0)
    for repeat in range(args.repeats):  # interleaved: a change in the machine's load hits all
        done, played, seconds = random_play(args.steps, seed=repeat * 1_000_003)
        rates["engine (random play)"].append(done / seconds)
        rounds["engine (random play)"] += played
        for name, make in envs.items():
            if not isinstance(make, str):
                steps = parallel_steps if "parallel" in name else aec_steps
                rate, played = steps(make, args.steps, seed=repeat * 1_000_003)
                rates[name].append(rate)
                rounds[name] += played
    report: dict[str, Any] = {
        name: {
            "steps_per_s": round(statistics.median(r)),
            "best": round(max(r)),
            "steps_per_round": round(args.steps * args.repeats / rounds[name], 1),
        }
        if r
        else envs[name]
        for name, r in rates.items()
    }
    report["compiled"] = compiled()
    report["python"] = platform.python_version()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
