"""``ligretto bench``: the engine's speed, measured the same way every time.

``engine_actions_per_s``: 4 players under ``classic``; at each step a uniformly
random seat asks for its legal actions and applies a uniformly random one of
its card actions (plays and turns; stalemate votes are left out so that rounds
run to Stop or to a proven stalemate, as real ones do).  Dealing, legal-action
generation, applying, events and the stalemate proof are all inside the timing;
one core.  Repeated, and the median repeat is reported.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from typing import Any

from ligretto.engine import Round, RuleSet


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


def run(actions: int = 300_000, repeats: int = 5) -> dict[str, Any]:
    """Measure and report as a JSON-ready dict."""
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
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }


def format_report(report: dict[str, Any]) -> str:
    return (
        f"engine: {report['engine_actions_per_s']:,} actions/s"
        f" (median of {len(report['engine_actions_per_s_repeats'])};"
        f" best {report['engine_actions_per_s_best']:,}) over {report['engine_rounds']} rounds,"
        f" Python {report['python']}, {report['machine']}"
    )
