"""``ligretto bench``: the engine's and the simulator's figures (``ligretto.bench``), or with
``--only fairness`` races over real WebSockets (``ligretto.harness.fairness``), or with
``--only tempo`` how often simulated cheats and people are flagged (``ligretto.sim.tempo``)."""

from __future__ import annotations

import argparse
import json

from ligretto.cli.numbers import COUNT, decimal, whole
from ligretto.cli.options import Commands, UsageError
from ligretto.engine.races import DEFAULT_WINDOW_MS, MAX_WINDOW_MS

FAIRNESS = "--only fairness"
FAIR_OPTIONS = ("races", "tables", "window", "near_ms", "far_ms", "jitter_ms", "level", "lie_ms", "quick")
"""The options only the fairness benchmark takes (their group in ``ligretto bench -h``)."""


def add_parser(commands: Commands) -> None:
    bench = commands.add_parser(
        "bench",
        help="measure the engine's speed (and, only with --only fairness, races over real WebSockets)",
        description="Without --only: the engine and simulator figures (docs/benchmarks.md). The fairness"
        " benchmark (docs/fairness.md) takes minutes and runs only with --only fairness.",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--actions", type=COUNT, default=300_000, help="actions per repeat (default 300000)")
    bench.add_argument(
        "--repeats", type=COUNT, default=5, help="repeats of each figure; median and best reported (default 5)"
    )
    bench.add_argument(
        "--sim-rounds",
        type=COUNT,
        help="simulated rounds per repeat of the simulator figures (default: --actions / 75, i.e. 4000)",
    )
    only = "measure only the engine, the simulator, or races over WebSockets (minutes; not in a plain bench)"
    only += "; tempo: inhuman speed flagged in simulated rounds (--sim-rounds per case, default 1000)"
    bench.add_argument("--only", choices=("engine", "sim", "fairness", "tempo"), help=only)
    fair = bench.add_argument_group(FAIRNESS)
    fair.add_argument("--races", type=COUNT, help="races per judging mode (default 1200: about ±0.03)")
    fair.add_argument("--tables", type=COUNT, help="two-seat tables per mode, all at once (default 80)")
    fair.add_argument(
        "--window",
        type=whole(0, MAX_WINDOW_MS),
        metavar="MS",
        help=f"the fair window in ms, 0-{MAX_WINDOW_MS} (default {DEFAULT_WINDOW_MS})",
    )
    fair.add_argument("--near-ms", type=decimal(), help="the near client's one-way delay (default 10)")
    fair.add_argument("--far-ms", type=decimal(), help="the far client's one-way delay (default 100)")
    fair.add_argument("--jitter-ms", type=decimal(), help="each way's jitter, U(0, ms) (default 0)")
    fair.add_argument("--level", help="the bots' level (default skilled; the strategy is smart)")
    fair.add_argument("--lie-ms", type=decimal(), help="how early the liar stamps (default 500)")
    fair.add_argument("--quick", action="store_true", help="a smoke run: 4 tables, 20 races, bots 4 times faster")


def run(args: argparse.Namespace) -> int:
    if args.only != "fairness":
        given = [name for name in FAIR_OPTIONS if getattr(args, name) is not None and getattr(args, name) is not False]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} is for {FAIRNESS}")
    if args.only == "fairness":
        from ligretto.harness import fairness

        try:
            settings = fairness.settings_from(vars(args))
        except ValueError as error:
            raise UsageError(str(error)) from None
        report = fairness.run(settings)
        print(json.dumps(report, indent=2) if args.json else fairness.format_report(report))
        return 0
    if args.only == "tempo":
        from ligretto.sim import tempo

        report = tempo.measure(args.sim_rounds or 1000)
        print(json.dumps(report, indent=2) if args.json else tempo.format_report(report))
        return 0
    from ligretto import bench

    report = bench.run(actions=args.actions, repeats=args.repeats, sim_rounds=args.sim_rounds, only=args.only)
    print(json.dumps(report, indent=2) if args.json else bench.format_report(report))
    return 0
