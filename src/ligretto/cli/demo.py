"""``ligretto demo`` (one seeded round between plain bots) and ``ligretto rules`` (the rule
options and presets): the engine alone, no server, no clients."""

from __future__ import annotations

import argparse
import json

from ligretto.cli.numbers import PLAYERS, SEED
from ligretto.cli.options import Commands, add_rules_arguments, rules_from_args
from ligretto.engine.rules import PRESETS, RuleSet, written


def add_demo_parser(commands: Commands) -> None:
    demo = commands.add_parser("demo", help="play one seeded round between simple bots and print its score sheet")
    demo.add_argument("--players", type=PLAYERS, default=4, help="2-12 players (default 4)")
    demo.add_argument("--seed", type=SEED, default=1, help="the round's seed (default 1)")
    demo.add_argument("--position", action="store_true", help="also print the final position")
    add_rules_arguments(demo)


def add_rules_parser(commands: Commands) -> None:
    rules = commands.add_parser("rules", help="list the rule options and presets")
    rules.add_argument("--json", action="store_true")


def run_demo(args: argparse.Namespace) -> int:
    from ligretto import demo

    print(demo.run(rules_from_args(args.rules, args.settings), args.players, args.seed, args.position))
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from ligretto.engine.rules import OPTIONS

    if args.json:
        print(json.dumps({"options": {n: o.allowed for n, o in OPTIONS.items()}, "presets": PRESETS}, indent=2))
        return 0
    # Values as they are written on the command line (`--set expert=true`), not as Python prints them.
    default = RuleSet().to_dict()
    for name, option in OPTIONS.items():
        print(f"{name:16} {option.help}; {option.allowed} (classic: {option.text(default[name])})")
    print()
    for name, changes in PRESETS.items():
        print(f"{name:10} {written(changes) or 'every default'}")
    return 0
