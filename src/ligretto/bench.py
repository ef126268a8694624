"""``ligretto bench``: the engine's speed, measured the same way every time.

``engine_actions_per_s``: 4 players under ``classic``; at each step a uniformly
random seat asks for its legal actions and applies a uniformly random one of
its card actions (plays and turns; stalemate votes are left out so that rounds
run to Stop or to a proven stalemate, as real ones do).  Dealing, legal-action
generation, applying, events and the stalemate proof are all inside the timing;
one core.  Repeated, and the median repeat is reported.

``sim_rounds_per_s``: whole simulated rounds per wall-clock second, 4
``smart:expert`` bots under ``classic`` in virtual time, through the simulator's
runner with one worker (in-process): bots observing, deciding and drawing
reaction times, the event queue, the engine and scoring.  Median of
``sim_repeats`` repeats of ``sim_rounds`` rounds (default 5 of 4,000).
``sim_rounds_per_s_2_workers`` is the same with two worker processes, their
start-up included (about 15 ms, ~1 % of a repeat), and
``sim_speedup_2_workers`` the ratio of the medians.  The best repeats are reported
too (``*_best``): a busy host only ever slows a run down, and more often a run
that needs both cores, so the best repeat is the closest to what the code can do.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from typing import Any

from ligretto.bots.spec import parse_bots
from ligretto.engine import Round, RuleSet
from ligretto.engine import state as engine_state
from ligretto.sim import table as sim_table
from ligretto.sim.runner import SimConfig
from ligretto.sim.runner import run as run_simulation

ACTIONS_PER_SIM_ROUND = 75
"""``--sim-rounds`` defaults to ``--actions`` / 75: 4,000 rounds for the default 300,000."""
SIM_BOTS = "smart:expert"


def random_play(actions: int, seed: int = 0) -> tuple[int, int, float]:
    """Play random rounds until ``actions`` actions; return (actions, rounds, seconds)."""
    rules = RuleSet()
    draw = random.Random(seed).random
    done = rounds = 0
    start = time.perf_counter()
    while done < actions:
        game = Round.deal(rules, 4, seed + rounds)
        rounds += 1
        while game.ending is None:
            legal = game.legal_actions(int(draw() * 4))
            choices = len(legal) - 1  # the last one is always Vote or Withdraw
            action = legal[int(draw() * choices)]
            game.apply(action)
            done += 1
    return done, rounds, time.perf_counter() - start


def simulate(rounds: int, workers: int, seed: int = 0) -> float:
    """Simulated rounds per wall-clock second for 4 ``smart:expert`` bots under ``classic``."""
    config = SimConfig(RuleSet(), tuple(parse_bots(SIM_BOTS, 4)), rounds=rounds, seed=seed, workers=workers)
    start = time.perf_counter()
    report = run_simulation(config)
    return len(report.rounds) / (time.perf_counter() - start)


def run(
    actions: int = 300_000,
    repeats: int = 5,
    sim_rounds: int | None = None,
    sim_repeats: int | None = None,
    only: str | None = None,
) -> dict[str, Any]:
    """Measure and report as a JSON-ready dict (``only``: ``engine`` or ``sim``)."""
    report: dict[str, Any] = {}
    if only in (None, "engine"):
        report |= _engine(actions, repeats)
    if only in (None, "sim"):
        report |= _sim(sim_rounds or max(1, actions // ACTIONS_PER_SIM_ROUND), sim_repeats or repeats)
    report["python"] = platform.python_version()
    report["compiled"] = compiled()
    report["machine"] = f"{platform.machine()}, {os.cpu_count()} cores"
    return report


def compiled() -> bool:
    """Whether the hot path runs compiled (mypyc, see setup.py) rather than interpreted."""
    return not (engine_state.__file__ or "").endswith(".py") and not (sim_table.__file__ or "").endswith(".py")


def _engine(actions: int, repeats: int) -> dict[str, Any]:
    rates = []
    rounds = 0
    for repeat in range(repeats):
        done, played, seconds = random_play(actions, seed=repeat * 1_000_003)
        rates.append(done / seconds)
        rounds += played
    return {
        "engine_actions_per_s": round(statistics.median(rates)),
        "engine_actions_per_s_best": round(max(rates)),
        "engine_actions_per_s_repeats": [round(r) for r in rates],
        "engine_rounds": rounds,
        "actions_per_repeat": actions,
    }


def _sim(rounds: int, repeats: int) -> dict[str, Any]:
    one: list[float] = []
    two: list[float] = []
    for repeat in range(repeats):  # interleaved, so a change in the machine's load hits both
        one.append(simulate(rounds, workers=1, seed=repeat))
        two.append(simulate(rounds, workers=2, seed=repeat))
    return {
        "sim_rounds_per_s": round(statistics.median(one)),
        "sim_rounds_per_s_repeats": [round(r) for r in one],
        "sim_rounds_per_s_2_workers": round(statistics.median(two)),
        "sim_rounds_per_s_2_workers_repeats": [round(r) for r in two],
        "sim_speedup_2_workers": round(statistics.median(two) / statistics.median(one), 2),
        "sim_rounds_per_s_best": round(max(one)),
        "sim_rounds_per_s_2_workers_best": round(max(two)),
        "sim_speedup_2_workers_best": round(max(two) / max(one), 2),
        "sim_rounds_per_repeat": rounds,
        "sim_bots": f"4 x {SIM_BOTS}",
    }


def format_report(report: dict[str, Any]) -> str:
    lines = []
    if "engine_actions_per_s" in report:
        lines.append(
            f"engine: {report['engine_actions_per_s']:,} actions/s"
            f" (median of {len(report['engine_actions_per_s_repeats'])};"
            f" best {report['engine_actions_per_s_best']:,}) over {report['engine_rounds']} rounds"
        )
    if "sim_rounds_per_s" in report:
        lines.append(
            f"simulator ({report['sim_bots']}, {report['sim_rounds_per_repeat']:,} rounds per repeat):"
            f" {report['sim_rounds_per_s']:,} rounds/s on 1 worker,"
            f" {report['sim_rounds_per_s_2_workers']:,} on 2 (x{report['sim_speedup_2_workers']})"
            f" (medians of {len(report['sim_rounds_per_s_repeats'])}; best x{report['sim_speedup_2_workers_best']})"
        )
    build = "compiled (mypyc)" if report["compiled"] else "interpreted"
    lines.append(f"Python {report['python']}, {build}, {report['machine']}")
    return "\n".join(lines)
