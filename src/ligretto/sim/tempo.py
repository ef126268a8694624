"""How well ``engine.tempo`` tells people from machines, measured on simulated rounds.

Each case seats bots at a table of four and plays ``rounds`` deals with every seat's
reactions watched (``simulate_round(..., tempo=True)``): a ``machine`` bot among three
experts, a *fast cheater* (every move a constant 80 ms: a script that waits a little to
look human) among three experts, a *steady cheater* (a constant 350 ms, as fast as an
expert but never varying), and four bots of each human-paced level.  The report gives,
per case, the share of the cheating seat's rounds in which it was flagged, or for the
human-paced tables the share of rounds in which any seat was (``ligretto bench --only
tempo``; figures in docs/fairness.md, "Inhuman speed").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ligretto.bots.reaction import LEVELS, Level
from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.engine.tempo import RULE
from ligretto.sim.table import simulate_round

FAST_CHEATER = Level("fast-cheater", react=0.03, scan=0.0, bits=0.0, reach=0.05, aim=0.0, sigma=0.0, tau=0.0)
"""Every play 80 ms after it looked, every look 30 ms (the driver's floor: 100 ms)."""
STEADY_CHEATER = Level("steady-cheater", react=0.12, scan=0.0, bits=0.0, reach=0.23, aim=0.0, sigma=0.0, tau=0.0)
"""Every play and turn 350 ms after it looked: an expert's speed, a machine's regularity."""
HUMAN_LEVELS = ("beginner", "casual", "skilled", "expert")


@dataclass(frozen=True, slots=True)
class _Scripted(BotSpec):
    """A bot whose reaction times are a :class:`Level` not offered to tables (a cheat)."""

    timing: Level = FAST_CHEATER

    @property
    def reaction(self) -> Level:
        return self.timing


def cases() -> dict[str, tuple[list[BotSpec], int | None]]:
    """Each case: its four bots, and the cheating seat (``None``: people only, any seat counts)."""
    expert = BotSpec("smart", "expert")
    found: dict[str, tuple[list[BotSpec], int | None]] = {
        "machine": ([BotSpec("smart", "machine"), expert, expert, expert], 0),
        "fast cheater (80 ms)": ([_Scripted("smart", "expert", FAST_CHEATER), expert, expert, expert], 0),
        "steady cheater (350 ms)": ([_Scripted("smart", "expert", STEADY_CHEATER), expert, expert, expert], 0),
    }
    for level in HUMAN_LEVELS:
        assert level in LEVELS
        found[f"{level} x4"] = ([BotSpec("smart", level)] * 4, None)
    return found


def measure(rounds: int, seed: int = 1) -> dict[str, Any]:
    """Play ``rounds`` deals of every case (seeds ``seed``..): the share flagged of each."""
    rules = RuleSet()
    report: dict[str, Any] = {
        "rounds": rounds,
        "rule": {
            "floor_ms": round(RULE.floor_s * 1000),
            "window": RULE.window,
            "below": RULE.below,
            "regular": RULE.regular,
            "cv": RULE.cv,
        },
        "cases": {},
    }
    for name, (bots, cheat) in cases().items():
        start = time.perf_counter()
        flagged = 0
        whys: dict[str, int] = {}
        for number in range(rounds):
            flags = simulate_round(rules, bots, seed + number, tempo=True).flags
            hit = flags.get(cheat) if cheat is not None else next(iter(flags.values()), None)
            if hit is not None:
                flagged += 1
                whys[hit.why.value] = whys.get(hit.why.value, 0) + 1
        report["cases"][name] = {
            "cheat": cheat is not None,
            "flagged": flagged,
            "share": flagged / rounds,
            "why": whys,
            "seconds": round(time.perf_counter() - start, 2),
        }
    return report


def format_report(report: dict[str, Any]) -> str:
    rule = report["rule"]
    lines = [
        f"Inhuman speed caught: {report['rounds']} rounds of 4 seats per case; rule: {rule['below']} of the last"
        f" {rule['window']} plays under {rule['floor_ms']} ms, or the last {rule['regular']} with cv < {rule['cv']}",
    ]
    for name, case in report["cases"].items():
        who = "the cheating seat flagged" if case["cheat"] else "rounds with any seat flagged"
        why = ", ".join(f"{k} {v}" for k, v in sorted(case["why"].items())) or "-"
        lines.append(
            f"  {name:<24} {case['flagged']:>6} / {report['rounds']:<6} {100 * case['share']:7.2f} %  {who} ({why})"
            f"  {case['seconds']:.1f} s"
        )
    return "\n".join(lines)
