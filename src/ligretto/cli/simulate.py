"""``ligretto simulate``: bots play many seeded rounds or matches in virtual time
(``ligretto.sim``, docs/simulator.md); every option checked before the first round."""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path

from ligretto.bots.spec import parse_bots
from ligretto.cli.numbers import COUNT, PLAYERS, SEED, decimal
from ligretto.cli.options import Commands, Failure, OutputError, UsageError, add_rules_arguments, rules_from_args
from ligretto.engine.races import CAP_MS, DEFAULT_WINDOW_MS

DEFAULT_ROUNDS = 1000


def add_parser(commands: Commands) -> None:
    simulate = commands.add_parser(
        "simulate",
        help="let bots play many rounds or matches in virtual time and report statistics",
        description="Let bots play many seeded rounds or matches in virtual time (see docs/simulator.md).",
    )
    simulate.add_argument("--players", type=PLAYERS, default=4, help="2-12 players (default 4)")
    amount = simulate.add_mutually_exclusive_group()
    amount.add_argument("--rounds", type=COUNT, help="deals to play (default 1000)")
    amount.add_argument("--matches", type=COUNT, help="matches to play, each until the rules' match_end")
    simulate.add_argument(
        "--bots",
        default="smart:skilled",
        metavar="SPEC",
        help="strategy:level per seat, comma-separated, or one for every seat (default smart:skilled)",
    )
    add_rules_arguments(simulate)
    simulate.add_argument("--seed", type=SEED, default=1, help="master seed (default 1)")
    simulate.add_argument(
        "--workers", type=COUNT, help="worker processes (default: all cores); with --ray: Ray tasks in flight"
    )
    simulate.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="play on Ray: a local Ray started for the run, or the cluster at ADDRESS (HOST:PORT, auto,"
        " ray://HOST:PORT); the same results as worker processes (needs ligretto[ray])",
    )
    simulate.add_argument("--duplicate", action="store_true", help="replay every deal with the bots rotated")
    simulate.add_argument(
        "--latency",
        metavar="MS",
        help="one-way network delay per seat in ms, comma-separated, or one for all (default: none)",
    )
    simulate.add_argument("--jitter", metavar="MS", help="each message's extra delay U(0, MS) per seat, or one for all")
    simulate.add_argument(
        "--arbitration",
        choices=("arrival", "fair"),
        help="how races for a pile are judged: by arrival, or fair (compensated for delay; docs/fairness.md)",
    )
    simulate.add_argument(
        "--window", type=decimal(), metavar="MS", help=f"fair: hold a contested play at most MS ({DEFAULT_WINDOW_MS})"
    )
    simulate.add_argument(
        "--cap", type=decimal(), metavar="MS", help=f"fair: credit each seat at most MS of one-way delay ({CAP_MS})"
    )
    simulate.add_argument("--json", type=Path, metavar="FILE", help="write config, every round and the summary")
    simulate.add_argument("--csv", type=Path, metavar="FILE", help="write one row per round per seat")
    simulate.add_argument("--plot", type=Path, metavar="FILE.png", help="write score and round-length plots")
    simulate.add_argument("--quiet", action="store_true", help="no progress bar")
    simulate.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a module first (one that registers your own strategies)",
    )


def run(args: argparse.Namespace) -> int:
    from ligretto.sim import report
    from ligretto.sim.network import LatencyError, latency_from_ms
    from ligretto.sim.onray import RayUnavailable
    from ligretto.sim.runner import SimConfig, SimConfigError

    # every check before the first round, so a typo never costs a long run
    for module in args.imports:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise OutputError(f"--import {module}: {error}") from None
    rules = rules_from_args(args.rules, args.settings)
    rules.row_length(args.players)  # 2-12 players
    bots = parse_bots(args.bots, args.players)
    try:
        latency = latency_from_ms(
            args.players,
            args.latency,
            jitter=args.jitter,
            arbitration=args.arbitration,
            window=args.window,
            cap=args.cap,
        )
    except LatencyError as error:
        raise UsageError(str(error)) from None
    for option in ("json", "csv", "plot"):
        path: Path | None = getattr(args, option)
        if path is not None:
            check_output(f"--{option}", path)
    config = SimConfig(
        rules=rules,
        bots=tuple(bots),
        rounds=None if args.matches is not None else args.rounds or DEFAULT_ROUNDS,
        matches=args.matches,
        seed=args.seed,
        duplicate=args.duplicate,
        workers=args.workers,
        latency=latency,
        ray=args.ray,
    )
    try:
        report.simulate(config, json_path=args.json, csv_path=args.csv, plot_path=args.plot, quiet=args.quiet)
    except RayUnavailable as error:  # --ray where no Ray answers, or without Ray installed
        raise Failure(str(error)) from None
    except SimConfigError as error:  # e.g. --ray with something that is no address
        raise UsageError(str(error)) from None
    return 0


def check_output(option: str, path: Path) -> None:
    """Refuse (:class:`OutputError`) an output file that could not be written: in no
    directory, or one this user may not write to, or itself a directory."""
    folder = path.parent
    if not folder.is_dir():
        raise OutputError(f"{option} {path}: no such directory {str(folder)!r}")
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a directory")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise OutputError(f"{option} {path}: not allowed to write there")
